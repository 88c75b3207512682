// The arm stepped with its commands alone, for tests that read it through its accessors or
// sense() rather than through its outbox.
#pragma once

#include <array>

#include "arm_sim/arm_core.hpp"

namespace rfms::test {

inline void stepArm(ArmCore& arm, const std::array<const proto::TorqueCommand*, kJoints>& commands) {
  static thread_local ArmOutbox discarded;
  arm.step({commands}, discarded);
}

}  // namespace rfms::test
