#include <gtest/gtest.h>

#include "common/transform.hpp"
#include "supervisor/world_model.hpp"
#include "tests/support/task_builders.hpp"

namespace rfms {
namespace {

using test::motionDef;
using test::positionDef;
using test::transformDef;

TEST(WorldModel, SolvesAPositionEquationForT6) {
  // Z T6 TOOL = CONV OBJ  =>  T6 = Z^-1 CONV OBJ TOOL^-1
  WorldModel w;
  const Transform z = trans(0, 0, 0.1), tool = trans(0, 0, 0.05) * rot(Axis::kX, 0.2);
  const Transform conv = trans(0.3, 0.1, 0) * rot(Axis::kZ, 0.5), obj = trans(0.02, 0, 0.01);
  for (auto [name, t] : {std::pair{"Z", z}, {"TOOL", tool}, {"CONV", conv}, {"OBJ", obj}})
    ASSERT_EQ(w.defineTransform(transformDef(name, t)).text, "");
  ASSERT_EQ(w.definePosition(positionDef("grasp", {}, {"Z", "T6", "TOOL"}, {"CONV", "OBJ"})).text, "");
  const int p = w.findPosition("grasp");
  const Transform t6 = w.solve(p);
  EXPECT_TRUE((z * t6 * tool).isApprox(conv * obj, 1e-12));

  // Updating a transform moves the position.
  const Transform conv2 = trans(0.35, 0.1, 0) * rot(Axis::kZ, 0.5);
  ASSERT_EQ(w.defineTransform(transformDef("CONV", conv2)).text, "");
  EXPECT_TRUE((z * w.solve(p) * tool).isApprox(conv2 * obj, 1e-12));
}

// A ring: both sides multiplied out with the solved T6 in its place must be equal.
Transform product(const WorldModel& w, const std::vector<std::string>& names, const Transform& t6) {
  Transform t = Transform::Identity();
  for (const std::string& n : names) t = t * (n == "T6" ? t6 : w.values().transform(w.findTransform(n)));
  return t;
}

TEST(WorldModel, SolvesForT6WhereverItStandsInTheRing) {
  WorldModel w;
  const char* names[] = {"A", "B", "C", "D", "E"};
  for (int i = 0; i < 5; ++i)
    ASSERT_EQ(w.defineTransform(transformDef(names[i], trans(0.1 * i, -0.05 * i, 0.02) * rot(Axis::kX, 0.3 * i) *
                                                           rot(Axis::kZ, 0.7 - 0.2 * i)))
                  .text,
              "");
  struct Case {
    std::vector<std::string> lhs, rhs;
  };
  const std::vector<Case> cases = {
      {{"T6"}, {"A"}},
      {{"A"}, {"T6"}},                           // T6 on the right
      {{"A", "T6", "B"}, {"C", "D"}},            // between transforms
      {{"C", "D"}, {"A", "T6", "B"}},            // the same, sides swapped
      {{"A", "B", "T6"}, {"E"}},                 // last on the left
      {{"E", "A"}, {"B", "C", "D", "T6"}},       // last on the right
      {{"T6", "A", "B", "C"}, {"D", "E", "A"}},  // a transform used twice
  };
  int k = 0;
  for (const Case& c : cases) {
    proto::DefinePosition d;
    d.set_name("p" + std::to_string(k++));
    for (const auto& n : c.lhs) d.add_lhs(n);
    for (const auto& n : c.rhs) d.add_rhs(n);
    ASSERT_EQ(w.definePosition(d).text, "") << d.ShortDebugString();
    const Transform t6 = w.solve(w.findPosition(d.name()));
    EXPECT_TRUE(product(w, c.lhs, t6).isApprox(product(w, c.rhs, t6), 1e-12)) << d.ShortDebugString();
  }
  // Writing the two sides the other way round is the same position.
  EXPECT_TRUE(w.solve(w.findPosition("p2")).isApprox(w.solve(w.findPosition("p3")), 1e-12));
}

TEST(WorldModel, TheToolIsWrittenRightAfterT6AndNamedByTL) {
  WorldModel w;
  for (const char* n : {"Z", "TOOL", "CONV", "OBJ"})
    ASSERT_EQ(w.defineTransform(transformDef(n, trans(0.01, 0.02, 0.03) * rot(Axis::kY, 0.1))).text, "");
  proto::DefinePosition d = positionDef("grasp", {}, {"Z", "T6", "TOOL"}, {"CONV", "OBJ"});
  d.set_tool("TOOL");
  ASSERT_EQ(w.definePosition(d).text, "");
  EXPECT_TRUE(w.tool(w.findPosition("grasp")).isApprox(w.values().transform(w.findTransform("TOOL"))));
  // On the right-hand side as well.
  d = positionDef("grasp2", {}, {"CONV", "OBJ"}, {"Z", "T6", "TOOL"});
  d.set_tool("TOOL");
  ASSERT_EQ(w.definePosition(d).text, "");
  // The manual's "TL t6": T6 is its own tool, i.e. there is none.
  d = positionDef("home", {}, {"T6"}, {"CONV"});
  d.set_tool("T6");
  ASSERT_EQ(w.definePosition(d).text, "");
  EXPECT_TRUE(w.tool(w.findPosition("home")).isApprox(Transform::Identity()));
  // Anything else is refused, saying what does stand after T6.
  d = positionDef("bad", {}, {"Z", "T6", "TOOL"}, {"CONV", "OBJ"});
  d.set_tool("OBJ");
  EXPECT_NE(w.definePosition(d).text.find("that is 'TOOL'"), std::string::npos);
  d = positionDef("bad", {}, {"Z", "T6"}, {"CONV", "OBJ"});
  d.set_tool("TOOL");
  EXPECT_NE(w.definePosition(d).text.find("(nothing is)"), std::string::npos);
  EXPECT_EQ(w.findPosition("bad"), -1);
}

TEST(WorldModel, RefusedDefinitionsChangeNothingAndSayWhy) {
  WorldModel w;
  ASSERT_EQ(w.defineTransform(transformDef("a", trans(1, 0, 0))).text, "");
  proto::DefineTransform bad = transformDef("a", trans(2, 0, 0));
  bad.mutable_value()->set_m(0, 3.0);  // no longer a rotation
  EXPECT_NE(w.defineTransform(bad).text.find("malformed matrix"), std::string::npos);
  EXPECT_TRUE(w.values().transform(w.findTransform("a")).isApprox(trans(1, 0, 0)));
  bad.mutable_value()->mutable_m()->RemoveLast();
  EXPECT_NE(w.defineTransform(bad).text.find("expected 12 values"), std::string::npos);
  EXPECT_NE(w.defineTransform(transformDef("T6", trans(0, 0, 0))).text.find("cannot be defined"), std::string::npos);
  EXPECT_NE(w.defineTransform(transformDef("", trans(0, 0, 0))).text.find("not a name"), std::string::npos);

  EXPECT_NE(w.definePosition(positionDef("p", {}, {"T6"}, {"nope"})).text.find("unknown transform 'nope'"),
            std::string::npos);
  EXPECT_NE(w.definePosition(positionDef("p", {}, {"a"}, {"a"})).text.find("has no T6"), std::string::npos);
  EXPECT_NE(w.definePosition(positionDef("p", {}, {"T6", "T6"}, {"a"})).text.find("T6 stands 2 times"),
            std::string::npos);
  EXPECT_NE(w.definePosition(positionDef("p", {}, {"T6", "a"}, {"T6"})).text.find("T6 stands 2 times"),
            std::string::npos);
  EXPECT_NE(w.definePosition(positionDef("p", {}, {"T6"}, {})).text.find("right-hand side is empty"),
            std::string::npos);
  EXPECT_NE(w.definePosition(positionDef("p", {}, {}, {"T6"})).text.find("left-hand side is empty"), std::string::npos);
  EXPECT_EQ(w.findPosition("p"), -1);
  ASSERT_EQ(w.definePosition(positionDef("p", {}, {"T6"}, {"a"})).text, "");
  // The same definition again (a task run twice) is no change; a different one is refused.
  EXPECT_EQ(w.definePosition(positionDef("p", {}, {"T6"}, {"a"})).text, "");
  EXPECT_EQ(w.definePosition(positionDef("p", {}, {"a"}, {"T6"})).text, "");  // a = T6 is T6 = a
  EXPECT_NE(w.definePosition(positionDef("p", {}, {"T6"}, {"a", "a"})).text.find("already defined otherwise"),
            std::string::npos);
  EXPECT_NE(
      w.definePosition(positionDef("p", {true, true, true}, {"T6"}, {"a"})).text.find("already defined otherwise"),
      std::string::npos);
  ASSERT_EQ(w.defineMotion(motionDef("m0", false, 1.0, 0.2)).text, "");
  EXPECT_EQ(w.defineMotion(motionDef("m0", false, 1.0, 0.2)).text, "");
  EXPECT_NE(w.defineMotion(motionDef("m0", true, 1.0, 0.2)).text.find("already defined otherwise"), std::string::npos);
  EXPECT_NE(w.defineMotion(motionDef("m0", false, 1.0, 0.2, 4)).text.find("already defined otherwise"),
            std::string::npos);
  EXPECT_NE(w.defineMotion(motionDef("m0", false, 1.0, 0.2, 0, true)).text.find("already defined otherwise"),
            std::string::npos);

  EXPECT_NE(w.defineMotion(motionDef("m", false, 0.0, 0.1)).text.find("segment time"), std::string::npos);
  EXPECT_NE(w.defineMotion(motionDef("m", false, 1.0, -0.1)).text.find("acceleration time"), std::string::npos);
  EXPECT_NE(w.defineMotion(motionDef("m", false, 1.0, 0.6)).text.find("at most half"), std::string::npos);
  // Issue 15 found these accepted: a move that never ends, a transition shorter than any period.
  EXPECT_NE(w.defineMotion(motionDef("m", false, 1e300, 0.2)).text.find("segment time"), std::string::npos);
  EXPECT_NE(w.defineMotion(motionDef("m", false, 1.0, 1e-300)).text.find("acceleration time"), std::string::npos);
  EXPECT_NE(w.defineMotion(motionDef("m", false, 2e-300, 1e-300)).text.find("acceleration time"), std::string::npos);
  EXPECT_NE(w.defineMotion(motionDef("m", false, 1.0, 0.2, 64)).text.find("six bits"), std::string::npos);
  EXPECT_EQ(w.findMotion("m"), -1);
  EXPECT_EQ(w.defineMotion(motionDef("m", true, 1.0, 0.2, 4)).text, "");
  EXPECT_TRUE(w.motion(w.findMotion("m")).cartesian);
}

TEST(WorldModel, HoldsABoundedNumberOfNamesAndQuotesNoHugeName) {
  WorldModel w(3);
  for (const char* n : {"a", "b", "c"}) ASSERT_EQ(w.defineTransform(transformDef(n, trans(0, 0, 0))).text, "");
  // An update of a name it holds is fine; a fourth name is refused and defines nothing.
  EXPECT_EQ(w.defineTransform(transformDef("a", trans(1, 0, 0))).text, "");
  const std::string full = w.defineTransform(transformDef("d", trans(0, 0, 0))).text;
  EXPECT_NE(full.find("holds 3 transforms already (controller.max_names)"), std::string::npos) << full;
  EXPECT_LT(w.findTransform("d"), 0);
  for (const char* n : {"p", "q", "r"}) ASSERT_EQ(w.definePosition(positionDef(n, {}, {"T6"}, {"a"})).text, "");
  EXPECT_NE(w.definePosition(positionDef("s", {}, {"T6"}, {"a"})).text.find("3 positions"), std::string::npos);
  for (const char* n : {"m", "n", "o"}) ASSERT_EQ(w.defineMotion(motionDef(n, false, 1.0, 0.2)).text, "");
  EXPECT_NE(w.defineMotion(motionDef("x", false, 1.0, 0.2)).text.find("3 motions"), std::string::npos);
  // A 64 KB "name" is refused by a reason of bounded length.
  const std::string huge(65536, 'n');
  EXPECT_LT(w.defineTransform(transformDef(huge, trans(0, 0, 0))).text.size(), 200u);
  EXPECT_LT(w.definePosition(positionDef("ok", {}, {"T6"}, {huge.c_str()})).text.size(), 200u);
  EXPECT_LT(w.defineMotion(motionDef(huge, false, 1.0, 0.2)).text.size(), 200u);
}

proto::Forget forgetting(proto::Forget::Kind kind, const std::string& name) {
  proto::Forget f;
  f.set_kind(kind);
  f.set_name(name);
  return f;
}

// Each refusal says what kind it is, so that a program can tell a bad value from a missing name, a
// name in use or a full table without reading the sentence.
TEST(WorldModel, EachRefusalCarriesTheCodeOfItsKind) {
  WorldModel w(2);
  const auto code = [](const Refusal& r) { return r.code; };
  EXPECT_EQ(code(w.defineTransform(transformDef("a", trans(0, 0, 0)))), RefusalCode::kNone);
  EXPECT_EQ(code(w.defineTransform(transformDef("bad name!", trans(0, 0, 0)))), RefusalCode::kInvalid);
  EXPECT_EQ(code(w.defineTransform(transformDef("T6", trans(0, 0, 0)))), RefusalCode::kNameInUse);
  EXPECT_EQ(code(w.definePosition(positionDef("p", {}, {"T6"}, {"nope"}))), RefusalCode::kUnknownName);
  EXPECT_EQ(code(w.definePosition(positionDef("p", {}, {"a"}, {"a"}))), RefusalCode::kInvalid);
  ASSERT_EQ(code(w.definePosition(positionDef("p", {}, {"T6"}, {"a"}))), RefusalCode::kNone);
  EXPECT_EQ(code(w.definePosition(positionDef("p", {true, true, true}, {"T6"}, {"a"}))), RefusalCode::kNameInUse);
  EXPECT_EQ(code(w.defineMotion(motionDef("m", false, 1.0, 0.6))), RefusalCode::kInvalid);
  ASSERT_EQ(code(w.defineMotion(motionDef("m", false, 1.0, 0.2))), RefusalCode::kNone);
  EXPECT_EQ(code(w.defineMotion(motionDef("m", true, 1.0, 0.2))), RefusalCode::kNameInUse);
  ASSERT_EQ(code(w.defineTransform(transformDef("b", trans(0, 0, 0)))), RefusalCode::kNone);
  const Refusal full = w.defineTransform(transformDef("c", trans(0, 0, 0)));
  EXPECT_EQ(full.code, RefusalCode::kTableFull) << full.text;
  EXPECT_EQ(code(w.forget(forgetting(proto::Forget::FK_TRANSFORM, "a"))), RefusalCode::kNameInUse);
  EXPECT_EQ(code(w.forget(forgetting(proto::Forget::FK_MOTION, "none"))), RefusalCode::kUnknownName);
}

// Forgetting frees a name and its place: a transform a position uses must wait for that position;
// a forgotten transform's place serves the next new one, with its own value and no motion of the
// old one's; positions defined before keep solving.
TEST(WorldModel, AForgottenNameFreesItsRoomAndItsPlace) {
  WorldModel w(2);
  ASSERT_EQ(w.defineTransform(transformDef("a", trans(0.1, 0, 0))).text, "");
  ASSERT_EQ(w.defineTransform(transformDef("b", trans(0.2, 0, 0))).text, "");
  ASSERT_EQ(w.definePosition(positionDef("p", {}, {"T6"}, {"b"})).text, "");
  const std::string used = w.forget(forgetting(proto::Forget::FK_TRANSFORM, "b")).text;
  EXPECT_NE(used.find("position 'p' uses transform 'b': forget that first"), std::string::npos) << used;
  EXPECT_NE(w.forget(forgetting(proto::Forget::FK_MOTION, "m")).text.find("no motion 'm' is defined"),
            std::string::npos);
  const int a = w.findTransform("a");
  ASSERT_EQ(w.forget(forgetting(proto::Forget::FK_TRANSFORM, "a")).text, "");
  EXPECT_LT(w.findTransform("a"), 0);
  EXPECT_EQ(w.transformNames(), 1u);
  // Room for one more, in the forgotten one's place.
  ASSERT_EQ(w.defineTransform(transformDef("c", trans(0.3, 0, 0))).text, "");
  EXPECT_EQ(w.findTransform("c"), a);
  EXPECT_TRUE(w.values().current(a).isApprox(trans(0.3, 0, 0)));
  EXPECT_FALSE(w.values().history(a).moving());
  EXPECT_TRUE(w.solve(w.findPosition("p")).isApprox(trans(0.2, 0, 0)));
  EXPECT_NE(w.defineTransform(transformDef("d", trans(0, 0, 0))).text.find("controller.max_names"), std::string::npos);
  // Positions and motions likewise: then the transform is free to go too.
  ASSERT_EQ(w.forget(forgetting(proto::Forget::FK_POSITION, "p")).text, "");
  EXPECT_EQ(w.forget(forgetting(proto::Forget::FK_TRANSFORM, "b")).text, "");
  ASSERT_EQ(w.defineMotion(motionDef("m", false, 1.0, 0.2)).text, "");
  ASSERT_EQ(w.forget(forgetting(proto::Forget::FK_MOTION, "m")).text, "");
  EXPECT_EQ(w.motionNames(), 0u);
  EXPECT_EQ(w.defineMotion(motionDef("m", true, 2.0, 0.3)).text, "")
      << "a forgotten name may be defined anew, otherwise";
}

// A frame updated at 200 Hz, used on the right of an equation: solve() carries it on from its
// newest update to the clock plus the controller's delay, so T6 is where the frame will be.
TEST(WorldModel, AFrameThatKeepsMovingIsCarriedOnToWhenTheSetpointTakesEffect) {
  const FrameTracking tracking{.history = 0.1, .max_lead = 0.05, .delay = 0.002};
  WorldModel w(16, tracking);
  const auto frame = [](double t) { return Transform(trans(0.2 + 0.03 * t, -0.1, 0.1 + 0.01 * t)); };
  ASSERT_EQ(w.defineTransform(transformDef("base", trans(0.0, 0.0, 0.05))).text, "");
  double t = 0.0;
  for (int n = 0; n < 10; ++n, t += 0.005) {
    w.setClock(t);
    ASSERT_EQ(w.defineTransform(transformDef("obj", frame(t))).text, "");
  }
  ASSERT_EQ(w.definePosition(positionDef("p", {}, {"base", "T6"}, {"obj"})).text, "");
  const double newest = t - 0.005;
  w.setClock(newest + 0.003);
  const Vec3 expected = (trans(0.0, 0.0, -0.05) * frame(newest + 0.003 + 0.002)).translation();
  EXPECT_NEAR((w.solve(w.findPosition("p")).translation() - expected).norm(), 0.0, 1e-12);
  EXPECT_TRUE(w.values().history(w.findTransform("obj")).moving());
  EXPECT_FALSE(w.values().history(w.findTransform("base")).moving());
  // Updates that stop: no further than max_lead past the newest.
  w.setClock(newest + 1.0);
  const Vec3 furthest = (trans(0.0, 0.0, -0.05) * frame(newest + 0.05)).translation();
  EXPECT_NEAR((w.solve(w.findPosition("p")).translation() - furthest).norm(), 0.0, 1e-12);
  // The value as defined stays what transform() gives.
  EXPECT_TRUE(w.values().transform(w.findTransform("obj")).isApprox(frame(newest), 1e-15));
}

}  // namespace
}  // namespace rfms
