#include "supervisor/force_monitor.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "common/force_figures.hpp"

namespace rfms {

ForceMonitor::ForceMonitor(double dt, double max_force)
    : dt_(dt), max_force_(max_force), axes_{Axis(dt), Axis(dt), Axis(dt)} {}

void ForceMonitor::begin(const Vec3& setpoint, const Vec3& position, double settles) {
  k_ = 0;
  fault_ = proto::ER_NONE;
  fault_axis_ = -1;
  for (int d = 0; d < 3; ++d) {
    Axis& a = axes_[static_cast<std::size_t>(d)];
    a = Axis(dt_);
    a.setpoint = setpoint[d];
    a.settles = settles * std::abs(setpoint[d]);
    a.touched_at = a.held_at = setpoint[d] >= 0.0 ? position[d] : -position[d];
  }
}

proto::EmergencyReason ForceMonitor::update(const Vec3& applied, const Vec3& position, const Vec3& drive) {
  ++k_;
  if (fault_ != proto::ER_NONE) return fault_;
  for (int d = 0; d < 3 && fault_ == proto::ER_NONE; ++d) {
    Axis& a = axes_[static_cast<std::size_t>(d)];
    if (a.setpoint != 0.0) fault_ = watch(a, applied[d], position[d], drive[d]);
    if (fault_ != proto::ER_NONE) fault_axis_ = d;
  }
  return fault_;
}

proto::EmergencyReason ForceMonitor::watch(Axis& a, double applied, double position, double drive) {
  // Along the setpoint: the force the tool applies the way it is asked to, and how far it has gone.
  const double size = std::abs(a.setpoint);
  const double way = a.setpoint > 0.0 ? 1.0 : -1.0;
  const double along = way * applied, ahead = way * position;

  // Swings of the error about its slow mean.
  if (a.swings.update(size - along, std::max(0.5, 0.1 * size))) return proto::ER_FORCE_OSCILLATION;
  // And of the drive: a cycle the contact (a compliant wrist) keeps out of the force read.
  if (a.drive_swings.update(drive, std::max(2.0 * size, 0.25 * max_force_))) return proto::ER_FORCE_OSCILLATION;

  // The other way, for longer than a bounce.
  if (along < -std::max(1.0, 0.2 * size)) {
    if (a.wrong_since == 0) a.wrong_since = k_;
    if (static_cast<double>(k_ - a.wrong_since) * dt_ >= kWrongSignS) return proto::ER_FORCE_WRONG_SIGN;
  } else {
    a.wrong_since = 0;
  }

  // Gone on along the setpoint, without the force coming to what the law settles to: whatever
  // the tool meets there gives way (friction alone, sliding along a surface; or nothing at all).
  // A surface across the axis stops it within its give; one the axis runs along at a slope lets
  // the force be held all the way down it. Held is in contact at least: a weak P law settles
  // below a tenth of its setpoint, within its band of nothing.
  if (along >= std::max(a.settles - heldTolerance(size), 0.1 * size)) a.held_at = ahead;
  if (ahead - a.held_at > kRunawayM) return proto::ER_FORCE_RUNAWAY;

  // In contact, or how far back from where it last was.
  if (along >= 0.1 * size) {
    a.touched_at = ahead;
    return proto::ER_NONE;
  }
  if (a.touched_at - ahead > kLostM) return proto::ER_FORCE_LOST_CONTACT;
  return proto::ER_NONE;
}

}  // namespace rfms
