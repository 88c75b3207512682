#include "view/arm_display.hpp"

#include "display/scene_messages.hpp"
#include "display/world_picture.hpp"
#include "view/channels.hpp"

namespace rfms::view {

ArmDisplay::ArmDisplay(RobotModel model, Scene scene, double dt_s, FoxgloveServer& server)
    : model_(std::move(model)), scene_(std::move(scene)), dt_s_(dt_s), server_(server) {
  server_.latch(kFrames, 1);
  server_.latch(kScene, 1);
  server_.latch(kLog, kLatchedLogLines);
}

void ArmDisplay::show(const display::ArmPicture& p, const std::vector<std::pair<std::string, double>>& signals,
                      const display::WorldPicture* world) {
  ++pictures_;
  stamp_ns_ = display::stampOf(p.period, dt_s_);
  server_.publishTime(stamp_ns_);
  // Made whether or not anyone looks: the channels are latched for the next viewer.
  display::frameTransforms(model_, scene_, p, stamp_ns_, frames_);
  if (world != nullptr) display::addWorldFrames(*world, stamp_ns_, frames_);
  server_.publish(kFrames, stamp_ns_, frames_.SerializeAsString());
  display::sceneUpdate(model_, scene_, p, stamp_ns_, update_);
  server_.publish(kScene, stamp_ns_, update_.SerializeAsString());
  if (server_.subscribed(kDesk)) {
    desk_.signals = signals;
    desk_.world = world;
    server_.publish(kDesk, stamp_ns_, deskMessage(p, static_cast<double>(p.period) * dt_s_, frames_, update_, desk_));
  }
}

void ArmDisplay::log(foxglove::Log& line, std::optional<std::uint64_t> stamp_ns) {
  const std::uint64_t at = stamp_ns.value_or(stamp_ns_);
  line.mutable_timestamp()->set_seconds(static_cast<std::int64_t>(at / 1'000'000'000u));
  line.mutable_timestamp()->set_nanos(static_cast<std::int32_t>(at % 1'000'000'000u));
  server_.publish(kLog, at, line.SerializeAsString());
  desk_.lines.emplace_back(++lines_, line);
  if (desk_.lines.size() > kDeskLines) desk_.lines.pop_front();
}

void ArmDisplay::log(foxglove::Log::Level level, const std::string& name, const std::string& text,
                     std::optional<std::uint64_t> stamp_ns) {
  line_.Clear();
  line_.set_level(level);
  line_.set_name(name);
  line_.set_message(text);
  log(line_, stamp_ns);
}

}  // namespace rfms::view
