// The supervisor's events as run logs record them (proto/runlog.proto).
#pragma once

#include <cstdint>
#include <vector>

#include "common/mail_codec.hpp"
#include "proto/runlog.pb.h"
#include "supervisor/supervisor_core.hpp"

namespace rfms {

// What a move's end says beyond its id (a guard's contact, a force move's figures, a compliant
// move's yield), into a run log's LogEvent or a client's MoveOutcome alike: their fields agree.
template <class Out>
void encodeMoveEnd(const SupervisorEvent& e, Out& out) {
  if (e.guarded) {
    out.set_guard_tripped(true);
    encode(e.contact_pose, *out.mutable_contact_pose());
    for (int i = 0; i < 3; ++i) out.add_contact_force(e.contact_force[i]);
  }
  if (e.force.valid) encode(e.force, *out.mutable_force());
  if (e.yielded)
    for (int i = 0; i < 3; ++i) out.add_yielded_m(e.yield[i]);
}

// One event of period k's outbox, written into `out` (real-time safe: a reused message).
void toLogEvent(std::uint64_t k, const SupervisorEvent& e, proto::LogEvent& out);

// Grows `out` once to hold any event (a guard's contact, a force move's figures, a compliant move's
// yield) and clears it again: toLogEvent's Clear() keeps that memory, so a message prepared before
// the periods start is never allocated into from the period's thread.
void prepareLogEvent(proto::LogEvent& out);

// The events of period k's outbox, in order (for the tools; allocates).
std::vector<proto::LogEvent> eventsOf(std::uint64_t k, const SupervisorOutbox& out);

}  // namespace rfms
