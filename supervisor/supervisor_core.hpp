// The supervisor's real-time side (RFMS manual §4.1): each step applies what the background
// handed it (supervisor/supervisor_background.hpp, through SupervisorLink), collects the nodes'
// mail, lets the rtstate machine judge it, runs the trajectory generator, and sends S_MAIL to the
// joints and M_MAIL to the math server; then it publishes its view for the background. Its parts:
//   the rtstate machine (rtstate_machine.hpp): table 3's states, the watchdog and the other
//     evidence of an emergency, latched until a reset;
//   the force side (period_force.hpp): the sensor's reading, the limits and guards judged on it,
//     the force law's command and the wrist's compensation;
//   the mail's composition (mail_composer.hpp), a pure function of what the step decided;
//   the trajectory generator (trajectory.hpp) and the world model's values (world_values.hpp).
// This class carries the decisions out: a transition stops or drops the moves and writes events.
//
// Mail of period k-1 (J_MAIL, PARCEL) and the arm's sensors of period k are its inputs at period
// k. A node silent for `watchdog_periods` periods sends the controller to EMGCY naming it; so
// does any joint fault, and an arm without power while the controller keeps the power on (a
// torque command missed the arm: ER_POWER_LOST naming the joint). EMGCY switches the power off
// (the arm's brakes stop it), drops every move and latches until a reset, which returns to IDLE.
//
// step() is real-time safe: no allocation once the outgoing mails' repeated fields exist, and
// nothing from outside but the link's commands.
#pragma once

#include <array>
#include <cstdint>

#include "common/ik_opw.hpp"
#include "common/mail_names.hpp"
#include "common/period_core.hpp"
#include "proto/mailboxes.pb.h"
#include "supervisor/force_stats.hpp"
#include "supervisor/period_command.hpp"
#include "supervisor/period_force.hpp"
#include "supervisor/rtstate_machine.hpp"
#include "supervisor/supervisor_config.hpp"
#include "supervisor/trajectory.hpp"
#include "supervisor/world_values.hpp"

namespace rfms {

struct SupervisorInbox {
  std::uint64_t period = 0;                           // k: the period this step runs
  const proto::ArmSensors* arm = nullptr;             // period k (the arm's own, in realtime)
  std::array<const proto::JMail*, kJoints> joints{};  // period k-1
  const proto::Parcel* parcel = nullptr;              // period k-1
};

struct SupervisorEvent {
  enum Kind { kMoveStarted, kMoveCompleted, kMoveAborted, kStateChanged, kEmergency } kind = kStateChanged;
  std::uint64_t period = 0;
  std::uint64_t move_id = 0;
  proto::RtState state = proto::RT_IDLE;
  proto::EmergencyReason reason = proto::ER_NONE;
  proto::Node node = proto::NODE_NONE;
  int axis = -1;              // kEmergency of a force move's loop: along x y z (0 .. 2) ...
  bool axis_in_tool = false;  // ... of the tool frame, else the base's
  // kMoveCompleted by a guarded motion's force: the tool frame and the contact force (N, base) then.
  bool guarded = false;
  Transform contact_pose = Transform::Identity();
  Vec3 contact_force = Vec3::Zero();
  // kMoveCompleted of a guarded motion that ran its course without meeting its force.
  bool guard_missed = false;
  // kMoveCompleted by a move under force control: how well it held its force. (A flag beside a
  // plain value, not a std::optional: events are copied in the period, and GCC 12 takes a
  // disengaged optional's copy for a read of uninitialised memory.)
  bool has_force = false;
  ForceFigures force;
  // kMoveCompleted by a move with the manual's compliance bits alone: where it came to rest less
  // where its path ended (m, base axes): how far the arm yielded along the compliant axes.
  bool yielded = false;
  Vec3 yield = Vec3::Zero();
};

struct SupervisorOutbox {
  // Storage the mail needs at once, taken now: the force command appears with the first move
  // under force control, and growing it then would allocate in the period.
  SupervisorOutbox() { smail.mutable_force_command()->Reserve(6); }
  proto::SMail smail;
  proto::MMail mmail;
  std::array<SupervisorEvent, 32> events;
  int event_count = 0;
  void add(const SupervisorEvent& e) {
    if (event_count < static_cast<int>(events.size())) events[static_cast<std::size_t>(event_count++)] = e;
  }
};

class SupervisorCore {
 public:
  using Inbox = SupervisorInbox;
  using Outbox = SupervisorOutbox;
  SupervisorCore(const RobotModel& model, const SupervisorConfig& config, SupervisorLink& link);
  SupervisorCore(const SupervisorCore&) = delete;  // its force side refers to its configuration
  SupervisorCore& operator=(const SupervisorCore&) = delete;

