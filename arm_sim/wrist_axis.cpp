#include "arm_sim/wrist_axis.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "common/rk4.hpp"

namespace rfms {

namespace {
using State4 = Eigen::Vector4d;
// Sub-steps short against the fastest mode of these plants (a few hundred rad/s).
constexpr double kSubstep = 1e-4;

template <class F>
void integrate(State4& x, double dt, F&& f) {
  const int n = std::max(1, static_cast<int>(std::ceil(dt / kSubstep - 1e-9)));
  for (int i = 0; i < n; ++i) rk4Step(x, 0.0, dt / n, f);
}
}  // namespace

void ForceAxis::step(double u, double dt) {
  State4 s(x_, v_, xe_, ve_);
  integrate(s, dt, [&](double, const State4& y) {
    const double wrist = p_.k_w * (y[0] - y[2]) + p_.c_w * (y[1] - y[3]);  // pushes the end effector on
    State4 d;
    d[0] = y[1];
    d[1] = (u - p_.c_r * y[1] - wrist) / p_.m;
    d[2] = p_.rigid ? 0.0 : y[3];
    d[3] = p_.rigid ? 0.0 : (wrist - p_.k_e * y[2] - p_.c_e * y[3]) / p_.m_e;
    return d;
  });
  x_ = s[0], v_ = s[1], xe_ = s[2], ve_ = s[3];
}

double ForceAxis::contactForce() const {
  if (p_.rigid) return p_.k_w * deflection() + p_.c_w * (v_ - ve_);
  return p_.k_e * xe_ + p_.c_e * ve_;
}

void PositionAxis::step(double u, double force, double dt) {
  State4 s(xl_, vl_, x_, v_);
  integrate(s, dt, [&](double, const State4& y) {
    State4 d;
    // The joint's PD loop; with J = 0 it is the lag K_v x_l' = K_p (u - x_l).
    if (p_.j > 0.0) {
      d[0] = y[1];
      d[1] = (p_.kp * (u - y[0]) - p_.kv * y[1]) / p_.j;
    } else {
      d[0] = p_.kp * (u - y[0]) / p_.kv;
      d[1] = 0.0;
    }
    const double vl = p_.j > 0.0 ? y[1] : d[0];
    d[2] = y[3];
    d[3] = (p_.k * (y[0] - y[2]) + p_.c * (vl - y[3]) + force) / p_.m;
    return d;
  });
  xl_ = s[0], vl_ = s[1], x_ = s[2], v_ = s[3];  // vl_ stays 0 when J = 0: the lag has no velocity state
}

}  // namespace rfms
