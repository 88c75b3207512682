// The model demo: the PUMA 260 at the RFMS report's home position, forward and inverse kinematics
// and dynamics, printed for a person to read.
#pragma once

#include <iosfwd>

#include "common/robot_model.hpp"

namespace rfms::tool {

// Prints the summary; returns 0, or 1 if a self-check (FK of the IK solution) fails.
int runDemo(const RobotModel& model, std::ostream& out);

}  // namespace rfms::tool
