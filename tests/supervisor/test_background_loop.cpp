// The supervisor's background loop on its own thread, with this test in the period's place (no
// mail, no core step): in step, it prepares each period's requests before the period goes on, and
// a script that hands over more commands than the link holds has the waiting period apply them —
// none lost, none applied twice. Only order and counts are asserted, never how long it took.
#include <gtest/gtest.h>

#include <string>

#include "common/task_file.hpp"
#include "supervisor/shell/background_loop.hpp"
#include "tests/support/port_cluster.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

// The link's commands applied, as a step does first; how many.
std::size_t apply(SupervisorCore& core) {
  core.takeCommands();
  const std::size_t n = core.takenCommands();
  core.releaseCommands();
  return n;
}

// The period's side of a run: until the script is done (at most `periods`), each period waits for
// its preparation, applying the link's commands whenever the background asks for room, and then
// as its step would.
struct PeriodSide {
  std::uint64_t periods = 0;
  std::size_t applied = 0;
  int rooms = 0;
};
PeriodSide runPeriods(BackgroundLoop& loop, SupervisorCore& core, std::uint64_t limit) {
  const SupervisorOutbox out;
  PeriodSide p;
  for (; p.periods < limit; ++p.periods) {
    while (!loop.prepared(p.periods)) {
      p.applied += apply(core);
      ++p.rooms;
      loop.roomMade();
    }
    if (loop.scriptDone()) break;
    p.applied += apply(core);
    loop.stepped(p.periods, out, 0);
  }
  return p;
}

class BackgroundLoopTest : public ::testing::Test {
 protected:
  BackgroundLoopTest()
      : settings_(test::inProcessCluster(proto::MT_SHARED_MEMORY, "background-loop")),
        supervisor_(test::puma260(), SupervisorConfig{}),
        tap_(nullptr, proto::CM_LOCKSTEP) {}

  TaskScript scriptOf(const std::string& text) {
    ScriptOptions options;
    options.calibrate = false;
    options.power_up_periods = 0;
    options.settle_periods = 0;
    return TaskScript(parseTaskFile(text, "test"), options);
  }

  ClusterSettings settings_;
  Supervisor supervisor_;
  LogTap tap_;
};

TEST_F(BackgroundLoopTest, InStepAScriptLongerThanTheLinkHasTheWaitingPeriodApplyItsCommands) {
  // 300 updates of one transform in one preparation: the link holds 256.
  std::string text = "units mm deg\n";
  for (int i = 0; i < 300; ++i) text += "transform t rpy " + std::to_string(i) + " 0 100 0 90 0\n";
  TaskScript script = scriptOf(text);
  BackgroundLoop loop(settings_, supervisor_.background(), tap_, *spdlog::default_logger());
  loop.begin(nullptr, &script, 0);
  PeriodSide p = runPeriods(loop, supervisor_.core(), 1000);
  loop.end();
  EXPECT_TRUE(loop.scriptDone()) << "after " << p.periods << " periods";
  EXPECT_FALSE(loop.failed());
  EXPECT_GE(p.rooms, 1) << "the link filled, and the period made room";
  EXPECT_TRUE(script.log().refused.empty()) << script.log().refused.front();
  p.applied += apply(supervisor_.core());  // what the script's last preparation handed over
  EXPECT_EQ(p.applied, 300u) << "each command once";
  EXPECT_GE(supervisor_.world().findTransform("t"), 0);
}

TEST_F(BackgroundLoopTest, ASecondRunOnTheSameThreadPreparesFromItsOwnFirstStep) {
  BackgroundLoop loop(settings_, supervisor_.background(), tap_, *spdlog::default_logger());
  TaskScript first = scriptOf("units mm deg\ntransform a rpy 1 0 100 0 90 0\n");
  loop.begin(nullptr, &first, 0);
  const PeriodSide one = runPeriods(loop, supervisor_.core(), 100);
  loop.end();
  ASSERT_TRUE(loop.scriptDone());
  TaskScript second = scriptOf("units mm deg\ntransform b rpy 2 0 100 0 90 0\n");
  loop.begin(nullptr, &second, 0);
  const PeriodSide two = runPeriods(loop, supervisor_.core(), 100);
  loop.end();
  EXPECT_TRUE(loop.scriptDone());
  EXPECT_GE(supervisor_.world().findTransform("b"), 0);
  EXPECT_EQ(one.rooms + two.rooms, 0);
}

}  // namespace
}  // namespace rfms
