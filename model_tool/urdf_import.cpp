#include "model_tool/urdf_import.hpp"

#include <urdf_parser/urdf_parser.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <sstream>

#include "common/dh_from_axes.hpp"
#include "common/error.hpp"
#include "common/ik_opw.hpp"
#include "common/rne.hpp"
#include "model_tool/urdf.hpp"

namespace rfms::tool {

namespace {

constexpr double kDeg = 180.0 / std::numbers::pi;

// What rounding left of a zero (1e-17 from a frame's arithmetic) is written as 0.
std::string num(double x) { return exactText(std::abs(x) < 1e-15 ? 0.0 : x); }

Transform poseOf(const urdf::Pose& p) {
  double x, y, z, w;
  p.rotation.getQuaternion(x, y, z, w);
  Transform t = Transform::Identity();
  t.linear() = Eigen::Quaterniond(w, x, y, z).normalized().toRotationMatrix();
  t.translation() = Vec3(p.position.x, p.position.y, p.position.z);
  return t;
}

struct Chain {
  std::vector<urdf::JointConstSharedPtr> moving;  // base to tip
  std::vector<std::string> links;                 // each moving joint's child link
  std::array<JointAxis, kJoints> axes;
  std::array<Transform, kJoints> link_frames;  // each moving link's URDF frame at the zero pose
  Transform tip = Transform::Identity();
};

Chain chainOf(const urdf::ModelInterface& model, const std::string& source, const std::string& base,
              const std::string& tip) {
  const auto tip_link = model.getLink(tip);
  if (!tip_link) throw ConfigError(source + ": no link named '" + tip + "' (choose the tip with --tip)");
  if (!model.getLink(base)) throw ConfigError(source + ": no link named '" + base + "' (choose the base with --base)");
  std::vector<urdf::JointConstSharedPtr> path;  // tip to base
  for (auto link = tip_link; link->name != base; link = link->getParent()) {
    if (!link->parent_joint) throw ConfigError(source + ": link '" + tip + "' does not hang from '" + base + "'");
    path.push_back(link->parent_joint);
  }
  std::reverse(path.begin(), path.end());
  Chain c;
  Transform at = Transform::Identity();  // the current link's frame in the base frame, zero pose
  for (const auto& joint : path) {
    const Transform joint_frame = at * poseOf(joint->parent_to_joint_origin_transform);
    switch (joint->type) {
      case urdf::Joint::FIXED: break;
      case urdf::Joint::REVOLUTE:
      case urdf::Joint::CONTINUOUS: {
        if (c.moving.size() == kJoints)
          throw ConfigError(source + ": joint '" + joint->name +
                            "' is a seventh moving joint; the controller runs six");
        const std::size_t i = c.moving.size();
        c.axes[i].point = joint_frame.translation();
        c.axes[i].direction = joint_frame.linear() * Vec3(joint->axis.x, joint->axis.y, joint->axis.z);
        c.link_frames[i] = joint_frame;
        c.moving.push_back(joint);
        c.links.push_back(joint->child_link_name);
        break;
      }
      default:
        throw ConfigError(source + ": joint '" + joint->name + "' is " +
                          (joint->type == urdf::Joint::PRISMATIC ? "prismatic" : "neither revolute nor fixed") +
                          "; the controller runs six revolute joints");
    }
    at = joint_frame;
  }
  if (c.moving.size() != kJoints)
    throw ConfigError(source + ": " + std::to_string(c.moving.size()) + " moving joints from '" + base + "' to '" +
                      tip + "'; the controller runs six revolute joints");
  // A tree: a joint that moves beside the chain (a second arm, a gripper's finger).
  for (const auto& joint : path) {
    const auto parent = model.getLink(joint->parent_link_name);
    for (const auto& other : parent->child_joints)
      if (other->type != urdf::Joint::FIXED && std::find(path.begin(), path.end(), other) == path.end())
        throw ConfigError(source + ": link '" + parent->name + "' branches: joint '" + other->name +
                          "' moves beside the chain (a tree); the controller runs one chain of six joints");
  }
  c.tip = at;
  return c;
}

// "joint N: why" with the URDF's name of joint N after it, so that the user finds it in the file.
std::string withUrdfName(const std::string& what, const Chain& c) {
  if (what.rfind("joint ", 0) != 0 || what.size() < 7) return what;
  const int n = what[6] - '0';
  if (n < 1 || n > kJoints) return what;
  return what + " (URDF joint '" + c.moving[static_cast<std::size_t>(n - 1)]->name + "')";
}

// Link i's mass properties from its URDF frame into DH frame i (both fixed to the same body).
LinkInertia inertiaIn(const urdf::Inertial& in, const Transform& link_frame, const Transform& dh_frame) {
  const Transform com_frame = dh_frame.inverse() * link_frame * poseOf(in.origin);
  Mat3 ic;
  ic << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
  const Mat3 r = com_frame.linear();
  return LinkInertia::fromCom(in.mass, com_frame.translation(), r * ic * r.transpose());
}

// The largest static torque each joint needs anywhere in its range, for torque limits the URDF
// does not give (effort 0).
JointVec gravityNeed(const RobotModel& m) {
  std::mt19937_64 rng(55);
  JointVec need = JointVec::Zero();
  for (int n = 0; n < 2000; ++n) {
    JointVec q;
    for (int i = 0; i < kJoints; ++i)
      q[i] = std::uniform_real_distribution<double>(m.joints[i].q_min, m.joints[i].q_max)(rng);
    need = need.cwiseMax(gravityTorques(m, q).cwiseAbs());
  }
  return need;
}

}  // namespace

ImportedModel importUrdf(const std::string& urdf_text, const std::string& source, const std::string& base_in,
                         const std::string& tip, const std::string& name) {
  const urdf::ModelInterfaceSharedPtr parsed = urdf::parseURDF(urdf_text);
  if (!parsed) throw ConfigError(source + ": not a URDF that urdfdom can read");
  const std::string base = base_in.empty() ? parsed->getRoot()->name : base_in;
  const Chain c = chainOf(*parsed, source, base, tip);
  DhChain dh;
  try {
    dh = dhFromAxes(c.axes, c.tip);
  } catch (const ConfigError& e) {
    throw ConfigError(source + ": " + withUrdfName(e.what(), c));
  }
  ImportedModel out;
  RobotModel m;
  m.name = name.empty() ? parsed->getName() : name;
  m.source = source;
  for (int i = 0; i < kJoints; ++i) {
    JointModel& j = m.joints[static_cast<std::size_t>(i)];
    const auto& joint = c.moving[static_cast<std::size_t>(i)];
    j.name = joint->name;
    j.dh = dh.dh[static_cast<std::size_t>(i)];
    const auto link = parsed->getLink(c.links[static_cast<std::size_t>(i)]);
    if (link->inertial)
      j.link =
          inertiaIn(*link->inertial, c.link_frames[static_cast<std::size_t>(i)], dh.frame[static_cast<std::size_t>(i)]);
    else
      out.notes.push_back("link '" + link->name + "' has no <inertial>: massless here (its rotor inertia alone moves)");
    double lo = -2 * std::numbers::pi, hi = 2 * std::numbers::pi, vel = 0, effort = 0;
    if (joint->type == urdf::Joint::CONTINUOUS)
      out.notes.push_back("joint '" + joint->name + "' is continuous: limited to one turn each way here");
    else if (joint->limits)
      lo = joint->limits->lower, hi = joint->limits->upper;
    if (joint->limits) vel = joint->limits->velocity, effort = joint->limits->effort;
    const double sign = dh.sign[static_cast<std::size_t>(i)];
    j.q_min = sign > 0 ? lo : -hi;
    j.q_max = sign > 0 ? hi : -lo;
    if (!(j.q_max > j.q_min))
      throw ConfigError(source + ": joint '" + joint->name + "': its limits leave it no range (" + num(lo) + " .. " +
                        num(hi) + " rad)");
    if (sign < 0)
      out.notes.push_back("joint '" + joint->name + "' turns about the base's -z: the model's angle is its negative");
    j.qd_max = vel > 0 ? vel : std::numbers::pi;
    if (!(vel > 0)) out.notes.push_back("joint '" + joint->name + "': no velocity limit; 180 deg/s assumed");
    j.tau_max = effort;
    j.gear_ratio = 100;
    j.rotor_inertia = 1e-4 * 100 * 100 * (i < 3 ? 1.0 : 0.25);
  }
  // What the controller cannot run, refused before the file is written.
  try {
    const OpwIk ik(m);
    (void)ik;
  } catch (const ConfigError& e) {
    const std::string what = e.what();  // "SOURCE: joint N: ..."
    throw ConfigError(source + ": the controller's closed-form IK cannot run this arm: " +
                      withUrdfName(what.substr(what.find(": ") + 2), c));
  }
  const JointVec need = gravityNeed(m);
  for (int i = 0; i < kJoints; ++i) {
    JointModel& j = m.joints[static_cast<std::size_t>(i)];
    if (!(j.tau_max > 0)) {
      j.tau_max = std::max(10.0, 10.0 * std::ceil(0.2 * need[i]));  // twice the need, to 10 N m
      out.notes.push_back("joint '" + j.name + "': no effort limit; " + num(j.tau_max) +
                          " N m assumed (twice the largest gravity torque of the URDF's inertias, at least 10)");
    }
  }

  std::ostringstream o;
  o << "# " << m.name << ", imported by rfms-model import from " << source << " (" << base << " to " << tip << ").\n"
    << "# DH from the URDF's joint origins and axes at the zero pose; each link's mass properties moved\n"
    << "# into its DH frame; limits from the URDF. Drives and encoders have no URDF field: the values\n"
    << "# below marked \"assumed\" are placeholders that let the controller run, not the arm's.\n"
    << "name: \"" << m.name << "\"\n"
    << "description: \"" << m.name << ", imported from a URDF\"\n"
    << "gravity_m_s2 { x: 0 y: 0 z: -9.80665 }\n";
  for (int i = 0; i < kJoints; ++i) {
    const JointModel& j = m.joints[static_cast<std::size_t>(i)];
    const double k = j.tau_max / (j.gear_ratio * 0.3) * 1.25;
    o << "\njoints {\n"
      << "  name: \"" << j.name << "\"\n"
      << "  dh { alpha_deg: " << num(j.dh.alpha() * kDeg) << " a_m: " << num(j.dh.a) << " d_m: " << num(j.dh.d)
      << " theta_offset_deg: " << num(j.dh.theta_offset * kDeg) << " }\n"
      << "  link {\n    about_origin {  # the URDF's <inertial>, moved into this DH frame\n"
      << "      mass_kg: " << num(j.link.mass) << "\n"
      << "      first_moment_kgm { x: " << num(j.link.first_moment.x()) << " y: " << num(j.link.first_moment.y())
      << " z: " << num(j.link.first_moment.z()) << " }\n"
      << "      inertia_kgm2 { xx: " << num(j.link.inertia(0, 0)) << " yy: " << num(j.link.inertia(1, 1))
      << " zz: " << num(j.link.inertia(2, 2)) << " xy: " << num(j.link.inertia(0, 1))
      << " yz: " << num(j.link.inertia(1, 2)) << " xz: " << num(j.link.inertia(0, 2)) << " }\n"
      << "    }\n  }\n"
      << "  limits {\n"
      << "    min_deg: " << num(j.q_min * kDeg) << " max_deg: " << num(j.q_max * kDeg) << "\n"
      << "    max_velocity_deg_s: " << num(j.qd_max * kDeg) << "\n"
      << "    max_torque_nm: " << num(j.tau_max) << "\n"
      << "  }\n"
      << "  drive {  # assumed: a 100:1 reducer and a servo motor, not the arm's\n"
      << "    gear_ratio: " << num(j.gear_ratio) << "\n"
      << "    rotor_inertia_kgm2: " << num(j.rotor_inertia) << "\n"
      << "    coulomb_friction_nm: " << num(0.02 * j.tau_max) << "\n"
      << "    viscous_friction_nms: " << num(0.01 * j.tau_max) << "\n"
      << "    motor { torque_constant_nm_per_a: 0.3 resistance_ohm: 1.2 max_current_a: " << num(k) << " }\n"
      << "  }\n"
      << "  encoder { counts_per_joint_rev: 409600 index_angle_deg: 0 }  # assumed: 4096 counts per motor turn\n"
      << "}\n";
  }
  out.text = o.str();
  return out;
}

}  // namespace rfms::tool
