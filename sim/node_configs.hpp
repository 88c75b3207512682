// Every core's configuration from the controller's settings. The in-process harness and the
// cluster's node processes both build their cores through these, so that the same settings give
// the same cores wherever they run.
#pragma once

#include <array>

#include "sim/harness.hpp"

namespace rfms {

std::array<JointServoConfig, kJoints> servoConfigsFor(const RobotModel& model, const HarnessConfig& c);
MathConfig mathConfigFor(const RobotModel& model, const HarnessConfig& c);
SupervisorConfig supervisorConfigFor(const HarnessConfig& c);
ArmSimConfig armConfigFor(const RobotModel& model, const HarnessConfig& c);

}  // namespace rfms
