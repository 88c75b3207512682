// A robot model as URDF, for the tools of the ROS world (RViz, Foxglove, MoveIt, Pinocchio, KDL):
// the joints with their limits, each link's mass properties, and simple geometry to see it by.
//
// Paul's DH frame i moves with joint i+1's offset already turned in, which URDF cannot say: a URDF
// joint turns its child about an axis *after* its fixed origin. So URDF link i is DH frame i-1
// turned by theta_i (q_i plus the joint's offset) about z_{i-1}; joint i+1's origin is then link
// i's fixed Tz(d_i) Tx(a_i) Rx(alpha_i) followed by Rz(offset_{i+1}), and a fixed joint to the
// link "t6" ends the chain at T6. The joint angles are the model's q, and base_link -> t6 is
// forwardKinematics (tests/model_tool/test_urdf.cpp checks it with kdl_parser).
#pragma once

#include <string>
#include <vector>

#include "common/robot_model.hpp"

namespace rfms::tool {

struct Urdf {
  std::string text;
  // What URDF cannot hold, said once per link: a first moment without a mass (an identified,
  // regrouped parameter set such as the PUMA 260's) leaves that link's <inertial> out, so the
  // URDF's dynamics are not the model's. Joint rotor inertias have no URDF field either.
  std::vector<std::string> warnings;
};

Urdf toUrdf(const RobotModel& model);

// A number as text that reads back as the same double (17 significant digits), never "-0": what
// the URDF and the imported model files are written with.
std::string exactText(double x);

}  // namespace rfms::tool
