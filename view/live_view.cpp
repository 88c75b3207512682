#include "view/live_view.hpp"

#include <array>

#include "runlog/protobuf_schema.hpp"
#include "runlog/run_logger.hpp"
#include "view/scene_messages.hpp"

namespace rfms::view {

namespace {

// A mailbox channel: the boxes whose mail it carries, and which kind of their mail (the boxes of
// J_MAILs and PARCELs also carry their writers' hellos, which are left out).
struct MailChannel {
  const char* topic;
  const google::protobuf::Descriptor* type;
  BoxSet boxes;
  proto::Envelope::BodyCase body;
};

const std::array<MailChannel, 7>& mailChannels() {
  static const std::array<MailChannel, 7> kChannels{{
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

// The mail the picture is made of, taken whether or not a viewer wants the mailboxes.
constexpr BoxSet kPictureBoxes = bit(Box::kSMail) | bit(Box::kSensors) | kAllJMail;

const google::protobuf::Message& bodyOf(const proto::Envelope& e) {
  const auto* field = proto::Envelope::descriptor()->FindFieldByNumber(e.body_case());
  return e.GetReflection()->GetMessage(e, field);
}

constexpr std::size_t kLatchedLogLines = 200;
// A torque ring holds 8 periods (node/mail_box.hpp): looked at every 4 ms, none is lost at 1 kHz.
constexpr std::chrono::microseconds kTorqueLook{4000};
constexpr std::uint64_t kReportTicks = 600;  // counts logged at most every 10 s at 60 Hz

}  // namespace

std::vector<Channel> liveChannels() {
  std::vector<Channel> c{
      {"/frames", "foxglove.FrameTransforms", descriptorSet(foxglove::FrameTransforms::descriptor())},
      {"/scene", "foxglove.SceneUpdate", descriptorSet(foxglove::SceneUpdate::descriptor())},
      {"/log", "foxglove.Log", descriptorSet(foxglove::Log::descriptor())},
  };
  for (const MailChannel& m : mailChannels()) c.push_back({m.topic, m.type->full_name(), descriptorSet(m.type)});
  return c;
}

LiveView::LiveView(LiveViewSettings settings, FoxgloveServer& server, std::shared_ptr<spdlog::logger> log)
    : s_(std::move(settings)),
      server_(server),
      log_(std::move(log)),
      tap_(s_.segment_path),
      builder_(s_.scene),
      log_tail_(s_.supervisor_log) {
  // A viewer's first subscription to a mailbox starts at the mail that comes next, not at the
  // second of mail its ring still holds.
  for (std::size_t c = 0; c < mailChannels().size(); ++c)
    if (mailChannels()[c].boxes == kAllTorques) torque_channel_ = kFirstMail + c;
  server_.latch(kFrames, 1);
  server_.latch(kScene, 1);
  server_.latch(kLog, kLatchedLogLines);
  server_.onSubscribed([this](std::size_t id) {
    if (id < kFirstMail) return;
    const MailChannel& m = mailChannels()[id - kFirstMail];
    for (int b = 0; b < kBoxCount; ++b)
      if ((m.boxes & bit(static_cast<Box>(b))) != 0 && (kPictureBoxes & bit(static_cast<Box>(b))) == 0)
        tap_.restart(static_cast<Box>(b));
  });
}

std::chrono::microseconds LiveView::tick() {
  using namespace std::chrono;
  const auto display = microseconds(1'000'000 / s_.rate_hz);
  const auto now = steady_clock::now();
  const bool drawing = now >= next_display_;
  if (!tap_.attach()) {
    if (!said_waiting_) log_->info("waiting for the run's mail at {}", s_.segment_path);
    said_waiting_ = true;
  } else {
    takeMail();
    if (drawing)
      if (const auto p = builder_.newest()) publishPicture(*p);
  }
  if (drawing) {
    next_display_ = now + display;
    publishLog();
    if (++ticks_ % kReportTicks == 0) report();
  }
  const auto until_display = duration_cast<microseconds>(next_display_ - steady_clock::now());
  const auto wait = std::max(microseconds(0), until_display);
  return server_.subscribed(torque_channel_) ? std::min(wait, kTorqueLook) : wait;
}

void LiveView::takeMail() {
  const auto& channels = mailChannels();
  for (std::size_t c = 0; c < channels.size(); ++c) {
    const MailChannel& m = channels[c];
    const bool wanted = server_.subscribed(kFirstMail + c);
    if (!wanted && (m.boxes & kPictureBoxes) == 0) continue;
    for (int b = 0; b < kBoxCount; ++b) {
      if ((m.boxes & bit(static_cast<Box>(b))) == 0) continue;
      tap_.drain(static_cast<Box>(b), [&](const std::byte* data, std::uint32_t size, std::uint64_t period) {
        if (!envelope_.ParseFromArray(data, static_cast<int>(size))) {
          ++unparsed_;
          return;
        }
        if (envelope_.body_case() != m.body) return;
        builder_.take(envelope_);
        if (!wanted) return;
        bodyOf(envelope_).SerializeToString(&bytes_);
        server_.publish(kFirstMail + c, stampOf(period, s_.dt_s), bytes_);
      });
    }
  }
}

void LiveView::publishPicture(const ArmPicture& p) {
  ++pictures_;
  stamp_ns_ = stampOf(p.period, s_.dt_s);
  server_.publishTime(stamp_ns_);
  // Made whether or not anyone looks: the channels are latched for the next viewer.
  frameTransforms(s_.model, s_.scene, p, stamp_ns_, frames_);
  server_.publish(kFrames, stamp_ns_, frames_.SerializeAsString());
  sceneUpdate(s_.model, s_.scene, p, stamp_ns_, scene_);
  server_.publish(kScene, stamp_ns_, scene_.SerializeAsString());
}

void LiveView::publishLog() {
  for (const std::string& text : log_tail_.lines()) {
    parseLogLine(text, line_);
    line_.mutable_timestamp()->set_seconds(static_cast<std::int64_t>(stamp_ns_ / 1'000'000'000u));
    line_.mutable_timestamp()->set_nanos(static_cast<std::int32_t>(stamp_ns_ % 1'000'000'000u));
    server_.publish(kLog, stamp_ns_, line_.SerializeAsString());
  }
}

// What a viewer lost, and what the view lost of the mail, when either changed: bounded logging.
void LiveView::report() {
  const ServerCounts c = server_.counts();
  const std::uint64_t lost = tap_.lost();
  if (c.dropped == reported_dropped_ && lost == reported_lost_) return;
  log_->info(
      "{} viewers; {} messages sent, {} dropped for slow viewers; mail passed over: {} lost, {} damaged, {} "
      "unreadable",
      c.viewers, c.sent, c.dropped, lost, tap_.damaged(), unparsed_);
  reported_dropped_ = c.dropped;
  reported_lost_ = lost;
}

}  // namespace rfms::view
