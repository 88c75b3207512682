// What the client library hands back: the arm's status and a move's outcome as plain values.
// The wire carries them as protobuf messages (proto/task.proto); a program that links the
// library sees these instead, so that it neither includes generated code nor follows the wire's
// field rules (presence, repeated fields standing for vectors).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/force_figures.hpp"
#include "common/transform.hpp"

namespace rfms {

// The real-time states of the RFMS manual's table 3.
enum class ArmState { kIdle, kFree, kManu, kCalib, kHold, kSetp, kStop, kEmgcy };
// The trajectory generator's state inside SETP (the manual's table 4), and TRACK: a tracking
// motion that has reached its target and follows it.
enum class Segment { kS0, kS1, kS2, kS3, kS40, kS4, kS5, kTrack };
// Why the controller went to EMGCY (docs/cluster.md lists when each is raised).
enum class EmergencyReason {
  kNone,
  kFollowingError,
  kJointLimit,
  kSaturation,
  kNodeSilent,
  kIkFailure,
  kCalibration,
  kOperator,
  kUnreachable,
  kPowerLost,
  kForceLimit,
  kForceOscillation,
  kForceLostContact,
  kForceWrongSign,
  kForceRunaway,
  kCompensationOscillation
};
// The cluster's processes, for naming the one an emergency came from.
enum class ClusterNode { kNone, kSupervisor, kJoint1, kJoint2, kJoint3, kJoint4, kJoint5, kJoint6, kMath, kArm };

// The manual's spelling: "HOLD", "S40", ...
const char* nameOf(ArmState s);
const char* nameOf(Segment s);
// A few words for people: "node silent", "joint 3".
const char* describe(EmergencyReason r);
const char* nameOf(ClusterNode n);

struct MoveOutcome {
  std::uint64_t id = 0;
  bool completed = false;  // false: aborted
  // A guarded motion: where (the tool frame) and with what contact force (N, base axes) its guard
  // ended it; or that it ran its whole path without meeting the force (it then failed).
  bool guard_tripped = false, guard_missed = false;
  Transform contact_pose = Transform::Identity();
  Vec3 contact_force = Vec3::Zero();
  std::optional<ForceFigures> force{};  // a move under force control
  // A move with compliance bits alone: where it came to rest, less where its path ended (m, base
  // axes).
  std::optional<Vec3> yielded_m{};
};

// The move running now: its target as the world stands and how far into its segment it is.
struct RunningMove {
  std::uint64_t id = 0;
  std::string position{}, motion{};
  Transform target = Transform::Identity();
  double elapsed_s = 0, duration_s = 0;
};

// One sample of a watch (RfmsClient::watch): the period and one value per watched signal, in
// the order asked (NaN where a mail was missing).
struct SignalSample {
  std::uint64_t period = 0;
  std::vector<double> values{};
};

// A named frame of the world model, as the base sees it ("position home", "transform obj").
struct NamedPose {
  std::string name{};
  Transform pose = Transform::Identity();
};

// The bridge's link counters, as it fills them into every status answer (docs/link-protocol.md).
struct LinkCounters {
  std::uint64_t frames_in = 0, frames_out = 0;
  std::uint64_t retransmissions = 0;  // frames the bridge had already seen (the client retried)
  std::uint64_t duplicates = 0;       // REG frames not delivered again
  std::uint64_t checksum_failures = 0, malformed = 0;
  std::uint64_t queue_depth = 0, withheld = 0;  // withheld: left unacknowledged, the queue full
  std::uint64_t clients = 0;                    // sessions open now
  std::uint64_t forged = 0;                     // frames whose MAC did not match: dropped
  std::uint64_t refused = 0;                    // handshakes refused
  std::uint64_t unknown_sessions = 0, evicted = 0, handshakes = 0;
  std::uint64_t refusals_unsent = 0;  // refusals past the bridge's rate (a flood), or longer than what they refuse
  std::uint64_t resends_unsent = 0;   // cached answers and RETRYs past a session's rate (copies of its frames)
  std::uint64_t retries_sent = 0;     // RETRYs: answers withheld from an address a session had not proven
  bool insecure = false;              // the bridge admits any key (--insecure)
};

struct ArmStatus {
  std::uint64_t period = 0;
  ArmState state = ArmState::kIdle;
  Segment segment = Segment::kS0;
  EmergencyReason reason = EmergencyReason::kNone;  // with state kEmgcy: why, and from which node
  ClusterNode reason_node = ClusterNode::kNone;
  std::string reason_axis{};  // a force move's emergency: along which axis ("x", "tool z"), "" else
  bool calibrated = false;
  Transform t6 = Transform::Identity();     // of the angles the joints last reported
  std::vector<double> angles{};             // rad
  std::uint64_t last_move_id = 0;           // the newest move accepted
  std::uint64_t ended_through = 0;          // every move up to this one has ended
  std::vector<MoveOutcome> recent_ended{};  // the newest ended moves (up to 64), oldest first
  std::uint64_t moves_queued = 0;
  std::string task{};  // the open task's name, empty if none
  LinkCounters link{};
  double dt_ms = 0;                  // the sample period
  std::uint32_t update_periods = 0;  // the setpoint update period, in sample periods
  std::uint64_t session = 0;
  // This session's watch: its signals and rate, the samples since the last status answer, and
  // how many the controller dropped since it began.
  std::vector<std::string> watched{};
  double watch_rate_hz = 0;
  std::vector<SignalSample> samples{};
  std::uint64_t samples_dropped = 0;
  std::string jog_stopped{};  // why the last jog along an axis stopped short; empty otherwise
  // With a force sensor (empty otherwise): its last reading (T6's axes, the tool's weight
  // included) and the world's wrench on the tool (fx fy fz N, mx my mz N m, base axes);
  // bit i of wrench_saturated: channel i at the sensor's range.
  std::vector<double> wrench{}, contact_wrench{};
  std::uint32_t wrench_saturated = 0;
  std::optional<RunningMove> running{};
  std::vector<NamedPose> world{};
};

}  // namespace rfms
