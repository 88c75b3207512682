#include "pik_study/study_errors.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "common/kinematics.hpp"

namespace rfms::study {

namespace {
constexpr double kRadToDeg = 180.0 / std::numbers::pi;
constexpr double kSettledMm = 1e-4, kSettledDeg = 1e-5;
}  // namespace

SegmentErrors measureErrors(const RobotModel& open_model, const StudySegment& segment, const Timing& timing,
                            double update_s, const std::vector<JointVec>& servo) {
  SegmentErrors e;
  const int per_update = static_cast<int>(std::lround(update_s / timing.servo_s));
  // The motion is measured up to its last update instant: when T_seg is not a whole number of
  // update periods, the samples after that instant interpolate towards a setpoint computed after
  // the end, which makes the arm arrive up to one update late, a matter of timing, not geometry.
  const int end = per_update * static_cast<int>(std::floor(timing.segment_s / update_s + 1e-9));
  int samples = 0, last_unsettled_update = -1, first_update_after = -1;
  for (int j = 0; j < static_cast<int>(servo.size()); ++j) {
    const double t = j * timing.servo_s;
    const Transform desired = segment.at(t / timing.segment_s);
    const Transform actual = forwardKinematics(open_model, servo[static_cast<std::size_t>(j)]);
    const double dp = (desired.translation() - actual.translation()).norm() * 1e3;
    const double dr = Eigen::AngleAxisd(desired.linear().transpose() * actual.linear()).angle() * kRadToDeg;
    if (j <= end) {
      e.dp_max_mm = std::max(e.dp_max_mm, dp);
      e.dr_max_deg = std::max(e.dr_max_deg, dr);
      e.dp_mean_mm += dp;
      e.dr_mean_deg += dr;
      ++samples;
    } else if (j % per_update == 0) {
      const int update = j / per_update;
      if (first_update_after < 0) first_update_after = update;
      if (dp >= kSettledMm || dr >= kSettledDeg) last_unsettled_update = update;
    }
  }
  e.dp_mean_mm /= samples;
  e.dr_mean_deg /= samples;
  const int last_update = (static_cast<int>(servo.size()) - 1) / per_update;
  if (first_update_after >= 0 && last_unsettled_update < last_update)
    e.settle_updates = last_unsettled_update < 0 ? 0 : last_unsettled_update - first_update_after + 1;
  return e;
}

}  // namespace rfms::study
