#include "joint_node/setpoint_interpolation.hpp"

#include <algorithm>

namespace rfms {

void SetpointInterpolator::start(double at) {
  previous_ = next_ = at;
  phase_ = 0;
  update_periods_ = 1;
  velocity_ = acceleration_ = 0.0;
}

void SetpointInterpolator::restart(double at, int update_periods) {
  previous_ = next_ = at;
  update_periods_ = std::max(1, update_periods);
}

void SetpointInterpolator::next(double setpoint, int update_periods) {
  previous_ = next_;
  next_ = setpoint;
  update_periods_ = std::max(1, update_periods);
  phase_ = 0;
  const double interval = update_periods_ * dt_;
  const double velocity = (next_ - previous_) / interval;
  acceleration_ = (velocity - velocity_) / interval;
  velocity_ = velocity;
}

double SetpointInterpolator::advance() {
  const double setpoint = previous_ + (next_ - previous_) * phase_ / update_periods_;
  phase_ = std::min(phase_ + 1, update_periods_);
  return setpoint;
}

}  // namespace rfms
