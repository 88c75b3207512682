// What the harness hands over each period, into a run log: the period's mailboxes and the
// supervisor's events (task requests come from TaskScript::on_request).
#pragma once

#include "runlog/run_logger.hpp"
#include "sim/harness.hpp"

namespace rfms {

void recordPeriod(RunLogger& log, const PeriodMail& mail);
void recordEvents(RunLogger& log, std::uint64_t k, const SupervisorOutbox& out);
void recordRequest(RunLogger& log, std::uint64_t k, const proto::TaskRequest& request, const proto::TaskReply& reply);

}  // namespace rfms
