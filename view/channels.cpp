#include "view/channels.hpp"

#include "proto/foxglove.pb.h"
#include "runlog/protobuf_schema.hpp"
#include "runlog/run_logger.hpp"

namespace rfms::view {

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
      {"/frames", "foxglove.FrameTransforms", descriptorSet(foxglove::FrameTransforms::descriptor())},
      {"/scene", "foxglove.SceneUpdate", descriptorSet(foxglove::SceneUpdate::descriptor())},
      {"/log", "foxglove.Log", descriptorSet(foxglove::Log::descriptor())},
  };
  for (const MailChannel& m : mailChannels()) c.push_back({m.topic, m.type->full_name(), descriptorSet(m.type)});
  return c;
}

const char* defaultWebRoot() { return RFMS_VIEW_WEB_ROOT; }

}  // namespace rfms::view
