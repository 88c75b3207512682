// rfms-bench-arm: what the scene costs the emulated arm's period (ArmCore::step, four RK4
// sub-steps): no scene; the default scene (a tool, its force/torque sensor, one surface) with the
// tool in the air; and the same with the tool pressing on the surface, friction and all; then the
// same two with the tool on a compliant wrist (deploy/scenes/wrist_table.textproto: the tool a
// body of its own, 13 more states). The arm's period must stay well inside the 1 ms sample period.
//   build/bin/rfms-bench-arm [any Google Benchmark flag]
#include <benchmark/benchmark.h>

#include "bench/benchmark_main.hpp"

#include "arm_sim/arm_core.hpp"
#include "common/kinematics.hpp"
#include "common/rne.hpp"
#include "common/robot_model_loader.hpp"

namespace {

using namespace rfms;

// The manual's home position, T6 = trans(203.2, -126.24, 203.2) mm, the probe pointing up: far above the table.
const JointVec kPose = JointVec::Zero();

// 0: no scene; 1: the default scene in the air; 2: the default scene's tool resting 0.2 mm into a
// plane at its tool point; 3 and 4: the same as 1 and 2 on the compliant wrist.
void armStep(benchmark::State& state) {
  static const RobotModel bare = loadRobotModel(RFMS_DEFAULT_ROBOT);
  Scene scene;
  if (state.range(0) > 0) scene = loadScene(state.range(0) > 2 ? RFMS_WRIST_SCENE : RFMS_DEFAULT_SCENE);
  const RobotModel model = withTool(bare, scene.tool);
  if (state.range(0) == 2 || state.range(0) == 4) {
    SurfaceModel floor = scene.surfaces.front();
    floor.shape = SurfaceModel::Shape::kPlane;
    floor.pose = Transform::Identity();
    const Vec3 tip = (forwardKinematics(model, kPose) * scene.tool.frame).translation();
    floor.pose.translation() = tip - Vec3(0, 0, scene.tool.tip_radius - 0.0002);
    scene.surfaces = {floor};
  }
  ArmSimConfig c;
  c.q_initial = kPose;
  c.scene = scene;
  ArmCore arm(model, c);
  std::array<proto::TorqueCommand, kJoints> mail;
  std::array<const proto::TorqueCommand*, kJoints> commands{};
  ArmOutbox sensed;
  for (std::size_t i = 0; i < mail.size(); ++i) {
    mail[i].set_power(true);
    commands[i] = &mail[i];
  }
  // Held where it is, as the joints hold it (gravity and a stiff PD loop; in contact the tool is
  // pressed by its weight), so that every period of the run is the case named.
  const JointVec g = gravityTorques(model, kPose);
  for (auto _ : state) {
    const JointVec tau = g + 200.0 * (kPose - arm.q()) - 5.0 * arm.qd();
    for (std::size_t i = 0; i < mail.size(); ++i) {
      mail[i].set_torque(tau[static_cast<int>(i)]);
      mail[i].mutable_header()->set_period(arm.period());
    }
    arm.step({commands}, sensed);
  }
  state.counters["in_contact"] = arm.contact().surface >= 0 ? 1 : 0;
}
BENCHMARK(armStep)->Arg(0)->Arg(1)->Arg(2)->Arg(3)->Arg(4)->Unit(benchmark::kMicrosecond);

}  // namespace

RFMS_BENCHMARK_MAIN()
