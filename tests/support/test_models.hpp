// Shared by the common/ tests: the shipped robot models and seeded random configurations.
#pragma once

#include <random>
#include <string>

#include "common/robot_model.hpp"
#include "common/robot_model_loader.hpp"
#include "tests/support/build_paths.hpp"

namespace rfms::test {

inline const RobotModel& puma260() {
  static const RobotModel model = loadRobotModel(std::string(RFMS_ROBOTS_DIR) + "/puma260.textproto");
  return model;
}

inline const RobotModel& puma560() {
  static const RobotModel model = loadRobotModel(std::string(RFMS_ROBOTS_DIR) + "/puma560.textproto");
  return model;
}

// Uniform joint angles within the model's limits.
inline JointVec randomConfiguration(const RobotModel& model, std::mt19937_64& rng) {
  JointVec q;
  for (int i = 0; i < kJoints; ++i)
    q[i] = std::uniform_real_distribution<double>(model.joints[i].q_min, model.joints[i].q_max)(rng);
  return q;
}

inline JointVec randomVector(std::mt19937_64& rng, double magnitude) {
  JointVec v;
  for (int i = 0; i < kJoints; ++i) v[i] = std::uniform_real_distribution<double>(-magnitude, magnitude)(rng);
  return v;
}

}  // namespace rfms::test
