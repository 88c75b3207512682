// The supervisor's events as run logs record them (proto/runlog.proto).
#pragma once

#include <cstdint>
#include <vector>

#include "proto/runlog.pb.h"
#include "supervisor/supervisor_core.hpp"

namespace rfms {

// One event of period k's outbox, written into `out` (real-time safe: a reused message).
void toLogEvent(std::uint64_t k, const SupervisorEvent& e, proto::LogEvent& out);

// Grows `out` once to hold any event (a guard's contact, a force move's figures, a compliant move's
// yield) and clears it again: toLogEvent's Clear() keeps that memory, so a message prepared before
// the periods start is never allocated into from the period's thread.
void prepareLogEvent(proto::LogEvent& out);

// The events of period k's outbox, in order (for the tools; allocates).
std::vector<proto::LogEvent> eventsOf(std::uint64_t k, const SupervisorOutbox& out);

}  // namespace rfms
