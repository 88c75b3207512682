#include "common/compensator_loop.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "common/compensator_verdict.hpp"

namespace rfms {

namespace {

using Poly = Eigen::VectorXd;  // coefficients, lowest power first

Poly times(const Poly& a, const Poly& b) {
  Poly out = Poly::Zero(a.size() + b.size() - 1);
  for (Eigen::Index i = 0; i < a.size(); ++i) out.segment(i, b.size()) += a[i] * b;
  return out;
}

Poly plus(const Poly& a, const Poly& b) {
  Poly out = Poly::Zero(std::max(a.size(), b.size()));
  out.head(a.size()) += a;
  out.head(b.size()) += b;
  return out;
}

Poly poly(std::initializer_list<double> c) {
  Poly p(static_cast<Eigen::Index>(c.size()));
  Eigen::Index i = 0;
  for (double x : c) p[i++] = x;
  return p;
}

}  // namespace

CompensatorPlant CompensatorPlant::ofServo(double bandwidth_hz, double m, double k, double c) {
  const double w = 2.0 * std::numbers::pi * bandwidth_hz;
  return {.m = m, .k = k, .c = c, .kv_over_kp = 2.0 / w, .j_over_kp = 1.0 / (w * w)};
}

CompensatorPlant CompensatorPlant::ofArm(double delay_s, double m, double k, double c) {
  return {.m = m, .k = k, .c = c, .kv_over_kp = 0.0, .j_over_kp = 0.0, .delay_s = delay_s};
}

Eigen::VectorXd compensatorLoopPolynomial(const CompensatorPlant& p, const CompensatorGains& g) {
  const double t = p.delay_s;
  const Poly np = poly({1.0, -t / 2.0, t * t / 12.0}), dp = poly({1.0, t / 2.0, t * t / 12.0});
  const Poly dc = poly({1.0, p.kv_over_kp, p.j_over_kp});
  const Poly dh = poly({1.0, g.t_lag});
  const Poly nh = plus(poly({g.k1, g.k1 * g.t_lead}), times(poly({0.0, g.k2, g.k3}), dh));
  const Poly below = times(times(dp, dc), dh);
  return plus(times(poly({0.0, 0.0, p.m}), plus(below, -times(np, nh))), times(poly({p.k, p.c}), below));
}

Eigen::VectorXcd compensatorLoopPoles(const CompensatorPlant& plant, const CompensatorGains& gains) {
  const Poly c = compensatorLoopPolynomial(plant, gains);
  // Its degree: the highest power whose coefficient is not negligible against the others.
  const double size = c.cwiseAbs().maxCoeff();
  Eigen::Index n = c.size() - 1;
  while (n > 0 && std::abs(c[n]) <= 1e-14 * size) --n;
  if (n == 0) return Eigen::VectorXcd();
  // The roots are the companion matrix's eigenvalues.
  Eigen::MatrixXd companion = Eigen::MatrixXd::Zero(n, n);
  companion.bottomLeftCorner(n - 1, n - 1).setIdentity();
  companion.col(n - 1) = -c.head(n) / c[n];
  return companion.eigenvalues();
}

double compensatorLoopAbscissa(const CompensatorPlant& plant, const CompensatorGains& gains) {
  double largest = -std::numeric_limits<double>::infinity();
  for (const std::complex<double>& z : compensatorLoopPoles(plant, gains)) largest = std::max(largest, z.real());
  return largest;
}

std::string compensatorVerdict(const CompensatorPlant& plant, const CompensatorGains& gains, double margin) {
  return compensatorVerdict([&](const CompensatorGains& g) { return compensatorLoopAbscissa(plant, g) < 0.0; }, gains,
                            margin, "by A.1's analysis of the link's loop through the wrist");
}

}  // namespace rfms