  // Period in.period.
  void step(const SupervisorInbox& in, SupervisorOutbox& out) noexcept;
  // Applies the background's commands now, as the next step would first. Only between steps,
  // from the thread that steps.
  void takeCommands() noexcept;
  // The commands applied since the last release, oldest first (n below takenCommands()): their
  // records are the shell's to log before it releases them to the background.
  std::size_t takenCommands() const { return taken_; }
  const PeriodCommand& takenCommand(std::size_t n) const { return *link_.commands.peek(n); }
  void releaseCommands() noexcept;

  proto::RtState rtstate() const { return rt_.state(); }
  proto::EmergencyReason emergencyReason() const { return rt_.reason(); }
  proto::Node emergencyNode() const { return rt_.node(); }
  const TrajectoryGenerator& trajectory() const { return trajectory_; }
  const WorldValues& world() const { return world_; }
  bool allCalibrated() const;
  // The joints' observed angles as last reported.
  const JointVec& observedAngles() const { return angle_; }
  // The force sensor's last reading (ArmSensors.wrench: T6's axes, about its origin), when the arm
  // has a sensor; and its saturated channels.
  bool sensesForce() const { return force_.sensesForce(); }
  const Vec6& sensedWrench() const { return force_.sensedWrench(); }
  std::uint32_t wrenchSaturated() const { return force_.saturated(); }
  // The wrench the world puts on the tool, estimated from that reading less the tool's weight:
  // base axes, the moment about the tool point. Zero without a sensor.
  // Estimated once a period, from the reading and the angles it collected.
  const Vec6& contactWrench() const { return force_.contact(); }

 private:
  void apply(const PeriodCommand& c);  // one of the background's, at the start of a step
  void publish(std::uint64_t k);       // the view, at the end of one
  void setState(proto::RtState s, std::uint64_t k, SupervisorOutbox& out);
  void emergency(const RtStateMachine::Verdict& v, std::uint64_t k, SupervisorOutbox& out);
  // The emergencies this period's mail declares: silent nodes, lost power, joint faults, the operator's stop.
  void watch(std::uint64_t k, const SupervisorInbox& in, SupervisorOutbox& out);
  void collect(std::uint64_t k, const SupervisorInbox& in);
  void forwardEvents(std::uint64_t k, TrajectoryEvents& events, SupervisorOutbox& out);
  // Force limits (an emergency) and the current move's guard (ends it), from the sensor's reading.
  void checkForce(std::uint64_t k, SupervisorOutbox& out);
  // This period's mail: the force side's command, then what the step decided (mail_composer.hpp).
  void compose(std::uint64_t k, bool new_setpoint, int jog_now, SupervisorOutbox& out);
  int jogThisPeriod();  // counts the jogged joint moves now (MANU), counting a step down

  const RobotModel& model_;
  SupervisorConfig config_;
  SupervisorLink& link_;
  OpwIk ik_;
  WorldValues world_;
  TrajectoryGenerator trajectory_;
  PeriodForce force_;

  RtStateMachine rt_;
  int jog_joint_ = 0, jog_direction_ = 0;
  std::int64_t jog_left_ = 0;  // counts of a step jog still to go; -1: a continuous jog
  std::uint64_t applied_ = 0;  // commands applied, ever
  std::size_t taken_ = 0;      // of those, still in the link (not released)

  // What the nodes last reported.
  JointVec angle_ = JointVec::Zero(), velocity_ = JointVec::Zero(), setpoint_ = JointVec::Zero();
  JointVec servo_setpoint_ = JointVec::Zero(), desired_acc_ = JointVec::Zero(), error_ = JointVec::Zero();
  std::array<bool, kJoints> calibrated_{};
  std::array<std::uint32_t, kJoints> faults_{};
  std::uint64_t angles_period_ = 0;
  std::uint64_t guarded_move_ = 0;    // the guarded move running (0: none)
  std::uint64_t guard_met_move_ = 0;  // the last move whose guard met its force
  bool have_joint_mail_ = false;
  const proto::Parcel* fresh_parcel_ = nullptr;  // this period's, valid during step() only
  std::uint64_t sequence_ = 0;
};

static_assert(PeriodCore<SupervisorCore>);

}  // namespace rfms
