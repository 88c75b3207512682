#include "supervisor/setpoint_filter.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/kinematics.hpp"

namespace rfms {

namespace {

// A setpoint this close to the reference (rad) is the reference: the reference's own pose is sent,
// and rounding does not accumulate.
constexpr double kOnReference = 1e-12;

// The largest factor s in [0, 1] with s |x| <= limit (no bound when x is zero).
double within(double x, double limit) {
  const double a = std::abs(x);
  return a > limit ? limit / a : 1.0;
}

// The fastest the setpoint may close a gap `e` (> 0) and still stop on it, braking at `a` in steps
// of h: from speed n a h it covers a h^2 n(n+1)/2 before it stands still.
double closingSpeed(double e, double a, double h) {
  const double n = std::sqrt(0.25 + 2.0 * e / (a * h * h)) - 0.5;
  return std::min(e / h, n * a * h);
}

}  // namespace

SetpointLimits setpointLimits(const RobotModel& model, const proto::TrackingSettings& t) {
  constexpr double deg = 3.141592653589793 / 180.0, mm = 1e-3;
  SetpointLimits l;
  for (int i = 0; i < kJoints; ++i) {
    l.speed[i] = model.joints[static_cast<std::size_t>(i)].qd_max;
    l.accel[i] = t.joint_accel_deg_s2() * deg;
  }
  l.wrist_speed = t.wrist_speed_mm_s() * mm;
  l.wrist_accel = t.wrist_accel_mm_s2() * mm;
  l.turn_speed = t.turn_speed_deg_s() * deg;
  l.turn_accel = t.turn_accel_deg_s2() * deg;
  return l;
}

SetpointFilter::SetpointFilter(const RobotModel& model, const SetpointLimits& limits, bool enabled)
    : model_(model), limits_(limits), enabled_(enabled) {}

void SetpointFilter::reset(const JointVec& q) {
  x_ = r_prev_ = q;
  v_.setZero();
  on_reference_ = true;
}

void SetpointFilter::update(const JointVec& r, double h) {
  if (!enabled_ || h <= 0.0) {
    v_ = h > 0.0 ? JointVec((r - x_) / h) : JointVec::Zero();
    x_ = r_prev_ = r;
    on_reference_ = true;
    return;
  }
  const Mat6 j = jacobianBase(model_, x_);
  const auto linear = [&](const JointVec& v) { return (j.topRows<3>() * v).norm(); };
  const auto angular = [&](const JointVec& v) { return (j.bottomRows<3>() * v).norm(); };

  const JointVec v_ref = (r - r_prev_) / h;
  const JointVec e = r - x_ - v_ref * h;
  JointVec wanted = v_ref;
  const double gap = e.norm();
  if (gap > 0.0) {
    // The acceleration every limit allows along the gap's direction.
    const JointVec u = e / gap;
    double a = std::numeric_limits<double>::infinity();
    for (int i = 0; i < kJoints; ++i)
      if (u[i] != 0.0) a = std::min(a, limits_.accel[i] / std::abs(u[i]));
    if (const double l = linear(u); l > 0.0) a = std::min(a, limits_.wrist_accel / l);
    if (const double w = angular(u); w > 0.0) a = std::min(a, limits_.turn_accel / w);
    wanted += u * closingSpeed(gap, a, h);
  }

  // Into the speed limits, keeping the direction.
  double s = 1.0;
  for (int i = 0; i < kJoints; ++i) s = std::min(s, within(wanted[i], limits_.speed[i]));
  s = std::min({s, within(linear(wanted), limits_.wrist_speed), within(angular(wanted), limits_.turn_speed)});
  wanted *= s;

  // As far toward it as the acceleration limits allow.
  const JointVec change = wanted - v_;
  double lambda = 1.0;
  for (int i = 0; i < kJoints; ++i) lambda = std::min(lambda, within(change[i], limits_.accel[i] * h));
  lambda = std::min(
      {lambda, within(linear(change), limits_.wrist_accel * h), within(angular(change), limits_.turn_accel * h)});
  v_ += lambda * change;
  x_ += v_ * h;
  r_prev_ = r;
  on_reference_ = (x_ - r).cwiseAbs().maxCoeff() <= kOnReference;
  if (on_reference_) {
    x_ = r;
    if (v_ref.isZero()) v_.setZero();
  }
}

}  // namespace rfms
