#include "supervisor/event_log.hpp"

#include "common/mail_codec.hpp"

namespace rfms {

namespace {
// Into a cleared message.
void write(std::uint64_t k, const SupervisorEvent& e, proto::LogEvent& le) {
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
  if (e.axis >= 0) le.set_axis(static_cast<std::uint32_t>(e.axis + 1)), le.set_axis_in_tool(e.axis_in_tool);
  encodeMoveEnd(e, le);
}
}  // namespace

void toLogEvent(std::uint64_t k, const SupervisorEvent& e, proto::LogEvent& le) {
  // What a guarded or force-controlled move's event set must not stay on the next one.
  le.Clear();
  write(k, e, le);
}

ReusedLogEvent::ReusedLogEvent()
    : pose_(std::make_unique<proto::Transform3x4>()), force_(std::make_unique<proto::ForceFigures>()) {
  // Their repeated fields and the figures' end pose grown to what an event writes, once.
  SupervisorEvent every;
  every.guarded = every.has_force = every.yielded = true;
  fill(0, every);
  fill(0, SupervisorEvent{});
}

const proto::LogEvent& ReusedLogEvent::fill(std::uint64_t k, const SupervisorEvent& e) noexcept {
  if (event_.has_contact_pose()) pose_.reset(event_.release_contact_pose());
  if (event_.has_force()) force_.reset(event_.release_force());
  event_.Clear();
  if (e.guarded) event_.set_allocated_contact_pose(pose_.release());
  if (e.has_force) event_.set_allocated_force(force_.release());
  write(k, e, event_);
  return event_;
}

std::vector<proto::LogEvent> eventsOf(std::uint64_t k, const SupervisorOutbox& out) {
  std::vector<proto::LogEvent> events(static_cast<std::size_t>(out.event_count));
  for (int i = 0; i < out.event_count; ++i)
    toLogEvent(k, out.events[static_cast<std::size_t>(i)], events[static_cast<std::size_t>(i)]);
  return events;
}

}  // namespace rfms
