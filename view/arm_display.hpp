// The arm on a view's display channels: a picture of a period (display/arm_picture.hpp) drawn as its
// frames and scene, and log lines, each stamped with the cluster's time. Shared by the live view
// and the replay of a run log, so that both draw the same arm from the same mail. The display
// channels are latched: a viewer that comes late gets the last picture and the recent lines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/robot_model.hpp"
#include "common/scene.hpp"
#include "display/arm_picture.hpp"
#include "display/world_picture.hpp"
#include "proto/foxglove.pb.h"
#include "view/desk_message.hpp"
#include "view/foxglove_server.hpp"

namespace rfms::view {

class ArmDisplay {
 public:
  static constexpr std::size_t kLatchedLogLines = 200;

  // `model` with the scene's tool; `dt_s` the sample period. Latches the display channels.
  ArmDisplay(RobotModel model, Scene scene, double dt_s, FoxgloveServer& server);

  // The picture on /frames, /scene and /desk; `signals` go with it on /desk, and the world's frames
  // and the running move (when the supervisor's status is known) on /frames and /desk.
  void show(const display::ArmPicture& picture, const std::vector<std::pair<std::string, double>>& signals = {},
            const display::WorldPicture* world = nullptr);
  // A line of the log, at `stamp_ns` or else at the time of the last picture shown.
  void log(foxglove::Log::Level level, const std::string& name, const std::string& text,
           std::optional<std::uint64_t> stamp_ns = std::nullopt);
  void log(foxglove::Log& line, std::optional<std::uint64_t> stamp_ns = std::nullopt);

  std::uint64_t stamp_ns() const { return stamp_ns_; }
  std::uint64_t pictures() const { return pictures_; }
  double dt_s() const { return dt_s_; }

 private:
  RobotModel model_;
  Scene scene_;
  double dt_s_;
  FoxgloveServer& server_;
  foxglove::FrameTransforms frames_;
  foxglove::SceneUpdate update_;
  foxglove::Log line_;
  DeskExtras desk_;  // the last log lines, for /desk
  std::uint64_t lines_ = 0;
  std::uint64_t stamp_ns_ = 0, pictures_ = 0;
};

}  // namespace rfms::view
