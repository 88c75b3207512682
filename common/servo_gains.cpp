#include "common/servo_gains.hpp"

#include <numbers>

#include "common/crba.hpp"

namespace rfms {

ServoGains designServoGains(const RobotModel& model, int joint, const JointVec& park, double bandwidth_hz) {
  const double inertia = massMatrix(model, park)(joint - 1, joint - 1);
  const double w = 2.0 * std::numbers::pi * bandwidth_hz;
  ServoGains g;
  g.kp = inertia * w * w;
  g.kd = 2.0 * inertia * w;
  // A tenth of the bandwidth: enough to remove a steady load without eating the phase margin.
  g.ki = g.kp * w / 10.0;
  g.integral_limit = 0.3 * model.joints[static_cast<std::size_t>(joint - 1)].tau_max;
  return g;
}

}  // namespace rfms
