// A jog step's size against what it moves: the one rule that the task language applies as it
// reads `jog TARGET +|- SIZE` (common/task_file.cpp) and the supervisor as it takes a jog from any
// client (supervisor/supervisor_background.cpp), so that a file, a shell and a program are
// refused alike and in the same words.
//
//   counts N     a joint's encoder counts, 1 .. kMaxJogCounts
//   angle A      a joint's turn, or one about rx ry rz: 0 < A <= kMaxJogAngleRad
//   distance D   along x y z: 0 < D <= kMaxJogDistanceM
//
// No size at all: a jog that goes on until hold or stop.
#pragma once

#include <cstdint>
#include <numbers>
#include <string>

#include "proto/task.pb.h"

namespace rfms {

// More counts than any encoder here has in a turn (the PUMA 260's finest has about 40,000).
inline constexpr std::int64_t kMaxJogCounts = 1000000;
inline constexpr double kMaxJogAngleRad = std::numbers::pi;  // half a turn
inline constexpr double kMaxJogDistanceM = 1.0;

// "" when the jog `c` (a joint's or an axis's) gives no size or one that fits what it moves, else
// why not ("jog distance: ..."). Sizes in metres and radians.
std::string jogStepProblem(const proto::Control& c);

}  // namespace rfms
