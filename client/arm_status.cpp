#include "client/arm_status.hpp"

#include "client/arm_status_wire.hpp"
#include "common/force_figures_wire.hpp"
#include "common/mail_codec.hpp"
#include "common/mail_names.hpp"

namespace rfms {

// The library's enumerations are the wire's, value for value: a value added on the wire must be
// added here, or these fail to compile.
static_assert(proto::RtState_ARRAYSIZE == 8 && static_cast<int>(ArmState::kEmgcy) == proto::RT_EMGCY);
static_assert(proto::TrajState_ARRAYSIZE == 8 && static_cast<int>(Segment::kTrack) == proto::TS_TRACK);
static_assert(proto::EmergencyReason_ARRAYSIZE == 16 &&
              static_cast<int>(EmergencyReason::kCompensationOscillation) == proto::ER_COMPENSATION_OSCILLATION);
static_assert(proto::Node_ARRAYSIZE == 10 && static_cast<int>(ClusterNode::kArm) == proto::NODE_ARM);

// The wire's names less their prefix ("RT_HOLD" is "HOLD").
const char* nameOf(ArmState s) { return stateName(static_cast<proto::RtState>(s)); }
const char* nameOf(Segment s) { return segmentName(static_cast<proto::TrajState>(s)); }
const char* describe(EmergencyReason r) { return describe(static_cast<proto::EmergencyReason>(r)); }
const char* nameOf(ClusterNode n) { return nodeName(static_cast<proto::Node>(n)); }

namespace {

Transform poseOf(const proto::Transform3x4& m) {
  Transform t = Transform::Identity();
  decode(m, t);  // a malformed pose stays the identity
  return t;
}

template <typename Field>
std::vector<double> valuesOf(const Field& f) {
  return {f.begin(), f.end()};
}

LinkCounters countersOf(const proto::LinkCounters& l) {
  return {.frames_in = l.frames_in(),
          .frames_out = l.frames_out(),
          .retransmissions = l.retransmissions(),
          .duplicates = l.duplicates(),
          .checksum_failures = l.checksum_failures(),
          .malformed = l.malformed(),
          .queue_depth = l.queue_depth(),
          .withheld = l.withheld(),
          .clients = l.clients(),
          .forged = l.forged(),
          .refused = l.refused(),
          .unknown_sessions = l.unknown_sessions(),
          .evicted = l.evicted(),
          .handshakes = l.handshakes(),
          .refusals_unsent = l.refusals_unsent(),
          .resends_unsent = l.resends_unsent(),
          .retries_sent = l.retries_sent(),
          .insecure = l.insecure()};
}

}  // namespace

MoveOutcome outcomeOf(const proto::MoveOutcome& o) {
  MoveOutcome out{
      .id = o.id(), .completed = o.completed(), .guard_tripped = o.guard_tripped(), .guard_missed = o.guard_missed()};
  if (o.has_contact_pose()) out.contact_pose = poseOf(o.contact_pose());
  if (o.contact_force_size() == 3) out.contact_force = Vec3(o.contact_force(0), o.contact_force(1), o.contact_force(2));
  if (o.has_force()) out.force = decode(o.force());
  if (o.yielded_m_size() == 3) out.yielded_m = Vec3(o.yielded_m(0), o.yielded_m(1), o.yielded_m(2));
  return out;
}

ArmStatus statusOf(const proto::ArmStatus& s) {
  ArmStatus out{.period = s.period(),
                .state = static_cast<ArmState>(s.rtstate()),
                .segment = static_cast<Segment>(s.traj_state()),
                .reason = static_cast<EmergencyReason>(s.reason()),
                .reason_node = static_cast<ClusterNode>(s.reason_node()),
                .reason_axis = s.reason_axis(),
                .calibrated = s.calibrated(),
                .t6 = poseOf(s.t6()),
                .angles = valuesOf(s.angles()),
                .last_move_id = s.last_move_id(),
                .ended_through = s.ended_through(),
                .moves_queued = s.moves_queued(),
                .task = s.task(),
                .link = countersOf(s.link()),
                .dt_ms = s.dt_ms(),
                .update_periods = s.update_periods(),
                .session = s.session(),
                .watched = {s.watched().begin(), s.watched().end()},
                .watch_rate_hz = s.watch_rate_hz(),
                .samples_dropped = s.samples_dropped(),
                .jog_stopped = s.jog_stopped(),
                .wrench = valuesOf(s.wrench()),
                .contact_wrench = valuesOf(s.contact_wrench()),
                .wrench_saturated = s.wrench_saturated()};
  for (const proto::MoveOutcome& o : s.recent_ended()) out.recent_ended.push_back(outcomeOf(o));
  for (const proto::SignalSample& x : s.samples()) out.samples.push_back({x.period(), valuesOf(x.values())});
  if (s.has_running())
    out.running = RunningMove{.id = s.running().id(),
                              .position = s.running().position(),
                              .motion = s.running().motion(),
                              .target = poseOf(s.running().target()),
                              .elapsed_s = s.running().elapsed_s(),
                              .duration_s = s.running().duration_s()};
  for (const proto::NamedPose& p : s.world()) out.world.push_back({p.name(), poseOf(p.pose())});
  return out;
}

}  // namespace rfms
