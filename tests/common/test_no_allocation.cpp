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

}  // namespace
}  // namespace rfms
