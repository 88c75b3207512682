#include "supervisor/shell/event_follower.hpp"

#include "common/mail_names.hpp"

namespace rfms {

void EventFollower::take(const SupervisorOutbox& out) noexcept {
  for (int n = 0; n < out.event_count; ++n)
    if (!events_.push(out.events[static_cast<std::size_t>(n)])) lost_.fetch_add(1, std::memory_order_relaxed);
}

void EventFollower::follow(TaskScript* script, RemotePort* remote, EventFile* file) {
  for (const SupervisorEvent* e = events_.front(); e != nullptr; e = events_.front()) {
    if (script != nullptr) script->note(*e);
    if (remote != nullptr) remote->note(*e);
    if (file != nullptr) file->note(*e);
    logLine(*e);
    events_.pop();
  }
  if (const std::uint64_t late = late_ticks_.exchange(0, std::memory_order_acquire); late > 0)
    log_.warn("period {}: {} tick(s) late; skipped", late_period_.load(std::memory_order_relaxed), late);
  if (const std::uint64_t lost = lost_.exchange(0); lost > 0)
    log_.error("{} events of the period were lost: the background fell behind", lost);
}

void EventFollower::logLine(const SupervisorEvent& e) {
  switch (e.kind) {
    case SupervisorEvent::kStateChanged: log_.info("period {}: state {}", e.period, stateName(e.state)); break;
    case SupervisorEvent::kEmergency:
      log_.error("period {}: EMGCY: {}{}{} ({})", e.period, describe(e.reason), e.axis >= 0 ? ", along " : "",
                 forceAxisName(e.axis, e.axis_in_tool), nodeName(e.node));
      break;
    case SupervisorEvent::kMoveStarted: log_.info("period {}: move #{} started", e.period, e.move_id); break;
    case SupervisorEvent::kMoveCompleted: log_.info("period {}: move #{} completed", e.period, e.move_id); break;
    case SupervisorEvent::kMoveAborted: log_.warn("period {}: move #{} aborted", e.period, e.move_id); break;
  }
}

}  // namespace rfms
