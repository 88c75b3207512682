#include "supervisor/supervisor_background.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "common/compensator_loop.hpp"
#include "common/drive_transform.hpp"
#include "common/jog_step.hpp"
#include "common/mail_names.hpp"
#include "common/number_text.hpp"

namespace rfms {

SupervisorBackground::SupervisorBackground(const RobotModel& model, const SupervisorConfig& config,
                                           SupervisorLink& link)
    : model_(model),
      config_(config),
      link_(link),
      ik_(model),
      stability_(model, config_),
      world_(config.max_names, config.frames) {
  plan_.trajectory.reset(model_, ik_, JointVec::Zero());
}

const SupervisorView& SupervisorBackground::view() { return link_.view.latest(); }

void SupervisorBackground::refresh() {
  const SupervisorView& v = view();
  checked_after_ = v.period;
  world_.setClock(static_cast<double>(v.period) * config_.dt);
  // Not all taken yet: the picture stays the last one with this background's changes made. Commands
  // that carry only a run-log record change nothing in it, and are not waited for (a picture kept
  // while a client's session record is on its way would say the arm is not calibrated yet).
  const bool staged_changes = staged_present_ && staged_.kind != PeriodCommand::kNone;
  if (v.applied < last_change_pushed_ || staged_changes) return;
  plan_ = v;
  state_request_ = false;
}

void SupervisorBackground::stage(const PeriodCommand& c) {
  staged_ = c;
  staged_present_ = true;
}

void SupervisorBackground::commit(std::string_view record) {
  if (!staged_present_ && record.empty()) return;
  if (!staged_present_) {
    staged_ = PeriodCommand{};
    staged_.kind = PeriodCommand::kNone;
    checked_after_ = view().period;  // answered by the desk, against what the period shows now
  }
  staged_.record.assign(record);
  staged_.checked_after = checked_after_;
  staged_present_ = false;
  if (linkFull() && when_full_) when_full_();
  // handle() made sure of room for what it staged; a record alone may find none, and is lost.
  if (!link_.commands.push(staged_)) {
    ++lost_records_;
  } else if (staged_.kind != PeriodCommand::kNone) {
    last_change_pushed_ = link_.commands.pushed();
  }
}

bool SupervisorBackground::linkFull() const {
  return link_.commands.pushed() - link_.commands.popped() >= link_.commands.capacity();
}

// What the supervisor's settings and scene refuse of a motion's force control (its own soundness
// is the world model's to check).
Refusal SupervisorBackground::forceRefusal(const proto::DefineMotion& d) const {
  if (compensates(compensatorOf(d)) && !config_.wrist)
    return {RefusalCode::kSceneLacks, "deflection compensation needs a compliant wrist, and the scene has none"};
  if (!d.has_force()) return {};
  const proto::ForceControl& f = d.force();
  if (f.force_axes() != 0 && !config_.force_sensor)
    return {RefusalCode::kSceneLacks, "force control needs a force sensor, and the scene has none"};
  for (int i = 0; i < f.force_size() && i < 6; ++i) {
    const double limit = i < 3 ? config_.max_force : config_.max_moment;
    if (std::abs(f.force(i)) >= limit)
      return {RefusalCode::kInvalid, "its force setpoint of " + numberText(f.force(i)) + (i < 3 ? " N" : " N m") +
                                         " is not below the force limit (controller.force, " + numberText(limit) +
                                         "), which would stop the arm"};
  }
  return momentOutOfReach(f);
}

Refusal SupervisorBackground::momentOutOfReach(const proto::ForceControl& f) const {
  // The tool touches as a ball at the tool point: about that point a contact can turn it only by
  // friction at the ball's rim, at most mu N r, and N never passes the force limit without
  // stopping the arm. A moment setpoint beyond that cannot be met by any contact the scene holds;
  // the law would turn the tool until something else gave (issue 57: 33 deg for 0.3 N m).
  double mu = 0.0;
  std::string surface;
  for (const SurfaceModel& s : config_.surfaces)
    if (s.friction > mu) mu = s.friction, surface = s.name;
  const double most = mu * config_.max_force * config_.tool.tip_radius;
  for (int i = 3; i < 6 && i < f.force_size(); ++i) {
    if (((f.force_axes() >> i) & 1u) == 0 || std::abs(f.force(i)) <= most) continue;
    const std::string axis = i == 3 ? "x" : i == 4 ? "y" : "z";
    std::string why = "its moment setpoint of " + numberText(f.force(i)) + " N m about " + axis +
                      " cannot be applied: the tool touches as a ball at the tool point, which a contact turns only "
                      "by friction at its rim, ";
    if (surface.empty()) return {RefusalCode::kCannotAct, why + "and the scene's surfaces have no friction"};
    return {RefusalCode::kCannotAct, why + "at most " + numberText(most) + " N m ('" + surface + "': friction " +
                                         numberText(mu) + " x the force limit " + numberText(config_.max_force) +
                                         " N x the ball's radius " + numberText(1e3 * config_.tool.tip_radius) +
                                         " mm)"};
  }
  return {};
}

namespace {

// What is wrong with a jog's own fields, whatever the arm is doing: its target, its direction and
// its step (the task language's rule, common/jog_step).
Refusal jogShapeRefusal(const proto::Control& c) {
  const bool along_axis = c.axis() != proto::JA_NONE;
  if (along_axis && (c.axis() < proto::JA_X || c.axis() > proto::JA_RZ))
    return {RefusalCode::kInvalid, "jog: the axis must be x, y, z, rx, ry or rz"};
  if (along_axis && c.joint() != 0) return {RefusalCode::kInvalid, "jog: a joint or an axis, not both"};
  if (!along_axis && c.tool_frame()) return {RefusalCode::kInvalid, "jog: the tool frame is for a jog along an axis"};
  if (!along_axis && (c.joint() < 1 || c.joint() > kJoints)) return {RefusalCode::kInvalid, "jog: joint must be 1..6"};
  if (c.direction() != 1 && c.direction() != -1) return {RefusalCode::kInvalid, "jog: direction must be +1 or -1"};
  if (std::string why = jogStepProblem(c); !why.empty()) return {RefusalCode::kInvalid, std::move(why)};
  return {};
}

}  // namespace

void setRefusal(proto::TaskReply& reply, Refusal refusal) {
  reply.set_accepted(!refusal);
  reply.set_code(static_cast<proto::RefusalCode>(refusal.code));
  // A reason quotes what the client sent: bounded, whatever it sent.
  constexpr std::size_t kMaxReason = 300;
  if (refusal.text.size() > kMaxReason) refusal.text = refusal.text.substr(0, kMaxReason) + "...";
  reply.set_reason(std::move(refusal.text));
}

proto::TaskReply SupervisorBackground::handle(const proto::TaskRequest& request) {
  proto::TaskReply reply;
  reply.set_id(request.id());
  if (staged_present_) commit();  // a driver that forgot: what was made ready still goes
  if (linkFull() && when_full_) when_full_();
  refresh();
  Refusal refusal;
  warning_.clear();
  std::uint64_t move_id = 0;
  // Every accepted request hands the period at most one command: with no room for it, nothing
  // may change.
  if (linkFull()) {
    refusal = {RefusalCode::kTryAgain,
               "the supervisor's period has not taken the requests before this one yet: try again"};
  } else {
    switch (request.body_case()) {
      case proto::TaskRequest::kTransform:
        refusal = world_.defineTransform(request.transform());
        if (!refusal) sendPlace(PeriodCommand::kTransform, world_.findTransform(request.transform().name()));
        break;
      case proto::TaskRequest::kPosition:
        refusal = world_.definePosition(request.position());
        if (!refusal) sendPlace(PeriodCommand::kPosition, world_.findPosition(request.position().name()));
        break;
      case proto::TaskRequest::kMotion: refusal = defineMotion(request.motion()); break;
      case proto::TaskRequest::kMove: refusal = acceptMove(request.move(), move_id); break;
      case proto::TaskRequest::kForget: refusal = forget(request.forget()); break;
      case proto::TaskRequest::kControl: refusal = control(request.control()); break;
      case proto::TaskRequest::kBegin:
      case proto::TaskRequest::kEnd:
        refusal = {RefusalCode::kWrongClient, "tasks are opened and closed by remote clients"};
        break;
      case proto::TaskRequest::kWatch:
        refusal = {RefusalCode::kWrongClient, "signals are watched by remote clients; a task script has the run log"};
        break;
      case proto::TaskRequest::BODY_NOT_SET: refusal = {RefusalCode::kInvalid, "empty request"}; break;
    }
  }
  setRefusal(reply, std::move(refusal));
  if (reply.accepted()) reply.set_warning(warning_);
  reply.set_move_id(move_id);
  return reply;
}

void SupervisorBackground::sendPlace(PeriodCommand::Kind kind, int index) {
  PeriodCommand c;
  c.kind = kind;
  c.index = index;
  const WorldValues& v = world_.values();
  if (kind == PeriodCommand::kTransform) {
    c.value = v.transform(index);
    c.history = v.history(index);
  } else if (kind == PeriodCommand::kPosition) {
    c.position = v.position(index);
  } else {
    c.motion = v.motion(index);
  }
  stage(c);
}

Refusal SupervisorBackground::defineMotion(const proto::DefineMotion& d) {
  if (d.guard_n() > 0.0 && !config_.force_sensor)
    return {RefusalCode::kSceneLacks,
            "motion '" + d.name() + "': a guarded motion needs a force sensor, and the scene has none"};
  if (d.guard_n() >= config_.max_force)
    return {RefusalCode::kInvalid, "motion '" + d.name() + "': its guard of " + std::to_string(d.guard_n()) +
                                       " N is not below the force limit (controller.force.max_force_n, " +
                                       std::to_string(config_.max_force) + " N), which would stop the arm first"};
  if (Refusal why = forceRefusal(d)) return std::move(why).prefixed("motion '" + d.name() + "': ");
  MotionRecord record;
  if (Refusal why = world_.motionRecordOf(d, record)) return why;
  if (Refusal why = unstableCompensator(d.name(), record.compensator)) return why;
  Refusal refusal = world_.defineMotion(d);
  if (!refusal) sendPlace(PeriodCommand::kMotion, world_.findMotion(d.name()));
  return refusal;
}

void SupervisorBackground::logStopped(const std::string& why) {
  if (!config_.log_required || !halted_.empty()) return;
  halted_ = "the run log stopped writing (" + why + ") and the run requires a log (log.required): the arm is held";
  if (staged_present_) commit();
  refresh();
  proto::Control stop;
  stop.set_command(proto::CC_STOP);
  control(stop);
  commit();
}

Refusal SupervisorBackground::acceptMove(const proto::Move& move, std::uint64_t& id) {
  if (!halted_.empty()) return {RefusalCode::kLogStopped, halted_};
  const proto::RtState state = plan_.state;
  const bool holding = state == proto::RT_HOLD && !state_request_;
  const bool following = state == proto::RT_SETP || (state_request_ && requested_ == proto::RT_SETP);
  if (!holding && !following)
    return {RefusalCode::kWrongState,
            std::string("wrong state ") + stateName(state) + ": moves are accepted in HOLD or SETP"};
  if (!plan_.allCalibrated()) return {RefusalCode::kNotCalibrated, "the arm is not calibrated"};
  const int p = world_.findPosition(move.position());
  if (p < 0) return {RefusalCode::kUnknownName, "unknown position '" + move.position() + "'"};
  const int m = world_.findMotion(move.motion());
  if (m < 0) return {RefusalCode::kUnknownName, "unknown motion '" + move.motion() + "'"};
  if (plan_.trajectory.queue.full())
    return {RefusalCode::kTryAgain, "the move queue is full: queue it when a move has ended"};
  // At rest in HOLD the trajectory starts where the joints hold.
  TrajectoryTail from_here = plan_.trajectory;
  const bool reset = holding && !queueEnd(from_here, world_.values(), ik_).moving;
  if (reset) from_here.reset(model_, ik_, plan_.servo_setpoint);

  const MotionRecord& motion = world_.motion(m);
  const QueueEnd from = queueEnd(from_here, world_.values(), ik_);
  const ArmConfig config = motion.cartesian ? from.config : world_.position(p).config;
  const Transform target = world_.solve(p);
  const IkSolution end = ik_.solveSerial(target, config, from.q);
  if (end.status == IkStatus::kWristSingular)
    return {RefusalCode::kUnreachable, "position '" + move.position() +
                                           "' is at a wrist singularity (theta5 = 0) in configuration " +
                                           config.toString()};
  if (end.status != IkStatus::kOk)
    return {RefusalCode::kUnreachable, "position '" + move.position() + "' cannot be reached in configuration " +
                                           config.toString() + ": " + describe(end.status)};
  if (motion.cartesian) {
    // The line the trajectory will drive: the tool frame's, when the position names a tool.
    const Transform tool = world_.tool(p);
    const Vec6 d = driveParams(from.pose, target, tool);
    JointVec near = from.q;
    for (int n = 1; n < config_.path_check_samples; ++n) {
      const double r = static_cast<double>(n) / config_.path_check_samples;
      const IkSolution s = ik_.solveSerial(drivenT6(from.pose, r * d, tool), config, near);
      if (!usable(s.status))
        return {RefusalCode::kUnreachable, "the straight line to '" + move.position() + "' leaves the workspace " +
                                               std::to_string(static_cast<int>(100 * r)) +
                                               "% of the way: " + describe(s.status)};
      near = s.q;
    }
  }
  if (Refusal why = unstableLaw(move.motion(), motion, from.q, end.q)) return why;
  if (Refusal why = compensatorRings(move.motion(), motion, from.q, end.q)) return why;
  if (from.moving && from.cartesian == motion.cartesian && from.accel > motion.segment - motion.accel)
    return {RefusalCode::kInvalid, "motion '" + move.motion() +
                                       "': its segment time leaves no straight part after the " +
                                       std::to_string(from.accel) + " s transition from the previous move"};

  id = next_move_id_++;
  PeriodCommand c;
  c.kind = PeriodCommand::kMove;
  c.move = MoveSpec{id, p, m};
  c.reset = reset;
  c.to_setp = holding;
  stage(c);
  plan_.trajectory = from_here;
  plan_.trajectory.enqueue(c.move);
  if (holding) {
    requested_ = proto::RT_SETP;
    state_request_ = true;
  }
  return {};
}

namespace {

std::string momentAxes(std::uint32_t axes) {
  std::string out;
  for (int d = 3; d < 6; ++d)
    if ((axes >> d) & 1u) out += (out.empty() ? "" : ", ") + std::string(d == 3 ? "rx" : d == 4 ? "ry" : "rz");
  return out;
}

}  // namespace

Refusal SupervisorBackground::refuseOrWarn(const std::string& why) {
  if (config_.refuse_unstable_laws) return {RefusalCode::kUnstable, why};
  warning_ = why + " (accepted: controller.force.refuse_unstable_laws is off)" +
             (warning_.empty() ? std::string() : "; " + warning_);
  return {};
}

Refusal SupervisorBackground::unstableLaw(const std::string& motion_name, const MotionRecord& motion,
                                          const JointVec& start, const JointVec& end) {
  // The sampled loop is modelled along a line (force_loop.hpp); about an axis neither the check
  // nor the watch sees the loop, and the reply says so rather than let silence read as a pass.
  if ((motion.force.force_axes & 0x38u) != 0)
    warning_ = "motion '" + motion_name + "': its moment axes (" + momentAxes(motion.force.force_axes) +
               ") are neither checked for stability before the move nor watched for oscillation while it runs: "
               "only force axes are";
  if ((motion.force.force_axes & 0x7u) == 0 || config_.surfaces.empty()) return {};
  std::string why = stability_.verdict(motion.force, start);
  if (why.empty()) why = stability_.verdict(motion.force, end);
  if (why.empty()) return {};
  why = "motion '" + motion_name + "' would not hold its force: " + why;
  return refuseOrWarn(why);
}

Refusal SupervisorBackground::unstableCompensator(const std::string& motion_name, const CompensatorGains& g) {
  if (!compensates(g) || !config_.wrist) return {};
  const CompensatorPlant plant = CompensatorPlant::ofArm(config_.frames.delay, config_.tool.inertia.mass,
                                                         config_.wrist->stiffness, config_.wrist->damping);
  std::string why = compensatorVerdict(plant, g, config_.gain_margin);
  if (why.empty()) return {};
  why = "motion '" + motion_name + "': its compensator " + why + " (the arm following its setpoints " +
        numberText(1e3 * plant.delay_s) + " ms late; the wrist's " + numberText(plant.k) + " N/m and " +
        numberText(plant.c) + " N s/m; the tool's " + numberText(plant.m) + " kg)";
  return refuseOrWarn(why);
}

Refusal SupervisorBackground::compensatorRings(const std::string& motion_name, const MotionRecord& motion,
                                               const JointVec& start, const JointVec& end) {
  if (!compensates(motion.compensator) || !config_.wrist) return {};
  const char* where = "where the move starts";
  std::string why = stability_.compensatorVerdict(motion.compensator, motion.compliance, start);
  if (why.empty()) {
    where = "where it ends";
    why = stability_.compensatorVerdict(motion.compensator, motion.compliance, end);
  }
  if (why.empty()) return {};
  why = "motion '" + motion_name + "' would ring: its compensator " + why + " (" + where + ")";
  return refuseOrWarn(why);
}

Refusal SupervisorBackground::forget(const proto::Forget& f) {
  const bool position = f.kind() == proto::Forget::FK_POSITION, motion = f.kind() == proto::Forget::FK_MOTION;
  const int p = position ? world_.findPosition(f.name()) : -1;
  const int m = motion ? world_.findMotion(f.name()) : -1;
  if ((p >= 0 || m >= 0) && uses(plan_.trajectory, p, m))
    return {RefusalCode::kNameInUse, std::string("forget: ") + (position ? "position '" : "motion '") +
                                         f.name().substr(0, 64) +
                                         "' is used by a move queued or running: forget it once that move has ended"};
  // The period's copy keeps the old value in the place until a new name fills it: no move uses it.
  return world_.forget(f);
}

bool SupervisorBackground::restingInSetp(proto::RtState s) const {
  return s == proto::RT_SETP && !state_request_ && plan_.trajectory.atRest() && plan_.trajectory.queue.empty();
}

Refusal SupervisorBackground::requestState(proto::RtState to) {
  PeriodCommand c;
  c.kind = PeriodCommand::kState;
  c.state = to;
  stage(c);
  requested_ = to;
  state_request_ = true;
  return {};
}

Refusal SupervisorBackground::axisJog(const proto::Control& c, proto::RtState s) {
  if (Refusal why = jogShapeRefusal(c)) return why;
  const bool turn = c.axis() >= proto::JA_RX;
  if (!plan_.allCalibrated())
    return {RefusalCode::kNotCalibrated,
            "jog: along an axis needs a calibrated arm (before calibration, jog joints by counts)"};
  // From HOLD, or MANU once a joint's jog has ended: the trajectory starts where the joints hold.
  const bool holding = s == proto::RT_HOLD || (s == proto::RT_MANU && plan_.jog_left == 0);
  if (!holding && !restingInSetp(s) && !(s == proto::RT_SETP && plan_.trajectory.jogging))
    return {RefusalCode::kWrongState, std::string("jog: along an axis from HOLD, MANU (a joint's jog ended) or SETP "
                                                  "with no move queued or running (now ") +
                                          stateName(s) + ")"};
  TrajectoryTail from_here = plan_.trajectory;
  if (holding) from_here.reset(model_, ik_, plan_.servo_setpoint);
  // As TrajectoryGenerator::jog: only at rest or jogging, with nothing queued.
  if ((!from_here.resting && !from_here.jogging) || !from_here.queue.empty())
    return {RefusalCode::kWrongState, "jog: the trajectory is not at rest"};
  PeriodCommand cmd;
  cmd.kind = PeriodCommand::kJog;
  cmd.jog.axis = static_cast<int>(c.axis()) - 1;
  cmd.jog.direction = c.direction();
  cmd.jog.tool_frame = c.tool_frame();
  cmd.jog.speed = turn ? config_.jog_turn : config_.jog_speed;
  cmd.jog.length = turn ? c.angle() : c.distance();
  cmd.reset = cmd.to_setp = holding;
  stage(cmd);
  plan_.trajectory = from_here;
  plan_.trajectory.jog();
  if (holding) {
    requested_ = proto::RT_SETP;
    state_request_ = true;
  }
  return {};
}

Refusal SupervisorBackground::jointJog(const proto::Control& c, proto::RtState s) {
  const std::string now = std::string(" (now ") + stateName(s) + ")";
  if (Refusal why = jogShapeRefusal(c)) return why;
  // As RFMS's MANU: from IDLE too, before calibration, so that an operator can drive a joint off
  // its stop or towards its index; then it counts encoder counts, not angles.
  if (s != proto::RT_IDLE && s != proto::RT_HOLD && s != proto::RT_MANU && !restingInSetp(s))
    return {RefusalCode::kWrongState, "jog from IDLE, HOLD, MANU, or SETP with no move queued or running" + now};
  const std::size_t j = static_cast<std::size_t>(c.joint() - 1);
  const double counts_per_rev = model_.joints[j].counts_per_rev;
  std::int64_t counts = 0;
  if (c.angle() != 0.0) {
    if (!plan_.calibrated[j])
      return {RefusalCode::kNotCalibrated,
              "jog: joint " + std::to_string(c.joint()) + " is not calibrated: jog it by counts"};
    counts = std::max<std::int64_t>(1, std::llround(c.angle() * counts_per_rev / (2.0 * std::numbers::pi)));
  } else {
    counts = c.counts();
  }
  PeriodCommand cmd;
  cmd.kind = PeriodCommand::kJointJog;
  cmd.joint = c.joint();
  cmd.direction = c.direction();
  cmd.counts = counts > 0 ? counts : -1;
  stage(cmd);
  plan_.jog_left = cmd.counts;
  requested_ = proto::RT_MANU;
  state_request_ = true;
  return {};
}

Refusal SupervisorBackground::control(const proto::Control& c) {
  const proto::RtState s = plannedState();
  const std::string now = std::string(" (now ") + stateName(s) + ")";
  switch (c.command()) {
    case proto::CC_CALIBRATE:  // RFMS's order: manual (a joint jogged clear), then calibration
      if (s != proto::RT_IDLE && s != proto::RT_MANU)
        return {RefusalCode::kWrongState, "calibrate from IDLE or MANU" + now};
      return requestState(proto::RT_CALIB);
    case proto::CC_HOLD:
      if (s == proto::RT_IDLE || s == proto::RT_FREE || s == proto::RT_MANU || s == proto::RT_HOLD)
        return requestState(proto::RT_HOLD);
      return {RefusalCode::kWrongState,
              "hold from IDLE, FREE or MANU" + now + (s == proto::RT_SETP ? "; use stop while moving" : "")};
    case proto::CC_FREE:
      if (s == proto::RT_IDLE || s == proto::RT_HOLD || s == proto::RT_MANU) return requestState(proto::RT_FREE);
      return {RefusalCode::kWrongState, "free from IDLE, HOLD or MANU" + now};
    case proto::CC_JOG:
      if (!halted_.empty()) return {RefusalCode::kLogStopped, halted_};
      return c.axis() != proto::JA_NONE ? axisJog(c, s) : jointJog(c, s);
    case proto::CC_STOP:
      if (s == proto::RT_SETP) return requestState(proto::RT_STOP);
      if (s == proto::RT_MANU || s == proto::RT_FREE || s == proto::RT_CALIB) return requestState(proto::RT_HOLD);
      return {};
    case proto::CC_RESET:
      if (s != proto::RT_EMGCY) return {RefusalCode::kWrongState, "reset is for EMGCY" + now};
      return requestState(proto::RT_IDLE);
    case proto::CC_POWER_OFF:
      if (s == proto::RT_EMGCY) return {};
      return requestState(proto::RT_IDLE);
    case proto::CC_EMERGENCY_STOP: {
      PeriodCommand cmd;
      cmd.kind = PeriodCommand::kEmergencyStop;
      stage(cmd);
      return {};
    }
    default: return {RefusalCode::kInvalid, "unknown control command"};
  }
}

}  // namespace rfms
