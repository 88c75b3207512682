#include "supervisor/supervisor_core.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "common/drive_transform.hpp"
#include "common/kinematics.hpp"
#include "common/mail_codec.hpp"
#include "common/number_text.hpp"
#include "common/sensed_wrench.hpp"

namespace rfms {

SupervisorConfig supervisorConfigFor(const proto::ControllerSettings& s, const Scene& scene) {
  SupervisorConfig c;
  c.tool = scene.tool;
  c.force_sensor = scene.sensor != SensorKind::kNone;
  if (scene.sensor == SensorKind::kCompliantWrist) c.wrist = scene.wrist;
  c.max_force = s.force().max_force_n();
  c.max_moment = s.force().max_moment_nm();
  c.dt = sampleSeconds(s);
  c.update_periods = static_cast<int>(s.update_periods());
  c.watchdog_periods = static_cast<int>(s.watchdog_periods());
  c.serial_ik = s.serial_ik();
  c.log_required = s.log().required();
  c.max_names = s.max_names();
  c.max_names_per_key = s.max_names_per_key();
  c.tracking = s.tracking();
  c.frames.history = s.tracking().history_ms() * 1e-3;
  c.frames.max_lead = s.tracking().max_lead_ms() * 1e-3;
  // A setpoint computed now is used by the joints one update later, and the arm's sensors report a
  // period after that: a moving frame is carried on by as much.
  c.frames.delay = (c.update_periods + 1) * c.dt;
  return c;
}

namespace {
proto::Node jointNode(int i) { return static_cast<proto::Node>(proto::NODE_JOINT1 + i); }

const char* stateName(proto::RtState s) { return proto::RtState_Name(s).c_str() + 3; }

// A step jog's bounds: half a turn of the joint, and as many counts as any encoder here has in
// one (the PUMA 260's finest has about 40,000 a joint revolution).
constexpr std::int64_t kMaxJogCounts = 1000000;
constexpr double kMaxJogAngle = std::numbers::pi;
}  // namespace

SupervisorCore::SupervisorCore(const RobotModel& model, const SupervisorConfig& config)
    : model_(model),
      config_(config),
      ik_(model),
      world_(config.max_names, config.frames),
      trajectory_(model, world_, setpointLimits(model, config.tracking), config.tracking.filter()),
      force_(config.dt, config.max_force, config.max_moment) {
  trajectory_.reset(JointVec::Zero());
}

// What the supervisor's settings and scene refuse of a motion's force control (its own soundness
// is the world model's to check).
std::string SupervisorCore::forceRefusal(const proto::DefineMotion& d) const {
  if (d.compensation() > 0.0 && !config_.wrist)
    return "deflection compensation needs a compliant wrist, and the scene has none";
  if (!d.has_force()) return "";
  const proto::ForceControl& f = d.force();
  if (f.force_axes() != 0 && !config_.force_sensor) return "force control needs a force sensor, and the scene has none";
  for (int i = 0; i < f.force_size() && i < 6; ++i) {
    const double limit = i < 3 ? config_.max_force : config_.max_moment;
    if (std::abs(f.force(i)) >= limit)
      return "its force setpoint of " + numberText(f.force(i)) + (i < 3 ? " N" : " N m") +
             " is not below the force limit (controller.force, " + numberText(limit) + "), which would stop the arm";
  }
  return "";
}

bool SupervisorCore::allCalibrated() const {
  for (bool c : calibrated_)
    if (!c) return false;
  return true;
}

proto::TaskReply SupervisorCore::handle(const proto::TaskRequest& request) {
  proto::TaskReply reply;
  reply.set_id(request.id());
  std::string reason;
  std::uint64_t move_id = 0;
  switch (request.body_case()) {
    case proto::TaskRequest::kTransform: reason = world_.defineTransform(request.transform()); break;
    case proto::TaskRequest::kPosition: reason = world_.definePosition(request.position()); break;
    case proto::TaskRequest::kMotion:
      if (request.motion().guard_n() > 0.0 && !config_.force_sensor)
        reason =
            "motion '" + request.motion().name() + "': a guarded motion needs a force sensor, and the scene has none";
      else if (request.motion().guard_n() >= config_.max_force)
        reason = "motion '" + request.motion().name() + "': its guard of " +
                 std::to_string(request.motion().guard_n()) +
                 " N is not below the force limit (controller.force.max_force_n, " + std::to_string(config_.max_force) +
                 " N), which would stop the arm first";
      else if (const std::string why = forceRefusal(request.motion()); !why.empty())
        reason = "motion '" + request.motion().name() + "': " + why;
      else
        reason = world_.defineMotion(request.motion());
      break;
    case proto::TaskRequest::kMove: reason = acceptMove(request.move(), move_id); break;
    case proto::TaskRequest::kForget: reason = forget(request.forget()); break;
    case proto::TaskRequest::kControl: reason = control(request.control()); break;
    case proto::TaskRequest::kBegin:
    case proto::TaskRequest::kEnd: reason = "tasks are opened and closed by remote clients"; break;
    case proto::TaskRequest::kWatch:
      reason = "signals are watched by remote clients; a task script has the run log";
      break;
    case proto::TaskRequest::BODY_NOT_SET: reason = "empty request"; break;
  }
  reply.set_accepted(reason.empty());
  // A reason quotes what the client sent: bounded, whatever it sent.
  constexpr std::size_t kMaxReason = 300;
  if (reason.size() > kMaxReason) reason = reason.substr(0, kMaxReason) + "...";
  reply.set_reason(reason);
  reply.set_move_id(move_id);
  return reply;
}

void SupervisorCore::logStopped(const std::string& why) {
  if (!config_.log_required || !halted_.empty()) return;
  halted_ = "the run log stopped writing (" + why + ") and the run requires a log (log.required): the arm is held";
  proto::Control stop;
  stop.set_command(proto::CC_STOP);
  control(stop);
}

std::string SupervisorCore::acceptMove(const proto::Move& move, std::uint64_t& id) {
  if (!halted_.empty()) return halted_;
  const bool holding = state_ == proto::RT_HOLD && !state_request_;
  const bool following = state_ == proto::RT_SETP || (state_request_ && requested_ == proto::RT_SETP);
  if (!holding && !following)
    return std::string("wrong state ") + stateName(state_) + ": moves are accepted in HOLD or SETP";
  if (!allCalibrated()) return "the arm is not calibrated";
  const int p = world_.findPosition(move.position());
  if (p < 0) return "unknown position '" + move.position() + "'";
  const int m = world_.findMotion(move.motion());
  if (m < 0) return "unknown motion '" + move.motion() + "'";
  if (trajectory_.queued() >= TrajectoryGenerator::kQueueCapacity) return "the move queue is full";
  // At rest in HOLD the trajectory starts where the joints hold.
  if (holding && !trajectory_.queueEnd().moving) trajectory_.reset(servo_setpoint_);

  const MotionRecord& motion = world_.motion(m);
  const QueueEnd from = trajectory_.queueEnd();
  const ArmConfig config = motion.cartesian ? from.config : world_.position(p).config;
  const Transform target = world_.solve(p);
  const IkSolution end = ik_.solveSerial(target, config, from.q);
  if (end.status == IkStatus::kWristSingular)
    return "position '" + move.position() + "' is at a wrist singularity (theta5 = 0) in configuration " +
           config.toString();
  if (end.status != IkStatus::kOk)
    return "position '" + move.position() + "' cannot be reached in configuration " + config.toString() + ": " +
           describe(end.status);
  if (motion.cartesian) {
    // The line the trajectory will drive: the tool frame's, when the position names a tool.
    const Transform tool = world_.tool(p);
    const Vec6 d = driveParams(from.pose, target, tool);
    JointVec near = from.q;
    for (int n = 1; n < config_.path_check_samples; ++n) {
      const double r = static_cast<double>(n) / config_.path_check_samples;
      const IkSolution s = ik_.solveSerial(drivenT6(from.pose, r * d, tool), config, near);
      if (!usable(s.status))
        return "the straight line to '" + move.position() + "' leaves the workspace " +
               std::to_string(static_cast<int>(100 * r)) + "% of the way: " + describe(s.status);
      near = s.q;
    }
  }
  if (from.moving && from.cartesian == motion.cartesian && from.accel > motion.segment - motion.accel)
    return "motion '" + move.motion() + "': its segment time leaves no straight part after the " +
           std::to_string(from.accel) + " s transition from the previous move";

  id = next_move_id_++;
  trajectory_.enqueue(MoveSpec{id, p, m});
  if (holding) {
    requested_ = proto::RT_SETP;
    state_request_ = true;
  }
  return "";
}

std::string SupervisorCore::forget(const proto::Forget& f) {
  const bool position = f.kind() == proto::Forget::FK_POSITION, motion = f.kind() == proto::Forget::FK_MOTION;
  const int p = position ? world_.findPosition(f.name()) : -1;
  const int m = motion ? world_.findMotion(f.name()) : -1;
  if ((p >= 0 || m >= 0) && trajectory_.uses(p, m))
    return std::string("forget: ") + (position ? "position '" : "motion '") + f.name().substr(0, 64) +
           "' is used by a move queued or running: forget it once that move has ended";
  return world_.forget(f);
}

bool SupervisorCore::restingInSetp(proto::RtState s) const {
  return s == proto::RT_SETP && !state_request_ && trajectory_.atRest() && trajectory_.queued() == 0;
}

std::string SupervisorCore::axisJog(const proto::Control& c, proto::RtState s) {
  if (c.axis() < proto::JA_X || c.axis() > proto::JA_RZ) return "jog: the axis must be x, y, z, rx, ry or rz";
  if (c.joint() != 0) return "jog: a joint or an axis, not both";
  if (c.direction() != 1 && c.direction() != -1) return "jog: direction must be +1 or -1";
  if (c.counts() != 0) return "jog: counts are for a joint; along an axis give a distance or an angle";
  const bool turn = c.axis() >= proto::JA_RX;
  if (turn && c.distance() != 0.0) return "jog: a turn about an axis takes an angle, not a distance";
  if (!turn && c.angle() != 0.0) return "jog: a move along an axis takes a distance, not an angle";
  if (c.distance() != 0.0 && !(std::isfinite(c.distance()) && c.distance() > 0.0 && c.distance() <= 1.0))
    return "jog: the distance must be a positive number of metres, at most 1";
  if (c.angle() != 0.0 && !(std::isfinite(c.angle()) && c.angle() > 0.0 && c.angle() <= kMaxJogAngle))
    return "jog: the angle must be a positive number of radians, at most pi";
  if (!allCalibrated()) return "jog: along an axis needs a calibrated arm (before calibration, jog joints by counts)";
  // From HOLD, or MANU once a joint's jog has ended: the trajectory starts where the joints hold.
  const bool holding = s == proto::RT_HOLD || (s == proto::RT_MANU && jog_left_ == 0);
  if (!holding && !restingInSetp(s) && !(s == proto::RT_SETP && trajectory_.jogging()))
    return std::string(
               "jog: along an axis from HOLD, MANU (a joint's jog ended) or SETP with no move queued or "
               "running (now ") +
           stateName(s) + ")";
  if (holding) trajectory_.reset(servo_setpoint_);
  JogSpec spec;
  spec.axis = static_cast<int>(c.axis()) - 1;
  spec.direction = c.direction();
  spec.tool_frame = c.tool_frame();
  spec.speed = turn ? config_.jog_turn : config_.jog_speed;
  spec.length = turn ? c.angle() : c.distance();
  if (!trajectory_.jog(spec)) return "jog: the trajectory is not at rest";
  if (holding) {
    requested_ = proto::RT_SETP;
    state_request_ = true;
  }
  return "";
}

std::string SupervisorCore::control(const proto::Control& c) {
  const proto::RtState s = state_request_ ? requested_ : state_;
  auto request = [this](proto::RtState to) {
    requested_ = to;
    state_request_ = true;
    return std::string();
  };
  const std::string now = std::string(" (now ") + stateName(s) + ")";
  switch (c.command()) {
    case proto::CC_CALIBRATE:  // RFMS's order: manual (a joint jogged clear), then calibration
      if (s != proto::RT_IDLE && s != proto::RT_MANU) return "calibrate from IDLE or MANU" + now;
      return request(proto::RT_CALIB);
    case proto::CC_HOLD:
      if (s == proto::RT_IDLE || s == proto::RT_FREE || s == proto::RT_MANU || s == proto::RT_HOLD)
        return request(proto::RT_HOLD);
      return "hold from IDLE, FREE or MANU" + now + (s == proto::RT_SETP ? "; use stop while moving" : "");
    case proto::CC_FREE:
      if (s == proto::RT_IDLE || s == proto::RT_HOLD || s == proto::RT_MANU) return request(proto::RT_FREE);
      return "free from IDLE, HOLD or MANU" + now;
    case proto::CC_JOG: {
      if (!halted_.empty()) return halted_;
      if (c.axis() != proto::JA_NONE) return axisJog(c, s);
      if (c.distance() != 0.0 || c.tool_frame()) return "jog: a distance or the tool frame is for a jog along an axis";
      if (c.joint() < 1 || c.joint() > kJoints) return "jog: joint must be 1..6";
      if (c.direction() != 1 && c.direction() != -1) return "jog: direction must be +1 or -1";
      // As RFMS's MANU: from IDLE too, before calibration, so that an operator can drive a joint
      // off its stop or towards its index; then it counts encoder counts, not angles.
      if (s != proto::RT_IDLE && s != proto::RT_HOLD && s != proto::RT_MANU && !restingInSetp(s))
        return "jog from IDLE, HOLD, MANU, or SETP with no move queued or running" + now;
      const std::size_t j = static_cast<std::size_t>(c.joint() - 1);
      const double counts_per_rev = model_.joints[j].counts_per_rev;
      std::int64_t counts = 0;
      if (c.counts() != 0 && c.angle() != 0.0) return "jog: give counts or an angle, not both";
      if (c.counts() < 0 || c.counts() > kMaxJogCounts)
        return "jog: counts must be 1.." + std::to_string(kMaxJogCounts) + " (0: continuous)";
      if (c.angle() != 0.0) {
        if (!(std::isfinite(c.angle()) && c.angle() > 0.0 && c.angle() <= kMaxJogAngle))
          return "jog: the angle must be a positive number of radians, at most pi";
        if (!calibrated_[j]) return "jog: joint " + std::to_string(c.joint()) + " is not calibrated: jog it by counts";
        counts = std::max<std::int64_t>(1, std::llround(c.angle() * counts_per_rev / (2.0 * std::numbers::pi)));
      } else {
        counts = c.counts();
      }
      jog_joint_ = c.joint();
      jog_direction_ = c.direction();
      jog_left_ = counts > 0 ? counts : -1;
      return request(proto::RT_MANU);
    }
    case proto::CC_STOP:
      if (s == proto::RT_SETP) return request(proto::RT_STOP);
      if (s == proto::RT_MANU || s == proto::RT_FREE || s == proto::RT_CALIB) return request(proto::RT_HOLD);
      return "";
    case proto::CC_RESET:
      if (s != proto::RT_EMGCY) return "reset is for EMGCY" + now;
      return request(proto::RT_IDLE);
    case proto::CC_POWER_OFF:
      if (s == proto::RT_EMGCY) return "";
      return request(proto::RT_IDLE);
    case proto::CC_EMERGENCY_STOP: pending_reason_ = proto::ER_OPERATOR; return "";
    default: return "unknown control command";
  }
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

void SupervisorCore::step(std::uint64_t k, const SupervisorInbox& in, SupervisorOutbox& out) {
  out.event_count = 0;
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
