// The trajectory generator of the supervisor (RFMS manual §4.1.2, table 4; Paul's motion scheme):
// moves are queued; each is a segment from where the last one left off to its position equation's
// T6, straight in Cartesian space by Paul's drive transform (the tool frame T6 TOOL goes straight
// when the position names a tool) or interpolated in joint space, and
// consecutive segments of the same mode blend through a transition of half-width tau (the
// incoming motion's acceleration time) whose drive parameters follow
//   p(h) = (dC + dB) h^2 - 2 dB h + dB,   h in [0, 1] over 2 tau,
// with dB the way back from the via point to where the transition began and dC tau/T the way on
// into the next segment: position and velocity are continuous, acceleration is constant within
// the transition. A motion from rest is the same transition with dB = 0; the final stop is one
// with dC = 0 (state S5). Targets are re-solved at every update, so a transform updated while the
// arm moves moves the target. A Cartesian move keeps the arm's configuration (a straight line
// cannot change it without crossing a singularity); a joint move ends in its position's. A
// tracking motion, once at its target, keeps servoing to it (state TS_TRACK) until a stop or the
// next move, which starts from there as from rest.
//
// All of this is the reference. What the joints receive is the reference after the setpoint
// filter (setpoint_filter.hpp), so that no change of a target — a transform redefined mid-move, a
// move that starts from a moving arm — makes the setpoint jump: pose(), q() and config() are the
// filtered setpoint.
//
// Its pure parts, each with tests of its own: Paul's transition maths (paul_segments.hpp), the
// Cartesian jog's pose (cartesian_jog.hpp) and where a move comes to rest (end_of_move.hpp).
//
// update() is real-time safe: the queue is a fixed ring, nothing allocates, nothing throws.
#pragma once

#include <array>
#include <cstdint>

#include "common/ik_opw.hpp"
#include "proto/mailboxes.pb.h"
#include "supervisor/cartesian_jog.hpp"
#include "supervisor/move_queue.hpp"
#include "supervisor/setpoint_filter.hpp"
#include "supervisor/world_values.hpp"

namespace rfms {

struct TrajectoryEvent {
  enum Kind { kStarted, kCompleted, kAborted } kind = kStarted;
  std::uint64_t move_id = 0;
  // kStarted: the started move's guard (N; 0: none). A move that starts by blending out of the one
  // before is not yet the current move when it starts, so the generator's guard() still says the
  // other's.
  double guard = 0.0;
};

// Events of one update; more than the capacity cannot happen in one update of a sane task.
struct TrajectoryEvents {
  std::array<TrajectoryEvent, 16> items;
  int count = 0;
  void add(TrajectoryEvent::Kind kind, std::uint64_t id, double guard = 0.0) {
    if (count < static_cast<int>(items.size())) items[static_cast<std::size_t>(count++)] = {kind, id, guard};
  }
};

// Where the queue ends: what the next move will start from.
struct QueueEnd {
  Transform pose;
  JointVec q;
  ArmConfig config;
  bool cartesian = false;
  double accel = 0.0;   // the acceleration time of the last move, 0 when at rest
  bool moving = false;  // a move is active or queued
};

// What the trajectory is doing and holds, as a plain value: the period publishes it every period,
// and the background checks a new move against where the queue ends (queueEnd) and a name against
// the moves that use it (uses) without touching the trajectory itself. The background moves its
// copy on by what it hands the period (reset, enqueue, jog), as the trajectory will.
struct TrajectoryTail {
  bool resting = true;   // no move and no jog
  bool jogging = false;  // a Cartesian jog
  bool settled = true;   // the setpoint standing on the reference
  bool blending = false;
  bool fixed_stop = false;  // stopping short of the current move's target, at stop_pose
  Transform stop_pose = Transform::Identity();
  MoveSpec current, next;  // the move running (when neither resting nor jogging) and the one blended into
  ArmConfig current_config, next_config, rest_config;
  bool current_cartesian = false, next_cartesian = false;
  double current_accel = 0.0, next_accel = 0.0;
  double current_s = 0.0, current_segment = 0.0;  // time into the current move's segment, and its length
  Transform pose = Transform::Identity();         // the reference
  JointVec q = JointVec::Zero();
  MoveQueue queue;

  bool inMove() const { return !resting && !jogging; }
  bool atRest() const { return resting && settled; }
  // As TrajectoryGenerator's: at rest at q, nothing queued; a move at the end of the queue; a jog.
  void reset(const RobotModel& model, const OpwIk& ik, const JointVec& at);
  void enqueue(const MoveSpec& move);
  void jog() { resting = false, jogging = true; }
};
// Where the queue of `t` ends, with the world's values now.
QueueEnd queueEnd(const TrajectoryTail& t, const WorldValues& world, const OpwIk& ik);
// Whether a move queued or running (tracking included) uses position `p` or motion `m` (-1:
// neither asked), so that the world model must keep it.
bool uses(const TrajectoryTail& t, int p, int m);

class TrajectoryGenerator {
 public:
  static constexpr int kQueueCapacity = MoveQueue::kCapacity;

