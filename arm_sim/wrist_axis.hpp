// The one-axis plants of Xu & Paul's compliant-wrist analysis (appendix A.1 of the RFMS report),
// integrated by RK4: the closed forms the force laws and the compensator (common/force_law.hpp)
// are checked against before they drive the arm.
#pragma once

namespace rfms {

// Force control against an environment (A.1 §3, Eq. 37). A drive force u moves the arm's mass m,
// damped by C_r; the compliant wrist (K_w, C_w) joins it to the end effector, mass m_e, which
// meets an environment of stiffness K_e and damping C_e. A rigid environment holds the end
// effector still (Eq. 29). The wrist's sensor measures the deflection, read as force K_w d.
struct ForceAxisParams {
  double m = 2.0;       // kg
  double c_r = 200.0;   // N s/m
  double k_w = 4000.0;  // N/m
  double c_w = 0.0;     // N s/m
  bool rigid = true;    // a rigid environment: m_e, k_e, c_e unused
  double m_e = 1.0;     // kg
  double k_e = 1e4;     // N/m
  double c_e = 0.0;     // N s/m
};

class ForceAxis {
 public:
  explicit ForceAxis(const ForceAxisParams& p) : p_(p) {}
  // Integrates [t, t + dt] with the drive u held.
  void step(double u, double dt);
  double deflection() const { return x_ - xe_; }               // m: arm minus end effector, > 0 pressing
  double wristForce() const { return p_.k_w * deflection(); }  // N: what the sensor reads
  double contactForce() const;                                 // N: what the environment feels

 private:
  ForceAxisParams p_;
  double x_ = 0.0, v_ = 0.0;    // the arm, from where the wrist is unloaded in contact
  double xe_ = 0.0, ve_ = 0.0;  // the end effector, from where it meets the environment
};

// Position control through the wrist (A.1 §2, Fig. 2). The link's joint servo is a PD loop,
// x_l = G_c u with G_c = K_p / (J s^2 + K_v s + K_p) (J = 0: a first-order lag); the end effector,
// mass m, hangs on the wrist (K, C) and carries an external force F.
struct PositionAxisParams {
  double m = 2.0;     // kg
  double k = 4000.0;  // N/m
  double c = 200.0;   // N s/m
  double kp = 1.0;    // the joint loop's gains: dimensionless, ...
  double kv = 0.01;   // ... s, ...
  double j = 0.0;     // ... s^2 (0: the link's inertia neglected, as in Eqs. 16-18)
};

class PositionAxis {
 public:
  explicit PositionAxis(const PositionAxisParams& p) : p_(p) {}
  // Integrates [t, t + dt] with the link's command u and the force F held.
  void step(double u, double force, double dt);
  double link() const { return xl_; }
  double endEffector() const { return x_; }
  double deflection() const { return x_ - xl_; }  // what the wrist's potentiometers read

 private:
  PositionAxisParams p_;
  double xl_ = 0.0, vl_ = 0.0, x_ = 0.0, v_ = 0.0;
};

}  // namespace rfms
