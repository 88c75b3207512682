#include "supervisor/supervisor_core.hpp"

#include <algorithm>

#include "common/kinematics.hpp"
#include "common/mail_codec.hpp"
#include "common/mail_names.hpp"
#include "supervisor/mail_composer.hpp"

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
      force_(model, config_),
      rt_(config.watchdog_periods) {
  trajectory_.reset(JointVec::Zero());
}

bool SupervisorCore::allCalibrated() const {
  for (bool c : calibrated_)
    if (!c) return false;
  return true;
}

void SupervisorCore::apply(const PeriodCommand& c) {
  auto request = [this](proto::RtState to) { rt_.request(to); };
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
    case PeriodCommand::kEmergencyStop: rt_.requestEmergencyStop(); break;
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
  v.state = rt_.state();
  v.traj_state = trajectory_.state();
  v.reason = rt_.reason();
  v.reason_node = rt_.node();
  v.reason_axis = forceAxisName(rt_.axis(), rt_.axisInTool());
  v.calibrated = calibrated_;
  v.servo_setpoint = servo_setpoint_;
  v.angles = angle_;
  v.jog_left = jog_left_;
  trajectory_.tail(v.trajectory);
  v.jog_stopped_why = trajectory_.stoppedShort() ? trajectory_.stoppedWhy() : nullptr;
  v.senses_force = force_.sensesForce();
  v.wrench = force_.sensedWrench();
  v.contact = force_.contact();
  v.wrench_saturated = force_.saturated();
  link_.view.publish();
}

void SupervisorCore::setState(proto::RtState s, std::uint64_t k, SupervisorOutbox& out) {
  if (s == rt_.state()) return;
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
  rt_.enter(s, k);
  forwardEvents(k, events, out);
  SupervisorEvent e;
  e.kind = SupervisorEvent::kStateChanged;
  e.period = k;
  e.state = s;
  out.add(e);
}

void SupervisorCore::emergency(const RtStateMachine::Verdict& v, std::uint64_t k, SupervisorOutbox& out) {
  if (!rt_.latch(v)) return;
  setState(proto::RT_EMGCY, k, out);
  SupervisorEvent e;
  e.kind = SupervisorEvent::kEmergency;
  e.period = k;
  e.state = proto::RT_EMGCY;
  e.reason = v.reason;
  e.node = v.node;
  e.axis = v.axis;
  e.axis_in_tool = v.axis_in_tool;
  out.add(e);
}

