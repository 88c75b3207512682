#include "view/channels.hpp"

#include "common/error.hpp"
#include "display/scene_messages.hpp"
#include "proto/foxglove.pb.h"
#include "runlog/protobuf_schema.hpp"
#include "runlog/run_logger.hpp"

namespace rfms::view {

namespace {

// The desk's messages as a JSON schema: Foxglove shows them in its raw message panel; the page
// is their reader (view/desk_message.hpp says what each field holds).
constexpr const char* kDeskSchema = R"({"type": "object", "properties": {
  "period": {"type": "integer"}, "time_s": {"type": "number"}, "rtstate": {"type": "string"},
  "angles": {"type": "array", "items": {"type": "number"}},
  "frames": {"type": "object"}, "scene": {"type": "object"},
  "signals": {"type": "object"}, "lines": {"type": "array"}}})";

}  // namespace

const std::array<MailChannel, kMailChannels>& mailChannels() {
  static const std::array<MailChannel, kMailChannels> kChannels{{
      {topic::kSensors, proto::ArmSensors::descriptor(), bit(Box::kSensors), proto::Envelope::kSensors},
      {topic::kSMail, proto::SMail::descriptor(), bit(Box::kSMail), proto::Envelope::kSmail},
      {topic::kMMail, proto::MMail::descriptor(), bit(Box::kMMail), proto::Envelope::kMmail},
      {topic::kParcel, proto::Parcel::descriptor(), bit(Box::kParcel), proto::Envelope::kParcel},
      {topic::kJMail, proto::JMail::descriptor(), kAllJMail, proto::Envelope::kJmail},
      {topic::kTorque, proto::TorqueCommand::descriptor(), kAllTorques, proto::Envelope::kTorque},
      {topic::kApplied, proto::AppliedTorques::descriptor(), bit(Box::kArmReport), proto::Envelope::kApplied},
  }};
  return kChannels;
}

std::size_t mailChannelOf(proto::Envelope::BodyCase body) {
  for (std::size_t c = 0; c < kMailChannels; ++c)
    if (mailChannels()[c].body == body) return kFirstMail + c;
  return SIZE_MAX;
}

std::vector<Channel> viewChannels() {
  std::vector<Channel> c{
      {display::kFramesTopic, "foxglove.FrameTransforms", descriptorSet(foxglove::FrameTransforms::descriptor()), true},
      {display::kSceneTopic, "foxglove.SceneUpdate", descriptorSet(foxglove::SceneUpdate::descriptor()), true},
      {"/log", "foxglove.Log", descriptorSet(foxglove::Log::descriptor())},
      {"/desk", "rfms.Desk", kDeskSchema, true, "json", "jsonschema"},
  };
  for (const MailChannel& m : mailChannels()) c.push_back({m.topic, m.type->full_name(), descriptorSet(m.type)});
  return c;
}

const char* defaultWebRoot() { return RFMS_VIEW_WEB_ROOT; }

ServerOptions serverAt(const std::string& address_port) {
  const auto colon = address_port.rfind(':');
  const std::string port = colon == std::string::npos ? "" : address_port.substr(colon + 1);
  if (colon == std::string::npos || colon == 0 || port.empty())
    throw ConfigError("--view '" + address_port + "': not ADDRESS:PORT");
  if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) > 65535)
    throw ConfigError("--view '" + address_port + "': the port must be 0 .. 65535");
  ServerOptions s;
  s.address = address_port.substr(0, colon);
  s.port = static_cast<std::uint16_t>(std::stoi(port));
  s.web_root = defaultWebRoot();
  return s;
}

}  // namespace rfms::view
