// The arm's picture of a period: whole only when all six joints answered it, the newest such one
// drawn, and its frames those of the forward kinematics.
#include <gtest/gtest.h>

#include <random>

#include "common/kinematics.hpp"
#include "common/mail_codec.hpp"
#include "common/transform.hpp"
#include "display/arm_picture.hpp"
#include "display/scene_messages.hpp"
#include "display/world_picture.hpp"
#include "tests/support/test_models.hpp"

namespace rfms::display {
namespace {

proto::Envelope jmail(int joint, std::uint64_t period, double angle) {
  proto::Envelope e;
  e.mutable_jmail()->set_joint(static_cast<std::uint32_t>(joint));
  e.mutable_jmail()->mutable_header()->set_period(period);
  e.mutable_jmail()->set_angle(angle);
  return e;
}

proto::Envelope smail(std::uint64_t period, const Transform& t6) {
  proto::Envelope e;
  e.mutable_smail()->mutable_header()->set_period(period);
  e.mutable_smail()->set_rtstate(proto::RT_SETP);
  encode(t6, *e.mutable_smail()->mutable_t6());
  return e;
}

TEST(ArmPicture, IsWholeOnlyWhenAllSixJointsAnsweredItsPeriod) {
  const Scene scene;
  PictureBuilder b(scene);
  for (int j = 1; j <= 5; ++j) b.take(jmail(j, 7, 0.1 * j));
  EXPECT_FALSE(b.newest()) << "joint 6 has not answered period 7";
  b.take(jmail(6, 7, 0.6));
  const auto p = b.newest();
  ASSERT_TRUE(p);
  EXPECT_EQ(p->period, 7u);
  EXPECT_DOUBLE_EQ(p->angles[5], 0.6);
  EXPECT_FALSE(p->has_setpoint);
  EXPECT_FALSE(b.newest()) << "a picture is given once";
}

TEST(ArmPicture, TheNewestWholePeriodIsDrawnWhateverOrderTheMailCameIn) {
  const Scene scene;
  PictureBuilder b(scene);
  // Period 11 is whole; period 12 lacks joint 3; the mail comes interleaved and out of order.
  for (int j = 6; j >= 1; --j) {
    if (j != 3) b.take(jmail(j, 12, 1.0));
    b.take(jmail(j, 11, 0.5));
  }
  b.take(smail(11, trans(0.1, 0.2, 0.3)));
  const auto p = b.newest();
  ASSERT_TRUE(p);
  EXPECT_EQ(p->period, 11u);
  EXPECT_TRUE(p->has_setpoint);
  EXPECT_EQ(p->rtstate, proto::RT_SETP);
  EXPECT_TRUE(p->setpoint.isApprox(trans(0.1, 0.2, 0.3), 1e-15));
  b.take(jmail(3, 12, 1.0));
  b.take(smail(12, trans(0.1, 0.2, 0.4)));
  ASSERT_TRUE(b.newest());
}

// A reader can find the joints' answers to period 9 before the S_MAIL of 9 they answered: the
// period waits for it, and is drawn with its setpoint once it comes.
TEST(ArmPicture, APeriodWaitsForItsSMailWhenTheJointsAnswersWereReadFirst) {
  const Scene scene;
  PictureBuilder b(scene);
  b.take(smail(8, trans(0.1, 0.0, 0.0)));
  for (int j = 1; j <= kJoints; ++j) b.take(jmail(j, 9, 0.1));
  EXPECT_FALSE(b.newest()) << "period 9's setpoint may still be coming";
  b.take(smail(9, trans(0.2, 0.0, 0.0)));
  const auto p = b.newest();
  ASSERT_TRUE(p);
  EXPECT_EQ(p->period, 9u);
  ASSERT_TRUE(p->has_setpoint);
  EXPECT_TRUE(p->setpoint.isApprox(trans(0.2, 0.0, 0.0), 1e-15));
  // An S_MAIL lost for good: once a newer one has come, its period is drawn without a setpoint.
  for (int j = 1; j <= kJoints; ++j) b.take(jmail(j, 10, 0.1));
  b.take(smail(11, trans(0.3, 0.0, 0.0)));
  const auto q = b.newest();
  ASSERT_TRUE(q);
  EXPECT_EQ(q->period, 10u);
  EXPECT_FALSE(q->has_setpoint);
}

TEST(ArmPicture, MailOfAnUnknownJointIsIgnored) {
  const Scene scene;
  PictureBuilder b(scene);
  b.take(jmail(0, 3, 1.0));
  b.take(jmail(7, 3, 1.0));
  EXPECT_FALSE(b.newest());
}

TEST(SceneMessages, FramesAreTheForwardKinematicsOfThePicture) {
  const RobotModel& model = test::puma260();
  Scene scene;
  scene.tool.frame = trans(0.0, 0.0, 0.06);
  std::mt19937_64 rng(3);
  ArmPicture p;
  p.period = 1234;
  p.angles = test::randomConfiguration(model, rng);
  p.has_setpoint = true;
  p.setpoint = forwardKinematics(model, p.angles) * trans(0.0, 0.0, 0.001);
  foxglove::FrameTransforms out;
  frameTransforms(model, scene, p, stampOf(p.period, 1e-3), out);
  LinkFrames frames;
  linkFrames(model, p.angles, frames);
  int checked = 0;
  for (const foxglove::FrameTransform& f : out.transforms()) {
    EXPECT_EQ(f.timestamp().seconds(), 1);
    EXPECT_EQ(f.timestamp().nanos(), 234'000'000);
    Transform t = Transform::Identity();
    t.linear() =
        Eigen::Quaterniond(f.rotation().w(), f.rotation().x(), f.rotation().y(), f.rotation().z()).toRotationMatrix();
    t.translation() = Vec3(f.translation().x(), f.translation().y(), f.translation().z());
    Transform want;
    if (f.child_frame_id() == "t6")
      want = frames[kJoints];
    else if (f.child_frame_id() == "tool")
      want = scene.tool.frame;
    else if (f.child_frame_id() == "setpoint")
      want = p.setpoint;
    else
      want = frames[static_cast<std::size_t>(f.child_frame_id().back() - '0')];
    EXPECT_TRUE(t.isApprox(want, 1e-12)) << f.child_frame_id();
    EXPECT_EQ(f.parent_frame_id(), f.child_frame_id() == "tool" ? "t6" : "base");
    ++checked;
  }
  EXPECT_EQ(checked, 8);  // link1..link5, t6, tool, setpoint
}

TEST(SceneMessages, TheLinksAreDrawnFromShoulderToFlange) {
  const RobotModel& model = test::puma260();
  const Scene scene;
  ArmPicture p;
  foxglove::SceneUpdate out;
  sceneUpdate(model, scene, p, 0, out);
  ASSERT_GE(out.entities_size(), 2);
  const foxglove::SceneEntity& arm = out.entities(0);
  EXPECT_EQ(arm.id(), "arm");
  // Every cylinder's ends lie on the chain's frame origins and offsets: the last one ends at T6's
  // origin, or on its z axis when the last link has only a d.
  double length = 0.0;
  for (const auto& c : arm.cylinders()) length += c.size().z();
  double want = 0.0;
  for (const JointModel& j : model.joints) want += std::abs(j.dh.a) + std::abs(j.dh.d);
  EXPECT_NEAR(length, want, 1e-12);
  EXPECT_EQ(out.entities(1).id(), "tool");
}

TEST(SceneMessages, PicturesAreNeverCloserThanASixtiethOfASecond) {
  EXPECT_EQ(periodsPerPicture(1e-3, 60), 17u);        // 58.8 pictures a second
  EXPECT_EQ(periodsPerPicture(1e-4, 60), 167u);       // 10 kHz
  EXPECT_EQ(periodsPerPicture(1.0 / 120.0, 60), 2u);  // exactly 60, not 40
  EXPECT_EQ(periodsPerPicture(10e-3, 60), 2u);        // 50: 100 periods a second cannot give 60
  EXPECT_EQ(periodsPerPicture(20e-3, 60), 1u);        // every period of a slow clock
  EXPECT_EQ(periodsPerPicture(1e-3, 10), 100u);
  for (const double dt : {1e-4, 2.5e-4, 1e-3, 4e-3, 1.0 / 60.0})
    EXPECT_LE(1.0 / (static_cast<double>(periodsPerPicture(dt, 60)) * dt), 60.0 + 1e-9) << dt;
}

TEST(WorldPicture, TheStatusFramesAndTheTargetBecomeFramesOfTheBase) {
  proto::ArmStatus s;
  const Transform above = trans(0.2, -0.1, 0.3) * rpy(0.0, 1.0, 0.0);
  proto::NamedPose& p = *s.add_world();
  p.set_name("position above");
  encode(above, *p.mutable_pose());
  s.add_world()->set_name("position broken");  // a pose that does not decode is left out
  foxglove::FrameTransforms out;
  addWorldFrames(worldPictureOf(s), 5, out);
  ASSERT_EQ(out.transforms_size(), 1);  // no move runs: no target
  EXPECT_EQ(out.transforms(0).child_frame_id(), "position/above");
  EXPECT_EQ(out.transforms(0).parent_frame_id(), "base");
  EXPECT_NEAR(out.transforms(0).translation().z(), 0.3, 1e-15);

  s.mutable_running()->set_id(7);
  s.mutable_running()->set_elapsed_s(0.5);
  encode(above, *s.mutable_running()->mutable_target());
  const WorldPicture w = worldPictureOf(s);
  EXPECT_TRUE(w.moving);
  EXPECT_EQ(w.move_id, 7u);
  out.Clear();
  addWorldFrames(w, 5, out);
  ASSERT_EQ(out.transforms_size(), 2);
  EXPECT_EQ(out.transforms(0).child_frame_id(), "target");
  EXPECT_NEAR(out.transforms(0).translation().x(), 0.2, 1e-15);
}

// A log's requests and events, as the writer and the replay meet them: the world of the newest
// request that carried one, the target of the move that started, nothing once it ended.
TEST(WorldTrack, FollowsTheLoggedWorldAndTheMoveRunning) {
  const Transform above = trans(0.2, -0.1, 0.3);
  WorldTrack track;
  proto::LogRequest motion;
  motion.mutable_reply()->set_accepted(true);
  motion.mutable_request()->mutable_motion()->set_name("reach");
  motion.mutable_request()->mutable_motion()->set_segment_s(2.0);
  track.take(motion);
  proto::LogRequest define;
  define.mutable_reply()->set_accepted(true);
  proto::NamedPose& p = *define.mutable_world()->add_frames();
  p.set_name("position above");
  encode(above, *p.mutable_pose());
  track.take(define);
  proto::LogRequest move;
  move.mutable_reply()->set_accepted(true);
  move.mutable_reply()->set_move_id(3);
  move.mutable_request()->mutable_move()->set_position("above");
  move.mutable_request()->mutable_move()->set_motion("reach");
  encode(above, *move.mutable_move_target());
  track.take(move);
  EXPECT_FALSE(track.at(100, 1e-3).moving);  // accepted, not started
  EXPECT_EQ(track.at(100, 1e-3).unended, 1u);
  ASSERT_EQ(track.at(100, 1e-3).frames.size(), 1u);

  proto::LogEvent e;
  e.set_kind(proto::LogEvent::MOVE_STARTED);
  e.set_move_id(3);
  e.set_period(1000);
  track.take(e);
  const WorldPicture& w = track.at(1500, 1e-3);
  EXPECT_TRUE(w.moving);
  EXPECT_EQ(w.position, "above");
  EXPECT_EQ(w.motion, "reach");
  EXPECT_NEAR(w.elapsed_s, 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(w.duration_s, 2.0);
  EXPECT_TRUE(w.target.isApprox(above, 1e-15));
  EXPECT_DOUBLE_EQ(track.at(9000, 1e-3).elapsed_s, 2.0);  // not past its segment

  proto::LogRequest refused = define;  // a refused request changes nothing
  refused.mutable_reply()->set_accepted(false);
  refused.mutable_world()->clear_frames();
  track.take(refused);
  EXPECT_EQ(track.at(1500, 1e-3).frames.size(), 1u);

  e.set_kind(proto::LogEvent::MOVE_COMPLETED);
  track.take(e);
  EXPECT_FALSE(track.at(3000, 1e-3).moving);
  EXPECT_EQ(track.at(3000, 1e-3).unended, 0u);
}

}  // namespace
}  // namespace rfms::display
