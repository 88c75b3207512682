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

// A.1 §2's position compensators as one discrete law on the wrist's measured deflection d:
//   H(s) = K_1 (1 + T_lead s) / (1 + T_lag s) + K_2 s + K_3 s^2,    u = X_c - H d,
// the rates as backward differences over a period. Each of the report's is a case of it:
//   Eq. 15                 K_1, K_2                         (the PD compensator)
//   the lead-lag of §2.3   K_1 = K_pi, T_lead, T_lag        X/F -> (1 - K_pi) / K (Eq. 9)
//   H = 1/G_c of §2.4      K_1 = 1, K_2 = K_v / K_p, K_3 = J / K_p, for the link's loop
//                          G_c = K_p / (J s^2 + K_v s + K_p): X/F = 0 at every instant in
//                          continuous time (J = 0: its inertia neglected)
// The whole arm runs one per base axis, with a lag by default (docs/force.md).
struct CompensatorGains {
  double k1 = 0.0;      // dimensionless: 1 takes back all of a steady deflection
  double k2 = 0.0;      // s: on the deflection's rate
  double k3 = 0.0;      // s^2: on its acceleration
  double t_lead = 0.0;  // s: the network's lead on K_1's term
  double t_lag = 0.0;   // s: its lag (0: none)
};

// What the compensator keeps between periods: the lagged term, the last deflection and rate, and
// how many readings it has seen (its rates need one and two).
struct CompensatorMemory {
  double lagged = 0.0, last = 0.0, last_rate = 0.0;
  int primed = 0;  // up to 2
};

// One period of the law: H d for the measured deflection d, `memory` carried on. The one place the
// discrete law is written: the supervisor runs it (PositionCompensator) and the model of the arm's
// loop steps it (common/compensator_arm_loop.hpp).
double compensatorStep(const CompensatorGains& g, double dt, CompensatorMemory& memory, double deflection);

class PositionCompensator {
 public:
  PositionCompensator() = default;  // none: H = 0
  PositionCompensator(const CompensatorGains& gains, double dt) : g_(gains), dt_(dt) {}

  // Begin again: the lagged term's output at `output`, no rates from before (they need one and
  // two readings).
  void start(double output = 0.0);
  // One period: H d for the measured deflection (end effector minus link, along the axis).
  double update(double deflection) { return compensatorStep(g_, dt_, memory_, deflection); }
  const CompensatorGains& gains() const { return g_; }

 private:
  CompensatorGains g_;
  double dt_ = 1e-3;
  CompensatorMemory memory_;
};

}  // namespace rfms
