// rfms-bench-force: what force control costs the controller's period, on the mail of a real
// period: examples/slide.task run in the harness until the probe is halfway along its slide,
// pressing with 10 N. A joint's step (IK, servo, compliance) with that period's S_MAIL, without
// and with its force command; and the supervisor's share, the force controller's update with the
// kinematics it needs (forward kinematics and the Jacobian of the observed angles); the watch and
// the figures it keeps each period; and the figures' work once, at a force move's end.
// (The arm's side, contact in the integrator, is rfms-bench-arm's.)
//   build/bin/rfms-bench-force [any Google Benchmark flag]
#include <benchmark/benchmark.h>

#include "bench/benchmark_main.hpp"

#include "common/kinematics.hpp"
#include "common/robot_model_loader.hpp"
#include "common/task_file.hpp"
#include "harness/harness.hpp"
#include "joint_node/joint_core.hpp"
#include "supervisor/force_control.hpp"
#include "supervisor/force_monitor.hpp"
#include "supervisor/force_stats.hpp"

namespace {

using namespace rfms;

struct Sliding {
  RobotModel model;
  Scene scene;
  proto::SMail smail;
  proto::ArmSensors sensors;
  JointVec q = JointVec::Zero(), qd = JointVec::Zero();
  Transform path = Transform::Identity();
  Vec6 contact = Vec6::Zero();
  bool ok = false;
};

// The harness, halfway along the slide: one period's mail, copied.
const Sliding& sliding() {
  static const Sliding s = [] {
    Sliding out;
    out.scene = loadScene(RFMS_DEFAULT_SCENE);
    const RobotModel bare = loadRobotModel(RFMS_DEFAULT_ROBOT);
    Harness h(bare, proto::ControllerSettings{}, out.scene);
    out.model = h.model();
    h.runUntil([] { return false; }, 10);
    proto::TaskRequest calibrate;
    calibrate.mutable_control()->set_command(proto::CC_CALIBRATE);
    h.request(calibrate);
    if (!h.runUntil([&] { return h.supervisor().rtstate() == proto::RT_HOLD; }, 60000)) return out;
    for (const TaskStatement& st : loadTaskFile(RFMS_SLIDE_TASK))
      if (st.kind == TaskStatement::kRequest && !h.request(st.request).accepted()) return out;
    const SupervisorCore& sup = h.supervisor();
    const int slide = h.world().findMotion("slide");
    if (slide < 0) return out;
    std::uint64_t sliding_since = 0;
    PeriodMail mail;
    h.on_period = [&](const PeriodMail& m) { mail = m; };
    const bool there = h.runUntil(
        [&] {
          const MotionRecord* f = sup.trajectory().forceMotion();
          if (f == nullptr || !(*f == sup.world().motion(slide))) return false;
          if (sliding_since == 0) sliding_since = h.period();
          return h.period() > sliding_since + 2500;
        },
        60000);
    if (!there || mail.smail == nullptr || mail.smail->force_command_size() != 6) return out;
    out.smail = *mail.smail;
    out.sensors = *mail.sensors;
    out.q = sup.observedAngles();
    for (int i = 0; i < kJoints; ++i) out.qd[i] = mail.jmail[static_cast<std::size_t>(i)]->velocity();
    out.path = sup.trajectory().pose();
    out.contact = sup.contactWrench();
    out.ok = true;
    return out;
  }();
  return s;
}

// Joint 3's step on that period's mail: 0 without the force command, 1 with it.
void jointStep(benchmark::State& state) {
  const Sliding& s = sliding();
  if (!s.ok) {
    state.SkipWithError("the slide did not get under way");
    return;
  }
  proto::SMail smail = s.smail;
  if (state.range(0) == 0) smail.clear_force_command();
  JointCore joint(s.model, jointConfigFor(s.model, proto::ControllerSettings{}, 3));
  JointOutbox out;
  std::uint64_t k = smail.header().period();
  for (auto _ : state) {
    smail.mutable_header()->set_period(++k);
    joint.step({smail, s.sensors}, out);
    benchmark::DoNotOptimize(out.torque);
  }
}
BENCHMARK(jointStep)->Arg(0)->Arg(1)->Unit(benchmark::kNanosecond);

// The supervisor's force control for one period: the inputs from the observed angles and the
// law's update, as SupervisorCore::commandForce does it.
void supervisorForce(benchmark::State& state) {
  const Sliding& s = sliding();
  if (!s.ok) {
    state.SkipWithError("the slide did not get under way");
    return;
  }
  proto::ForceControl f;
  f.set_force_axes(4);
  for (int d = 0; d < 6; ++d) f.add_force(d == 2 ? -10.0 : 0.0);
  ForceSpec spec;
  forceSpecOf(f, 4, spec);
  ForceController c(1e-3, 60.0, 4.0);
  const Transform& e = s.scene.tool.frame;
  for (auto _ : state) {
    const ForceInputs in = forceInputsAt(s.model, s.q, s.qd, s.path, e, s.contact);
    benchmark::DoNotOptimize(c.update(spec, 4, 1, in));
    benchmark::DoNotOptimize(c.setpoint());
  }
}
BENCHMARK(supervisorForce)->Unit(benchmark::kNanosecond);

// What watching the loop and keeping its figures adds to the supervisor's period: the monitor's
// update and the statistics' sample, on a force that wobbles about 10 N as a held contact does.
void forceWatch(benchmark::State& state) {
  ForceMonitor monitor(1e-3, 60.0);
  ForceStats stats;
  monitor.begin(Vec3(0, 0, -10), Vec3(0, 0, -0.195), 1.0);
  stats.begin(10.0, 10.0, 1e-3);
  int k = 0;
  for (auto _ : state) {
    const double f = 10.0 + 0.05 * ((k++ % 7) - 3);
    benchmark::DoNotOptimize(monitor.update(Vec3(0, 0, -f), Vec3(0, 0, -0.195), Vec3(0, 0, -f)));
    stats.add(10.0 - f, f);
  }
}
BENCHMARK(forceWatch)->Unit(benchmark::kNanosecond);

// The figures of a force move at its end, once, with the ring of the last samples full: the
// histogram's quantiles and the scan back for the settling to the end's force.
void forceFiguresAtMoveEnd(benchmark::State& state) {
  ForceStats stats;
  stats.begin(10.0, 10.0, 1e-3);
  for (int k = 0; k < 2 * ForceStats::kRing; ++k) stats.add(0.05 * ((k % 7) - 3), 10.0 + 0.05 * ((k % 7) - 3));
  for (auto _ : state) benchmark::DoNotOptimize(stats.figures(1e-3));
}
BENCHMARK(forceFiguresAtMoveEnd)->Unit(benchmark::kMicrosecond);

}  // namespace

RFMS_BENCHMARK_MAIN()
