// Per-period mathematics must not touch the heap: this binary counts every global allocation and
// runs each real-time-safe call many times between two readings of the counter.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <random>

#include "common/crba.hpp"
#include "common/dynamics_snapshot.hpp"
#include "common/forward_dynamics.hpp"
#include "common/friction.hpp"
#include "common/ik_puma.hpp"
#include "common/kinematics.hpp"
#include "common/rne.hpp"
#include "sim/harness.hpp"
#include "tests/support/task_builders.hpp"
#include "tests/support/test_models.hpp"

namespace {
std::atomic<long> g_allocations{0};
}

void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace rfms {
namespace {

TEST(NoAllocation, PerPeriodMathematicsNeverAllocates) {
  const RobotModel& model = test::puma260();
  const PumaIk ik(model);
  std::mt19937_64 rng(40);
  JointVec q = test::randomConfiguration(model, rng);
  const JointVec qd = test::randomVector(rng, 1.0);
  DynamicsSnapshot snapshot;
  const ArmConfig config = ik.configOf(q);
  double sink = 0.0;

  const long before = g_allocations.load();
  for (int n = 0; n < 1000; ++n) {
    const Transform t6 = forwardKinematics(model, q);
    sink += jacobianBase(model, q)(0, 0) + jacobianTool(model, q)(1, 1);
    const IkSolution serial = ik.solveSerial(t6, config, q);
    const IkSolution parallel = ik.solveParallel(t6, config, q);
    sink += serial.q[0] + parallel.q[5] + (ik.configOf(serial.q).up ? 1.0 : 0.0);
    sink += inverseDynamics(model, q, qd, qd)[1] + massMatrix(model, q)(2, 2);
    sink += forwardDynamics(model, q, qd, JointVec::Zero())[3] + frictionTorques(model, qd)[0];
    updateDynamics(model, q, qd, snapshot);
    sink += snapshot.jacobian_inverse(0, 0);
    q[0] += 1e-4;
  }
  const long after = g_allocations.load();
  EXPECT_EQ(after - before, 0);
  EXPECT_TRUE(std::isfinite(sink));

  // The counter itself works: a vector allocates.
  std::vector<int>* v = new std::vector<int>(10);
  EXPECT_GT(g_allocations.load(), after);
  delete v;
}

TEST(NoAllocation, EveryCoresStepIsAllocationFreeWhileTheArmMoves) {
  // The whole controller in one process: supervisor (trajectory generator, IK), six joints (PIK,
  // servo), math server (background update, parcels) and arm (RK4 sub-steps), mail copies included.
  const RobotModel& model = test::puma260();
  Harness h(model, HarnessConfig{});
  h.runUntil([] { return false; }, 10);
  ASSERT_TRUE(h.request(test::controlRequest(proto::CC_CALIBRATE)).accepted());
  ASSERT_TRUE(h.runUntil([&] { return h.supervisor().rtstate() == proto::RT_HOLD; }, 60000));
  JointVec target = h.supervisor().observedAngles();
  target[0] += 0.3;
  target[4] -= 0.4;
  ASSERT_TRUE(h.request(test::request(test::transformDef("t", forwardKinematics(model, target)))).accepted());
  ASSERT_TRUE(h.request(test::request(test::positionDef("p", PumaIk(model).configOf(target), {"T6"}, {"t"}))).accepted());
  ASSERT_TRUE(h.request(test::request(test::motionDef("m", true, 4.0, 0.5, 0x4))).accepted());
  const proto::TaskReply r = h.request(test::moveRequest("p", "m"));
  ASSERT_TRUE(r.accepted()) << r.reason();
  h.runUntil([] { return false; }, 100);  // mail fields reach their sizes

  const long before = g_allocations.load();
  h.runUntil([] { return false; }, 3000);  // start transition, straight line, compliance on
  EXPECT_EQ(g_allocations.load() - before, 0);
  EXPECT_EQ(h.supervisor().rtstate(), proto::RT_SETP);
}

}  // namespace
}  // namespace rfms
