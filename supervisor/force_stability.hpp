// Stability before a force move runs: the supervisor's background judges a move's force law on
// the sampled force loop it would close (common/force_loop.hpp), built from the arm's inertia at
// the move's joint angles, the scene's sensor and each of its surfaces, the axis's damping and the
// joints' servos, and refuses a law that is unstable or closer to instability than the controller's
// gain margin (controller.force.gain_margin), naming the gain and its bound (docs/force.md). A
// position compensator on the compliant wrist is judged the same way, on the sampled loop of the
// whole arm it closes (common/compensator_arm_loop.hpp).
//
// The model's bound agrees with the emulated arm's: on the default table, the first P gain whose
// contact diverges is 5 (predicted 4.79); with the table's damping taken out, 9 (8.04); with a
// 50 g probe, 9 (8.01); with a 3 kHz sensor, 4 (3.53). Forces about an axis (rx, ry, rz) are not
// judged: the model has no turning contact. Not for the period thread (it allocates).
#pragma once

#include <string>

#include "common/compensator_arm_loop.hpp"
#include "common/force_loop.hpp"
#include "common/robot_model.hpp"
#include "common/scene.hpp"
#include "supervisor/force_control.hpp"
#include "supervisor/supervisor_config.hpp"

namespace rfms {

class ForceStability {
 public:
  // `model` is the supervisor's (the tool's mass properties on link 6).
  ForceStability(const RobotModel& model, const SupervisorConfig& config);

  // "" when `spec`'s law holds every translational force axis stable, with the gain margin, against
  // every surface of the scene at joint angles q; else why not ("force z against 'table': ...").
  std::string verdict(const ForceSpec& spec, const JointVec& q) const;

  // The loop along `direction` (base axes, unit) against `surface`, with the axis's damping.
  ForceLoopPlant plantAt(const JointVec& q, const Vec3& direction, const SurfaceModel& surface,
                         double axis_damping) const;

  // "" when the position compensator `gains` holds its loop on the compliant wrist at joint angles
  // q with the gain margin, along the base axes that `compliance` (bits x y z) leaves it; else why
  // not ("... : K_1 must be below 0.374 at the others' values").
  std::string compensatorVerdict(const CompensatorGains& gains, std::uint32_t compliance, const JointVec& q) const;

  // The compensator's loop at q (on the compliant wrist only).
  ArmCompensatorPlant compensatorPlantAt(const JointVec& q, std::uint32_t compliance) const;

 private:
  RobotModel arm_;     // the bodies the joints move: with the tool on a stiff sensor, without it on the wrist
  RobotModel joints_;  // the joints' model of them: the tool on link 6 whatever the sensor
  const SupervisorConfig& config_;
  JointVec servo_damping_ = JointVec::Zero(), servo_stiffness_ = JointVec::Zero();
};

}  // namespace rfms
