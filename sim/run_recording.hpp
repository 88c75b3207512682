// What the harness hands over each period, into a run log: the period's mailboxes and the
// supervisor's events (task requests come from TaskScript::on_request).
#pragma once

#include <vector>

#include "runlog/run_logger.hpp"
#include "sim/harness.hpp"
#include "supervisor/event_log.hpp"

namespace rfms {

// The harness's settings as a log's header keys ("harness.dt_s", ...), and back: a log carries
// everything needed to build the same controller again. Keys missing from `kv` keep their defaults.
mcap::KeyValues settingsOf(const HarnessConfig& c);
HarnessConfig harnessConfigFrom(const mcap::KeyValues& kv);

void recordPeriod(RunLogger& log, const PeriodMail& mail);
void recordEvents(RunLogger& log, std::uint64_t k, const SupervisorOutbox& out);
void recordRequest(RunLogger& log, std::uint64_t k, const proto::TaskRequest& request, const proto::TaskReply& reply);

}  // namespace rfms