  // The filter's limits for `model` under default settings (rfms::setpointLimits).
  TrajectoryGenerator(const RobotModel& model, const WorldValues& world);
  TrajectoryGenerator(const RobotModel& model, const WorldValues& world, const SetpointLimits& limits, bool filter);

  // At rest at joint angles q (S0), nothing queued.
  void reset(const JointVec& q);
  // False when the queue is full. The caller has validated the move (see SupervisorCore).
  bool enqueue(const MoveSpec& move);
  int queued() const { return queue_.size(); }
  // Whether a move queued or running (tracking included) uses position `p` or motion `m` (-1:
  // neither asked), so that the world model must keep it.
  bool uses(int p, int m) const { return rfms::uses(tail(), p, m); }
  QueueEnd queueEnd() const { return rfms::queueEnd(tail(), world_, ik_); }
  // All of the above as a value. Real-time safe.
  void tail(TrajectoryTail& out) const;
  TrajectoryTail tail() const {
    TrajectoryTail t;
    tail(t);
    return t;
  }

  // A jog from where the reference stands: only at rest or jogging (replacing that jog), with
  // nothing queued; false otherwise. A jog ends where it cannot go on (stoppedShort()).
  bool jog(const JogSpec& spec);
  bool jogging() const { return phase_ == Phase::kJog; }
  bool stoppedShort() const { return jog_stopped_short_; }
  // Why: the arm cannot reach further in its configuration, or a joint would have to turn faster
  // than a quarter of its speed limit (near a singularity a small move of the wrist swings the
  // joints around it).
  const char* stoppedWhy() const { return jog_stopped_why_; }

  // Come to rest as soon as the acceleration time allows and drop the queue.
  void stop(TrajectoryEvents& events);
  // Drop everything at once (EMGCY): the arm's brakes stop it, not the trajectory.
  void abort(TrajectoryEvents& events);
  // End the current move at joint angles q, where the arm was when its guard met its force: it
  // completes, the filter brings the setpoint (a servo lag ahead, deeper in the contact) back to
  // rest there, and the queue goes on from rest. A move it was blending into is dropped with it.
  void halt(const JointVec& q, TrajectoryEvents& events);
  // The force (N) that ends the current move, 0 when it is not guarded or already stopping.
  double guard() const { return inMove() && phase_ != Phase::kStop ? cur_.motion.guard : 0.0; }

  // Advances by h seconds. False when a setpoint left the workspace (the serial IK failed).
  bool update(double h, TrajectoryEvents& events);

  proto::TrajState state() const { return state_; }
  // The setpoint: the reference after the filter.
  const Transform& pose() const { return out_pose_; }
  const JointVec& q() const { return filter_.q(); }
  ArmConfig config() const;
  // The reference, before the filter.
  const Transform& referencePose() const { return pose_; }
  const JointVec& referenceQ() const { return q_; }
  const SetpointFilter& filter() const { return filter_; }
  std::uint32_t compliance() const { return inMove() ? cur_.motion.compliance : 0u; }
  // The current move's position compensator on the wrist's deflection; between moves none, with
  // the default lag for an offset left over to decay through.
  CompensatorGains compensator() const {
    return inMove() ? cur_.motion.compensator : CompensatorGains{.t_lag = kDefaultCompensatorLagS};
  }
  // The current move's record when it is under force or impedance control, else null.
  const MotionRecord* forceMotion() const { return inMove() && cur_.motion.has_force ? &cur_.motion : nullptr; }
  // The joint setpoints the servos hold now (the path moved onto the arm along the compliant axes:
  // supervisor/force_control.hpp) and the angles the arm is at. A move that yields ends at rest
  // where the arm yielded to, not where its path ends: along a force or compliant axis the path
  // says nothing about where a surface is, and holding the path's end there would push into it
  // (or pull away from it) the moment the axis turns stiff. A move under force control ends on
  // the held setpoints; one with the manual's compliance bits alone, whose setpoint went on along
  // its path, ends on its path's end moved onto the arm along its compliant axes (restarted()).
  void observe(const JointVec& held, const JointVec& arm) {
    observed_ = held;
    arm_ = arm;
  }
  // The latest update moved the setpoint in one step rather than continuing it: the joints must
  // solve it afresh (S_MAIL.setpoint_restart) instead of extrapolating from their last setpoints.
  bool restarted() const { return restarted_; }
  // Where that move came to rest less where its path ended (m, base axes, T6's origin).
  const Vec3& yielded() const { return yielded_; }
  // Nothing to do and the setpoint standing on the reference.
  bool atRest() const { return phase_ == Phase::kRest && filter_.settled(); }
  bool tracking() const { return phase_ == Phase::kTrack; }
  std::uint64_t currentMove() const { return inMove() ? cur_.spec.id : 0; }
  // The current segment: where its straight part starts (the via point it came from), where it
  // goes now, and its mode (for path-accuracy reports).
  const Transform& segmentStart() const { return cur_.start_pose; }
  Transform segmentTarget() const { return fixed_stop_ ? stop_target_.pose : world_.solve(cur_.spec.position); }
  bool segmentCartesian() const { return inMove() && cur_.motion.cartesian; }
  // The tool whose frame a Cartesian segment drives straight (the identity without one).
  Transform segmentTool() const { return inMove() ? toolOf(cur_) : Transform::Identity(); }

