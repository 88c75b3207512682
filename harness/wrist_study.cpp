#include "harness/wrist_study.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rfms {

ForceStep forceStep(const ForceGains& gains, double seconds, const ForceAxisParams& plant, double desired_n,
                    double dt) {
  ForceAxis axis(plant);
  ForceLaw law(gains, dt);
  ForceStep r;
  const int n = static_cast<int>(seconds / dt);
  r.force.reserve(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) {
    axis.step(law.update(desired_n, axis.wristForce()), dt);
    r.force.push_back(axis.wristForce());
  }
  const double final = r.force.back();
  r.final_error = (desired_n - final) / desired_n;
  r.overshoot = (*std::max_element(r.force.begin(), r.force.end()) - final) / final;
  return r;
}

ForceInputError forceInput(const ForceGains& gains, int order, double rate, double seconds,
                           const ForceAxisParams& plant, double dt) {
  ForceAxis axis(plant);
  ForceLaw law(gains, dt);
  ForceInputError r;
  const int n = static_cast<int>(seconds / dt);
  for (int k = 1; k <= n; ++k) {
    // The desired force at the start of the period, held over it, as the controller holds it.
    const double t = (k - 1) * dt;
    const double desired = order == 1 ? rate * t : 0.5 * rate * t * t;
    axis.step(law.update(desired, axis.wristForce()), dt);
    const double error = (order == 1 ? rate * k * dt : 0.5 * rate * (k * dt) * (k * dt)) - axis.wristForce();
    if (k == n / 2) r.early = error;
    if (k == n) r.late = error;
  }
  return r;
}

namespace {

// The end effector under `load_n` from t = 0, the link driven by `compensate(deflection)`.
template <typename Compensate>
LoadHold holdWith(Compensate compensate, double seconds, double load_n, const PositionAxisParams& plant, double dt) {
  PositionAxis axis(plant);
  const int n = static_cast<int>(seconds / dt), window = static_cast<int>(2.0 / dt);
  double mid = 0.0, late = 0.0, worst = 0.0;
  for (int k = 0; k < n; ++k) {
    axis.step(compensate(axis.deflection()), load_n, dt);
    const double swing = std::abs(axis.deflection() - load_n / plant.k);
    worst = std::max(worst, std::abs(axis.endEffector()));
    if (!(swing < 1.0)) return {axis.endEffector(), false, worst};  // a metre off: it has run away
    if (k >= n / 2 - window && k < n / 2) mid = std::max(mid, swing);
    if (k >= n - window) late = std::max(late, swing);
  }
  return {axis.endEffector(), late < mid || late < 1e-12, worst};
}

}  // namespace

LoadHold holdUnderLoad(double k1, double k2, double seconds, double load_n, const PositionAxisParams& plant,
                       double dt) {
  PositionCompensator comp({.k1 = k1, .k2 = k2}, dt);
  return holdWith([&](double d) { return -comp.update(d); }, seconds, load_n, plant, dt);
}

LoadHold holdUnderLoadByLeadLag(double k, double t_lead, double t_lag, double seconds, double load_n,
                                const PositionAxisParams& plant, double dt) {
  PositionCompensator comp({.k1 = k, .t_lead = t_lead, .t_lag = t_lag}, dt);
  return holdWith([&](double d) { return -comp.update(d); }, seconds, load_n, plant, dt);
}

double stableLeadBound(double t_lag, const PositionAxisParams& plant, double dt) {
  double lo = 0.0, hi = 1.0;
  while (hi - lo > 1e-3 * hi) {
    const double mid = 0.5 * (lo + hi);
    (holdUnderLoadByLeadLag(1.0, mid, t_lag, 20.0, 1.0, plant, dt).settles ? lo : hi) = mid;
  }
  return lo;
}

double eq21LeadBound(double t_lag, const PositionAxisParams& p) {
  const double k_pi = 1.0;
  auto stable = [&](double t_lead) {
    const double a4 = p.m * t_lag * p.kv;
    const double a3 = p.m * p.kv + t_lag * (p.m * p.kp + p.c * p.kv) - p.m * p.kp * k_pi * t_lead;
    const double a2 = p.m * p.kp * (1.0 - k_pi) + p.c * p.kv + t_lag * (p.c * p.kp + p.k * p.kv);
    const double a1 = p.c * p.kp + p.k * p.kv + t_lag * p.k * p.kp, a0 = p.k * p.kp;
    if (a4 == 0.0) return a3 > 0.0 && a2 > 0.0 && a1 > 0.0 && a2 * a1 > a3 * a0;  // a cubic
    return a3 > 0.0 && a3 * a2 > a4 * a1 && a3 * a2 * a1 > a1 * a1 * a4 + a3 * a3 * a0;
  };
  double t_lead = 1e-5;
  while (t_lead < 1.0 && stable(t_lead * 1.0005)) t_lead *= 1.0005;
  return t_lead;
}

LoadHold holdUnderLoadByInverse(double j_estimate, double seconds, double load_n, const PositionAxisParams& plant,
                                double dt) {
  PositionCompensator comp({.k1 = 1.0, .k2 = plant.kv / plant.kp, .k3 = j_estimate / plant.kp}, dt);
  return holdWith([&](double d) { return -comp.update(d); }, seconds, load_n, plant, dt);
}

double stableK1Bound(double k2, const PositionAxisParams& plant, double dt) {
  double lo = 0.0, hi = 6.0;
  while (hi - lo > 0.002) {
    const double mid = 0.5 * (lo + hi);
    (holdUnderLoad(mid, k2, 20.0, 1.0, plant, dt).settles ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double eq17Bound(const PositionAxisParams& p) { return 1.0 + p.c * p.kv / (p.kp * p.m); }

double eq18Bound(const PositionAxisParams& p, double k2) {
  return eq17Bound(p) - p.k * (p.kv - p.kp * k2) / (p.k * p.kv + p.kp * p.c);
}

double eq39RouthBound(const ForceAxisParams& p) {
  auto stable = [&](double kp) {
    const double f4 = p.m * p.m_e, f3 = p.m_e * (p.c_r + p.c_w) + p.m * (p.c_e + p.c_w);
    const double f2 = p.m * (p.k_w + p.k_e) + p.m_e * p.k_w * (1.0 + kp) + p.c_r * (p.c_e + p.c_w) + p.c_w * p.c_e;
    const double f1 = p.k_e * (p.c_w + p.c_r) + p.k_w * (p.c_e + p.c_r) + p.c_e * p.k_w * kp;
    const double f0 = p.k_w * p.k_e * (1.0 + kp);
    return f3 * f2 > f4 * f1 && f3 * f2 * f1 > f1 * f1 * f4 + f3 * f3 * f0;
  };
  for (double kp = 0.01; kp < 1e4; kp *= 1.001)
    if (!stable(kp)) return kp;
  return std::numeric_limits<double>::infinity();
}

}  // namespace rfms
