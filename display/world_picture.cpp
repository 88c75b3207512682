#include "display/world_picture.hpp"

#include <algorithm>

#include "common/mail_codec.hpp"
#include "display/scene_messages.hpp"

namespace rfms::display {

WorldPicture worldPictureOf(const proto::ArmStatus& s) {
  WorldPicture w;
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

void addWorldFrames(const WorldPicture& world, std::uint64_t stamp_ns, foxglove::FrameTransforms& out) {
  if (world.moving) addFrame("base", "target", world.target, stamp_ns, out);
  for (const auto& [name, pose] : world.frames) {
    std::string id = name;
    std::replace(id.begin(), id.end(), ' ', '/');
    addFrame("base", id, pose, stamp_ns, out);
  }
}

}  // namespace rfms::display
