#include "common/force_loop.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>

#include "common/gain_bound.hpp"
#include "common/number_text.hpp"
#include "common/sampled_system.hpp"

namespace rfms {

namespace {

using Matrix = Eigen::MatrixXd;
using Vector = Eigen::VectorXd;

// The continuous plant y' = A y + B tau, y = [q, q'] of the arm's n coordinates, then, when the tool
// is a body of its own (on the wrist, against a surface that gives), [x_tool, v_tool]. `spring`
// is the force the tool's support pushes back on the arm's axis with, as y's function: the surface
// (stiff sensor: the tool is the arm's), or the wrist's spring and damper.
struct Plant {
  Matrix a, b;
  Eigen::RowVectorXd spring;  // what pushes back on the arm along the axis
  Eigen::RowVectorXd read;    // what the sensor's springs, or the surface, put on the tool (stiff: before filter)
  Eigen::Index n = 0;         // the arm's coordinates
};

Plant plantOf(const ForceLoopPlant& p) {
  Plant out;
  const Eigen::Index n = p.mass.rows();
  const bool tool_body = p.wrist && !std::isinf(p.surface_stiffness);
  const Eigen::Index size = 2 * n + (tool_body ? 2 : 0);
  out.n = n;
  out.spring = Eigen::RowVectorXd::Zero(size);
  const Eigen::RowVectorXd& ax = p.axis;
  if (!p.wrist) {
    out.spring << p.surface_stiffness * ax, p.surface_damping * ax;
  } else {
    out.spring.head(2 * n) << p.wrist_stiffness * ax, p.wrist_damping * ax;
    if (tool_body) out.spring.tail(2) << -p.wrist_stiffness, -p.wrist_damping;
  }
  out.read = out.spring;
  if (p.wrist) out.read.segment(n, n).setZero();  // the potentiometers read the springs alone
  if (p.wrist && tool_body) out.read[2 * n + 1] = 0.0;

  const Matrix inverse = p.mass.inverse();
  out.a = Matrix::Zero(size, size);
  out.a.block(0, n, n, n).setIdentity();
  out.a.block(n, 0, n, size) = -inverse * ax.transpose() * out.spring;
  out.a.block(n, n, n, n) -= inverse * p.friction.asDiagonal();
  out.b = Matrix::Zero(size, n);
  out.b.block(n, 0, n, n) = inverse;
  if (tool_body) {
    // The tool: pushed by the wrist, held back by the surface.
    const double mt = p.tool_mass;
    out.a(2 * n, 2 * n + 1) = 1.0;
    out.a.row(2 * n + 1) = out.spring / mt;
    out.a(2 * n + 1, 2 * n) -= p.surface_stiffness / mt;
    out.a(2 * n + 1, 2 * n + 1) -= p.surface_damping / mt;
  }
  return out;
}

// One period of the sampled loop, with the desired force 0 (the loop is linear: its poles do not
// depend on the setpoint). The state: the plant's y; the sensor filter's output; the joints'
// angles at the last period and their filtered velocities; the law's integral and its last
// measured force; the tool's speed along the axis at the last period; the held setpoint of the
// last three periods.
class SampledLoop {
 public:
  SampledLoop(const ForceLoopPlant& p, const ForceGains& g) : p_(p), g_(g), plant_(plantOf(p)) {
    zeroOrderHold(plant_.a, plant_.b, p.dt, phi_, gamma_);
    alpha_ = lowPass(p.sensor_bandwidth_hz, p.dt, 1.0);
    beta_ = p.velocity_filter_hz > 0.0 ? std::exp(-2.0 * std::numbers::pi * p.velocity_filter_hz * p.dt) : 0.0;
    yield_ = lowPass(p.yield_hz, p.dt, 0.0);
    ny_ = plant_.a.rows();
    n_ = plant_.n;
    servos_ = p.servo_damping.size() == n_;
  }
  Eigen::Index size() const { return ny_ + 7 + 2 * n_; }

