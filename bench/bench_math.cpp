// rfms-bench-math: ns per call of each per-period algorithm in common/, next to Orocos KDL's
// equivalent on the same PUMA 560 model and the same inputs, measured in the same run; and the
// eight IK branches of an industrial arm (KUKA KR 6 R700 sixx) at once, one by one, and KDL's
// search for one.
// Prints Google Benchmark's table, then a summary of medians with the ratio KDL / ours.
//   build/bin/rfms-bench-math [--benchmark_repetitions=N] [any Google Benchmark flag]
#include <benchmark/benchmark.h>

#include "bench/benchmark_main.hpp"

#include <cstdio>
#include <kdl/chaindynparam.hpp>
#include <kdl/chainfdsolver_recursive_newton_euler.hpp>
#include <kdl/chainfksolverpos_recursive.hpp>
#include <kdl/chainidsolver_recursive_newton_euler.hpp>
#include <kdl/chainiksolverpos_lma.hpp>
#include <kdl/chainjnttojacsolver.hpp>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/crba.hpp"
#include "common/dynamics_snapshot.hpp"
#include "common/forward_dynamics.hpp"
#include "common/ik_opw.hpp"
#include "common/kinematics.hpp"
#include "common/rne.hpp"
#include "common/robot_model_loader.hpp"
#include "oracle/kdl_chain.hpp"

namespace {

using namespace rfms;

// Inputs cycle through a table of random states so no call sees a constant.
struct Inputs {
  static constexpr std::size_t kCount = 1024;
  std::vector<JointVec> q, qd, qdd;
  std::vector<Transform> t6;
  std::vector<KDL::JntArray> kq, kqd, kqdd;
  std::vector<KDL::Frame> kt6;
  std::vector<ArmConfig> config;

  explicit Inputs(const RobotModel& model, const OpwIk& ik) {
    std::mt19937_64 rng(50);
    for (std::size_t n = 0; n < kCount; ++n) {
      JointVec a, b, c;
      for (int i = 0; i < kJoints; ++i) {
        a[i] = std::uniform_real_distribution<double>(model.joints[i].q_min, model.joints[i].q_max)(rng);
        b[i] = std::uniform_real_distribution<double>(-2, 2)(rng);
        c[i] = std::uniform_real_distribution<double>(-5, 5)(rng);
      }
      q.push_back(a), qd.push_back(b), qdd.push_back(c);
      kq.push_back(oracle::kdlJoints(a)), kqd.push_back(oracle::kdlJoints(b)), kqdd.push_back(oracle::kdlJoints(c));
      const Transform t = forwardKinematics(model, a);
      t6.push_back(t);
      config.push_back(ik.configOf(a));
      KDL::Frame f;
      for (int r = 0; r < 3; ++r) {
        for (int k = 0; k < 3; ++k) f.M(r, k) = t.linear()(r, k);
        f.p(r) = t.translation()[r];
      }
      kt6.push_back(f);
    }
  }
};

const RobotModel& model() {
  static const RobotModel m = loadRobotModel(std::string(RFMS_ROBOTS_DIR) + "/puma560.textproto");
  return m;
}

const RobotModel& industrialArm() {
  static const RobotModel m = loadRobotModel(std::string(RFMS_ROBOTS_DIR) + "/kr6_r700_sixx.textproto");
  return m;
}

// Keeps the median of each benchmark for the summary.
class MedianCollector : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs)
      if (r.aggregate_name == "median")
        medians[r.run_name.function_name] = r.GetAdjustedRealTime();
      else if (r.aggregate_name.empty() && !medians.count(r.run_name.function_name))
        medians[r.run_name.function_name] = r.GetAdjustedRealTime();
  }
  std::map<std::string, double> medians;
};

template <class F>
void add(const std::string& name, F body) {
  benchmark::RegisterBenchmark(name.c_str(), [body](benchmark::State& state) {
    std::size_t n = 0;
    for (auto _ : state) {
      body(n);
      n = (n + 1) % Inputs::kCount;
    }
  })->Unit(benchmark::kNanosecond);
}

}  // namespace

