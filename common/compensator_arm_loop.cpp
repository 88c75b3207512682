#include "common/compensator_arm_loop.hpp"

#include <Eigen/LU>
#include <cmath>
#include <numbers>

#include "common/compensator_verdict.hpp"
#include "common/sampled_system.hpp"

namespace rfms {

namespace {

using Matrix = Eigen::MatrixXd;
using Vector = Eigen::VectorXd;
using Vec3d = Eigen::Vector3d;

// The arm and the tool over one period, y+ = phi y + gamma tau, y = [q, q', x, x'] (x the tool's
// position): the gains do not enter it, so a bound's search holds it once.
struct HeldPlant {
  Matrix phi, gamma;
};

HeldPlant heldPlant(const ArmCompensatorPlant& p) {
  // The continuous plant y' = a y + b tau.
  const Eigen::Index n = p.mass.rows(), size = 2 * n + 6;
  const Matrix& w = p.wrist_point;
  // K d + C d' as a row per axis of y: what the wrist pushes the tool back toward the flange with,
  // and pulls the flange by.
  Matrix pull = Matrix::Zero(3, size);
  pull.block(0, 0, 3, n) = -p.wrist_stiffness * w;
  pull.block(0, n, 3, n) = -p.wrist_damping * w;
  pull.block(0, 2 * n, 3, 3) = p.wrist_stiffness * Matrix::Identity(3, 3);
  pull.block(0, 2 * n + 3, 3, 3) = p.wrist_damping * Matrix::Identity(3, 3);
  const Matrix inverse = p.mass.inverse();
  Matrix a = Matrix::Zero(size, size), b = Matrix::Zero(size, n);
  a.block(0, n, n, n).setIdentity();
  a.block(n, 0, n, size) = inverse * w.transpose() * pull;
  a.block(n, n, n, n) -= inverse * p.friction.asDiagonal();
  a.block(2 * n, 2 * n + 3, 3, 3).setIdentity();
  a.block(2 * n + 3, 0, 3, size) = -pull / p.tool_mass;
  b.block(n, 0, n, n) = inverse;
  HeldPlant held;
  zeroOrderHold(a, b, p.dt, held.phi, held.gamma);
  return held;
}

class SampledLoop {
 public:
  SampledLoop(const ArmCompensatorPlant& p, const HeldPlant& held, const CompensatorGains& g)
      : p_(p), phi_(held.phi), gamma_(held.gamma), g_(g), n_(p.mass.rows()), ny_(held.phi.rows()) {
    beta_ = p.velocity_filter_hz > 0.0 ? std::exp(-2.0 * std::numbers::pi * p.velocity_filter_hz * p.dt) : 0.0;
  }

  // The state: the plant's y; the joints' angles a period ago and their filtered velocities; per
  // base axis the law's memory (lagged term, last deflection, last rate); the offsets c of the last
  // three periods.
  Eigen::Index size() const { return ny_ + 2 * n_ + 9 + 9; }

  Vector step(const Vector& s) const {
    const Eigen::Index n = n_, q_before = ny_, v_joints = ny_ + n, memory = ny_ + 2 * n, offsets = memory + 9;
    const Vector y = s.head(ny_), q = y.head(n);
    const Vec3d d = y.segment<3>(2 * n) - p_.wrist_point * q;
    Vector next = Vector::Zero(size());
    Vec3d c = Vec3d::Zero();
    for (int i = 0; i < 3; ++i) {
      if (((p_.axes >> i) & 1u) == 0) continue;
      CompensatorMemory m{
          .lagged = s[memory + 3 * i], .last = s[memory + 3 * i + 1], .last_rate = s[memory + 3 * i + 2], .primed = 2};
      c[i] = -compensatorStep(g_, p_.dt, m, d[i]);
      next.segment<3>(memory + 3 * i) << m.lagged, m.last, m.last_rate;
    }
    const Vec3d c1 = s.segment<3>(offsets), c2 = s.segment<3>(offsets + 3), c3 = s.segment<3>(offsets + 6);
    // The joints: their filtered velocities, the updates' differences, the servo's torques.
    const Vector v_before = s.segment(v_joints, n);
    const Vector v = beta_ * v_before + (1.0 - beta_) * (q - s.segment(q_before, n)) / p_.dt;
    const double dt2 = p_.dt * p_.dt;
    const Vector vd = p_.setpoint_shift * (c - c1) / p_.dt;
    const Vector acc_now = p_.setpoint_shift * (c - 2.0 * c1 + c2) / dt2;
    const Vector acc_before = p_.setpoint_shift * (c1 - 2.0 * c2 + c3) / dt2;
    const Matrix& ff = p_.feedforward_mass;
    const Vector tau = p_.servo_stiffness.cwiseProduct(p_.setpoint_shift * c1 - q) +
                       p_.servo_damping.cwiseProduct(vd - v) + ff * acc_before +
                       ff.diagonal().cwiseProduct(acc_now - acc_before) + p_.feedforward_friction.cwiseProduct(vd);
    next.head(ny_) = phi_ * y + gamma_ * tau;
    next.segment(q_before, n) = q;
    next.segment(v_joints, n) = v;
    next.segment<3>(offsets) = c;
    next.segment<3>(offsets + 3) = c1;
    next.segment<3>(offsets + 6) = c2;
    return next;
  }

 private:
  const ArmCompensatorPlant& p_;
  const Matrix &phi_, &gamma_;
  CompensatorGains g_;
  Eigen::Index n_ = 0, ny_ = 0;
  double beta_ = 0.0;
};

double radius(const ArmCompensatorPlant& plant, const HeldPlant& held, const CompensatorGains& gains) {
  const SampledLoop loop(plant, held, gains);
  return spectralRadius(periodMatrix(loop.size(), [&](const Vector& s) { return loop.step(s); }));
}

}  // namespace

double compensatorArmRadius(const ArmCompensatorPlant& plant, const CompensatorGains& gains) {
  return radius(plant, heldPlant(plant), gains);
}

std::string compensatorArmVerdict(const ArmCompensatorPlant& plant, const CompensatorGains& gains, double margin) {
  const HeldPlant held = heldPlant(plant);
  return compensatorVerdict([&](const CompensatorGains& g) { return radius(plant, held, g) < 1.0; }, gains, margin,
                            "on the arm's sampled loop through the wrist");
}

}  // namespace rfms
