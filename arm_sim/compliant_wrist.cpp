#include "arm_sim/compliant_wrist.hpp"

#include <algorithm>
#include <cmath>

namespace rfms {

namespace {
constexpr double kStopFactor = 50.0;

Vec3 vee(const Mat3& m) { return 0.5 * Vec3(m(2, 1) - m(1, 2), m(0, 2) - m(2, 0), m(1, 0) - m(0, 1)); }

// The spring along one axis, the stop's beyond the travel: its force on the body and its energy.
double spring(double k, double travel, double d, double& energy) {
  const double past = std::max(0.0, std::abs(d) - travel);
  energy += 0.5 * k * d * d + 0.5 * kStopFactor * k * past * past;
  return -k * d - std::copysign(kStopFactor * k * past, d);
}
}  // namespace

Vec6 WristLoad::onFlange(const Transform& t6, const ToolBody& body) const {
  // Equal and opposite, along the same line through the body's centre of mass.
  Vec6 w;
  w << -force, -moment + (body.x - t6.translation()).cross(-force);
  return w;
}

WristLoad wristLoad(const WristModel& wrist, const ToolModel& tool, const Transform& t6, const Vec6& twist,
                    const ToolBody& body) {
  WristLoad load;
  const Mat3 r6 = t6.linear();
  const Vec3 omega6 = twist.tail<3>();
  // Along the axes: d = R6ᵀ (x − rest), whose rate is R6ᵀ (v − the flange's velocity at x).
  const Vec3 d = r6.transpose() * (body.x - t6 * tool.com);
  const Vec3 d_rate = r6.transpose() * (body.v - twist.head<3>() - omega6.cross(body.x - t6.translation()));
  Vec3 f;
  for (int i = 0; i < 3; ++i) f[i] = spring(wrist.stiffness, wrist.travel, d[i], load.energy);
  f -= wrist.damping * d_rate;
  // About the axes, in the tool's own axes: R_rel' = R_rel [ω_rel]x with ω_rel = R_toolᵀ (w − ω6).
  const Mat3 rt = body.r.toRotationMatrix();
  const Mat3 rel = r6.transpose() * rt;
  const Vec3 a = vee(rel);
  const Vec3 turn_rate = rt.transpose() * (body.w - omega6);
  load.energy += 0.5 * wrist.stiffness_turn * (3.0 - rel.trace());
  const Vec3 m = -wrist.stiffness_turn * a - wrist.damping_turn * turn_rate;
  load.force = r6 * f;
  load.moment = rt * m;
  load.deflection << d, a;
  load.moved.linear() = rel;
  load.moved.translation() = tool.com + d - rel * tool.com;
  return load;
}

ToolBody toolBodyAtRest(const WristModel& wrist, const ToolModel& tool, const Transform& t6, const Vec3& gravity) {
  ToolBody b;
  b.r = Eigen::Quaterniond(t6.linear());
  b.x = t6 * tool.com + tool.inertia.mass * gravity / wrist.stiffness;
  return b;
}

Transform toolFrameOf(const ToolModel& tool, const ToolBody& body) {
  Transform flange_as_carried = Transform::Identity();
  flange_as_carried.linear() = body.r.toRotationMatrix();
  flange_as_carried.translation() = body.x - flange_as_carried.linear() * tool.com;
  return flange_as_carried * tool.frame;
}

void WristPotentiometers::sample(const WristLoad& load) {
  // Within the stops a period moves the plates little, and from last period's angles Newton's
  // method lands in a step or two; the stops keep it from wandering far.
  anglesForDisplacement(model_.linkage, load.moved, angles_);
  at_stops_ = 0;
  for (int i = 0; i < 6; ++i) {
    reading_[i] = std::round((angles_[i] + model_.noise * unit_(rng_)) / model_.resolution) * model_.resolution;
    const double travel = i < 3 ? model_.travel : model_.travel_turn;
    if (std::abs(load.deflection[i]) >= travel) at_stops_ |= 1u << i;
  }
}

}  // namespace rfms