 private:
  enum class Phase { kRest, kStart, kStraight, kBlend, kStop, kTrack, kJog };
  bool inMove() const { return phase_ != Phase::kRest && phase_ != Phase::kJog; }
  struct Active {
    MoveSpec spec;
    MotionRecord motion;
    ArmConfig config;      // Cartesian: held; joint: the target's
    Transform start_pose;  // segment start A
    JointVec start_q = JointVec::Zero();
    double tau_in = 0.0;  // half-width of the transition that led into the straight part
  };
  // A reference point of a transition or segment: pose and joint angles.
  struct Frame {
    Transform pose;
    JointVec q;
  };

  bool advance(double h, TrajectoryEvents& events);  // the reference, one update on
  // One pass of advance() through the current phase: the update is done, it failed (a setpoint
  // left the workspace), or it goes on in the phase the pass moved to.
  enum class Pass { kDone, kFailed, kAgain };
  Pass startNext(TrajectoryEvents& events);
  Pass transition(double& carry, TrajectoryEvents& events);
  bool endMove(const Frame& ref, TrajectoryEvents& events);
  Pass jogOn(double carry);
  Pass trackOn(TrajectoryEvents& events);
  Pass straightOn(double h, double& carry, TrajectoryEvents& events);
  bool blendsInto(const MoveSpec& following) const;
  bool begin(const MoveSpec& spec, Active& out);   // loads a move's records
  bool target(const Active& m, Frame& out) const;  // its target now (false: unreachable)
  // The drive (Cartesian: of the tool frame T6 TOOL, Paul's scheme) or joint parameters from one
  // frame to another.
  Vec6 params(bool cartesian, const Frame& from, const Frame& to, const Transform& tool) const;
  // The point `p` (drive or joint parameters) away from `ref`, solved for joints.
  bool at(bool cartesian, const Frame& ref, const Vec6& p, const ArmConfig& config, const Transform& tool,
          Frame& out) const;
  Transform toolOf(const Active& m) const { return world_.tool(m.spec.position); }
  bool straightAt(double s, Frame& out) const;  // the current segment at local time s
  // Where a move with compliance bits alone rests: `end` moved onto the arm along those axes.
  Frame yieldedEnd(const Frame& end, std::uint32_t compliance) const;
  void beginStop(double s);
  void dropQueue(TrajectoryEvents& events);

  const RobotModel& model_;
  const WorldValues& world_;
  OpwIk ik_;
  SetpointFilter filter_;
  Transform out_pose_ = Transform::Identity();

  Phase phase_ = Phase::kRest;
  proto::TrajState state_ = proto::TS_S0;
  bool first_in_phase_ = false;
  double u_ = 0.0, s_ = 0.0;  // time in the transition, time in the segment
  Active cur_, next_;
  Frame snapshot_;           // where the transition began (A')
  bool fixed_stop_ = false;  // stopping at stop_target_ rather than at the move's target
  Frame stop_target_;
  bool stop_requested_ = false;
  Transform pose_ = Transform::Identity();
  JointVec q_ = JointVec::Zero();
  ArmConfig rest_config_;
  JointVec observed_ = JointVec::Zero();
  JointVec arm_ = JointVec::Zero();
  bool restarted_ = false;
  Vec3 yielded_ = Vec3::Zero();

  JogSpec jog_;
  Transform jog_start_ = Transform::Identity();
  double jog_done_ = 0.0;  // m or rad
  bool jog_stopped_short_ = false;
  const char* jog_stopped_why_ = "";

  MoveQueue queue_;
};

}  // namespace rfms
