#include "model_tool/urdf.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "common/kinematics.hpp"
#include "common/link_shapes.hpp"
#include "common/transform.hpp"

namespace rfms::tool {

namespace {

std::string num(double x) { return exactText(x); }

std::string xyz(const Vec3& v) { return num(v.x()) + " " + num(v.y()) + " " + num(v.z()); }

// URDF's rpy is roll about x, pitch about y, yaw about z, in that order about fixed axes:
// R = Rz(yaw) Ry(pitch) Rx(roll), which is RCCL's rpy(yaw, pitch, roll).
std::string origin(const Transform& t) {
  const Vec3 a = rpyAngles(t.linear());
  return "<origin xyz=\"" + xyz(t.translation()) + "\" rpy=\"" + num(a.z()) + " " + num(a.y()) + " " + num(a.x()) +
         "\"/>";
}

void cylinder(std::ostringstream& o, const LinkCylinder& c) {
  o << "    <visual>" << origin(c.centre) << "<geometry><cylinder radius=\"" << num(kLinkRadius) << "\" length=\""
    << num(c.length) << "\"/></geometry><material name=\"link\"/></visual>\n";
}

// Link i's mass properties, given in DH frame i, in URDF link i's frame: centre of mass and the
// inertia about it, turned by the fixed part. A massless link's inertia is about its origin.
void inertial(std::ostringstream& o, const LinkInertia& l, const Transform& fixed) {
  const Vec3 com = l.mass > 0.0 ? Vec3(l.first_moment / l.mass) : Vec3::Zero();
  const Mat3 ic = l.inertia - l.mass * (com.squaredNorm() * Mat3::Identity() - com * com.transpose());
  const Mat3 r = fixed.linear();
  const Mat3 i = r * ic * r.transpose();
  o << "    <inertial><origin xyz=\"" << xyz(fixed * com) << "\" rpy=\"0 0 0\"/><mass value=\"" << num(l.mass)
    << "\"/><inertia ixx=\"" << num(i(0, 0)) << "\" ixy=\"" << num(i(0, 1)) << "\" ixz=\"" << num(i(0, 2))
    << "\" iyy=\"" << num(i(1, 1)) << "\" iyz=\"" << num(i(1, 2)) << "\" izz=\"" << num(i(2, 2)) << "\"/></inertial>\n";
}

void link(std::ostringstream& o, const JointModel& j, int i, std::vector<std::string>& warnings) {
  const Transform fixed = fixedPart(j.dh);
  o << "  <link name=\"link" << i << "\">\n";
  for (const LinkCylinder& c : linkCylinders(j.dh)) cylinder(o, c);
  const LinkInertia& l = j.link;
  if (l.mass <= 0.0 && !l.first_moment.isZero(0.0))
    warnings.push_back("link " + std::to_string(i) + " (" + j.name +
                       "): a first moment without a mass (an identified, regrouped parameter set) has no "
                       "URDF form; its <inertial> is left out, and the URDF's dynamics are not the model's");
  else if (l.mass > 0.0 || !l.inertia.isZero(0.0))
    inertial(o, l, fixed);
  o << "  </link>\n";
}

void joint(std::ostringstream& o, const JointModel& j, int i, const Transform& parent_fixed) {
  o << "  <joint name=\"" << (j.name.empty() ? "joint" + std::to_string(i) : j.name) << "\" type=\"revolute\">\n"
    << "    <parent link=\"" << (i == 1 ? std::string("base_link") : "link" + std::to_string(i - 1))
    << "\"/><child link=\"link" << i << "\"/>\n"
    << "    " << origin(parent_fixed * rot(Axis::kZ, j.dh.theta_offset)) << "<axis xyz=\"0 0 1\"/>\n"
    << "    <limit lower=\"" << num(j.q_min) << "\" upper=\"" << num(j.q_max) << "\" velocity=\"" << num(j.qd_max)
    << "\" effort=\"" << num(j.tau_max) << "\"/>\n"
    << "    <dynamics damping=\"" << num(j.viscous) << "\" friction=\"" << num(j.coulomb) << "\"/>\n"
    << "  </joint>\n";
}

}  // namespace

std::string exactText(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.17g", x == 0.0 ? 0.0 : x);  // no "-0"
  return b;
}

Urdf toUrdf(const RobotModel& model) {
  Urdf u;
  std::ostringstream o;
  o << "<?xml version=\"1.0\"?>\n"
    << "<!-- " << model.name << ", written by rfms-model urdf from " << model.source
    << ". Joint angles are the model's q; base_link to t6 is its T6. Rotor inertias (I_a) have no URDF "
       "field and are left out. -->\n"
    << "<robot name=\"" << model.name << "\">\n"
    << "  <material name=\"link\"><color rgba=\"0.8 0.5 0.2 1\"/></material>\n"
    << "  <link name=\"base_link\">\n"
    << "    <visual><origin xyz=\"0 0 -0.02\" rpy=\"0 0 0\"/><geometry><box size=\"0.16 0.16 0.04\"/></geometry>"
       "<material name=\"link\"/></visual>\n"
    << "  </link>\n";
  Transform parent_fixed = Transform::Identity();
  for (int i = 1; i <= kJoints; ++i) {
    const JointModel& j = model.joints[static_cast<std::size_t>(i - 1)];
    joint(o, j, i, parent_fixed);
    link(o, j, i, u.warnings);
    parent_fixed = fixedPart(j.dh);
  }
  o << "  <joint name=\"t6_frame\" type=\"fixed\">\n"
    << "    <parent link=\"link6\"/><child link=\"t6\"/>" << origin(parent_fixed) << "\n"
    << "  </joint>\n"
    << "  <link name=\"t6\"/>\n"
    << "</robot>\n";
  u.text = o.str();
  return u;
}

}  // namespace rfms::tool
