// The model demo: the PUMA 260 at the RFMS report's home position, forward and inverse kinematics
// and dynamics, printed for a person to read.
#pragma once

#include <iosfwd>

#include "common/robot_model.hpp"

namespace rfms::tool {

// The RFMS manual's home position (A.5, example task): trans(203.2, -126.23, 203.2) mm.
inline const Vec3 kReportHomeMm{203.2, -126.23, 203.2};

// Prints the summary for the target trans(target_mm) reached RIGHT, DOWN, FLIP as in the report;
// returns 0, or 1 if the target cannot be reached or FK of the IK solution misses it.
int runDemo(const RobotModel& model, const Vec3& target_mm, std::ostream& out);

}  // namespace rfms::tool
