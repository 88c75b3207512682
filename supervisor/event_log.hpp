// The supervisor's events as run logs record them (proto/runlog.proto).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/force_figures_wire.hpp"
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
  if (e.guard_missed) out.set_guard_missed(true);
  if (e.has_force) encode(e.force, *out.mutable_force());
  if (e.yielded)
    for (int i = 0; i < 3; ++i) out.add_yielded_m(e.yield[i]);
}

// One event of period k's outbox, written into `out` (cleared first; it frees what `out` held:
// ReusedLogEvent is the period thread's form).
void toLogEvent(std::uint64_t k, const SupervisorEvent& e, proto::LogEvent& out);

// One LogEvent for every event a period's thread writes. A proto3 message's Clear() frees its
// sub-messages (a guard's contact pose, a force move's figures), so reusing a plain message would
// allocate again at every guarded or force-controlled move's end: this one takes them out before
// clearing and lends them back, all of them made when it is built. Real-time safe after that.
class ReusedLogEvent {
 public:
  ReusedLogEvent();
  ReusedLogEvent(const ReusedLogEvent&) = delete;
  ReusedLogEvent& operator=(const ReusedLogEvent&) = delete;
  const proto::LogEvent& fill(std::uint64_t k, const SupervisorEvent& e) noexcept;

 private:
  proto::LogEvent event_;
  std::unique_ptr<proto::Transform3x4> pose_;  // when not lent to event_
  std::unique_ptr<proto::ForceFigures> force_;
};

// The events of period k's outbox, in order (for the tools; allocates).
std::vector<proto::LogEvent> eventsOf(std::uint64_t k, const SupervisorOutbox& out);

}  // namespace rfms
