// The supervisor's two sides wired together: the background (requests) and the period (steps),
// with the link between them, for one thread that drives both, as the in-process harness, the
// tests and a replay do.
#pragma once

#include <cstdint>
#include <string>

#include "supervisor/period_command.hpp"
#include "supervisor/supervisor_background.hpp"
#include "supervisor/supervisor_core.hpp"

namespace rfms {

class Supervisor {
 public:
  Supervisor(const RobotModel& model, const SupervisorConfig& config)
      : core_(model, config, link_), background_(model, config, link_) {
    // Between two steps the commands can be applied at once: what the next step would do first.
    background_.whenFull([this] { apply(); });
  }
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // A request, checked by the background and applied at once: with one thread, nothing can happen
  // between now and the next step, which would apply it first.
  proto::TaskReply handle(const proto::TaskRequest& request) {
    proto::TaskReply reply = background_.handle(request);
    background_.commit();
    apply();
    return reply;
  }
  void logStopped(const std::string& why) {
    background_.logStopped(why);
    apply();
  }
  void step(const SupervisorInbox& in, SupervisorOutbox& out) noexcept {
    core_.step(in, out);
    core_.releaseCommands();
  }

  SupervisorCore& core() { return core_; }
  const SupervisorCore& core() const { return core_; }
  SupervisorBackground& background() { return background_; }
  const WorldModel& world() const { return background_.world(); }

 private:
  void apply() {
    core_.takeCommands();
    core_.releaseCommands();
  }

  SupervisorLink link_;
  SupervisorCore core_;
  SupervisorBackground background_;
};

}  // namespace rfms