int main(int argc, char** argv) {
  const RobotModel& m = model();
  const OpwIk ik(m);
  const Inputs in(m, ik);
  const KDL::Chain chain = oracle::kdlChain(m);
  const KDL::Vector grav = oracle::kdlVector(m.gravity);
  KDL::ChainFkSolverPos_recursive kdl_fk(chain);
  KDL::ChainJntToJacSolver kdl_jac(chain);
  KDL::ChainIdSolver_RNE kdl_id(chain, grav);
  KDL::ChainDynParam kdl_dyn(chain, grav);
  KDL::ChainFdSolver_RNE kdl_fd(chain, grav);
  KDL::ChainIkSolverPos_LMA kdl_ik(chain, 1e-10, 500);
  KDL::Frame frame;
  KDL::Jacobian jac(kJoints);
  KDL::JntArray out(kJoints), out2(kJoints), out3(kJoints);
  KDL::JntSpaceInertiaMatrix mass(kJoints);
  const KDL::Wrenches no_external(chain.getNrOfSegments());
  DynamicsSnapshot snapshot;

  add("fk/ours", [&](std::size_t n) { benchmark::DoNotOptimize(forwardKinematics(m, in.q[n])); });
  add("fk/kdl", [&](std::size_t n) { benchmark::DoNotOptimize(kdl_fk.JntToCart(in.kq[n], frame)); });
  add("jacobian/ours", [&](std::size_t n) { benchmark::DoNotOptimize(jacobianBase(m, in.q[n])); });
  add("jacobian/kdl", [&](std::size_t n) { benchmark::DoNotOptimize(kdl_jac.JntToJac(in.kq[n], jac)); });
  add("rnea/ours", [&](std::size_t n) { benchmark::DoNotOptimize(inverseDynamics(m, in.q[n], in.qd[n], in.qdd[n])); });
  add("rnea/kdl", [&](std::size_t n) {
    benchmark::DoNotOptimize(kdl_id.CartToJnt(in.kq[n], in.kqd[n], in.kqdd[n], no_external, out));
  });
  add("mass_matrix/ours", [&](std::size_t n) { benchmark::DoNotOptimize(massMatrix(m, in.q[n])); });
  add("mass_matrix/kdl", [&](std::size_t n) { benchmark::DoNotOptimize(kdl_dyn.JntToMass(in.kq[n], mass)); });
  add("gravity/ours", [&](std::size_t n) { benchmark::DoNotOptimize(gravityTorques(m, in.q[n])); });
  add("gravity/kdl", [&](std::size_t n) { benchmark::DoNotOptimize(kdl_dyn.JntToGravity(in.kq[n], out)); });
  add("forward_dynamics/ours",
      [&](std::size_t n) { benchmark::DoNotOptimize(forwardDynamics(m, in.q[n], in.qd[n], in.qdd[n])); });
  add("forward_dynamics/kdl", [&](std::size_t n) {
    benchmark::DoNotOptimize(kdl_fd.CartToJnt(in.kq[n], in.kqd[n], in.kqdd[n], no_external, out));
  });
  // KDL has no closed-form IK: its peer is the iterative Levenberg–Marquardt solver, started from
  // a point 0.1 rad away from the answer.
  add("ik_six_lambdas/ours",
      [&](std::size_t n) { benchmark::DoNotOptimize(ik.solveSerial(in.t6[n], in.config[n], in.q[n])); });
  std::vector<KDL::JntArray> near;
  for (std::size_t n = 0; n < Inputs::kCount; ++n) {
    near.push_back(in.kq[n]);
    for (int i = 0; i < kJoints; ++i) near.back()(i) += 0.1;
  }
  add("ik_six_lambdas/kdl",
      [&](std::size_t n) { benchmark::DoNotOptimize(kdl_ik.CartToJnt(near[n], in.kt6[n], out)); });
  add("math_server_update/ours", [&](std::size_t n) {
    updateDynamics(m, in.q[n], in.qd[n], snapshot);
    benchmark::DoNotOptimize(snapshot);
  });
  add("math_server_update/kdl", [&](std::size_t n) {
    kdl_dyn.JntToMass(in.kq[n], mass);
    kdl_dyn.JntToGravity(in.kq[n], out);
    kdl_dyn.JntToCoriolis(in.kq[n], in.kqd[n], out2);
    kdl_jac.JntToJac(in.kq[n], jac);
    const Mat6 inverse = Eigen::PartialPivLU<Mat6>(Mat6(jac.data)).inverse();
    benchmark::DoNotOptimize(inverse);
  });

  // Every branch at once on an industrial arm (the KR 6 R700 sixx, whose DH turns three z axes and
  // offsets its shoulder), against the same eight branches solved one by one, against the PUMA
  // 560's eight, and against KDL's Levenberg–Marquardt search for one solution from 0.1 rad away.
  const RobotModel& kr6 = industrialArm();
  const OpwIk kr6_ik(kr6);
  const Inputs kr6_in(kr6, kr6_ik);
  const KDL::Chain kr6_chain = oracle::kdlChain(kr6);
  KDL::ChainIkSolverPos_LMA kr6_lma(kr6_chain, 1e-10, 500);
  std::vector<KDL::JntArray> kr6_near;
  for (std::size_t n = 0; n < Inputs::kCount; ++n) {
    kr6_near.push_back(kr6_in.kq[n]);
    for (int i = 0; i < kJoints; ++i) kr6_near.back()(i) += 0.1;
  }
  IkBranches branches;
  add("ik_all_eight/opw_kr6", [&](std::size_t n) {
    benchmark::DoNotOptimize(kr6_ik.solveAll(kr6_in.t6[n], kr6_in.q[n], branches));
    benchmark::ClobberMemory();
  });
  add("ik_all_eight/serial_x8_kr6", [&](std::size_t n) {
    for (int k = 0; k < kIkBranches; ++k)
      benchmark::DoNotOptimize(kr6_ik.solveSerial(kr6_in.t6[n], branchConfig(k), kr6_in.q[n]));
  });
  add("ik_all_eight/opw_puma560", [&](std::size_t n) {
    benchmark::DoNotOptimize(ik.solveAll(in.t6[n], in.q[n], branches));
    benchmark::ClobberMemory();
  });
  add("ik_one/kdl_lma_kr6",
      [&](std::size_t n) { benchmark::DoNotOptimize(kr6_lma.CartToJnt(kr6_near[n], kr6_in.kt6[n], out)); });

  // One joint server's share of a PIK update: Lambda_i alone, in the paper's form (inner angles
  // of the previous update) and in the decoupled form (arm joints from T6 alone). The parallel
  // update costs the slowest joint's share (Zhang & Paul's Eq. 9).
  for (int i = 1; i <= kJoints; ++i) {
    add("pik_joint" + std::to_string(i) + "/paper", [&, i](std::size_t n) {
      benchmark::DoNotOptimize(ik.solveJoint(i, in.t6[n], in.q[n], in.config[n], in.q[n]));
    });
    add("pik_joint" + std::to_string(i) + "/decoupled", [&, i](std::size_t n) {
      benchmark::DoNotOptimize(ik.solveJointDecoupled(i, in.t6[n], in.q[n], in.config[n], in.q[n]));
    });
  }

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  MedianCollector reporter;
  const bool ran = bench::runChosenBenchmarks(&reporter);
  benchmark::Shutdown();
  if (!ran) return 2;

  std::printf("\nSummary (median ns per call, PUMA 560; ratio = KDL / ours, higher is better)\n");
  std::printf("%-22s %12s %12s %8s\n", "function", "ours", "KDL", "ratio");
  for (const char* f : {"fk", "jacobian", "rnea", "mass_matrix", "gravity", "forward_dynamics", "ik_six_lambdas",
                        "math_server_update"}) {
    const auto ours = reporter.medians.find(std::string(f) + "/ours");
    const auto kdl = reporter.medians.find(std::string(f) + "/kdl");
    if (ours == reporter.medians.end() || kdl == reporter.medians.end()) continue;
    std::printf("%-22s %12.1f %12.1f %8.2f\n", f, ours->second, kdl->second, kdl->second / ours->second);
  }

  std::printf("\nPIK, one joint's share of an update (median ns; the paper's Tables II and III in our units)\n");
  std::printf("%-10s %12s %12s\n", "joint", "paper", "decoupled");
  double worst_paper = 0.0, worst_decoupled = 0.0;
  for (int i = 1; i <= kJoints; ++i) {
    const std::string base = "pik_joint" + std::to_string(i);
    const double p = reporter.medians[base + "/paper"], d = reporter.medians[base + "/decoupled"];
    worst_paper = std::max(worst_paper, p);
    worst_decoupled = std::max(worst_decoupled, d);
    std::printf("%-10d %12.1f %12.1f\n", i, p, d);
  }
  std::printf("%-10s %12.1f %12.1f   (serial, all six: %.1f)\n", "max", worst_paper, worst_decoupled,
              reporter.medians["ik_six_lambdas/ours"]);

  std::printf("\nAll eight IK branches (median ns per pose)\n");
  const double all8 = reporter.medians["ik_all_eight/opw_kr6"];
  std::printf("  KR 6 R700 sixx, solveAll            %10.1f\n", all8);
  std::printf("  KR 6 R700 sixx, 8 x solveSerial     %10.1f   (%.2f x solveAll)\n",
              reporter.medians["ik_all_eight/serial_x8_kr6"], reporter.medians["ik_all_eight/serial_x8_kr6"] / all8);
  std::printf("  PUMA 560, solveAll                  %10.1f\n", reporter.medians["ik_all_eight/opw_puma560"]);
  std::printf("  KR 6 R700 sixx, KDL LMA, ONE branch %10.1f   (%.1f x solveAll's eight)\n",
              reporter.medians["ik_one/kdl_lma_kr6"], reporter.medians["ik_one/kdl_lma_kr6"] / all8);
  return 0;
}
