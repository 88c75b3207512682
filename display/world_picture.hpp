// The frames of the world model and the move running, as a status answer gives them
// (proto::ArmStatus's `world` and `running`, filled by the supervisor's background), for a view to
// draw beside the arm: the target the arm is heading for, and where each position and transform is.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/types.hpp"
#include "proto/foxglove.pb.h"
#include "proto/runlog.pb.h"
#include "proto/task.pb.h"

namespace rfms::display {

struct WorldPicture {
  std::vector<std::pair<std::string, Transform>> frames;  // "position NAME", "transform NAME": base frames
  bool moving = false;                                    // a move runs; the rest describe it
  std::uint64_t move_id = 0;
  std::string position, motion;
  Transform target = Transform::Identity();  // T6 where it ends
  double elapsed_s = 0.0, duration_s = 0.0;  // into its segment, and the segment's length
  std::uint64_t unended = 0;                 // moves accepted and not yet ended, the running one included
};

// The same from a run log: the world as the newest request that changed it left it, and the move
// running with its target, from the requests and events in the order they were logged
// (proto::LogRequest's world and move_target, which the supervisor writes; LogEvent's moves). A
// move's time is counted from the period it started in, against its motion's segment time.
class WorldTrack {
 public:
  void take(const proto::LogRequest& request);
  void take(const proto::LogEvent& event);
  // As it stands at `period` of a run sampled every `dt_s`.
  const WorldPicture& at(std::uint64_t period, double dt_s);

 private:
  struct Move {
    Transform target;
    std::string position, motion;
    double duration_s = 0.0;
  };
  static constexpr std::size_t kMostMoves = 1024;  // a log whose events were lost stays bounded
  WorldPicture world_;
  std::uint64_t started_ = 0;              // the period the running move started in
  std::map<std::uint64_t, Move> moves_;    // accepted moves not yet ended, by id
  std::map<std::string, double> motions_;  // segment time of each motion defined, s
};

// What a status answer says; a pose that does not decode is left out.
WorldPicture worldPictureOf(const proto::ArmStatus& s);

// The picture's frames, added to `out` as children of "base": "target" while a move runs, and the
// world's with the space of their names made a slash ("position/above", "transform/top").
void addWorldFrames(const WorldPicture& world, std::uint64_t stamp_ns, foxglove::FrameTransforms& out);

}  // namespace rfms::display