  Vector step(const Vector& s) const {
    const Eigen::Index n = n_;
    // Where each part of the state lives.
    const Eigen::Index filtered = ny_, q_before = ny_ + 1, v_joints = ny_ + 1 + n, integral = ny_ + 1 + 2 * n,
                       f_before = integral + 1, speed_before = integral + 2, held = integral + 3;
    const Vector y = s.head(ny_), q = y.head(n);

    // The force as the supervisor reads it.
    double f = plant_.read.dot(y);
    const double speed = (p_.tool_axis.size() == n ? p_.tool_axis : p_.axis).dot(y.segment(n, n));
    if (!p_.wrist) {
      // The sensor between flange and tool also reads the force that accelerates the tool, taken
      // as its change of speed over the period.
      const double acc = (speed - s[speed_before]) / p_.dt;
      f = s[filtered] + alpha_ * (f + p_.tool_mass * acc - s[filtered]);
    }
    // The law, and the axis's damping on last period's velocities.
    const double e = -f;
    double law = 0.0, integral_now = 0.0;  // only a PI law keeps one (else a pole at 1 that is not the loop's)
    switch (g_.law) {
      case ForceLawKind::kP: law = g_.kp * e; break;
      case ForceLawKind::kPD: law = g_.kp * (e - g_.kv * (f - s[f_before]) / p_.dt); break;
      case ForceLawKind::kPI:
        integral_now = s[integral] + e * p_.dt;
        law = g_.kp * (e + g_.ki * integral_now);
        break;
    }
    const Vector v_before = s.segment(v_joints, n);
    const double drive = law - p_.axis_damping * p_.axis.dot(v_before);
    // The joints: their velocities, then their torques.
    const Vector v_now = beta_ * v_before + (1.0 - beta_) * (q - s.segment(q_before, n)) / p_.dt;
    Vector tau = p_.axis.transpose() * drive;
    const double h1 = s[held], h2 = s[held + 1], h3 = s[held + 2];
    const double h = h1 + yield_ * (p_.axis.dot(s.segment(q_before, n)) - h1);
    if (servos_) {
      const double dt2 = p_.dt * p_.dt;
      const Vector vd = p_.setpoint_shift * ((h - h1) / p_.dt);
      const Vector acc_now = p_.setpoint_shift * ((h - 2.0 * h1 + h2) / dt2);
      const Vector acc_before = p_.setpoint_shift * ((h1 - 2.0 * h2 + h3) / dt2);
      const Vector own = p_.mass.diagonal().cwiseProduct(acc_now - acc_before);
      tau += p_.mass * acc_before + own + p_.feedforward_friction.cwiseProduct(vd) +
             p_.servo_damping.cwiseProduct(vd - v_now);
    }

    Vector next(size());
    next.head(ny_) = phi_ * y + gamma_ * tau;
    next[filtered] = f;
    next.segment(q_before, n) = q;
    next.segment(v_joints, n) = v_now;
    next[integral] = integral_now;
    next[f_before] = f;
    next[speed_before] = speed;
    next[held] = h;
    next[held + 1] = h1;
    next[held + 2] = h2;
    return next;
  }

 private:
  // A first-order low pass's step toward its input over dt (`none` when it has no corner).
  static double lowPass(double hz, double dt, double none) {
    return hz > 0.0 ? 1.0 - std::exp(-2.0 * std::numbers::pi * hz * dt) : none;
  }

