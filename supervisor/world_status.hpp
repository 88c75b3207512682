// What a status answer says of the world model and of the move running (proto::ArmStatus's
// `world` and `running`), so that a client or a view can draw the frames a task moves among and
// the target the arm is heading for. Filled by the background when it answers a status request,
// from its world model and the trajectory the period published; never in the period.
#pragma once

#include "proto/task.pb.h"
#include "supervisor/trajectory.hpp"
#include "supervisor/world_model.hpp"

namespace rfms {

// Frames of each kind a status carries at most: beside a watch's 4096 samples, a status answer
// stays inside one datagram (each frame is about 115 bytes).
inline constexpr int kMostWorldFrames = 32;

void describeWorld(const WorldModel& world, const TrajectoryTail& trajectory, proto::ArmStatus& s);

}  // namespace rfms
