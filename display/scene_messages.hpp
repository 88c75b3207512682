// The Foxglove display messages of one picture of the arm (display/arm_picture.hpp): its frames and
// the things drawn in them. Pure functions of the robot model, the scene and the picture, so that
// the live view and a run log's display channels draw the same arm from the same mail.
//
// Frames (parent "base", the robot's base frame, whose origin is the shoulder): "link1" ..
// "link5" (DH frames 1..5), "t6" (frame 6, the flange: T6), "tool" (child of t6: the scene's tool
// frame E), "setpoint" (the T6 the supervisor sent for that period, when it sent one).
// Entities: the links as cylinders along each link's d and a, the surfaces of the scene, the
// tool's tip, and the sensed force as an arrow at the tool point.
#pragma once

#include <cstdint>
#include <string>

#include "common/robot_model.hpp"
#include "common/scene.hpp"
#include "display/arm_picture.hpp"
#include "proto/foxglove.pb.h"

namespace rfms::display {

// The display channels' topics, the same live and in a run log, so that one Foxglove layout
// serves both.
inline constexpr const char* kFramesTopic = "/frames";
inline constexpr const char* kSceneTopic = "/scene";

// Pictures a second at most: more than a screen shows is wasted on a viewer and in a log.
inline constexpr int kMaxPicturesPerSecond = 60;
// How many sample periods of `dt_s` apart pictures at `hz` (1 .. kMaxPicturesPerSecond) are:
// never closer than 1/hz.
std::uint64_t periodsPerPicture(double dt_s, int hz);

// Period k's time on the cluster's clock: k sample periods after the run's start.
std::uint64_t stampOf(std::uint64_t period, double dt_s);

// One frame: `child` at `t` in `parent`, stamped.
void addFrame(const char* parent, const std::string& child, const Transform& t, std::uint64_t stamp_ns,
              foxglove::FrameTransforms& out);

void frameTransforms(const RobotModel& model, const Scene& scene, const ArmPicture& picture, std::uint64_t stamp_ns,
                     foxglove::FrameTransforms& out);

void sceneUpdate(const RobotModel& model, const Scene& scene, const ArmPicture& picture, std::uint64_t stamp_ns,
                 foxglove::SceneUpdate& out);

}  // namespace rfms::display
