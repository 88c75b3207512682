// The whole controller driven through every path at once, not a quiet stretch of one move: a task
// drawn at random from a seed (tests/support/random_task.hpp) — joint, straight-line and blended
// moves, compliant moves, guarded touches, pressing and sliding under force control, jogs, a
// tracked frame that moves, stops mid-move, forgotten names, refused requests and an emergency
// stop — with sixteen clients watching signals and the run log on. Between one step's start and the end of its
// period's work (the desk's sampling included), no allocation and no lock on the thread, in any
// period from the first after the mail reached its sizes to the last. The seeds are fixed so that a
// failure repeats; RFMS_EVERY_PATH_SEED=N runs that seed alone.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "common/scene.hpp"
#include "common/task_file.hpp"
#include "harness/harness.hpp"
#include "harness/run_recording.hpp"
#include "harness/watch_load.hpp"
#include "runlog/run_logger.hpp"
#include "supervisor/task_script.hpp"
#include "tests/support/allocation_counter.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/lock_counter.hpp"
#include "tests/support/random_task.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

std::vector<std::uint32_t> seeds() {
  if (const char* s = std::getenv("RFMS_EVERY_PATH_SEED"))
    return {static_cast<std::uint32_t>(std::strtoul(s, nullptr, 10))};
  return {1, 2, 3};
}

// What the run went through, from the supervisor's events and mail.
struct Coverage {
  int started = 0, completed = 0, aborted = 0, guarded = 0, forced = 0, yielded = 0, emergencies = 0;
  int jog_periods = 0, tracking_periods = 0, stop_periods = 0, blends = 0;
};

TEST(EveryPath, ARandomTaskNeverAllocatesOrLocksInAPeriod) {
  const RobotModel& model = test::puma260();
  const Scene scene = loadScene(std::string(RFMS_SOURCE_DIR) + "/deploy/scenes/table.textproto");
  for (std::uint32_t seed : seeds()) {
    SCOPED_TRACE("RFMS_EVERY_PATH_SEED=" + std::to_string(seed));
    const test::RandomTask task = test::randomTask(seed, 14);
    Harness h(model, proto::ControllerSettings{}, scene);
    RemoteDesk desk(h.model(), supervisorConfigFor(proto::ControllerSettings{}, scene));
    ASSERT_TRUE(watchEverything(desk, h.background(), RemoteDesk::kMaxWatches, 1000.0, 0));
    ScriptOptions options;
    options.settle_periods = 300;
    TaskScript script(parseTaskFile(task.text, "random"), options);
    // With the run log on: every period's mail and events serialised into the logger's ring.
    const std::filesystem::path dir = test::makeUniqueDir("rfms-every-path");
    RunLogHeader header;
    header.source = "test";
    RunLogger run_log((dir / "run.mcap").string(), header, RunLogger::WhenFull::kWait);

    // The period's work is the step and the desk's sampling; the script's following of events is
    // the background's (on its own thread in the cluster) and is left out.
    constexpr std::uint64_t kWarmUp = 100;  // the mail's repeated fields reach their sizes
    long allocations = 0, locks = 0, mark_allocations = 0, mark_locks = 0;
    Coverage c;
    proto::TrajState last_ts = proto::TS_S0;
    h.on_period = [&](const PeriodMail& m) {
      desk.observe(m.k, supervisorInbox(m), *m.supervisor);
      recordPeriod(run_log, m);
      if (m.k >= kWarmUp) {
        allocations += test::allocationsOnThisThread() - mark_allocations;
        locks += test::locksOnThisThread() - mark_locks;
      }
      script.afterStep(m.k, *m.supervisor);
      for (int n = 0; n < m.supervisor->event_count; ++n) {
        const SupervisorEvent& e = m.supervisor->events[static_cast<std::size_t>(n)];
        c.started += e.kind == SupervisorEvent::kMoveStarted;
        c.completed += e.kind == SupervisorEvent::kMoveCompleted;
        c.aborted += e.kind == SupervisorEvent::kMoveAborted;
        c.guarded += e.kind == SupervisorEvent::kMoveCompleted && e.guarded;
        c.forced += e.kind == SupervisorEvent::kMoveCompleted && e.has_force;
        c.yielded += e.kind == SupervisorEvent::kMoveCompleted && e.yielded;
        c.emergencies += e.kind == SupervisorEvent::kEmergency;
      }
      const proto::TrajState ts = m.smail->traj_state();
      c.jog_periods += m.smail->rtstate() == proto::RT_MANU;
      c.stop_periods += m.smail->rtstate() == proto::RT_STOP;
      c.tracking_periods += ts == proto::TS_TRACK;
      c.blends += ts == proto::TS_S3 && last_ts == proto::TS_S2;
      last_ts = ts;
    };
    while (!script.done()) {
      script.beforeStep(h.period(), h.background());
      if (script.done()) break;
      mark_allocations = test::allocationsOnThisThread();
      mark_locks = test::locksOnThisThread();
      h.step();
    }
    h.on_period = nullptr;
    run_log.finish();
    EXPECT_EQ(run_log.dropped(), 0u);
    std::filesystem::remove_all(dir);
    const ScriptLog& log = script.log();
    std::string refused;
    for (const std::string& r : log.refused) refused += "\n  " + r;
    std::printf(
        "seed %u: %llu periods, %d requests (%zu refused), moves %d started / %d completed / %d aborted, "
        "%d guarded, %d under force, %d yielded, %d blends; periods jogging %d, tracking %d, stopping %d; "
        "%d emergency; allocations %ld, locks %ld%s\n",
        seed, static_cast<unsigned long long>(h.period()), task.requests, log.refused.size(), c.started, c.completed,
        c.aborted, c.guarded, c.forced, c.yielded, c.blends, c.jog_periods, c.tracking_periods, c.stop_periods,
        c.emergencies, allocations, locks, refused.c_str());
    EXPECT_EQ(allocations, 0);
    EXPECT_EQ(locks, 0);
    // The task went where it was drawn to go.
    EXPECT_FALSE(log.timed_out);
    EXPECT_TRUE(log.calibrated);
    EXPECT_EQ(c.emergencies, 1);
    EXPECT_GE(c.guarded, task.episodes.at("force"));
    EXPECT_GE(c.forced, 2 * task.episodes.at("force"));
    EXPECT_GT(c.blends, 0);
    EXPECT_GT(c.jog_periods, 0);
    EXPECT_GT(c.tracking_periods, 0);
    EXPECT_GT(c.stop_periods, 0);
    EXPECT_GE(c.aborted, task.episodes.at("stop"));
    EXPECT_GE(log.refused.size(), 3u * static_cast<unsigned>(task.episodes.at("refused")));
    if (HasFailure()) std::printf("the task:\n%s", task.text.c_str());
  }
}

}  // namespace
}  // namespace rfms
