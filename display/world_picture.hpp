// The frames of the world model and the move running, as a status answer gives them
// (proto::ArmStatus's `world` and `running`, filled by the supervisor's background), for a view to
// draw beside the arm: the target the arm is heading for, and where each position and transform is.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/types.hpp"
#include "proto/foxglove.pb.h"
#include "proto/task.pb.h"

namespace rfms::display {

struct WorldPicture {
  std::vector<std::pair<std::string, Transform>> frames;  // "position NAME", "transform NAME": base frames
  bool moving = false;                                    // a move runs; the rest describe it
  std::uint64_t move_id = 0;
  std::string position, motion;
  Transform target = Transform::Identity();  // T6 where it ends
  double elapsed_s = 0.0, duration_s = 0.0;  // into its segment, and the segment's length
};

// What a status answer says; a pose that does not decode is left out.
WorldPicture worldPictureOf(const proto::ArmStatus& s);

// The picture's frames, added to `out` as children of "base": "target" while a move runs, and the
// world's with the space of their names made a slash ("position/above", "transform/top").
void addWorldFrames(const WorldPicture& world, std::uint64_t stamp_ns, foxglove::FrameTransforms& out);

}  // namespace rfms::display
