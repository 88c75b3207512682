// A joint's encoder and its calibration (RFMS manual §4.2, CALIB): counts become an angle — before
// calibration relative to the park angle the joint assumes it powered up at, after it absolute
// from the index pulse — and a filtered velocity. CALIB searches for the pulse one way and then
// the other within a range, and once it is found goes back to where the search began, now known
// absolutely, so that calibrating leaves the arm where it was. Pure and real-time safe.
#pragma once

#include <cstdint>

#include "common/robot_model.hpp"
#include "proto/mailboxes.pb.h"

namespace rfms {

struct JointServoConfig;

class JointCalibration {
 public:
  JointCalibration(const JointModel& joint, const JointServoConfig& config);

  // The index pulse met in this reading: every angle known before it moves by `shift`, and the
  // joint now stands at `angle`.
  struct Pulse {
    bool found = false;
    double shift = 0.0, angle = 0.0;
  };
  // This period's sensor mail (kept from the last reading when it has no encoders); the pulse
  // counts only while `calibrating`.
  Pulse read(const proto::ArmSensors& sensors, bool calibrating);

  // One period of CALIB's search and return, moving `target`, the joint's hold target; true while
  // the joint moves.
  bool search(double& target);

  double angle() const { return angle_; }
  double velocity() const { return velocity_; }
  // Calibrated and back where the search started.
  bool done() const { return calibrated_ && !returning_; }
  bool calibrated() const { return calibrated_; }
  bool failed() const { return failed_; }

 private:
  double angleFromCount(std::int64_t count) const;

  const JointModel& joint_;
  const JointServoConfig& config_;
  int index_;              // 0-based
  double resolution_;      // rad per count
  double velocity_alpha_;  // filter pole

  bool calibrated_ = false, have_angle_ = false;
  std::int64_t index_count_ = 0;
  double angle_ = 0.0, previous_angle_ = 0.0, velocity_ = 0.0;
  int direction_ = 1;
  double start_ = 0.0;
  std::int64_t start_count_ = 0;
  bool started_ = false, failed_ = false, returning_ = false;
  std::int64_t last_count_ = 0;
  std::int64_t last_index_count_ = 0;  // the arm's latched index count as last read
  bool seen_index_count_ = false;
};

}  // namespace rfms
