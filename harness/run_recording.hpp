// What the harness hands over each period, into a run log: the period's mailboxes and the
// supervisor's events (task requests come from TaskScript::on_request, through logRequest).
#pragma once

#include <vector>

#include "harness/harness.hpp"
#include "runlog/run_logger.hpp"
#include "supervisor/event_log.hpp"

namespace rfms {

void recordPeriod(RunLogger& log, const PeriodMail& mail);
void recordEvents(RunLogger& log, std::uint64_t k, const SupervisorOutbox& out);

}  // namespace rfms
