// A joint's setpoint between the supervisor's updates: when the update period is several sample
// periods, the joint moves linearly from the previous update's setpoint to the new one, and the
// path's velocity and acceleration (for the servo's damping and feed-forward) are the finite
// differences of the updates. Pure and real-time safe.
#pragma once

namespace rfms {

class SetpointInterpolator {
 public:
  SetpointInterpolator(double dt, double at) : dt_(dt), previous_(at), next_(at) {}

  // Following begins at `at`, at rest.
  void start(double at);
  // A step, not a path (a setpoint restart): the joint is at `at` from now, at rest.
  void restart(double at, int update_periods);
  // The next update's setpoint, `update_periods` sample periods after the last.
  void next(double setpoint, int update_periods);
  // This period's setpoint on the way to the next update.
  double advance();
  // Not following: no path velocity or acceleration.
  void still() { velocity_ = acceleration_ = 0.0; }
  // Calibration made the angles absolute: what was known relative moves by `shift`.
  void shift(double shift) {
    previous_ += shift;
    next_ += shift;
  }

  double velocity() const { return velocity_; }
  double acceleration() const { return acceleration_; }

 private:
  double dt_;
  double previous_, next_;
  int phase_ = 0, update_periods_ = 1;
  double velocity_ = 0.0, acceleration_ = 0.0;
};

}  // namespace rfms
