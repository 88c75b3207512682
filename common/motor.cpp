#include "common/motor.hpp"

#include <algorithm>

namespace rfms {

namespace {
double clampCurrent(const JointModel& j, double amps) { return std::clamp(amps, -j.max_current, j.max_current); }
}  // namespace

double torqueFromVoltage(const JointModel& j, double volts, double qd) {
  const double back_emf = j.kt * j.gear_ratio * qd;
  return torqueFromCurrent(j, (volts - back_emf) / j.resistance);
}

double torqueFromCurrent(const JointModel& j, double amps) { return j.gear_ratio * j.kt * clampCurrent(j, amps); }

double voltageForTorque(const JointModel& j, double tau, double qd) {
  return j.resistance * currentForTorque(j, tau) + j.kt * j.gear_ratio * qd;
}

double currentForTorque(const JointModel& j, double tau) { return tau / (j.gear_ratio * j.kt); }

double saturateTorque(const JointModel& j, double tau) { return std::clamp(tau, -j.tau_max, j.tau_max); }

}  // namespace rfms
