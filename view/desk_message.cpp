#include "view/desk_message.hpp"

#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "common/mail_names.hpp"

namespace rfms::view {

namespace {

nlohmann::json asJson(const google::protobuf::Message& m) {
  std::string text;
  google::protobuf::util::JsonPrintOptions o;
  o.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(m, &text, o);
  return nlohmann::json::parse(text, nullptr, false);
}

const char* levelName(foxglove::Log::Level l) {
  switch (l) {
    case foxglove::Log::DEBUG: return "debug";
    case foxglove::Log::WARNING: return "warning";
    case foxglove::Log::ERROR: return "error";
    case foxglove::Log::FATAL: return "fatal";
    default: return "info";
  }
}

}  // namespace

std::string deskMessage(const display::ArmPicture& p, double time_s, const foxglove::FrameTransforms& frames,
                        const foxglove::SceneUpdate& scene, const DeskExtras& extras) {
  nlohmann::json j;
  j["period"] = p.period;
  j["time_s"] = time_s;
  j["rtstate"] = p.has_setpoint ? stateName(p.rtstate) : "";
  j["angles"] = std::vector<double>(p.angles.data(), p.angles.data() + p.angles.size());
  j["frames"] = asJson(frames);
  j["scene"] = asJson(scene);
  nlohmann::json signals = nlohmann::json::object();
  // A NaN has no JSON form: a signal with no value in that period's mail is null.
  for (const auto& [name, value] : extras.signals)
    signals[name] = std::isfinite(value) ? nlohmann::json(value) : nullptr;
  j["signals"] = signals;
  j["move"] = nullptr;
  j["unended"] = extras.world != nullptr ? extras.world->unended : 0;
  if (extras.world != nullptr && extras.world->moving) {
    const display::WorldPicture& w = *extras.world;
    j["move"] = {{"id", w.move_id},
                 {"position", w.position},
                 {"motion", w.motion},
                 {"elapsed_s", w.elapsed_s},
                 {"duration_s", w.duration_s}};
  }
  nlohmann::json lines = nlohmann::json::array();
  for (const auto& [n, l] : extras.lines)
    lines.push_back({{"n", n}, {"level", levelName(l.level())}, {"name", l.name()}, {"text", l.message()}});
  j["lines"] = lines;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace rfms::view