void SupervisorCore::collect(std::uint64_t k, const SupervisorInbox& in) {
  // The arm keeps its own clock in realtime: its mail counts when the shell passes it on (the
  // shell decides what is fresh: of period k in lockstep, of the last period or two in realtime).
  if (in.arm != nullptr) rt_.heard(proto::NODE_ARM, k);
  force_.read(in.arm);
  for (int i = 0; i < kJoints; ++i) {
    const proto::JMail* j = in.joints[static_cast<std::size_t>(i)];
    if (j == nullptr || k == 0 || j->header().period() != k - 1) continue;
    rt_.heard(jointNode(i), k);
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
  force_.estimateContact(angle_);
  fresh_parcel_ = nullptr;
  if (in.parcel != nullptr && k > 0 && in.parcel->header().period() == k - 1) {
    rt_.heard(proto::NODE_MATH, k);
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
    e.state = rt_.state();
    // A guarded move that ends by any other way than its guard found nothing to touch.
    if (e.kind == SupervisorEvent::kMoveStarted) guarded_move_ = t.guard > 0.0 ? e.move_id : 0;
    if (e.kind == SupervisorEvent::kMoveCompleted && e.move_id == guarded_move_ && e.move_id != guard_met_move_)
      e.guard_missed = true;
    if (e.kind == SupervisorEvent::kMoveCompleted)
      if (const std::optional<ForceFigures> f = force_.figures(e.move_id, angle_)) e.has_force = true, e.force = *f;
    if (e.kind == SupervisorEvent::kMoveCompleted && trajectory_.restarted()) {
      e.yielded = true;
      e.yield = trajectory_.yielded();
    }
    out.add(e);
  }
  events.count = 0;
}

void SupervisorCore::checkForce(std::uint64_t k, SupervisorOutbox& out) {
  if (!force_.sensesForce() || !RtStateMachine::powers(rt_.state())) return;
  if (force_.overLimits()) {
    emergency({proto::ER_FORCE_LIMIT, proto::NODE_ARM}, k, out);
    return;
  }
  if (const proto::EmergencyReason why = force_.loopFault(); why != proto::ER_NONE) {
    RtStateMachine::Verdict v{why, proto::NODE_SUPERVISOR};
    v.axis = force_.loopFaultAxis(v.axis_in_tool);
    emergency(v, k, out);
    return;
  }
  if (rt_.state() != proto::RT_SETP || !force_.guardMet(trajectory_.guard())) return;
  const std::uint64_t id = trajectory_.currentMove();
  guard_met_move_ = id;
  TrajectoryEvents events;
  trajectory_.halt(angle_, events);
  const int first = out.event_count;
  forwardEvents(k, events, out);
  for (int n = first; n < out.event_count; ++n) {
    SupervisorEvent& e = out.events[static_cast<std::size_t>(n)];
    if (e.kind != SupervisorEvent::kMoveCompleted || e.move_id != id) continue;
    e.guarded = true;
    e.contact_pose = force_.toolFrame(angle_);
    e.contact_force = force_.contact().head<3>();
  }
}

void SupervisorCore::watch(std::uint64_t k, const SupervisorInbox& in, SupervisorOutbox& out) {
  if (rt_.state() != proto::RT_EMGCY)
    if (const RtStateMachine::Verdict v = rt_.silentNode(k)) emergency(v, k, out);
  if (const RtStateMachine::Verdict v = rt_.powerLost(k, in.arm)) emergency(v, k, out);
  if (RtStateMachine::powers(rt_.state()))
    for (int i = 0; i < kJoints && rt_.state() != proto::RT_EMGCY; ++i)
      if (const RtStateMachine::Verdict v = RtStateMachine::jointFault(i + 1, faults_[static_cast<std::size_t>(i)]))
        emergency(v, k, out);
  checkForce(k, out);
  if (const RtStateMachine::Verdict v = rt_.takeEmergencyStop()) emergency(v, k, out);
}

void SupervisorCore::step(const SupervisorInbox& in, SupervisorOutbox& out) noexcept {
  const std::uint64_t k = in.period;
  out.event_count = 0;
  // The background's commands first: it checked them against the state before this step.
  takeCommands();
  world_.setClock(static_cast<double>(k) * config_.dt);
  collect(k, in);

  watch(k, in, out);
  if (proto::RtState to; rt_.takeRequest(to)) setState(to, k, out);
  if (rt_.state() == proto::RT_CALIB && allCalibrated() && have_joint_mail_) setState(proto::RT_HOLD, k, out);

  bool new_setpoint = false;
  if ((rt_.state() == proto::RT_SETP || rt_.state() == proto::RT_STOP) &&
      k % static_cast<std::uint64_t>(config_.update_periods) == 0) {
    TrajectoryEvents events;
    trajectory_.observe(setpoint_, angle_);
    const bool ok = trajectory_.update(config_.update_periods * config_.dt, events);
    forwardEvents(k, events, out);
    if (!ok)
      emergency({proto::ER_UNREACHABLE, proto::NODE_SUPERVISOR}, k, out);
    else
      new_setpoint = true;
    if (rt_.state() == proto::RT_STOP && trajectory_.atRest()) setState(proto::RT_HOLD, k, out);
  }
  compose(k, new_setpoint, jogThisPeriod(), out);
  publish(k);
}

int SupervisorCore::jogThisPeriod() {
  if (rt_.state() != proto::RT_MANU || jog_joint_ == 0 || jog_left_ == 0) return 0;
  if (jog_left_ < 0) return config_.jog_counts;
  const int now = static_cast<int>(std::min<std::int64_t>(config_.jog_counts, jog_left_));
  jog_left_ -= now;
  return now;
}

void SupervisorCore::compose(std::uint64_t k, bool new_setpoint, int jog_now, SupervisorOutbox& out) {
  const bool following = rt_.state() == proto::RT_SETP || rt_.state() == proto::RT_STOP;
  const MotionRecord* forced = following ? trajectory_.forceMotion() : nullptr;
  force_.command(forced, trajectory_.currentMove(), trajectory_.pose(), angle_, velocity_, out.smail);
  MailFacts f;
  if (following && forced == nullptr) {
    f.t6 = force_.compensated(trajectory_.pose(), trajectory_.compensator(), trajectory_.currentMove(),
                              trajectory_.compliance(), angle_);
  } else {
    // A move's compensation is in the setpoints the arm holds when it ends; the next starts anew.
    force_.resetCompensation();
    f.t6 = forced != nullptr ? force_.forcedT6() : forwardKinematics(model_, servo_setpoint_);
  }
  f.period = k;
  f.sequence = ++sequence_;
  f.state = rt_.state();
  f.traj_state = following ? trajectory_.state() : proto::TS_S0;
  f.power = RtStateMachine::powers(rt_.state());
  f.config = following ? trajectory_.config() : ik_.configOf(servo_setpoint_);
  f.new_setpoint = new_setpoint;
  f.setpoint_restart = new_setpoint && trajectory_.restarted();
  f.update_periods = config_.update_periods;
  f.serial_ik = config_.serial_ik;
  f.setpoints = &setpoint_;
  f.desired_acceleration = &desired_acc_;
  f.servo_error = &error_;
  f.angles = &angle_;
  f.velocities = &velocity_;
  f.angles_period = angles_period_;
  f.compliance = following ? trajectory_.compliance() : 0u;
  f.compliance_in_tool = forced != nullptr && forced->force.tool_frame;
  f.at_tool_point = forced != nullptr;
  f.jog_joint = jog_joint_;
  f.jog_direction = jog_direction_;
  f.jog_counts = jog_now;
  f.parcel = fresh_parcel_;
  composeMail(f, out.smail, out.mmail);
}

}  // namespace rfms
