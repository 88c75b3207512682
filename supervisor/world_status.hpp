// What a status answer says of the world model and of the move running (proto::ArmStatus's
// `world` and `running`), so that a client or a view can draw the frames a task moves among and
// the target the arm is heading for. Filled by the background when it answers a status request,
// from its world model and the trajectory the period published; never in the period.
#pragma once

#include <string>

#include "proto/runlog.pb.h"
#include "proto/task.pb.h"
#include "supervisor/trajectory.hpp"
#include "supervisor/world_model.hpp"

namespace rfms {

// Frames of each kind a status carries at most: beside a watch's 4096 samples, a status answer
// stays inside one datagram (each frame is about 115 bytes).
inline constexpr int kMostWorldFrames = 32;

void describeWorld(const WorldModel& world, const TrajectoryTail& trajectory, proto::ArmStatus& s);

// The same world, and an accepted move's target, for a request's run-log record: a serialised
// proto::LogRequest holding only `world` and `move_target`, which appended to the record's bytes
// merges into it; "" for a request that changed nothing (refused, or not a definition, forget or
// move).
std::string worldRecord(const WorldModel& world, const proto::TaskRequest& request, const proto::TaskReply& reply);

}  // namespace rfms
