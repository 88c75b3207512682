// How a transform that keeps being redefined moves: a conveyor's object, a camera's target. The
// newest updates are kept, and the frame's velocity and turn rate are fitted to them by least
// squares, so that the controller can carry the frame on between updates and ahead by its own
// delay (velocity feed-forward) instead of trailing it by that much. A transform defined once, or
// redefined now and then, does not move: it takes at least kMinSamples updates within the history
// window for a motion to be estimated.
//
// add() is the background side (it fits the motion); at() is real-time safe. A history is a plain
// value of fixed size: the background hands it to the period whole.
#pragma once

#include <array>
#include <cstddef>

#include "common/types.hpp"

namespace rfms {

class FrameHistory {
 public:
  static constexpr std::size_t kSamples = 8;
  static constexpr std::size_t kMinSamples = 3;

  // A new value at time t (s on the supervisor's clock; never before the last one). The motion is
  // fitted to the updates made within `window` s before it.
  void add(double t, const Transform& value, double window);
  // The frame at time t: `newest` (its value as last defined) carried on with the motion from the
  // newest update's time, but never more than `max_lead` s past it, so that a frame whose
  // updates stop comes to rest rather than running away. Without a motion: `newest`.
  Transform at(const Transform& newest, double t, double max_lead) const;

  bool moving() const { return moving_; }
  const Vec3& velocity() const { return velocity_; }   // m/s, base frame
  const Vec3& turnRate() const { return turn_rate_; }  // rad/s, base frame

 private:
  struct Sample {
    double t = 0.0;
    Vec3 p = Vec3::Zero();
    Eigen::Quaterniond r = Eigen::Quaterniond::Identity();
  };
  std::array<Sample, kSamples> samples_{};  // a ring, oldest at next_ once full
  std::size_t count_ = 0, next_ = 0;
  double newest_t_ = 0.0;
  bool moving_ = false;
  Vec3 velocity_ = Vec3::Zero(), turn_rate_ = Vec3::Zero();
};

}  // namespace rfms
