// What a status answer says of the world model and of the move running (supervisor/world_status):
// each position where its equation puts T6, each transform where the first position with it puts
// it, and the running move's target and progress, against the same products computed here.
#include <gtest/gtest.h>

#include <numbers>
#include <string>

#include "common/mail_codec.hpp"
#include "common/transform.hpp"
#include "harness/harness.hpp"
#include "supervisor/world_status.hpp"
#include "tests/support/harness_calibration.hpp"
#include "tests/support/task_builders.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

Transform poseOf(const proto::ArmStatus& s, const std::string& name) {
  for (const proto::NamedPose& p : s.world())
    if (p.name() == name) {
      Transform t;
      EXPECT_TRUE(decode(p.pose(), t)) << name;
      return t;
    }
  ADD_FAILURE() << "no frame " << name;
  return Transform::Identity();
}

TEST(WorldStatus, SaysWhereEachFrameIsAndWhereTheRunningMoveGoes) {
  Harness h(test::puma260(), proto::ControllerSettings{});
  ASSERT_TRUE(test::calibrate(h));
  const Transform top = trans(0.32, -0.12624, 0.28) * rpy(0.0, std::numbers::pi / 2, 0.0);
  const Transform down = trans(0.0, 0.0, -0.1);
  const ArmConfig config{.righty = true, .up = false, .flip = true};
  for (const proto::TaskRequest& r :
       {test::request(test::transformDef("top", top)), test::request(test::transformDef("down", down)),
        test::request(test::transformDef("unused", trans(1.0, 2.0, 3.0))),
        test::request(test::positionDef("p_top", config, {"T6"}, {"top"})),
        test::request(test::positionDef("p_low", config, {"T6"}, {"down", "top"})),
        test::request(test::motionDef("reach", false, 2.0, 0.3))})
    ASSERT_TRUE(h.request(r).accepted());

  proto::ArmStatus s;
  describeWorld(h.background().world(), h.background().view().trajectory, s);
  EXPECT_FALSE(s.has_running());
  ASSERT_EQ(s.world_size(), 4);  // two positions, two transforms; `unused` has no place to be drawn
  EXPECT_TRUE(poseOf(s, "position p_top").isApprox(top, 1e-12));
  EXPECT_TRUE(poseOf(s, "position p_low").isApprox(down * top, 1e-12));
  // p_low comes first by name: its equation places both of its transforms.
  EXPECT_TRUE(poseOf(s, "transform down").isApprox(down, 1e-12));
  EXPECT_TRUE(poseOf(s, "transform top").isApprox(down * top, 1e-12));

  const proto::TaskReply move = h.request(test::moveRequest("p_low", "reach"));
  ASSERT_TRUE(move.accepted()) << move.reason();
  double elapsed = -1.0;
  for (int n = 0; n < 4; ++n) {
    h.runUntil([] { return false; }, 400);
    describeWorld(h.background().world(), h.background().view().trajectory, s);
    ASSERT_TRUE(s.has_running()) << n;
    EXPECT_EQ(s.running().id(), move.move_id());
    EXPECT_EQ(s.running().position(), "p_low");
    EXPECT_EQ(s.running().motion(), "reach");
    Transform target;
    ASSERT_TRUE(decode(s.running().target(), target));
    EXPECT_TRUE(target.isApprox(down * top, 1e-12));
    EXPECT_DOUBLE_EQ(s.running().duration_s(), 2.0);
    EXPECT_GT(s.running().elapsed_s(), elapsed);  // it comes on
    EXPECT_LE(s.running().elapsed_s(), 2.0);
    elapsed = s.running().elapsed_s();
  }
  ASSERT_TRUE(h.runUntil([&] { return h.supervisor().trajectory().atRest(); }, 10000));
  describeWorld(h.background().world(), h.background().view().trajectory, s);
  EXPECT_FALSE(s.has_running());
}

}  // namespace
}  // namespace rfms
