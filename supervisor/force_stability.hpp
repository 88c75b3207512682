// Stability before a force move runs: the supervisor's background judges a move's force law on
// the sampled force loop it would close (common/force_loop.hpp), built from the arm's inertia at
// the move's joint angles, the scene's sensor and each of its surfaces, the axis's damping and the
// joints' servos, and refuses a law that is unstable or closer to instability than the controller's
// gain margin (controller.force.gain_margin), naming the gain and its bound (docs/force.md).
//
// The model's bound agrees with the emulated arm's: on the default table, the first P gain whose
// contact diverges is 5 (predicted 4.79); with the table's damping taken out, 9 (8.04); with a
// 50 g probe, 9 (8.01); with a 3 kHz sensor, 4 (3.53). Forces about an axis (rx, ry, rz) are not
// judged: the model has no turning contact. Not for the period thread (it allocates).
#pragma once

#include <string>

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

 private:
  RobotModel arm_;  // the bodies the joints move: with the tool on a stiff sensor, without it on the wrist
  const SupervisorConfig& config_;
  JointVec servo_damping_ = JointVec::Zero();
};

}  // namespace rfms
