#include "supervisor/event_log.hpp"

#include "common/mail_codec.hpp"

namespace rfms {

void toLogEvent(std::uint64_t k, const SupervisorEvent& e, proto::LogEvent& le) {
  // Callers reuse one message for every event: what a guarded or force-controlled move's event set
  // must not stay on the next one. Clear() keeps the memory, so reuse stays free of the heap.
  le.Clear();
  le.set_period(e.period != 0 ? e.period : k);
  switch (e.kind) {
    case SupervisorEvent::kMoveStarted: le.set_kind(proto::LogEvent::MOVE_STARTED); break;
    case SupervisorEvent::kMoveCompleted: le.set_kind(proto::LogEvent::MOVE_COMPLETED); break;
    case SupervisorEvent::kMoveAborted: le.set_kind(proto::LogEvent::MOVE_ABORTED); break;
    case SupervisorEvent::kStateChanged: le.set_kind(proto::LogEvent::STATE_CHANGED); break;
    case SupervisorEvent::kEmergency: le.set_kind(proto::LogEvent::EMERGENCY); break;
  }
  le.set_move_id(e.move_id);
  le.set_state(e.state);
  le.set_reason(e.reason);
  le.set_node(e.node);
  encodeMoveEnd(e, le);
}

void prepareLogEvent(proto::LogEvent& out) {
  SupervisorEvent every;
  every.kind = SupervisorEvent::kMoveCompleted;
  every.guarded = every.yielded = every.force.valid = true;
  toLogEvent(0, every, out);
  out.Clear();
}

std::vector<proto::LogEvent> eventsOf(std::uint64_t k, const SupervisorOutbox& out) {
  std::vector<proto::LogEvent> events(static_cast<std::size_t>(out.event_count));
  for (int i = 0; i < out.event_count; ++i)
    toLogEvent(k, out.events[static_cast<std::size_t>(i)], events[static_cast<std::size_t>(i)]);
  return events;
}

}  // namespace rfms
