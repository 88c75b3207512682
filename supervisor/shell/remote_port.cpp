#include "supervisor/shell/remote_port.hpp"

#include <algorithm>
#include <chrono>

#include "common/refusal.hpp"
#include "supervisor/world_status.hpp"

namespace rfms {

LogBudget& RemotePort::refusalsOf(std::uint64_t key_id) {
  if (auto it = refusals_.find(key_id); it != refusals_.end()) return it->second;
  if (refusals_.size() >= kKeysLogged) return others_;
  return refusals_.try_emplace(key_id, 5, 200, 120).first->second;
}

void RemotePort::sayHeldBack() {
  const auto now = LogBudget::Clock::now();
  if (now - said_ < std::chrono::seconds(1)) return;
  said_ = now;
  for (auto& [key_id, budget] : refusals_)
    if (const std::uint64_t n = budget.heldBack(now))
      log_.info("{} more refused remote requests of key {:x} not logged", n, key_id);
  if (const std::uint64_t n = others_.heldBack(now)) log_.info("{} more refused remote requests not logged", n);
}

void RemotePort::serve(std::uint64_t k, SupervisorBackground& supervisor, std::int64_t step_ns) {
  sayHeldBack();
  for (int n = 0; n < kPerPeriod; ++n) {
    zmq::message_t identity, payload;
    if (!router_.recv(identity, zmq::recv_flags::dontwait)) return;
    if (!identity.more() || !router_.recv(payload, zmq::recv_flags::dontwait)) continue;
    if (!in_.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
      log_.warn("task endpoint: a message that does not parse; dropped");
      continue;
    }
    out_.Clear();
    if (in_.has_task_request()) {
      proto::TaskReply& r = *out_.mutable_task_reply();
      bool reached_core = false;
      r = desk_.accept(in_.task_request(), supervisor, k, &reached_core);
      // The next step computes the first setpoints that see it (at an update instant).
      if (in_.task_request().arrived_ns() > 0) {
        const auto now = std::chrono::system_clock::now().time_since_epoch();
        const auto ns =
            std::max<std::int64_t>(step_ns, std::chrono::duration_cast<std::chrono::nanoseconds>(now).count());
        r.set_arrival_to_setpoint_ms(static_cast<double>(ns - in_.task_request().arrived_ns()) * 1e-6);
      }
      if (!r.accepted()) {
        std::uint64_t held_back = 0;
        LogBudget& budget = refusalsOf(in_.task_request().key_id());
        const bool write = budget.take(LogBudget::Clock::now(), held_back);
        if (held_back > 0)
          log_.info("{} more refused remote requests of key {:x} not logged", held_back, in_.task_request().key_id());
        if (write)
          log_.info("remote request {} of session {:x} (key {:x}) refused ({}): {}", r.number(), r.session(),
                    in_.task_request().key_id(), refusalName(refusalCodeOf(r)), budget.cut(r.reason()));
      }
      supervisor.commit(tap_.record(in_.task_request(), r, !reached_core, supervisor.world()));
    } else if (in_.has_status_request()) {
      desk_.status(supervisor.view(), k, *out_.mutable_status());
      describeWorld(supervisor.world(), supervisor.view().trajectory, *out_.mutable_status());
      out_.mutable_status()->set_session(in_.status_request().session());
      desk_.watchStatus(in_.status_request().session(), k, *out_.mutable_status());
    } else {
      continue;
    }
    out_.SerializeToString(&buffer_);
    router_.send(identity, zmq::send_flags::sndmore);
    router_.send(zmq::buffer(buffer_), zmq::send_flags::dontwait);
  }
}

}  // namespace rfms
