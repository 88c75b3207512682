#include "display/world_picture.hpp"

#include <algorithm>

#include "common/mail_codec.hpp"
#include "display/scene_messages.hpp"

namespace rfms::display {

WorldPicture worldPictureOf(const proto::ArmStatus& s) {
  WorldPicture w;
  w.unended = s.moves_queued();
  for (const proto::NamedPose& p : s.world())
    if (Transform t; decode(p.pose(), t)) w.frames.emplace_back(p.name(), t);
  if (s.has_running() && decode(s.running().target(), w.target)) {
    w.moving = true;
    w.move_id = s.running().id();
    w.position = s.running().position();
    w.motion = s.running().motion();
    w.elapsed_s = s.running().elapsed_s();
    w.duration_s = s.running().duration_s();
  }
  return w;
}

void WorldTrack::take(const proto::LogRequest& request) {
  if (!request.reply().accepted()) return;
  if (request.has_world()) {
    world_.frames.clear();
    for (const proto::NamedPose& p : request.world().frames())
      if (Transform t; decode(p.pose(), t)) world_.frames.emplace_back(p.name(), t);
  }
  const proto::TaskRequest& r = request.request();
  if (r.has_motion()) motions_[r.motion().name()] = r.motion().segment_s();
  Move m;
  if (request.reply().move_id() == 0 || !request.has_move_target() || !decode(request.move_target(), m.target)) return;
  m.position = r.move().position();
  m.motion = r.move().motion();
  if (const auto it = motions_.find(m.motion); it != motions_.end()) m.duration_s = it->second;
  if (moves_.size() == kMostMoves) moves_.erase(moves_.begin());
  moves_[request.reply().move_id()] = std::move(m);
}

void WorldTrack::take(const proto::LogEvent& event) {
  const auto it = moves_.find(event.move_id());
  if (event.kind() == proto::LogEvent::MOVE_STARTED && it != moves_.end()) {
    world_.moving = true;
    world_.move_id = event.move_id();
    world_.target = it->second.target;
    world_.position = it->second.position;
    world_.motion = it->second.motion;
    world_.duration_s = it->second.duration_s;
    started_ = event.period();
  }
  if (event.kind() == proto::LogEvent::MOVE_COMPLETED || event.kind() == proto::LogEvent::MOVE_ABORTED) {
    if (world_.moving && world_.move_id == event.move_id()) world_.moving = false;
    if (it != moves_.end()) moves_.erase(it);
  }
}

const WorldPicture& WorldTrack::at(std::uint64_t period, double dt_s) {
  const double since = period > started_ ? static_cast<double>(period - started_) * dt_s : 0.0;
  world_.elapsed_s = std::min(since, world_.duration_s);
  world_.unended = moves_.size();
  return world_;
}

void addWorldFrames(const WorldPicture& world, std::uint64_t stamp_ns, foxglove::FrameTransforms& out) {
  if (world.moving) addFrame("base", "target", world.target, stamp_ns, out);
  for (const auto& [name, pose] : world.frames) {
    std::string id = name;
    std::replace(id.begin(), id.end(), ' ', '/');
    addFrame("base", id, pose, stamp_ns, out);
  }
}

}  // namespace rfms::display
