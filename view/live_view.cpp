#include "view/live_view.hpp"

#include "view/channels.hpp"
#include "view/scene_messages.hpp"

namespace rfms::view {

namespace {

// The mail the picture is made of, taken whether or not a viewer wants the mailboxes.
constexpr BoxSet kPictureBoxes = bit(Box::kSMail) | bit(Box::kSensors) | kAllJMail;

// A torque ring holds 8 periods (node/mail_box.hpp): looked at every 4 ms, none is lost at 1 kHz.
constexpr std::chrono::microseconds kTorqueLook{4000};
constexpr std::uint64_t kReportDisplays = 600;  // counts logged at most every 10 s at 60 Hz

const google::protobuf::Message& bodyOf(const proto::Envelope& e) {
  const auto* field = proto::Envelope::descriptor()->FindFieldByNumber(e.body_case());
  return e.GetReflection()->GetMessage(e, field);
}

}  // namespace

LiveView::LiveView(LiveViewSettings s, FoxgloveServer& server, std::shared_ptr<spdlog::logger> log)
    : rate_hz_(s.rate_hz),
      segment_path_(s.segment_path),
      server_(server),
      log_(std::move(log)),
      display_(s.model, s.scene, s.dt_s, server),
      tap_(s.segment_path),
      builder_(s.scene),
      log_tail_(s.supervisor_log) {
  torque_channel_ = mailChannelOf(proto::Envelope::kTorque);
  // A viewer's first subscription to a mailbox starts at the mail that comes next, not at the
  // second of mail its ring still holds.
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
  const auto now = steady_clock::now();
  const bool drawing = now >= next_display_;
  if (!tap_.attach()) {
    if (!said_waiting_) log_->info("waiting for the run's mail at {}", segment_path_);
    said_waiting_ = true;
  } else {
    takeMail();
    if (drawing)
      if (const auto p = builder_.newest()) display_.show(*p);
  }
  if (drawing) {
    next_display_ = now + microseconds(1'000'000 / rate_hz_);
    for (const std::string& text : log_tail_.lines()) {
      parseLogLine(text, line_);
      display_.log(line_);
    }
    if (++ticks_ % kReportDisplays == 0) report();
  }
  const auto wait = std::max(microseconds(0), duration_cast<microseconds>(next_display_ - steady_clock::now()));
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
        server_.publish(kFirstMail + c, stampOf(period, display_.dt_s()), bytes_);
      });
    }
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
