#include "sim/node_configs.hpp"

#include <algorithm>
#include <random>

namespace rfms {

std::array<JointServoConfig, kJoints> servoConfigsFor(const RobotModel& model, const HarnessConfig& c) {
  std::array<JointServoConfig, kJoints> s;
  for (int i = 0; i < kJoints; ++i) {
    s[static_cast<std::size_t>(i)] = defaultServoConfig(model, i + 1, c.park, c.dt, c.servo_bandwidth_hz);
    s[static_cast<std::size_t>(i)].pik = c.pik;
  }
  return s;
}

MathConfig mathConfigFor(const RobotModel& model, const HarnessConfig& c) {
  MathConfig m;
  const auto servos = servoConfigsFor(model, c);
  for (int i = 0; i < kJoints; ++i) m.stiffness[i] = servos[static_cast<std::size_t>(i)].kp;
  return m;
}

SupervisorConfig supervisorConfigFor(const HarnessConfig& c) {
  SupervisorConfig s;
  s.dt = c.dt;
  s.update_periods = c.update_periods;
  s.watchdog_periods = c.watchdog_periods;
  s.serial_ik = c.serial_ik;
  return s;
}

ArmSimConfig armConfigFor(const RobotModel& model, const HarnessConfig& c) {
  ArmSimConfig a;
  a.dt = c.dt;
  a.amplifier = c.amplifier;
  // The arm is not quite where the joints assume: only calibration tells them.
  std::mt19937_64 rng(c.seed);
  std::uniform_real_distribution<double> offset(-c.power_up_error, c.power_up_error);
  for (int i = 0; i < kJoints; ++i)
    a.q_initial[i] = std::clamp(c.park[i] + offset(rng), model.joints[i].q_min, model.joints[i].q_max);
  return a;
}

}  // namespace rfms
