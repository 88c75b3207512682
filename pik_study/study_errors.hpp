// The paper's error measures along one segment (A.6 §III.A): the position error
// delta_p(t) = |p_desired - p(FK(theta))| and the orientation error delta_r(t), the angle of the
// differential rotation R_desired^-1 R_actual, at every servo sample of the motion up to its last
// update instant.
#pragma once

#include <vector>

#include "common/statistics.hpp"
#include "pik_study/study_methods.hpp"

namespace rfms::study {

struct SegmentErrors {
  double dp_max_mm = 0.0, dp_mean_mm = 0.0;
  double dr_max_deg = 0.0, dr_mean_deg = 0.0;
  // Update periods after the end of the motion until the errors are gone (below 1e-4 mm and
  // 1e-5 deg at every later update); -1 if they never go.
  int settle_updates = -1;
};

SegmentErrors measureErrors(const RobotModel& open_model, const StudySegment& segment, const Timing& timing,
                            double update_s, const std::vector<JointVec>& servo);

}  // namespace rfms::study