  ForceLoopPlant p_;
  ForceGains g_;
  Plant plant_;
  Matrix phi_, gamma_;
  Eigen::Index ny_ = 0, n_ = 0;
  double alpha_ = 1.0, beta_ = 0.0, yield_ = 0.0;
  bool servos_ = false;
};

// The model leaves out the servos' position gains, so the arm's coordinates that the force axis
// does not see drift freely: their poles sit at exactly 1 (sampled) or 0 (continuous), and say
// nothing of the force loop. They are passed over.
constexpr double kDrift = 1e-7;

double largestRealPart(const Matrix& m) {
  double largest = -std::numeric_limits<double>::infinity();
  for (const std::complex<double>& z : m.eigenvalues())
    if (std::abs(z) > kDrift) largest = std::max(largest, z.real());
  return largest;
}

bool stable(const ForceLoopPlant& p, const ForceGains& g, ForceLoopTime time) {
  return time == ForceLoopTime::kSampled ? forceLoopRadius(p, g) < 1.0 : forceLoopAbscissa(p, g) < 0.0;
}

double& gainOf(ForceGains& g, ForceGain which) {
  switch (which) {
    case ForceGain::kKp: return g.kp;
    case ForceGain::kKv: return g.kv;
    case ForceGain::kKi: return g.ki;
  }
  return g.kp;
}

std::string hertz(double dt) {
  const double f = 1.0 / dt;
  return f >= 1000.0 ? numberText(f / 1000.0) + " kHz" : numberText(f) + " Hz";
}

}  // namespace

double forceLoopRadius(const ForceLoopPlant& plant, const ForceGains& gains) {
  const SampledLoop loop(plant, gains);
  return spectralRadius(periodMatrix(loop.size(), [&](const Vector& s) { return loop.step(s); }), kDrift);
}

double forceLoopDamping(const ForceLoopPlant& plant, const ForceGains& gains) {
  const SampledLoop loop(plant, gains);
  const Matrix a = periodMatrix(loop.size(), [&](const Vector& s) { return loop.step(s); });
  double least = 1.0;
  for (const std::complex<double>& z : a.eigenvalues()) {
    if (std::abs(z - 1.0) <= kDrift || std::abs(z.imag()) < 1e-9 || std::abs(z) < 1e-12) continue;
    const std::complex<double> s = std::log(z) / plant.dt;
    least = std::min(least, -s.real() / std::abs(s));
  }
  return least;
}

double forceLoopAbscissa(const ForceLoopPlant& p, const ForceGains& g) {
  // The law on the force as it is, and the damping on the arm's velocity as it is, at once:
  // drive = -k_p (f + k_v f') - D v, or -k_p (f - k_i z) - D v with z' = -f. With f' = R (A y + B tau)
  // and tau = a^T drive, the PD law's drive is implicit in itself; it is solved for.
  const Plant plant = plantOf(p);
  const Eigen::Index ny = plant.a.rows(), n = plant.n;
  Eigen::RowVectorXd damping = Eigen::RowVectorXd::Zero(ny);
  damping.segment(n, n) = p.axis_damping * p.axis;
  const bool pi = g.law == ForceLawKind::kPI;
  const double kv = g.law == ForceLawKind::kPD ? g.kv : 0.0;
  const Matrix b_axis = plant.b * p.axis.transpose();  // y' per unit of drive
  const Matrix& a_servo = plant.a;                     // A.1's arm has no servo of its own along the axis
  const double implicit = 1.0 + g.kp * kv * plant.read.dot(b_axis.col(0));
  const Eigen::RowVectorXd gain_y = (-g.kp * (plant.read + kv * plant.read * a_servo) - damping) / implicit;
  Matrix a = Matrix::Zero(ny + (pi ? 1 : 0), ny + (pi ? 1 : 0));
  a.topLeftCorner(ny, ny) = a_servo + b_axis * gain_y;
  if (pi) {
    a.topRightCorner(ny, 1) = b_axis * (g.kp * g.ki);
    a.bottomLeftCorner(1, ny) = -plant.read;
  }
  return largestRealPart(a);
}

ForceLoopPlant ForceLoopPlant::onOneAxis(double m, double c) {
  ForceLoopPlant p;
  p.mass = Eigen::MatrixXd::Constant(1, 1, m);
  p.axis = Eigen::RowVectorXd::Ones(1);
  p.friction = Eigen::VectorXd::Constant(1, c);
  p.axis_damping = 0.0;
  return p;
}

double forceGainBound(const ForceLoopPlant& plant, const ForceGains& gains, ForceGain which, double up_to,
                      ForceLoopTime time) {
  ForceGains g = gains;
  double& gain = gainOf(g, which);
  return leastUnstable(
      [&](double value) {
        gain = value;
        return stable(plant, g, time);
      },
      up_to);
}

std::string forceLawVerdict(const ForceLoopPlant& plant, const ForceGains& gains, double margin) {
  ForceGains tried = gains;
  tried.kp *= margin;
  if (forceLoopRadius(plant, tried) < 1.0) return "";
  const double bound = forceGainBound(plant, gains, ForceGain::kKp, 1e4);
  const char* law = gains.law == ForceLawKind::kP ? "P" : gains.law == ForceLawKind::kPD ? "PD" : "PI";
  std::string why = std::string("law ") + law + " with K_p = " + numberText(gains.kp);
  if (gains.law == ForceLawKind::kPD) why += ", K_v = " + numberText(gains.kv) + " s";
  if (gains.law == ForceLawKind::kPI) why += ", K_I = " + numberText(gains.ki) + " /s";
  why += gains.kp >= bound ? " is unstable" : " is within the gain margin of instability";
  why += " at " + hertz(plant.dt) + ": K_p must be below " + boundText(bound);
  if (margin > 1.0) why += " / " + numberText(margin) + " (the gain margin) = " + boundText(bound / margin);
  // The law's other gain, when it has one, bounded at this K_p (with the margin on it).
  if (gains.law != ForceLawKind::kP) {
    const bool pd = gains.law == ForceLawKind::kPD;
    const double other = forceGainBound(plant, tried, pd ? ForceGain::kKv : ForceGain::kKi, pd ? 1.0 : 1e4);
    if (std::isfinite(other) && other > (pd ? gains.kv : gains.ki) * 1e-3)
      why += std::string(", or ") + (pd ? "K_v" : "K_I") + " below " + boundText(other) + (pd ? " s" : " /s");
  }
  return why;
}

}  // namespace rfms
