#include "joint_node/joint_calibration.hpp"

#include <cmath>
#include <numbers>

#include "joint_node/joint_core.hpp"

namespace rfms {

namespace {
constexpr double kTwoPi = 2.0 * std::numbers::pi;
}  // namespace

JointCalibration::JointCalibration(const JointModel& joint, const JointServoConfig& config)
    : joint_(joint),
      config_(config),
      index_(config.joint - 1),
      resolution_(kTwoPi / joint.counts_per_rev),
      velocity_alpha_(std::exp(-kTwoPi * config.velocity_filter_hz * config.dt)) {}

double JointCalibration::angleFromCount(std::int64_t count) const {
  // Before calibration the joint can only assume it powered up at its park angle.
  return calibrated_ ? joint_.index_angle + static_cast<double>(count - index_count_) * resolution_
                     : config_.park_angle + static_cast<double>(count) * resolution_;
}

JointCalibration::Pulse JointCalibration::read(const proto::ArmSensors& sensors, bool calibrating) {
  Pulse p;
  if (sensors.encoder_size() != kJoints) return p;  // keep the last reading
  const std::int64_t count = sensors.encoder(index_);
  last_count_ = count;
  // The pulse flag covers one arm period only: a realtime joint reads the latest sensor mail and
  // may skip the one that carried it. The count latched at the pulse stays, so a change in it is
  // a pulse too (the flag alone would let calibration search on past the index and fail).
  const bool has_index = sensors.index_size() == kJoints && sensors.index_count_size() == kJoints;
  const bool latched_anew = has_index && seen_index_count_ && sensors.index_count(index_) != last_index_count_;
  const bool pulse = has_index && (sensors.index(index_) || latched_anew);
  if (has_index) {
    last_index_count_ = sensors.index_count(index_);
    seen_index_count_ = true;
  }
  if (!calibrated_ && calibrating && pulse) {
    // From now on angles are absolute: what was known relative moves by the same amount, so that
    // the servo does not jump.
    const double before = angleFromCount(count);
    calibrated_ = true;
    index_count_ = sensors.index_count(index_);
    p.found = true;
    p.shift = angleFromCount(count) - before;
    p.angle = angleFromCount(count);
    returning_ = true;
    previous_angle_ += p.shift;
  }
  angle_ = angleFromCount(count);
  if (!have_angle_) previous_angle_ = angle_;
  have_angle_ = true;
  const double raw = (angle_ - previous_angle_) / config_.dt;
  velocity_ = velocity_alpha_ * velocity_ + (1.0 - velocity_alpha_) * raw;
  previous_angle_ = angle_;
  return p;
}

bool JointCalibration::search(double& target) {
  if (calibrated_ && returning_) {
    const double home = angleFromCount(start_count_);
    const double step = config_.calib_speed * config_.dt;
    if (std::abs(home - target) <= step) {
      target = home;
      returning_ = false;
      return false;
    }
    target += home > target ? step : -step;
    return true;
  }
  if (calibrated_ || failed_) return false;
  if (!started_) {
    started_ = true;
    start_ = target = angle_;
    start_count_ = last_count_;
    direction_ = 1;
  }
  target += direction_ * config_.calib_speed * config_.dt;
  if (std::abs(target - start_) > config_.calib_range) {
    // Not found this way: search the other side, then give up.
    if (direction_ > 0)
      direction_ = -1;
    else
      failed_ = true;
  }
  return true;
}

}  // namespace rfms
