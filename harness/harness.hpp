// The in-process harness: the supervisor, six joint servers, the math server and the emulated arm
// wired directly, one period at a time, in the order of docs/architecture.md ("One period"). Deterministic: the same
// configuration and requests give bit-identical mailboxes. The cores exchange only protobuf
// mailboxes (copies), exactly what the distributed cluster sends over ZeroMQ.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>

#include "arm_sim/arm_core.hpp"
#include "joint_node/joint_core.hpp"
#include "math_node/math_core.hpp"
#include "supervisor/supervisor.hpp"

namespace rfms {

// Everything exchanged in one period, for recorders and tests.
struct PeriodMail {
  std::uint64_t k = 0;
  const proto::ArmSensors* sensors = nullptr;
  const proto::SMail* smail = nullptr;
  const proto::MMail* mmail = nullptr;
  const proto::Parcel* parcel = nullptr;
  std::array<const proto::JMail*, kJoints> jmail{};
  std::array<const proto::TorqueCommand*, kJoints> torque{};
  const SupervisorOutbox* supervisor = nullptr;
};

class Harness {
 public:
  // Checks the settings (ConfigError naming the field) and builds every core from them, as the
  // cluster's processes do: every core's model carries the scene's tool, and the arm its surfaces.
  Harness(const RobotModel& model, const proto::ControllerSettings& settings, const Scene& scene = {});

  // A task request, taken by the supervisor's background side before the next period.
  proto::TaskReply request(const proto::TaskRequest& r) { return supervisor_.handle(r); }
  // The run log stopped writing (SupervisorBackground::logStopped).
  void logStopped(const std::string& why) { supervisor_.logStopped(why); }

  // Runs one period.
  void step();
  // Runs until `done()` holds or `max_periods` have passed; true if done() held.
  bool runUntil(const std::function<bool()>& done, std::uint64_t max_periods);

  // Fault injection: from now on this node's mail is not delivered (a killed process).
  void silence(proto::Node node) { silenced_[static_cast<std::size_t>(node)] = true; }
  ArmCore& arm() { return arm_; }
  // The supervisor's period and its background (whose world model holds the names).
  const SupervisorCore& supervisor() const { return supervisor_.core(); }
  SupervisorCore& supervisor() { return supervisor_.core(); }
  SupervisorBackground& background() { return supervisor_.background(); }
  const WorldModel& world() const { return supervisor_.world(); }
  const JointCore& joint(int i) const { return *joints_[static_cast<std::size_t>(i - 1)]; }
  std::uint64_t period() const { return k_; }
  double dt() const { return sampleSeconds(settings_); }
  const proto::ControllerSettings& settings() const { return settings_; }
  const RobotModel& model() const { return model_; }  // with the scene's tool
  const proto::JMail& jmail(int i) const { return joint_out_[static_cast<std::size_t>(i - 1)].jmail; }
  const SupervisorOutbox& lastOutbox() const { return outbox_; }

  // Called after every period with that period's mail.
  std::function<void(const PeriodMail&)> on_period;

 private:
  bool delivered(proto::Node node) const { return !silenced_[static_cast<std::size_t>(node)]; }

  const RobotModel model_;
  proto::ControllerSettings settings_;
  Supervisor supervisor_;
  MathCore math_;
  std::array<std::unique_ptr<JointCore>, kJoints> joints_;
  ArmCore arm_;

  std::uint64_t k_ = 0;
  std::array<bool, kNodeSlots> silenced_{};
  ArmOutbox arm_out_;  // the sensors the arm's last step sensed
  proto::ArmSensors delivered_sensors_;
  SupervisorOutbox outbox_;
  MathOutbox math_out_;
  std::array<JointOutbox, kJoints> joint_out_;
  bool first_ = true;
};

}  // namespace rfms
