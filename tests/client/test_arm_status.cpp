// The client library's plain values against the wire's messages they are read from: every field
// arrives, and a field added on the wire fails here until the library carries it too.
#include <gtest/gtest.h>

#include <cmath>

#include "client/arm_status_wire.hpp"
#include "common/mail_codec.hpp"

namespace rfms {
namespace test {
const char* plainHeaderState();
}
namespace {

// The wire's messages have as many fields as the plain values carry (by hand, in statusOf and
// outcomeOf); one more on the wire and this names the message to extend.
TEST(ClientStatus, ThePlainValuesCarryEveryFieldOfTheWire) {
  EXPECT_EQ(proto::ArmStatus::descriptor()->field_count(), 28) << "ArmStatus: add it to client/arm_status";
  EXPECT_EQ(proto::MoveOutcome::descriptor()->field_count(), 8) << "MoveOutcome: add it to client/arm_status";
  EXPECT_EQ(proto::ForceFigures::descriptor()->field_count(), 14) << "ForceFigures: add it to client/arm_status";
  EXPECT_EQ(proto::LinkCounters::descriptor()->field_count(), 18) << "LinkCounters: add it to client/arm_status";
  EXPECT_EQ(proto::RunningMove::descriptor()->field_count(), 6) << "RunningMove: add it to client/arm_status";
  EXPECT_EQ(proto::SignalSample::descriptor()->field_count(), 2) << "SignalSample: add it to client/arm_status";
  EXPECT_EQ(proto::NamedPose::descriptor()->field_count(), 2) << "NamedPose: add it to client/arm_status";
}

TEST(ClientStatus, EveryFieldOfAStatusArrives) {
  const Transform at = trans(0.22, -0.12, 0.05) * rpy(0.1, 0.2, 0.3);
  proto::ArmStatus w;
  w.set_period(1234);
  w.set_rtstate(proto::RT_EMGCY);
  w.set_traj_state(proto::TS_S40);
  w.set_reason(proto::ER_NODE_SILENT);
  w.set_reason_node(proto::NODE_JOINT3);
  w.set_reason_axis("tool z");
  w.set_calibrated(true);
  encode(at, *w.mutable_t6());
  for (int j = 0; j < 6; ++j) w.add_angles(0.1 * j);
  w.set_last_move_id(9);
  w.set_ended_through(7);
  w.set_moves_queued(2);
  w.set_task("demo");
  auto* l = w.mutable_link();
  l->set_frames_in(1), l->set_frames_out(2), l->set_retransmissions(3), l->set_duplicates(4);
  l->set_checksum_failures(5), l->set_malformed(6), l->set_queue_depth(7), l->set_withheld(8);
  l->set_clients(9), l->set_forged(10), l->set_refused(11), l->set_unknown_sessions(12);
  l->set_evicted(13), l->set_handshakes(14), l->set_insecure(true), l->set_refusals_unsent(16);
  l->set_resends_unsent(17), l->set_retries_sent(18);
  w.set_dt_ms(0.5);
  w.set_update_periods(4);
  w.set_session(77);
  w.add_watched("jmail.3.angle");
  w.set_watch_rate_hz(50);
  auto* x = w.add_samples();
  x->set_period(1200);
  x->add_values(0.25);
  x->add_values(std::nan(""));
  w.set_samples_dropped(3);
  w.set_jog_stopped("a joint limit");
  for (int k = 0; k < 6; ++k) w.add_wrench(k), w.add_contact_wrench(10 + k);
  w.set_wrench_saturated(0b100);
  auto* r = w.mutable_running();
  r->set_id(8), r->set_position("home"), r->set_motion("mj"), r->set_elapsed_s(0.5), r->set_duration_s(2);
  encode(at, *r->mutable_target());
  auto* p = w.add_world();
  p->set_name("position home");
  encode(at, *p->mutable_pose());
  w.add_recent_ended()->set_id(7);

  const ArmStatus s = statusOf(w);
  EXPECT_EQ(s.period, 1234u);
  EXPECT_EQ(s.state, ArmState::kEmgcy);
  EXPECT_EQ(s.segment, Segment::kS40);
  EXPECT_EQ(s.reason, EmergencyReason::kNodeSilent);
  EXPECT_EQ(s.reason_node, ClusterNode::kJoint3);
  EXPECT_EQ(s.reason_axis, "tool z");
  EXPECT_TRUE(s.calibrated);
  EXPECT_TRUE(s.t6.isApprox(at, 1e-12));
  ASSERT_EQ(s.angles.size(), 6u);
  EXPECT_DOUBLE_EQ(s.angles[5], 0.5);
  EXPECT_EQ(s.last_move_id, 9u);
  EXPECT_EQ(s.ended_through, 7u);
  EXPECT_EQ(s.moves_queued, 2u);
  EXPECT_EQ(s.task, "demo");
  const LinkCounters& c = s.link;
  EXPECT_EQ(std::vector<std::uint64_t>({c.frames_in, c.frames_out, c.retransmissions, c.duplicates, c.checksum_failures,
                                        c.malformed, c.queue_depth, c.withheld, c.clients, c.forged, c.refused,
                                        c.unknown_sessions, c.evicted, c.handshakes, c.refusals_unsent,
                                        c.resends_unsent, c.retries_sent}),
            std::vector<std::uint64_t>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 18}));
  EXPECT_TRUE(c.insecure);
  EXPECT_DOUBLE_EQ(s.dt_ms, 0.5);
  EXPECT_EQ(s.update_periods, 4u);
  EXPECT_EQ(s.session, 77u);
  EXPECT_EQ(s.watched, std::vector<std::string>{"jmail.3.angle"});
  EXPECT_DOUBLE_EQ(s.watch_rate_hz, 50);
  ASSERT_EQ(s.samples.size(), 1u);
  EXPECT_EQ(s.samples[0].period, 1200u);
  ASSERT_EQ(s.samples[0].values.size(), 2u);
  EXPECT_DOUBLE_EQ(s.samples[0].values[0], 0.25);
  EXPECT_TRUE(std::isnan(s.samples[0].values[1]));
  EXPECT_EQ(s.samples_dropped, 3u);
  EXPECT_EQ(s.jog_stopped, "a joint limit");
  ASSERT_EQ(s.wrench.size(), 6u);
  ASSERT_EQ(s.contact_wrench.size(), 6u);
  EXPECT_DOUBLE_EQ(s.wrench[4], 4);
  EXPECT_DOUBLE_EQ(s.contact_wrench[4], 14);
  EXPECT_EQ(s.wrench_saturated, 0b100u);
  ASSERT_TRUE(s.running);
  EXPECT_EQ(s.running->id, 8u);
  EXPECT_EQ(s.running->position, "home");
  EXPECT_EQ(s.running->motion, "mj");
  EXPECT_DOUBLE_EQ(s.running->elapsed_s, 0.5);
  EXPECT_DOUBLE_EQ(s.running->duration_s, 2);
  EXPECT_TRUE(s.running->target.isApprox(at, 1e-12));
  ASSERT_EQ(s.world.size(), 1u);
  EXPECT_EQ(s.world[0].name, "position home");
  EXPECT_TRUE(s.world[0].pose.isApprox(at, 1e-12));
  ASSERT_EQ(s.recent_ended.size(), 1u);
  EXPECT_EQ(s.recent_ended[0].id, 7u);
}

