#include "supervisor/trajectory.hpp"

#include "supervisor/end_of_move.hpp"
#include "supervisor/paul_segments.hpp"

#include <algorithm>
#include <cmath>

#include "common/drive_transform.hpp"
#include "common/kinematics.hpp"

namespace rfms {

namespace {
constexpr double kTimeEps = 1e-12;       // s: times closer than this are equal
constexpr double kJogJointShare = 0.25;  // a jog stops where a joint would need more of its speed limit
}  // namespace

TrajectoryGenerator::TrajectoryGenerator(const RobotModel& model, const WorldValues& world)
    : TrajectoryGenerator(model, world, setpointLimits(model, proto::TrackingSettings{}), true) {}

TrajectoryGenerator::TrajectoryGenerator(const RobotModel& model, const WorldValues& world,
                                         const SetpointLimits& limits, bool filter)
    : model_(model), world_(world), ik_(model), filter_(model, limits, filter) {}

void TrajectoryGenerator::reset(const JointVec& q) {
  phase_ = Phase::kRest;
  state_ = proto::TS_S0;
  q_ = q;
  pose_ = out_pose_ = forwardKinematics(model_, q);
  filter_.reset(q);
  rest_config_ = ik_.configOf(q);
  queue_.clear();
  stop_requested_ = fixed_stop_ = false;
}

bool TrajectoryGenerator::enqueue(const MoveSpec& move) { return queue_.push(move); }

void TrajectoryGenerator::dropQueue(TrajectoryEvents& events) {
  MoveSpec m;
  while (queue_.pop(m)) events.add(TrajectoryEvent::kAborted, m.id);
}

ArmConfig TrajectoryGenerator::config() const {
  if (!inMove()) return rest_config_;
  return cur_.motion.cartesian ? cur_.config : ik_.configOf(filter_.q());
}

void TrajectoryTail::reset(const RobotModel& model, const OpwIk& ik, const JointVec& at) {
  resting = settled = true;
  jogging = blending = fixed_stop = false;
  q = at;
  pose = forwardKinematics(model, at);
  rest_config = ik.configOf(at);
  queue.clear();
}

void TrajectoryTail::enqueue(const MoveSpec& move) { queue.push(move); }

void TrajectoryGenerator::tail(TrajectoryTail& t) const {
  t.resting = phase_ == Phase::kRest;
  t.jogging = phase_ == Phase::kJog;
  t.settled = filter_.settled();
  t.blending = phase_ == Phase::kBlend;
  t.fixed_stop = fixed_stop_;
  t.stop_pose = stop_target_.pose;
  t.current = cur_.spec;
  t.next = next_.spec;
  t.current_config = cur_.config;
  t.next_config = next_.config;
  t.rest_config = rest_config_;
  t.current_cartesian = cur_.motion.cartesian;
  t.next_cartesian = next_.motion.cartesian;
  t.current_accel = cur_.motion.accel;
  t.next_accel = next_.motion.accel;
  t.current_s = s_;
  t.current_segment = cur_.motion.segment;
  t.pose = pose_;
  t.q = q_;
  t.queue = queue_;
}

bool uses(const TrajectoryTail& t, int p, int m) {
  auto in = [&](const MoveSpec& s) { return (p >= 0 && s.position == p) || (m >= 0 && s.motion == m); };
  if (t.inMove() && in(t.current)) return true;
  if (t.blending && in(t.next)) return true;
  for (int n = 0; n < t.queue.size(); ++n)
    if (in(t.queue.at(n))) return true;
  return false;
}

QueueEnd queueEnd(const TrajectoryTail& t, const WorldValues& world, const OpwIk& ik) {
  QueueEnd e;
  e.moving = !t.resting || !t.queue.empty();
  e.config = t.inMove() ? t.current_config : t.rest_config;
  e.pose = t.pose;
  if (t.inMove()) {
    e.pose = t.fixed_stop ? t.stop_pose : world.solve(t.current.position);
    e.cartesian = t.current_cartesian;
    e.accel = t.current_accel;
    if (t.blending) {
      e.pose = world.solve(t.next.position);
      e.config = t.next_config;
      e.cartesian = t.next_cartesian;
      e.accel = t.next_accel;
    }
  }
  for (int n = 0; n < t.queue.size(); ++n) {
    const MoveSpec& m = t.queue.at(n);
    const MotionRecord& mo = world.motion(m.motion);
    if (!mo.cartesian) e.config = world.position(m.position).config;
    e.pose = world.solve(m.position);
    e.cartesian = mo.cartesian;
    e.accel = mo.accel;
  }
  const IkSolution s = ik.solveSerial(e.pose, e.config, t.q);
  e.q = usable(s.status) ? s.q : t.q;
  return e;
}

bool TrajectoryGenerator::begin(const MoveSpec& spec, Active& out) {
  out.spec = spec;
  out.motion = world_.motion(spec.motion);
  const ArmConfig here = inMove() ? cur_.config : rest_config_;
  out.config = out.motion.cartesian ? here : world_.position(spec.position).config;
  out.start_pose = pose_;
  out.start_q = q_;
  out.tau_in = out.motion.accel;
  return true;
}

bool TrajectoryGenerator::target(const Active& m, Frame& out) const {
  if (fixed_stop_ && &m == &cur_) {
    out = stop_target_;
    return true;
  }
  out.pose = world_.solve(m.spec.position);
  const IkSolution s = ik_.solveSerial(out.pose, m.config, q_);
  out.q = s.q;
  return usable(s.status);
}

Vec6 TrajectoryGenerator::params(bool cartesian, const Frame& from, const Frame& to, const Transform& tool) const {
  return cartesian ? driveParams(from.pose, to.pose, tool) : Vec6(to.q - from.q);
}

bool TrajectoryGenerator::at(bool cartesian, const Frame& ref, const Vec6& p, const ArmConfig& config,
                             const Transform& tool, Frame& out) const {
  if (cartesian) {
    out.pose = drivenT6(ref.pose, p, tool);
    const IkSolution s = ik_.solveSerial(out.pose, config, q_);
    out.q = s.q;
    return usable(s.status);
  }
  out.q = ref.q + p;
  out.pose = forwardKinematics(model_, out.q);
  return true;
}

bool TrajectoryGenerator::straightAt(double s, Frame& out) const {
  const Frame a{cur_.start_pose, cur_.start_q};
  Frame b;
  if (!target(cur_, b)) return false;
  const double r = s / cur_.motion.segment;
  const Transform tool = toolOf(cur_);
  return at(cur_.motion.cartesian, a, r * params(cur_.motion.cartesian, a, b, tool), cur_.config, tool, out);
}

void TrajectoryGenerator::beginStop(double s) {
  // Stop on the current line, tau further on, arriving at rest: the S5 transition with a fixed end.
  Frame here, end;
  if (straightAt(s, here) && straightAt(s + cur_.motion.accel, end)) {
    snapshot_ = here;
    stop_target_ = end;
  } else {
    snapshot_ = stop_target_ = Frame{pose_, q_};
  }
  fixed_stop_ = true;
  phase_ = Phase::kStop;
  u_ = 0.0;
  first_in_phase_ = true;
  stop_requested_ = false;
}

void TrajectoryGenerator::stop(TrajectoryEvents& events) {
  dropQueue(events);
  switch (phase_) {
    case Phase::kStraight: beginStop(s_); break;
    case Phase::kStart:
    case Phase::kBlend: stop_requested_ = true; break;  // stop once on the straight part
    case Phase::kJog: phase_ = Phase::kRest; break;     // the reference stands still; the filter brakes
    case Phase::kTrack:                                 // the reference stands still; the filter brakes
    case Phase::kStop: stop_requested_ = true; break;   // a tracking motion must not start tracking
    case Phase::kRest: break;
  }
}

bool TrajectoryGenerator::jog(const JogSpec& spec) {
  if ((phase_ != Phase::kRest && phase_ != Phase::kJog) || !queue_.empty()) return false;
  jog_ = spec;
  jog_start_ = pose_;
  jog_done_ = 0.0;
  jog_stopped_short_ = false;
  jog_stopped_why_ = "";
  phase_ = Phase::kJog;
  return true;
}

void TrajectoryGenerator::abort(TrajectoryEvents& events) {
  if (inMove()) events.add(TrajectoryEvent::kAborted, cur_.spec.id);
  if (phase_ == Phase::kBlend) events.add(TrajectoryEvent::kAborted, next_.spec.id);
  dropQueue(events);
  phase_ = Phase::kRest;
  state_ = proto::TS_S0;
  stop_requested_ = fixed_stop_ = false;
  // Where the setpoint was is where the brakes hold the arm.
  q_ = filter_.q();
  pose_ = out_pose_;
  filter_.reset(q_);
  rest_config_ = ik_.configOf(q_);
}

void TrajectoryGenerator::halt(const JointVec& q, TrajectoryEvents& events) {
  if (!inMove()) return;
  events.add(TrajectoryEvent::kCompleted, cur_.spec.id);
  if (phase_ == Phase::kBlend) events.add(TrajectoryEvent::kAborted, next_.spec.id);
  phase_ = Phase::kRest;
  state_ = proto::TS_S0;
  stop_requested_ = fixed_stop_ = false;
  // The reference stands where the arm met the force; the filter, still moving, brakes and comes
  // back onto it within its acceleration limits.
  q_ = q;
  pose_ = forwardKinematics(model_, q_);
  rest_config_ = ik_.configOf(q_);
}

TrajectoryGenerator::Frame TrajectoryGenerator::yieldedEnd(const Frame& end, std::uint32_t compliance) const {
  const Transform arm = forwardKinematics(model_, arm_);
  Frame out = end;
  out.pose = yieldedPose(end.pose, arm, compliance);
  const IkSolution s = ik_.solveSerial(out.pose, cur_.config, arm_);
  if (usable(s.status)) {
    out.q = s.q;
  } else {  // not in the move's configuration (it cannot be, the arm is there): rest on the arm
    out.q = arm_;
    out.pose = arm;
  }
  return out;
}

bool TrajectoryGenerator::update(double h, TrajectoryEvents& events) {
  restarted_ = false;
  if (!advance(h, events)) return false;
  filter_.update(q_, h);
  out_pose_ = filter_.onReference() ? pose_ : forwardKinematics(model_, filter_.q());
  return true;
}

bool TrajectoryGenerator::advance(double h, TrajectoryEvents& events) {
  double carry = h;
  // Each pass consumes the time left in one phase; a short update crosses at most a few phases.
  for (int pass = 0; pass < 8; ++pass) {
    Pass next = Pass::kDone;
    switch (phase_) {
      case Phase::kRest: next = startNext(events); break;
      case Phase::kStart:
      case Phase::kBlend:
      case Phase::kStop: next = transition(carry, events); break;
      case Phase::kJog: next = jogOn(carry); break;
      case Phase::kTrack: next = trackOn(events); break;
      case Phase::kStraight: next = straightOn(h, carry, events); break;
    }
    if (next != Pass::kAgain) return next == Pass::kDone;
  }
  return true;
}

// S0: the next move queued starts from where the reference stands, unless a stop came first.
TrajectoryGenerator::Pass TrajectoryGenerator::startNext(TrajectoryEvents& events) {
  MoveSpec m;
  if (stop_requested_ || !queue_.pop(m)) {
    stop_requested_ = false;
    state_ = proto::TS_S0;
    return Pass::kDone;
  }
  begin(m, cur_);
  events.add(TrajectoryEvent::kStarted, m.id, cur_.motion.guard);
  snapshot_ = Frame{pose_, q_};
  fixed_stop_ = false;
  phase_ = Phase::kStart;
  u_ = 0.0;
  first_in_phase_ = true;
  return Pass::kAgain;
}

// A transition of half-width tau (from rest, between two moves, or to rest), `carry` seconds on.
TrajectoryGenerator::Pass TrajectoryGenerator::transition(double& carry, TrajectoryEvents& events) {
  u_ += carry;
  carry = 0.0;
  const double tau = cur_.motion.accel;
  const double x = transitionFraction(u_, tau);
  const bool cartesian = cur_.motion.cartesian;
  const Transform tool = toolOf(cur_);  // a blend joins moves of one tool (see straightOn())
  Frame ref;
  Vec6 back = Vec6::Zero(), on = Vec6::Zero();
  if (phase_ == Phase::kStart) {
    ref = snapshot_;
    Frame b;
    if (!target(cur_, b)) return Pass::kFailed;
    on = wayOn(params(cartesian, ref, b, tool), tau, cur_.motion.segment);
  } else {
    if (!target(cur_, ref)) return Pass::kFailed;
    back = params(cartesian, ref, snapshot_, tool);
    if (phase_ == Phase::kBlend) {
      Frame c;
      if (!target(next_, c)) return Pass::kFailed;
      on = wayOn(params(cartesian, ref, c, tool), tau, next_.motion.segment);
    }
  }
  const Vec6 p = transitionParams(back, on, x);
  Frame out;
  if (!at(cartesian, ref, p, cur_.config, tool, out)) return Pass::kFailed;
  pose_ = out.pose;
  q_ = out.q;
  state_ = phase_ == Phase::kStop ? proto::TS_S5
           : first_in_phase_      ? (phase_ == Phase::kStart ? proto::TS_S40 : proto::TS_S3)
                                  : proto::TS_S4;
  first_in_phase_ = false;
  if (u_ < 2.0 * tau - kTimeEps) return Pass::kDone;

  carry = u_ - 2.0 * tau;
  if (phase_ == Phase::kStart || phase_ == Phase::kBlend) {
    if (phase_ == Phase::kBlend) {
      events.add(TrajectoryEvent::kCompleted, cur_.spec.id);
      cur_ = next_;
    }
    cur_.start_pose = ref.pose;
    cur_.start_q = ref.q;
    cur_.tau_in = tau;
    s_ = tau;
    phase_ = Phase::kStraight;
  } else if (cur_.motion.track && !fixed_stop_) {
    pose_ = ref.pose;  // at the target: from now on, follow it
    q_ = ref.q;
    phase_ = Phase::kTrack;
  } else if (endMove(ref, events)) {
    return Pass::kAgain;
  }
  return carry <= kTimeEps ? Pass::kDone : Pass::kAgain;
}

// The end of a move's final transition: where it comes to rest (the end-of-move policy of force
// and compliance, see observe()). True when the next move must start in this same update.
bool TrajectoryGenerator::endMove(const Frame& ref, TrajectoryEvents& events) {
  events.add(fixed_stop_ ? TrajectoryEvent::kAborted : TrajectoryEvent::kCompleted, cur_.spec.id);
  pose_ = ref.pose;
  q_ = ref.q;
  const RestAt rest_at = restAt(cur_.motion);
  const bool forced = rest_at == RestAt::kWhereHeld;
  if (forced) {  // at rest where the servo was holding the arm (observe())
    q_ = observed_;
    pose_ = forwardKinematics(model_, q_);
    filter_.reset(q_);
  } else if (rest_at == RestAt::kYielded) {
    const Frame rest = yieldedEnd(ref, cur_.motion.compliance);
    q_ = rest.q;
    pose_ = rest.pose;
    filter_.reset(q_);
    restarted_ = true;
    yielded_ = rest.pose.translation() - ref.pose.translation();
  }
  rest_config_ = cur_.config;
  fixed_stop_ = false;
  phase_ = Phase::kRest;
  // A move under force control that follows one starts in this same update: the contact is held
  // without a period's gap in the force command.
  return forced && !queue_.empty() && world_.motion(queue_.front().motion).has_force;
}

// A Cartesian jog, `carry` seconds on; it stops short where the arm cannot go on.
TrajectoryGenerator::Pass TrajectoryGenerator::jogOn(double carry) {
  const double done = jogDistance(jog_, jog_done_, carry);
  const Transform next = jogPose(jog_start_, jog_, done);
  const IkSolution ik = ik_.solveSerial(next, rest_config_, q_);
  bool swings = false;
  for (int i = 0; i < kJoints && usable(ik.status) && carry > 0.0; ++i)
    swings |= std::abs(ik.q[i] - q_[i]) > kJogJointShare * filter_.limits().speed[i] * carry;
  if (!usable(ik.status) || swings || ik.status == IkStatus::kWristSingular) {  // stop here
    jog_stopped_short_ = true;
    jog_stopped_why_ = !usable(ik.status) ? describe(ik.status)
                       : swings ? "near a singularity: a joint would turn faster than a quarter of its speed limit"
                                : describe(ik.status);
    phase_ = Phase::kRest;
    state_ = proto::TS_S0;
    return Pass::kDone;
  }
  pose_ = next;
  q_ = ik.q;
  jog_done_ = done;
  state_ = proto::TS_S1;
  if (jog_.length > 0.0 && done >= jog_.length) phase_ = Phase::kRest;
  return Pass::kDone;
}

// A tracking motion at its target follows it. It ends when stopped or replaced: a next move starts
// from the reference as from rest (the filter takes up the difference in velocity).
TrajectoryGenerator::Pass TrajectoryGenerator::trackOn(TrajectoryEvents& events) {
  if (stop_requested_ || !queue_.empty()) {
    events.add(TrajectoryEvent::kCompleted, cur_.spec.id);
    rest_config_ = cur_.config;
    phase_ = Phase::kRest;
    return Pass::kAgain;
  }
  Frame out;
  if (!target(cur_, out)) return Pass::kFailed;
  pose_ = out.pose;
  q_ = out.q;
  state_ = proto::TS_TRACK;
  return Pass::kDone;
}

// Moves blend when their mode and tool agree: a Cartesian path belongs to one tool frame, and
// changing the frame mid-transition would make the setpoint jump. A move that yields comes to rest
// first (see observe()); one under force control starts from rest.
bool TrajectoryGenerator::blendsInto(const MoveSpec& following) const {
  const MotionRecord& next = world_.motion(following.motion);
  return !cur_.motion.has_force && cur_.motion.compliance == 0 && !next.has_force &&
         next.cartesian == cur_.motion.cartesian &&
         (!cur_.motion.cartesian ||
          world_.position(following.position).tool == world_.position(cur_.spec.position).tool);
}

// The straight part of a segment (S1, S2), `carry` seconds on, up to the transition at its end.
TrajectoryGenerator::Pass TrajectoryGenerator::straightOn(double h, double& carry, TrajectoryEvents& events) {
  s_ += carry;
  carry = 0.0;
  const double boundary = cur_.motion.segment - cur_.motion.accel;
  if (stop_requested_) {
    beginStop(std::min(s_, boundary));
    return Pass::kAgain;
  }
  if (s_ < boundary - kTimeEps) {
    Frame out;
    if (!straightAt(s_, out)) return Pass::kFailed;
    pose_ = out.pose;
    q_ = out.q;
    state_ = s_ + h >= boundary - kTimeEps ? proto::TS_S2 : proto::TS_S1;
    return Pass::kDone;
  }
  // The transition begins at the boundary exactly; the rest of this update is spent in it.
  carry = s_ - boundary;
  s_ = boundary;
  if (!straightAt(boundary, snapshot_)) return Pass::kFailed;
  u_ = 0.0;
  first_in_phase_ = true;
  if (!queue_.empty() && blendsInto(queue_.front())) {
    MoveSpec m;
    queue_.pop(m);
    begin(m, next_);
    if (next_.motion.cartesian) next_.config = cur_.config;
    events.add(TrajectoryEvent::kStarted, m.id, next_.motion.guard);
    phase_ = Phase::kBlend;
  } else {
    phase_ = Phase::kStop;
  }
  return Pass::kAgain;
}

}  // namespace rfms
