// The constants of one arm in SI units and radians: what every algorithm reads and none writes
// (the Model of Pinocchio's Model/Data split). Built from a model file by robot_model_loader.
#pragma once

#include <array>
#include <string>

#include "common/types.hpp"

namespace rfms {

// Paul's Denavit–Hartenberg parameters of one revolute joint: A = Rz(theta) Tz(d) Tx(a) Rx(alpha),
// with theta = q + theta_offset. The twist's sine and cosine are kept with it: they are constants,
// and computing them every period would double the trigonometry of forward kinematics.
class DhParams {
 public:
  DhParams() = default;
  DhParams(double alpha, double a_m, double d_m, double theta_offset_rad)
      : a(a_m), d(d_m), theta_offset(theta_offset_rad) {
    setAlpha(alpha);
  }
  double alpha() const { return alpha_; }  // rad
  double cosAlpha() const { return cos_alpha_; }
  double sinAlpha() const { return sin_alpha_; }
  void setAlpha(double alpha);

  double a = 0.0;             // m
  double d = 0.0;             // m
  double theta_offset = 0.0;  // rad

 private:
  double alpha_ = 0.0, cos_alpha_ = 1.0, sin_alpha_ = 0.0;
};

// Mass properties of a link in its own frame, about the frame origin. A first moment without mass
// is allowed: identified (regrouped) parameter sets have them.
struct LinkInertia {
  double mass = 0.0;                 // kg
  Vec3 first_moment = Vec3::Zero();  // kg m: mass times centre of mass
  Mat3 inertia = Mat3::Zero();       // kg m^2 about the frame origin

  // Mass m at centre of mass c with inertia Ic about the centre of mass, moved to the origin.
  static LinkInertia fromCom(double m, const Vec3& c, const Mat3& ic);
};

struct JointModel {
  std::string name;
  DhParams dh;
  LinkInertia link;
  double q_min = 0.0, q_max = 0.0;  // rad
  double qd_max = 0.0;              // rad/s
  double tau_max = 0.0;             // N m at the joint
  double rotor_inertia = 0.0;       // kg m^2 seen at the joint (I_a)
  double coulomb = 0.0;             // N m (F_s)
  double viscous = 0.0;             // N m s/rad (F_d)
  double gear_ratio = 1.0;          // motor turns per joint turn
  double kt = 0.0;                  // N m/A, also V s/rad
  double resistance = 0.0;          // ohm
  double max_current = 0.0;         // A
  double counts_per_rev = 0.0;      // encoder counts per joint revolution
  double index_angle = 0.0;         // rad: joint angle of the index pulse
};

struct RobotModel {
  std::string name;
  std::string description;
  std::string source;                // the file it came from, for messages
  Vec3 gravity{0.0, 0.0, -9.80665};  // m/s^2 in the base frame
  std::array<JointModel, kJoints> joints;
};

}  // namespace rfms
