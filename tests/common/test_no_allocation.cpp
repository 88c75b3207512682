// Per-period code must not touch the heap: this binary counts every allocation of its thread
// (tests/support/allocation_counter.hpp) and runs each real-time-safe call many times between two
// readings of the counter.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <vector>

#include "common/crba.hpp"
#include "common/dynamics_snapshot.hpp"
#include "common/forward_dynamics.hpp"
#include "common/friction.hpp"
#include "common/ik_opw.hpp"
#include "common/kinematics.hpp"
#include "common/rne.hpp"
#include "common/scene.hpp"
#include "common/task_file.hpp"
#include "common/text_file.hpp"
#include "harness/harness.hpp"
#include "harness/run_recording.hpp"
#include "harness/watch_load.hpp"
#include "runlog/run_logger.hpp"
#include "tests/support/allocation_counter.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/harness_calibration.hpp"
#include "tests/support/task_builders.hpp"
#include "tests/support/test_models.hpp"

namespace rfms {
namespace {

TEST(NoAllocation, PerPeriodMathematicsNeverAllocates) {
  const RobotModel& model = test::puma260();
  const OpwIk ik(model);
  std::mt19937_64 rng(40);
  JointVec q = test::randomConfiguration(model, rng);
  const JointVec qd = test::randomVector(rng, 1.0);
  DynamicsSnapshot snapshot;
  const ArmConfig config = ik.configOf(q);
  double sink = 0.0;

  const long before = test::allocationsOnThisThread();
  for (int n = 0; n < 1000; ++n) {
    const Transform t6 = forwardKinematics(model, q);
    sink += jacobianBase(model, q)(0, 0) + jacobianTool(model, q)(1, 1);
    const IkSolution serial = ik.solveSerial(t6, config, q);
    const IkSolution parallel = ik.solveParallel(t6, config, q);
    IkBranches all;
    sink += ik.solveAll(t6, q, all) + all[7].q[3];
    sink += serial.q[0] + parallel.q[5] + (ik.configOf(serial.q).up ? 1.0 : 0.0);
    sink += inverseDynamics(model, q, qd, qd)[1] + massMatrix(model, q)(2, 2);
    sink += forwardDynamics(model, q, qd, JointVec::Zero())[3] + frictionTorques(model, qd)[0];
    updateDynamics(model, q, qd, snapshot);
    sink += snapshot.jacobian_inverse(0, 0);
    q[0] += 1e-4;
  }
  const long after = test::allocationsOnThisThread();
  EXPECT_EQ(after - before, 0);
  EXPECT_TRUE(std::isfinite(sink));
}

// Hides a pointer from the optimiser, which may otherwise drop an allocation that is never used.
void* keep(void* p) {
  asm volatile("" : : "g"(p) : "memory");
  return p;
}

// The counter sees every way to the heap, not only the plain operator new.
TEST(NoAllocation, TheCounterSeesMallocEigenAlignedAndArrayAllocations) {
  auto grows = [](const char* what, auto&& allocate) {
    const long before = test::allocationsOnThisThread();
    allocate();
    EXPECT_GT(test::allocationsOnThisThread(), before) << what;
  };
  grows("malloc", [] { std::free(keep(std::malloc(24))); });
  grows("calloc", [] { std::free(keep(std::calloc(3, 8))); });
  grows("realloc", [] { std::free(keep(std::realloc(nullptr, 40))); });
  grows("aligned_alloc", [] { std::free(keep(std::aligned_alloc(64, 128))); });
  grows("posix_memalign", [] {
    void* p = nullptr;
    ASSERT_EQ(posix_memalign(&p, 64, 128), 0);
    std::free(keep(p));
  });
  grows("new", [] { delete static_cast<int*>(keep(new int(1))); });
  grows("new[]", [] { delete[] static_cast<double*>(keep(new double[8])); });
  struct alignas(128) Wide {
    double x[4];
  };
  grows("aligned new", [] { delete static_cast<Wide*>(keep(new Wide())); });
  grows("a dynamic Eigen matrix", [] {
    Eigen::MatrixXd m(6, 6);
    keep(m.data());
  });
  grows("std::vector", [] {
    std::vector<int> v(10);
    keep(v.data());
  });
}

TEST(NoAllocation, EveryCoresStepIsAllocationFreeWhileTheArmMoves) {
  // The whole controller in one process: supervisor (trajectory generator, IK), six joints (PIK,
  // servo), math server (background update, parcels) and arm (RK4 sub-steps), mail copies included.
  const RobotModel& model = test::puma260();
  Harness h(model, proto::ControllerSettings{});
  ASSERT_TRUE(test::calibrate(h));
  JointVec target = h.supervisor().observedAngles();
  target[0] += 0.3;
  target[4] -= 0.4;
  ASSERT_TRUE(h.request(test::request(test::transformDef("t", forwardKinematics(model, target)))).accepted());
  ASSERT_TRUE(
      h.request(test::request(test::positionDef("p", OpwIk(model).configOf(target), {"T6"}, {"t"}))).accepted());
  ASSERT_TRUE(h.request(test::request(test::motionDef("m", true, 4.0, 0.5, 0x4))).accepted());
  const proto::TaskReply r = h.request(test::moveRequest("p", "m"));
  ASSERT_TRUE(r.accepted()) << r.reason();
  h.runUntil([] { return false; }, 100);  // mail fields reach their sizes

  const long before = test::allocationsOnThisThread();
  h.runUntil([] { return false; }, 3000);  // start transition, straight line, compliance on
  EXPECT_EQ(test::allocationsOnThisThread() - before, 0);
  EXPECT_EQ(h.supervisor().rtstate(), proto::RT_SETP);

  // With the run log on: every period's mail is serialised into the logger's ring, not the heap
  // (the writer thread's allocations are its own).
  char dir[] = "/tmp/rfms-noalloc-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  RunLogHeader header;
  header.source = "test";
  {
    RunLogger log(std::string(dir) + "/run.mcap", header, RunLogger::WhenFull::kWait);
    h.on_period = [&](const PeriodMail& m) { recordPeriod(log, m); };
    h.runUntil([] { return false; }, 10);
    const long logged_before = test::allocationsOnThisThread();
    h.runUntil([] { return false; }, 3000);
    EXPECT_EQ(test::allocationsOnThisThread() - logged_before, 0);
    h.on_period = nullptr;
    log.finish();
    EXPECT_EQ(log.dropped(), 0u);
    EXPECT_GT(log.written(), 3000u * 14);
  }
  std::filesystem::remove_all(dir);
}

// Moves starting, blending, meeting the table under a guard, pressing and sliding under force
// control, and ending, with the remote desk keeping what ended: the slide example, its motions
// given names longer than a std::string keeps without allocating, queued before the count starts.
TEST(NoAllocation, MovesStartAndEndAndForceControlBeginsWithoutAllocating) {
  const RobotModel& model = test::puma260();
  const Scene scene = loadScene(std::string(RFMS_SOURCE_DIR) + "/deploy/scenes/table.textproto");
  Harness h(model, proto::ControllerSettings{}, scene);
  RemoteDesk desk(h.model(), supervisorConfigFor(proto::ControllerSettings{}, scene));
  ASSERT_TRUE(test::calibrate(h));
  h.on_period = [&](const PeriodMail& m) { desk.observe(m.k, supervisorInbox(m), *m.supervisor); };
  std::string task = readTextFile(std::string(RFMS_SOURCE_DIR) + "/examples/slide.task");
  for (const char* motion : {" reach", " touch", " push", " slide", " leave"})
    for (std::size_t at = 0; (at = task.find(motion, at)) != std::string::npos; at += 40)
      task.insert(at + std::strlen(motion), "_a_motion_name_longer_than_sso");
  int moves = 0;
  for (const TaskStatement& st : parseTaskFile(task, "slide"))
    if (st.kind == TaskStatement::kRequest) {
      const proto::TaskReply r = h.request(st.request);
      ASSERT_TRUE(r.accepted()) << r.reason();
      moves += st.request.has_move() ? 1 : 0;
    }
  ASSERT_EQ(moves, 5);

  const long before = test::allocationsOnThisThread();
  const bool ended = h.runUntil(
      [&] { return h.supervisor().trajectory().queued() == 0 && h.supervisor().trajectory().atRest(); }, 60000);
  EXPECT_EQ(test::allocationsOnThisThread() - before, 0);
  ASSERT_TRUE(ended);
  EXPECT_EQ(h.supervisor().rtstate(), proto::RT_SETP);
  proto::ArmStatus status;
  desk.status(h.background().view(), h.period(), status);
  ASSERT_EQ(status.recent_ended_size(), 5);
  EXPECT_TRUE(status.recent_ended(1).guard_tripped());  // the touch met the table
  for (const proto::MoveOutcome& o : status.recent_ended()) EXPECT_TRUE(o.completed()) << o.id();
  EXPECT_TRUE(status.recent_ended(3).has_force());  // the slide held its force
}

// On the compliant wrist: the potentiometers read through the linkage (both sides of it), moves
// under each form of the position compensator starting one from another's offset, and the watch
// stopping one that rings, with the emergency it raises. Refused by the check, the ringing one is
// let through here (refuse_unstable_laws off), as an expert would.
TEST(NoAllocation, TheWristsCompensatorsAndTheirWatchRunWithoutAllocating) {
  const RobotModel& model = test::puma260();
  const Scene scene = loadScene(std::string(RFMS_SOURCE_DIR) + "/deploy/scenes/wrist_table.textproto");
  proto::ControllerSettings settings;
  settings.mutable_force()->set_refuse_unstable_laws(false);
  Harness h(model, settings, scene);
  ASSERT_TRUE(test::calibrate(h));
  const std::string task =
      "units mm deg\n"
      "transform a rpy 220 -130 -125 0 150 0\n"  // the probe 22 mm above the table, and 20 mm aside
      "transform b rpy 200 -130 -125 0 150 0\n"
      "position pa righty,down,flip T6 = a\n"
      "position pb righty,down,flip T6 = b\n"
      "motion reach joint 2 0.2\n"
      "motion lagged cartesian 0.5 0.1 compensate 1\n"
      // Within its bound on this arm: with rate 0.001 the lead-lag holds a limit cycle the watch stops.
      "motion leadlag cartesian 0.5 0.1 compensate 0.5 rate 0.0004 acceleration 1e-7 lead 0.005 lag 0.05\n"
      "motion rings cartesian 2 0.2 compensate 1 lag 0\n"
      "move pa reach\nmove pb lagged\nmove pa leadlag\nmove pb rings\n";
  for (const TaskStatement& st : parseTaskFile(task, "wrist")) ASSERT_TRUE(h.request(st.request).accepted()) << st.line;
  int completed = 0;
  h.on_period = [&](const PeriodMail& m) {
    for (int i = 0; i < m.supervisor->event_count; ++i)
      completed += m.supervisor->events[static_cast<std::size_t>(i)].kind == SupervisorEvent::kMoveCompleted;
  };
  const long before = test::allocationsOnThisThread();
  const bool stopped = h.runUntil([&] { return h.supervisor().rtstate() == proto::RT_EMGCY; }, 20000);
  EXPECT_EQ(test::allocationsOnThisThread() - before, 0);
  ASSERT_TRUE(stopped);
  EXPECT_EQ(h.supervisor().emergencyReason(), proto::ER_COMPENSATION_OSCILLATION);
  EXPECT_EQ(completed, 3);  // each compensator before the one that rings
}

// Watched signals (debug()) are sampled in the period: sixteen clients each watching sixteen
// signals of every mailbox the supervisor sees, at the sample rate, while the arm moves.
TEST(NoAllocation, WatchedSignalsAreSampledWithoutAllocating) {
  const RobotModel& model = test::puma260();
  Harness h(model, proto::ControllerSettings{});
  RemoteDesk desk(model, SupervisorConfig{});
  h.runUntil([] { return false; }, 10);
  ASSERT_TRUE(h.request(test::controlRequest(proto::CC_CALIBRATE)).accepted());
  ASSERT_TRUE(watchEverything(desk, h.background(), RemoteDesk::kMaxWatches, 1000.0, 10));
  h.on_period = [&](const PeriodMail& m) { desk.observe(m.k, supervisorInbox(m), *m.supervisor); };
  h.runUntil([] { return false; }, 100);
  const long before = test::allocationsOnThisThread();
  h.runUntil([] { return false; }, 3000);  // calibrating: every joint moving
  EXPECT_EQ(test::allocationsOnThisThread() - before, 0);
  h.on_period = nullptr;
  proto::ArmStatus s;
  desk.watchStatus(1, h.period(), s);
  EXPECT_EQ(s.samples_dropped(), 3100u - SignalWatch::kCapacity);  // undrained: the ring kept the newest
  EXPECT_EQ(s.watched_size(), 16);
}

}  // namespace
}  // namespace rfms
