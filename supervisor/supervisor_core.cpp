#include "supervisor/supervisor_core.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "common/kinematics.hpp"
#include "common/mail_codec.hpp"
#include "common/sensed_wrench.hpp"

namespace rfms {

namespace {
proto::Node jointNode(int i) { return static_cast<proto::Node>(proto::NODE_JOINT1 + i); }
}  // namespace

SupervisorCore::SupervisorCore(const RobotModel& model, const SupervisorConfig& config, SupervisorLink& link)
    : model_(model),
      config_(config),
      link_(link),
      ik_(model),
      world_(config.max_names, config.frames),
      trajectory_(model, world_, setpointLimits(model, config.tracking), config.tracking.filter()),
      force_(config.dt, config.max_force, config.max_moment) {
  trajectory_.reset(JointVec::Zero());
}

bool SupervisorCore::allCalibrated() const {
  for (bool c : calibrated_)
    if (!c) return false;
  return true;
}

void SupervisorCore::apply(const PeriodCommand& c) {
  auto request = [this](proto::RtState to) {
    requested_ = to;
    state_request_ = true;
  };
  switch (c.kind) {
    case PeriodCommand::kTransform: world_.setTransform(c.index, c.value, c.history); break;
    case PeriodCommand::kPosition: world_.setPosition(c.index, c.position); break;
    case PeriodCommand::kMotion: world_.setMotion(c.index, c.motion); break;
    case PeriodCommand::kMove:
    case PeriodCommand::kJog:
      if (c.reset) trajectory_.reset(servo_setpoint_);
      if (c.kind == PeriodCommand::kMove)
        trajectory_.enqueue(c.move);
      else
        trajectory_.jog(c.jog);
      if (c.to_setp) request(proto::RT_SETP);
      break;
    case PeriodCommand::kJointJog:
      jog_joint_ = c.joint;
      jog_direction_ = c.direction;
      jog_left_ = c.counts;
      request(proto::RT_MANU);
      break;
    case PeriodCommand::kState: request(c.state); break;
    case PeriodCommand::kEmergencyStop: pending_reason_ = proto::ER_OPERATOR; break;
    case PeriodCommand::kNone: break;
  }
  ++applied_;
}

void SupervisorCore::takeCommands() noexcept {
  for (const PeriodCommand* c = link_.commands.peek(taken_); c != nullptr; c = link_.commands.peek(taken_)) {
    apply(*c);
    ++taken_;
  }
}

void SupervisorCore::releaseCommands() noexcept {
  link_.commands.pop(taken_);
  taken_ = 0;
}

void SupervisorCore::publish(std::uint64_t k) {
  SupervisorView& v = link_.view.back();
  v.period = k;
  v.applied = applied_;
  v.state = state_;
  v.traj_state = trajectory_.state();
  v.reason = reason_;
  v.reason_node = reason_node_;
  v.calibrated = calibrated_;
  v.servo_setpoint = servo_setpoint_;
  v.angles = angle_;
  v.jog_left = jog_left_;
  trajectory_.tail(v.trajectory);
  v.jog_stopped_why = trajectory_.stoppedShort() ? trajectory_.stoppedWhy() : nullptr;
  v.senses_force = has_wrench_;
  v.wrench = wrench_;
  v.contact = contact_;
  v.wrench_saturated = wrench_saturated_;
  link_.view.publish();
}

void SupervisorCore::setState(proto::RtState s, std::uint64_t k, SupervisorOutbox& out) {
  if (s == state_) return;
  TrajectoryEvents events;
  switch (s) {
    case proto::RT_IDLE:
    case proto::RT_EMGCY: trajectory_.abort(events); break;
    case proto::RT_HOLD:
    case proto::RT_FREE:
    case proto::RT_MANU:
    case proto::RT_CALIB:
      if (trajectory_.atRest()) trajectory_.reset(servo_setpoint_);
      break;
    case proto::RT_STOP: trajectory_.stop(events); break;
    default: break;
  }
  if (s == proto::RT_IDLE) reason_ = proto::ER_NONE, reason_node_ = proto::NODE_NONE;
  if (!powers(state_) && powers(s)) power_since_ = k;
  state_ = s;
  forwardEvents(k, events, out);
  SupervisorEvent e;
  e.kind = SupervisorEvent::kStateChanged;
  e.period = k;
  e.state = s;
  out.add(e);
}

bool SupervisorCore::powers(proto::RtState s) { return s != proto::RT_IDLE && s != proto::RT_EMGCY; }

// The power request travels S_MAIL -> joints -> arm and comes back in the arm's sensors a period
// later in lockstep, a few later in realtime; after that, an arm without power while the
// controller keeps it on means a torque command went missing. Ignoring it would let a paused joint
// drop the power silently, for as long as it stays paused.
bool SupervisorCore::powerExpected(std::uint64_t k) const {
  constexpr std::uint64_t kPowerOnPeriods = 10;
  return powers(state_) && k >= power_since_ + kPowerOnPeriods;
}

// The joint whose command the arm missed first (lowest number); the arm itself when none is named.
proto::Node SupervisorCore::culprit(std::uint32_t missing_commands) {
  for (int i = 0; i < kJoints; ++i)
    if ((missing_commands >> i & 1u) != 0) return jointNode(i);
  return proto::NODE_ARM;
}

void SupervisorCore::emergency(proto::EmergencyReason reason, proto::Node node, std::uint64_t k,
                               SupervisorOutbox& out) {
  if (state_ == proto::RT_EMGCY) return;
  reason_ = reason;
  reason_node_ = node;
  state_request_ = false;
  setState(proto::RT_EMGCY, k, out);
  SupervisorEvent e;
  e.kind = SupervisorEvent::kEmergency;
  e.period = k;
  e.state = proto::RT_EMGCY;
  e.reason = reason;
  e.node = node;
  out.add(e);
}

void SupervisorCore::estimateContact() {
  contact_ = has_wrench_ ? contactFromReading(config_.tool, model_.gravity, forwardKinematics(model_, angle_), wrench_)
                         : Vec6::Zero();
}

void SupervisorCore::collect(std::uint64_t k, const SupervisorInbox& in) {
  // The arm keeps its own clock in realtime: its mail counts when the shell passes it on (the
  // shell decides what is fresh: of period k in lockstep, of the last period or two in realtime).
  if (in.arm != nullptr) last_seen_[proto::NODE_ARM] = k;
  if (in.arm != nullptr && in.arm->deflection_size() == 6)
    for (int i = 0; i < 6; ++i) deflection_[i] = in.arm->deflection(i);
  if (in.arm != nullptr &&
      sensedFlangeWrench(*in.arm, config_.wrist ? &*config_.wrist : nullptr, config_.tool, wrench_)) {
    wrench_saturated_ = in.arm->wrench_saturated();
    has_wrench_ = true;
  }
  for (int i = 0; i < kJoints; ++i) {
    const proto::JMail* j = in.joints[static_cast<std::size_t>(i)];
    if (j == nullptr || k == 0 || j->header().period() != k - 1) continue;
    last_seen_[static_cast<std::size_t>(jointNode(i))] = k;
    angle_[i] = j->angle();
    velocity_[i] = j->velocity();
    setpoint_[i] = j->setpoint();
    servo_setpoint_[i] = j->servo_setpoint();
    desired_acc_[i] = j->desired_acceleration();
    error_[i] = j->servo_error();
    calibrated_[static_cast<std::size_t>(i)] = j->calibrated();
    faults_[static_cast<std::size_t>(i)] = j->faults();
    angles_period_ = k - 1;
    have_joint_mail_ = true;
  }
  estimateContact();
  fresh_parcel_ = nullptr;
  if (in.parcel != nullptr && k > 0 && in.parcel->header().period() == k - 1) {
    last_seen_[proto::NODE_MATH] = k;
    fresh_parcel_ = in.parcel;  // routed on in this period's S_MAIL
  }
}

void SupervisorCore::forwardEvents(std::uint64_t k, TrajectoryEvents& events, SupervisorOutbox& out) {
  for (int n = 0; n < events.count; ++n) {
    const TrajectoryEvent& t = events.items[static_cast<std::size_t>(n)];
    SupervisorEvent e;
    e.kind = t.kind == TrajectoryEvent::kStarted     ? SupervisorEvent::kMoveStarted
             : t.kind == TrajectoryEvent::kCompleted ? SupervisorEvent::kMoveCompleted
                                                     : SupervisorEvent::kMoveAborted;
    e.period = k;
    e.move_id = t.move_id;
    e.state = state_;
    if (e.kind == SupervisorEvent::kMoveCompleted && e.move_id == force_stats_move_ && force_stats_move_ != 0) {
      e.force = force_stats_.figures(config_.dt);
      e.force.end_pose = forwardKinematics(model_, angle_) * config_.tool.frame;
    }
    if (e.kind == SupervisorEvent::kMoveCompleted && trajectory_.restarted()) {
      e.yielded = true;
      e.yield = trajectory_.yielded();
    }
    out.add(e);
  }
  events.count = 0;
}

void SupervisorCore::checkForce(std::uint64_t k, SupervisorOutbox& out) {
  if (!has_wrench_ || !powers(state_) || state_ == proto::RT_EMGCY) return;
  const Vec6 c = contactWrench();
  const double force = c.head<3>().norm();
  if (wrench_saturated_ != 0 || force > config_.max_force || c.tail<3>().norm() > config_.max_moment) {
    emergency(proto::ER_FORCE_LIMIT, proto::NODE_ARM, k, out);
    return;
  }
  const double guard = trajectory_.guard();
  if (state_ != proto::RT_SETP || guard <= 0.0 || force < guard) return;
  const std::uint64_t id = trajectory_.currentMove();
  TrajectoryEvents events;
  trajectory_.halt(angle_, events);
  const int first = out.event_count;
  forwardEvents(k, events, out);
  for (int n = first; n < out.event_count; ++n) {
    SupervisorEvent& e = out.events[static_cast<std::size_t>(n)];
    if (e.kind != SupervisorEvent::kMoveCompleted || e.move_id != id) continue;
    e.guarded = true;
    e.contact_pose = forwardKinematics(model_, angle_) * config_.tool.frame;
    e.contact_force = c.head<3>();
  }
}

void SupervisorCore::step(const SupervisorInbox& in, SupervisorOutbox& out) noexcept {
  const std::uint64_t k = in.period;
  out.event_count = 0;
  // The background's commands first: it checked them against the state before this step.
  takeCommands();
  world_.setClock(static_cast<double>(k) * config_.dt);
  collect(k, in);

  if (state_ != proto::RT_EMGCY) {
    // Watchdog: every node must be heard from at least once every N periods.
    const std::uint64_t n = static_cast<std::uint64_t>(config_.watchdog_periods);
    for (proto::Node node : {proto::NODE_ARM, proto::NODE_JOINT1, proto::NODE_JOINT2, proto::NODE_JOINT3,
                             proto::NODE_JOINT4, proto::NODE_JOINT5, proto::NODE_JOINT6, proto::NODE_MATH}) {
      if (k > last_seen_[static_cast<std::size_t>(node)] + n) {
        emergency(proto::ER_NODE_SILENT, node, k, out);
        break;
      }
    }
  }
  if (powerExpected(k) && in.arm != nullptr && !in.arm->powered()) {
    // A joint that also missed its J_MAIL is a silent node (paused, stalled or dead), named at
    // once rather than after the watchdog's N periods.
    const proto::Node node = culprit(in.arm->missing_commands());
    const bool silent = node != proto::NODE_ARM && last_seen_[static_cast<std::size_t>(node)] != k;
    emergency(silent ? proto::ER_NODE_SILENT : proto::ER_POWER_LOST, node, k, out);
  }
  if (powers(state_)) {
    for (int i = 0; i < kJoints && state_ != proto::RT_EMGCY; ++i) {
      const std::uint32_t f = faults_[static_cast<std::size_t>(i)];
      if (f & proto::JF_RANGE)
        emergency(proto::ER_JOINT_LIMIT, jointNode(i), k, out);
      else if (f & proto::JF_FOLLOWING)
        emergency(proto::ER_FOLLOWING_ERROR, jointNode(i), k, out);
      else if (f & proto::JF_SATURATION)
        emergency(proto::ER_SATURATION, jointNode(i), k, out);
      else if (f & proto::JF_IK)
        emergency(proto::ER_IK_FAILURE, jointNode(i), k, out);
      else if (f & proto::JF_CALIBRATION)
        emergency(proto::ER_CALIBRATION, jointNode(i), k, out);
    }
  }
  checkForce(k, out);
  if (pending_reason_ != proto::ER_NONE) {
    emergency(pending_reason_, proto::NODE_SUPERVISOR, k, out);
    pending_reason_ = proto::ER_NONE;
  }
  if (state_request_) {
    state_request_ = false;
    // Only a reset leaves EMGCY.
    if (state_ != proto::RT_EMGCY || requested_ == proto::RT_IDLE) setState(requested_, k, out);
  }
  if (state_ == proto::RT_CALIB && allCalibrated() && have_joint_mail_) setState(proto::RT_HOLD, k, out);

  bool new_setpoint = false;
  if ((state_ == proto::RT_SETP || state_ == proto::RT_STOP) &&
      k % static_cast<std::uint64_t>(config_.update_periods) == 0) {
    TrajectoryEvents events;
    trajectory_.observe(setpoint_, angle_);
    const bool ok = trajectory_.update(config_.update_periods * config_.dt, events);
    forwardEvents(k, events, out);
    if (!ok)
      emergency(proto::ER_UNREACHABLE, proto::NODE_SUPERVISOR, k, out);
    else
      new_setpoint = true;
    if (state_ == proto::RT_STOP && trajectory_.atRest()) setState(proto::RT_HOLD, k, out);
  }
  compose(k, new_setpoint, jogThisPeriod(), out);
  publish(k);
}

int SupervisorCore::jogThisPeriod() {
  if (state_ != proto::RT_MANU || jog_joint_ == 0 || jog_left_ == 0) return 0;
  if (jog_left_ < 0) return config_.jog_counts;
  const int now = static_cast<int>(std::min<std::int64_t>(config_.jog_counts, jog_left_));
  jog_left_ -= now;
  return now;
}

void SupervisorCore::compose(std::uint64_t k, bool new_setpoint, int jog_now, SupervisorOutbox& out) {
  proto::SMail& s = out.smail;
  const bool following = state_ == proto::RT_SETP || state_ == proto::RT_STOP;
  s.mutable_header()->set_period(k);
  s.mutable_header()->set_sequence(++sequence_);
  s.set_rtstate(state_);
  s.set_traj_state(following ? trajectory_.state() : proto::TS_S0);
  s.set_power(powers(state_));
  const MotionRecord* forced = following ? trajectory_.forceMotion() : nullptr;
  commandForce(forced, s);
  if (following && forced == nullptr) {
    encode(compensated(trajectory_.pose()), *s.mutable_t6());
  } else {
    // A move's compensation is in the setpoints the arm holds when it ends; the next starts anew.
    compensation_.setZero();
    encode(forced != nullptr ? force_.setpoint() * config_.tool.frame.inverse(Eigen::Isometry)
                             : forwardKinematics(model_, servo_setpoint_),
           *s.mutable_t6());
  }
  encode(following ? trajectory_.config() : ik_.configOf(servo_setpoint_), *s.mutable_config());
  s.set_new_setpoint(new_setpoint);
  s.set_setpoint_restart(new_setpoint && trajectory_.restarted());
  s.set_update_periods(static_cast<std::uint32_t>(config_.update_periods));
  encodeSetpoints(setpoint_, s);
  encode(desired_acc_, s.mutable_desired_acceleration());
  encode(error_, s.mutable_servo_error());
  s.set_compliance(following ? trajectory_.compliance() : 0u);
  s.set_jog_joint(jog_now > 0 ? jog_joint_ : 0);
  s.set_jog_direction(jog_now > 0 ? jog_direction_ : 0);
  s.set_jog_counts(jog_now);
  if (fresh_parcel_ != nullptr)
    copyParcel(*fresh_parcel_, *s.mutable_parcel());
  else
    s.mutable_parcel()->set_joint(0);  // none this period: no joint takes it
  s.set_serial_ik(config_.serial_ik);

  proto::MMail& m = out.mmail;
  m.mutable_header()->set_period(k);
  m.mutable_header()->set_sequence(sequence_);
  encode(angle_, m.mutable_angles());
  encode(velocity_, m.mutable_velocities());
  m.set_angles_period(angles_period_);
  m.set_compliance(following ? trajectory_.compliance() : 0u);
  m.set_parcel_joint(static_cast<std::uint32_t>(k % kJoints) + 1);
  m.set_compliance_in_tool(forced != nullptr && forced->force.tool_frame);
  m.set_at_tool_point(forced != nullptr);
}

Transform SupervisorCore::compensated(const Transform& t6) {
  const double k1 = trajectory_.compensation();
  if (k1 <= 0.0 && compensation_.isZero()) return t6;
  // A.1's Eq. 15: the flange is moved back by K1 of the tool's measured deflection, along the
  // position-controlled axes (the compliant ones are the arm's to yield along), so that the tool
  // settles where the path puts it: X/F = (1 - K1) / K.
  Vec3 back = Vec3::Zero();
  if (k1 > 0.0) {
    back = -k1 * (forwardKinematics(model_, angle_).linear() * deflection_.head<3>());
    for (int d = 0; d < 3; ++d)
      if ((trajectory_.compliance() >> d) & 1u) back[d] = 0.0;
  }
  // Through a 5 Hz low pass, so that the setpoint never steps: the joints' IK extrapolates from
  // successive setpoints, and a jump of millimetres in one period reads as metres a second. (A
  // move without compensation blended onto one with it lets the offset decay the same way.)
  constexpr double kCompensationHz = 5.0;
  compensation_ += (1.0 - std::exp(-2.0 * std::numbers::pi * kCompensationHz * config_.dt)) * (back - compensation_);
  if (k1 <= 0.0 && compensation_.norm() < 1e-9) compensation_.setZero();
  Transform t = t6;
  t.translation() += compensation_;
  return t;
}

void SupervisorCore::commandForce(const MotionRecord* forced, proto::SMail& s) {
  if (forced == nullptr) {
    force_.stop();
    s.clear_force_command();
    return;
  }
  const ForceInputs in =
      forceInputsAt(model_, angle_, velocity_, trajectory_.pose(), config_.tool.frame, contactWrench());
  encode(force_.update(forced->force, forced->compliance, trajectory_.currentMove(), in), s.mutable_force_command());

  const ForceSpec& spec = forced->force;
  if (spec.force_axes == 0) return;
  Vec6 setpoint = Vec6::Zero();
  for (int d = 0; d < 6; ++d)
    if ((spec.force_axes >> d) & 1u) setpoint[d] = spec.force[d];
  const double size = setpoint.norm();
  if (trajectory_.currentMove() != force_stats_move_) {
    force_stats_move_ = trajectory_.currentMove();
    force_stats_.begin(size);
  }
  const Vec6 applied = force_.appliedForce();
  force_stats_.add(force_.forceError().norm(), size > 0.0 ? applied.dot(setpoint) / size : 0.0);
}

}  // namespace rfms
