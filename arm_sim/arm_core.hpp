// The emulated arm: the plant the controller drives. Rigid-body forward dynamics of the robot
// model integrated by RK4 in sub-steps within each period, current- or voltage-mode amplifiers
// with current and torque limits, Coulomb and viscous friction, incremental encoders quantised to
// the model's counts with an index pulse (and a latched index count) at the model's index angle,
// brakes that lock each joint when the power is off, contact between the tool and the scene's
// solids (arm_sim/contact.hpp) computed in every stage of every sub-step, and an external wrench.
// The tool sits on a force/torque sensor, rigidly, or rides on a compliant wrist as a body of its
// own (arm_sim/compliant_wrist.hpp), integrated with the arm.
//
// A pure per-period core: sense() reports period k, step() integrates [k, k+1]. No clocks, no
// sockets; allocation only in the constructor.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "arm_sim/compliant_wrist.hpp"
#include "arm_sim/contact.hpp"
#include "arm_sim/force_sensor.hpp"
#include "common/controller_settings.hpp"
#include "common/kinematics.hpp"
#include "common/period_core.hpp"
#include "common/robot_model.hpp"
#include "common/scene.hpp"
#include "proto/mailboxes.pb.h"

namespace rfms {

enum class Amplifier {
  kCurrent,  // torque command -> current (limited) -> G Kt i
  kVoltage,  // torque command -> V = R i; back-EMF then subtracts Kt G qd (Swartz's motor model)
};

struct ArmSimConfig {
  double dt = 1e-3;              // sample period, s
  double max_substep = 0.25e-3;  // RK4 step bound within a period, s
  Amplifier amplifier = Amplifier::kCurrent;
  JointVec q_initial = JointVec::Zero();  // the true joint angles at power-up, rad
  // Coulomb friction is F_s tanh(qd / v_s): smooth, so that RK4 stays accurate, and as steep as
  // the sub-step allows.
  double stiction_velocity = 0.05;    // rad/s
  double brake_torque_factor = 2.0;   // brake torque = factor * the joint's torque limit
  double brake_lock_velocity = 1e-3;  // rad/s: a braked joint slower than this (or reversing) locks
  // The amplifiers' watchdog: a joint's command that has not been renewed (the same period as the
  // last one applied) for this many periods counts as none. A realtime arm reuses the latest
  // command of a late joint for a period or two; one whose sender is gone must not drive it on.
  std::uint32_t command_timeout_periods = 10;
  // What the arm carries and can touch. The tool's mass properties belong to the model the arm is
  // built with (withTool()); the scene gives the tool point and the solids. On a compliant wrist
  // the arm takes the tool off link 6 again and moves it as a body of its own.
  Scene scene;
};

// The emulated arm's configuration from the controller's settings: its amplifiers, and its true
// power-up angles, off the park pose by a seeded draw that only calibration reveals.
ArmSimConfig armConfigFor(const RobotModel& model, const proto::ControllerSettings& s, const Scene& scene = {});

// The joints' torque commands of the period (index 0 = joint 1; nullptr: none came).
struct ArmInbox {
  std::array<const proto::TorqueCommand*, kJoints> torques{};
};

// The sensors at the end of the period: the next period's sensor mail.
struct ArmOutbox {
  proto::ArmSensors sensors;
};

class ArmCore {
 public:
  using Inbox = ArmInbox;
  using Outbox = ArmOutbox;
  ArmCore(const RobotModel& model, const ArmSimConfig& config);

  // The sensor mailbox of the current period: before the first step, the power-up period's (each
  // step writes the next one's into its outbox).
  void sense(proto::ArmSensors& out) const;

  // Integrates over one period with the joints' torque commands, then senses. A missing command,
  // or one not renewed for command_timeout_periods, counts as zero torque and no power request.
  // Power is on only when all six joints ask for it; with power off the brakes act.
  void step(const ArmInbox& in, ArmOutbox& out) noexcept;

  // An external force (N) and moment (N m) acting at the origin of frame 6, in base coordinates
  // (a push, a test's load) besides the scene's contacts; stays until changed.
  void setExternalWrench(const Vec6& wrench) { wrench_ = wrench; }

