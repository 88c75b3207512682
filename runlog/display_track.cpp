#include "runlog/display_track.hpp"

#include <utility>

#include "display/scene_messages.hpp"
#include "proto/runlog.pb.h"
#include "runlog/protobuf_wire.hpp"

namespace rfms {

DisplayTrack::DisplayTrack(const RobotModel& model, Scene scene, double dt_s, int hz)
    : model_(withTool(model, scene.tool)),
      scene_(std::move(scene)),
      dt_s_(dt_s),
      stride_(display::periodsPerPicture(dt_s, hz)),
      builder_(scene_) {}

bool DisplayTrack::take(std::string_view record, std::uint64_t k) {
  const bool due = k >= next_;
  // The requests and events of every record; of a record a picture is due at, the mail it is made
  // of: the sensors, S_MAIL and the J_MAILs. The bytes are the logger's own, but read
  // bounds-checked all the same.
  for (std::size_t at = 0; at < record.size();) {
    std::uint64_t tag = 0, length = 0;
    if (!wire::readVarint(record, at, tag) || (tag & 7u) != wire::kLengthDelimited ||
        !wire::readVarint(record, at, length) || length > record.size() - at)
      break;
    const char* data = record.data() + at;
    const int size = static_cast<int>(length);
    at += length;
    const auto field = static_cast<int>(tag >> 3);
    if (field == proto::PeriodRecord::kRequestFieldNumber && request_.ParseFromArray(data, size)) world_.take(request_);
    if (field == proto::PeriodRecord::kEventFieldNumber && event_.ParseFromArray(data, size)) world_.take(event_);
    if (!due) continue;
    switch (field) {
      case proto::PeriodRecord::kSensorsFieldNumber:
        if (sensors_.ParseFromArray(data, size)) builder_.take(sensors_);
        break;
      case proto::PeriodRecord::kSmailFieldNumber:
        if (smail_.ParseFromArray(data, size)) builder_.take(smail_);
        break;
      case proto::PeriodRecord::kJmailFieldNumber:
        if (jmail_.ParseFromArray(data, size)) builder_.take(jmail_);
        break;
      default: break;
    }
  }
  if (!due) return false;
  const std::optional<display::ArmPicture> picture = builder_.newest();
  if (!picture || picture->period < next_) return false;
  next_ = picture->period + stride_;
  stamp_ns_ = display::stampOf(picture->period, dt_s_);
  display::frameTransforms(model_, scene_, *picture, stamp_ns_, frame_msg_);
  display::addWorldFrames(world_.at(picture->period, dt_s_), stamp_ns_, frame_msg_);
  display::sceneUpdate(model_, scene_, *picture, stamp_ns_, scene_msg_);
  frame_msg_.SerializeToString(&frames_bytes_);
  scene_msg_.SerializeToString(&scene_bytes_);
  return true;
}

}  // namespace rfms
