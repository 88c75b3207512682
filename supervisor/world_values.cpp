#include "supervisor/world_values.hpp"

#include <algorithm>

namespace rfms {

bool operator==(const PositionEquation& a, const PositionEquation& b) {
  const auto same = [](const Atom& x, const Atom& y) { return x.transform == y.transform && x.inverse == y.inverse; };
  return a.tool == b.tool && a.config == b.config && a.atoms == b.atoms &&
         std::equal(a.product().begin(), a.product().end(), b.product().begin(), same);
}

bool operator==(const MotionRecord& a, const MotionRecord& b) {
  return a.segment == b.segment && a.accel == b.accel && a.cartesian == b.cartesian && a.compliance == b.compliance &&
         a.track == b.track && a.guard == b.guard && a.has_force == b.has_force &&
         a.compensator.k1 == b.compensator.k1 && a.compensator.k2 == b.compensator.k2 &&
         a.compensator.k3 == b.compensator.k3 && a.compensator.t_lead == b.compensator.t_lead &&
         a.compensator.t_lag == b.compensator.t_lag && (!a.has_force || a.force == b.force);
}

WorldValues::WorldValues(std::size_t places, const FrameTracking& tracking)
    : tracking_(tracking),
      transforms_(places, Transform::Identity()),
      histories_(places),
      positions_(places),
      motions_(places) {}

void WorldValues::setTransform(int i, const Transform& value, const FrameHistory& history) {
  const auto k = static_cast<std::size_t>(i);
  transforms_[k] = value;
  histories_[k] = history;
}

Transform WorldValues::current(int i) const {
  const auto k = static_cast<std::size_t>(i);
  return histories_[k].at(transforms_[k], now_ + tracking_.delay, tracking_.max_lead);
}

Transform WorldValues::solve(int i) const {
  Transform t = Transform::Identity();
  for (const Atom& a : position(i).product()) {
    const Transform v = current(a.transform);
    t = a.inverse ? Transform(t * v.inverse(Eigen::Isometry)) : Transform(t * v);
  }
  return t;
}

Transform WorldValues::tool(int i) const {
  const int k = position(i).tool;
  return k < 0 ? Transform::Identity() : current(k);
}

}  // namespace rfms