TEST(ClientStatus, AnEmptyStatusIsIdleWithNothingRunningAndNoSensor) {
  const ArmStatus s = statusOf(proto::ArmStatus());
  EXPECT_EQ(s.state, ArmState::kIdle);
  EXPECT_FALSE(s.running);
  EXPECT_TRUE(s.wrench.empty());
  EXPECT_TRUE(s.t6.isApprox(Transform::Identity()));
}

TEST(ClientStatus, EveryFieldOfAnOutcomeArrives) {
  const Transform at = trans(0.2, -0.1, 0.0);
  proto::MoveOutcome w;
  w.set_id(5);
  w.set_completed(true);
  w.set_guard_tripped(true);
  encode(at, *w.mutable_contact_pose());
  for (double f : {1.0, -2.0, -9.5}) w.add_contact_force(f);
  for (double y : {0.0, 0.0, 0.002}) w.add_yielded_m(y);
  proto::ForceFigures* f = w.mutable_force();
  f->set_setpoint_n(10), f->set_error_p50_n(0.1), f->set_error_p99_n(0.2), f->set_error_max_n(0.3);
  f->set_peak_n(11), f->set_settle_s(0.12), f->set_final_n(9.9), f->set_law_n(10), f->set_settle_final_s(0.1);
  f->set_held(true), f->set_impedance(false), f->set_start_n(0.5), f->set_overshoot_final(0.04);
  encode(at, *f->mutable_end_pose());

  const MoveOutcome o = outcomeOf(w);
  EXPECT_EQ(o.id, 5u);
  EXPECT_TRUE(o.completed);
  EXPECT_TRUE(o.guard_tripped);
  EXPECT_FALSE(o.guard_missed);
  EXPECT_TRUE(o.contact_pose.isApprox(at, 1e-12));
  EXPECT_TRUE(o.contact_force.isApprox(Vec3(1, -2, -9.5)));
  ASSERT_TRUE(o.yielded_m);
  EXPECT_TRUE(o.yielded_m->isApprox(Vec3(0, 0, 0.002)));
  ASSERT_TRUE(o.force);
  const ForceFigures& g = *o.force;
  EXPECT_EQ(std::vector<double>({g.setpoint_n, g.error_p50_n, g.error_p99_n, g.error_max_n, g.peak_n, g.settle_s,
                                 g.final_n, g.law_n, g.settle_final_s, g.start_n, g.overshoot_final}),
            std::vector<double>({10, 0.1, 0.2, 0.3, 11, 0.12, 9.9, 10, 0.1, 0.5, 0.04}));
  EXPECT_TRUE(g.held);
  EXPECT_FALSE(g.impedance);
  EXPECT_TRUE(g.end_pose.isApprox(at, 1e-12));

  // A plain joint move: no force figures, no yield.
  proto::MoveOutcome plain;
  plain.set_id(6);
  plain.set_completed(true);
  const MoveOutcome q = outcomeOf(plain);
  EXPECT_FALSE(q.force);
  EXPECT_FALSE(q.yielded_m);
  EXPECT_FALSE(q.guard_tripped);
}

TEST(ClientStatus, StatesSegmentsReasonsAndNodesHaveTheirNames) {
  EXPECT_STREQ(nameOf(ArmState::kHold), "HOLD");
  EXPECT_STREQ(nameOf(ArmState::kEmgcy), "EMGCY");
  EXPECT_STREQ(nameOf(Segment::kS40), "S40");
  EXPECT_STREQ(nameOf(Segment::kTrack), "TRACK");
  EXPECT_STREQ(describe(EmergencyReason::kNodeSilent), "node silent");
  EXPECT_STREQ(nameOf(ClusterNode::kJoint3), "joint 3");
  EXPECT_STREQ(nameOf(ClusterNode::kArm), "arm");
  EXPECT_STREQ(test::plainHeaderState(), "HOLD");
}

}  // namespace
}  // namespace rfms