  const JointVec& q() const { return q_; }
  const JointVec& qd() const { return qd_; }
  std::uint64_t period() const { return period_; }
  bool powered() const { return powered_; }
  // Bit j-1: joint j's command went stale (ArmSensors.stale_commands).
  std::uint32_t staleCommands() const { return stale_mask_; }
  // Bit j-1: the last period had no valid command from joint j (ArmSensors.missing_commands).
  std::uint32_t missingCommands() const { return missing_mask_; }
  // The torques actually applied at the joints in the last period (after amplifier limits).
  const JointVec& appliedTorque() const { return applied_; }
  // The scene's wrench on the tool at the end of the last period (about the tool point).
  const ContactWrench& contact() const { return contact_; }
  // The force/torque sensor, when the scene has one.
  const ForceTorqueSensor* forceSensor() const { return ft_ ? &*ft_ : nullptr; }
  // The compliant wrist, when the scene has one: the tool body and the springs' load at the end of
  // the last period.
  bool hasWrist() const { return wrist_.has_value(); }
  const ToolBody& toolBody() const { return body_; }
  const WristLoad& wristLoad() const { return wrist_load_; }
  // The tool frame T6 E at the end of the last period.
  Transform toolPose() const;
  // Seconds since power-up: the time moving surfaces have moved for.
  double time() const { return static_cast<double>(period_) * config_.dt; }

 private:
  // The arm's joints, then the tool body's centre of mass, velocity, orientation (w x y z) and
  // angular velocity (used only on a compliant wrist).
  static constexpr int kBodyX = 2 * kJoints, kBodyV = kBodyX + 3, kBodyR = kBodyV + 3, kBodyW = kBodyR + 4;
  using State = Eigen::Matrix<double, kBodyW + 3, 1>;
  State derivative(double t, const State& y) const;
  // The joints' acceleration with `external` joint torques (J^T of the wrenches on the flange).
  JointVec acceleration(const JointVec& q, const JointVec& qd, const JointVec& external) const;
  // The body's rate of change under its springs, the contact at its tool point and gravity.
  void toolBodyRate(const ToolBody& b, const WristLoad& load, double t, State& dy) const;
  // The scene's contact with the tool body's ball, and the ball's lever from the centre of mass.
  ContactWrench bodyContact(const ToolBody& b, double t, Vec3& lever) const;
  static ToolBody bodyOf(const State& y);
  // The scene's contact with frame 6 at `t6` moving at `twist` (J qd: its origin's velocity and
  // its angular velocity) at time t, as a wrench at frame 6's origin in base coordinates (the form
  // J^T takes); `at_tool` receives it about the tool point.
  Vec6 contactAtFlange(const Transform& t6, const Vec6& twist, double t, ContactWrench& at_tool) const;
  // The wrench the tool puts on the flange at the end of the period, in T6's axes about its
  // origin: `contact` (base axes, at the flange) and the tool's weight less the force that
  // accelerates it (the tool's turning inertia is left out: a small tool's is negligible).
  Vec6 flangeWrench(const Transform& t6, const Vec6& twist, const Vec6& contact);
  void integrate(const std::array<const proto::TorqueCommand*, kJoints>& commands);
  // Joint i's command as the amplifier takes it: nullptr once it has gone stale.
  const proto::TorqueCommand* renewed(int i, const proto::TorqueCommand* c);
  std::int64_t encoderCount(int joint, double q) const;

  RobotModel model_;  // the arm; without the tool when it rides on a compliant wrist
  ArmSimConfig config_;
  JointVec q_, qd_, q_power_up_;
  JointVec command_ = JointVec::Zero(), applied_ = JointVec::Zero();
  Vec6 wrench_ = Vec6::Zero();
  ContactWrench contact_;
  std::optional<ForceTorqueSensor> ft_;
  std::optional<WristPotentiometers> wrist_;
  ToolBody body_;
  WristLoad wrist_load_;
  Vec3 last_com_velocity_ = Vec3::Zero();
  std::array<bool, kJoints> locked_{}, index_fired_{};
  std::array<std::int64_t, kJoints> index_count_{};
  // The watchdog: each joint's last command's period, and for how many periods it was not new.
  std::array<std::uint64_t, kJoints> command_period_{};
  std::array<std::uint32_t, kJoints> unrenewed_{};
  std::array<bool, kJoints> commanded_{};
  std::uint32_t stale_mask_ = 0, missing_mask_ = 0;
  bool powered_ = false;
  std::uint64_t period_ = 0, sequence_ = 0;
  int substeps_ = 1;
};

static_assert(PeriodCore<ArmCore>);

}  // namespace rfms
