// The force laws and the position compensator of the compliant wrist (Xu & Paul, in appendix A.1
// of the RFMS report), as discrete laws run once per sample period. Pure and real-time safe.
//
// Force control (A.1 §3): the measured contact force F is brought to the desired F_d by a drive u
// (a force on the arm; a servo that moves in position turns it into a displacement, u / K_w):
//   P    u = K_p e                          e = F_d - F;  to a step, e_ss = 1 / (1 + K_p)  (Eq. 27)
//   PD   u = K_p (e - K_v dF/dt)            the same poles and steady state as K_p (1 + K_v s) e
//                                           (Eq. 29); the rate acts on the measurement alone, so
//                                           that a step in F_d does not kick the arm
//   PI   u = K_p (e + K_I integral of e)    e_ss = 0 (Eq. 30); the integral is bounded (anti-windup)
//
// Position compensation (A.1 §2): the link is driven against the wrist's measured deflection d,
//   u = X_c - K_1 d - K_2 dd/dt,
// so that the end effector stays at X_c under a load: X/F -> (1 - K_1)/K (Eq. 15), all of the
// deflection compensated at K_1 = 1; stable while K_2 < K_v/K_p and K_1 < 1 + C K_v/(K_p m)
// (Eqs. 16-18, with the joint's PD gains K_p, K_v and the wrist's K, C and mass m).
#pragma once

#include <limits>

namespace rfms {

enum class ForceLawKind { kP, kPD, kPI };

struct ForceGains {
  ForceLawKind law = ForceLawKind::kP;
  double kp = 1.0;                                                  // dimensionless: N of drive per N of error
  double kv = 0.0;                                                  // s (PD)
  double ki = 0.0;                                                  // 1/s (PI)
  double integral_limit = std::numeric_limits<double>::infinity();  // N s: |integral of e| at most
};

class ForceLaw {
 public:
  ForceLaw(const ForceGains& gains, double dt) : gains_(gains), dt_(dt) {}

  // One period: the drive for the measured force and the desired one. `integrate` false holds a
  // PI law's integral where it is (out of contact, where the error says nothing of the contact
  // and an integral would only wind up).
  double update(double desired, double measured, bool integrate = true);
  // Forget the past (a new contact): no integral, no rate from before.
  void reset();

  const ForceGains& gains() const { return gains_; }
  double integral() const { return integral_; }

 private:
  ForceGains gains_;
  double dt_;
  double integral_ = 0.0;
  double last_measured_ = 0.0;
  bool primed_ = false;
};

// A.1 §2.4: the compensator as the inverse of the link's loop, H = 1/G_c with G_c = K_p / (J s^2 +
// K_v s + K_p): u = X_c - (d + (K_v/K_p) d' + (J/K_p) d''), the rates as backward differences over
// a period. In continuous time it makes X/F zero at every instant; J is the link's inertia as
// estimated (0: neglected, when it is the PD compensator with K_1 = 1, K_2 = K_v/K_p).
class InverseLinkCompensator {
 public:
  InverseLinkCompensator(double kp, double kv, double j, double dt) : kp_(kp), kv_(kv), j_(j), dt_(dt) {}
  double update(double command, double deflection);

 private:
  double kp_, kv_, j_, dt_;
  double last_ = 0.0, last_rate_ = 0.0;
  int primed_ = 0;  // periods seen, up to 2: the rates need them
};

// A.1 §2.3: a lead-lag network on the measured deflection, H(s) = K_pi (1 + T_lead s) / (1 + T_lag s),
// u = X_c - H d, discretised by the backward difference. K_pi = 1 compensates all of a steady load
// (Eq. 9: X/F -> (1 - H(0)) / K).
class LeadLagCompensator {
 public:
  LeadLagCompensator(double k, double t_lead, double t_lag, double dt) : k_(k), lead_(t_lead), lag_(t_lag), dt_(dt) {}
  double update(double command, double deflection);

 private:
  double k_, lead_, lag_, dt_;
  double out_ = 0.0, last_ = 0.0;
  bool primed_ = false;
};

class DeflectionCompensator {
 public:
  DeflectionCompensator(double k1, double k2, double dt) : k1_(k1), k2_(k2), dt_(dt) {}

  // One period: the link's command for the commanded end-effector place and the measured deflection
  // (end effector minus link, along the axis).
  double update(double command, double deflection);
  void reset() { primed_ = false; }

 private:
  double k1_, k2_, dt_;
  double last_ = 0.0;
  bool primed_ = false;
};

}  // namespace rfms
