// A run log's pictures of the arm: every 1/hz seconds of the run, the arm as that period's mail
// shows it, drawn as Foxglove's FrameTransforms and SceneUpdate (display/scene_messages.hpp), so
// that a log opened in Foxglove shows the arm move in 3D beside the mailboxes; with them the
// world model's frames and the running move's target, as the logged requests and events say them
// (proto::LogRequest's world and move_target, which the supervisor writes). The log's writer
// thread draws them from the records it writes, below the nodes' priority: the period's thread
// never pays for a picture.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/robot_model.hpp"
#include "common/scene.hpp"
#include "display/arm_picture.hpp"
#include "display/world_picture.hpp"
#include "proto/cluster.pb.h"
#include "proto/foxglove.pb.h"
#include "proto/runlog.pb.h"

namespace rfms {

class DisplayTrack {
 public:
  // `model` without the tool (the robot model file's), the scene, the sample period and the
  // pictures a second (1 .. display::kMaxPicturesPerSecond).
  DisplayTrack(const RobotModel& model, Scene scene, double dt_s, int hz);
  DisplayTrack(const DisplayTrack&) = delete;
  DisplayTrack& operator=(const DisplayTrack&) = delete;

  // A period's record as the logger writes it (proto::PeriodRecord's wire format, every header
  // in place), logged at period k. True when it made a picture: its messages are then frames()
  // and scene(), stamped stamp_ns(). Of the records before the next picture is due only the
  // requests and events are read.
  bool take(std::string_view record, std::uint64_t k);

  const std::string& frames() const { return frames_bytes_; }
  const std::string& scene() const { return scene_bytes_; }
  std::uint64_t stamp_ns() const { return stamp_ns_; }

 private:
  RobotModel model_;  // with the scene's tool
  Scene scene_;
  double dt_s_;
  std::uint64_t stride_;    // periods between two pictures
  std::uint64_t next_ = 0;  // the first period the next picture may show
  display::PictureBuilder builder_;
  display::WorldTrack world_;  // the world and the moves' targets as the log tells them
  proto::LogRequest request_;
  proto::LogEvent event_;
  proto::ArmSensors sensors_;  // reused for every record read
  proto::SMail smail_;
  proto::JMail jmail_;
  foxglove::FrameTransforms frame_msg_;
  foxglove::SceneUpdate scene_msg_;
  std::string frames_bytes_, scene_bytes_;
  std::uint64_t stamp_ns_ = 0;
};

}  // namespace rfms
