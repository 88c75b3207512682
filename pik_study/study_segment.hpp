// The random straight-line trajectories of Zhang & Paul's PIK study (A.6 §IV of the RFMS report):
// the position moves linearly from p_i to p_f, the orientation turns about one fixed axis by an
// angle in [0.1 pi, 0.9 pi], both with the motion parameter h = t / T_seg (no transitions).
#pragma once

#include <cstdint>
#include <vector>

#include "common/ik_opw.hpp"
#include "common/robot_model.hpp"

namespace rfms::study {

struct SamplerOptions {
  // The reach sphere is shrunk, and the shoulder-offset cylinder grown, by this much (m).
  double workspace_margin_m = 0.02;
  // No point of the path may bring |theta5| below this (deg): the wrist singularity itself.
  double wrist_clearance_deg = 1.0;
  // A path whose |theta5| comes below this (deg) counts as passing near the wrist singularity;
  // orientation statistics are reported with and without such paths.
  double near_wrist_deg = 10.0;
  int check_points = 200;  // points along the path checked with the exact IK
};

struct StudySegment {
  Transform start = Transform::Identity(), end = Transform::Identity();  // T6
  Vec3 axis = Vec3::UnitZ();                                             // rotation axis, base frame
  double angle = 0.0;                                                    // rad, about `axis`
  ArmConfig config;
  JointVec q_start = JointVec::Zero();  // the exact solution at the start
  double min_wrist_deg = 180.0;         // smallest |theta5| along the path
  bool near_wrist = false;

  // The desired T6 at motion parameter h (clamped to [0, 1]).
  Transform at(double h) const;
};

// The study's robot: the model with its joint limits opened to +-4 pi, because the paper ignores
// joint limits ("irrelevant as far as our analysis is concerned").
RobotModel withoutJointLimits(const RobotModel& model);

// Draws segments as the paper does: x uniform in (0, R2), y and z in (-R2, R2) for both ends, kept
// when the whole line stays between the grown cylinder and the shrunk sphere; a random initial
// orientation, a random axis n = (c_phi s_psi, s_phi s_psi, c_psi) in the tool frame and a random
// angle; random configuration flags; then every check point must be solvable by the exact IK and
// clear of the wrist singularity. Deterministic for a given seed.
std::vector<StudySegment> drawSegments(const RobotModel& model, const SamplerOptions& options, int count,
                                       std::uint64_t seed);

}  // namespace rfms::study
