#include "view/live_view.hpp"

#include <filesystem>
#include <limits>

#include "display/scene_messages.hpp"
#include "view/channels.hpp"

namespace rfms::view {

namespace {

// The mail the picture is made of, taken whether or not a viewer wants the mailboxes.
constexpr BoxSet kPictureBoxes = bit(Box::kSMail) | bit(Box::kSensors) | kAllJMail;

// A torque ring holds 8 periods (runtime/mail_box.hpp): looked at every 4 ms, none is lost at 1 kHz.
constexpr std::chrono::microseconds kTorqueLook{4000};
constexpr std::uint64_t kReportDisplays = 600;  // counts logged at most every 10 s at 60 Hz

Box boxOf(const MailSignal& s) {
  switch (s.box) {
    case Mailbox::kSMail: return Box::kSMail;
    case Mailbox::kMMail: return Box::kMMail;
    case Mailbox::kParcel: return Box::kParcel;
    case Mailbox::kSensors: return Box::kSensors;
    case Mailbox::kJMail: return jmailBox(s.joint);
    case Mailbox::kTorque: return torqueBox(s.joint);
  }
  return Box::kSMail;
}

// What the desk plots until a page asks for other signals: each joint's servo error.
std::vector<MailSignal> defaultSignals() {
  std::vector<MailSignal> s;
  for (int j = 1; j <= kJoints; ++j) s.push_back(parseMailSignal("jmail." + std::to_string(j) + ".servo_error"));
  return s;
}

const google::protobuf::Message& bodyOf(const proto::Envelope& e) {
  const auto* field = proto::Envelope::descriptor()->FindFieldByNumber(e.body_case());
  return e.GetReflection()->GetMessage(e, field);
}

}  // namespace

LiveView::LiveView(LiveViewSettings s, FoxgloveServer& server, std::shared_ptr<spdlog::logger> log)
    : rate_hz_(s.rate_hz),
      segment_path_(s.segment_path),
      run_dir_(s.run_dir),
      run_ended_after_(s.run_ended_after),
      server_(server),
      log_(std::move(log)),
      display_(s.model, s.scene, s.dt_s, server),
      tap_(s.segment_path),
      builder_(s.scene),
      log_tail_(s.supervisor_log) {
  torque_channel_ = mailChannelOf(proto::Envelope::kTorque);
  watch(defaultSignals());
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
    if (last_smail_ == steady_clock::time_point{}) last_smail_ = now;
    takeMail();
    if (now - last_smail_ > run_ended_after_ && !ended_) {
      log_->info("no S_MAIL for {} ms: the run has ended; stopping", run_ended_after_.count());
      ended_ = true;
    }
    if (drawing)
      if (const auto p = builder_.newest()) {
        const std::optional<display::WorldPicture> world =
            status_ != nullptr ? status_->newest() : std::optional<display::WorldPicture>();
        display_.show(*p, readSignals(), world ? &*world : nullptr);
      }
  }
  if (drawing) {
    next_display_ = now + microseconds(1'000'000 / rate_hz_);
    if (!run_dir_.empty() && !std::filesystem::exists(run_dir_) && !ended_) {
      log_->info("the run directory {} is gone; stopping", run_dir_);
      ended_ = true;
    }
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
  using namespace std::chrono;
  const auto& channels = mailChannels();
  for (std::size_t c = 0; c < channels.size(); ++c) {
    const MailChannel& m = channels[c];
    const bool wanted = server_.subscribed(kFirstMail + c);
    if (!wanted && (m.boxes & (kPictureBoxes | signal_boxes_)) == 0) continue;
    for (int b = 0; b < kBoxCount; ++b) {
      if ((m.boxes & bit(static_cast<Box>(b))) == 0) continue;
      const bool signal = (signal_boxes_ & bit(static_cast<Box>(b))) != 0;
      tap_.drain(static_cast<Box>(b), [&](const std::byte* data, std::uint32_t size, std::uint64_t period) {
        if (signal) newest_[static_cast<std::size_t>(b)].assign(reinterpret_cast<const char*>(data), size);
        if (!envelope_.ParseFromArray(data, static_cast<int>(size))) {
          ++unparsed_;
          return;
        }
        if (envelope_.body_case() != m.body) return;
        if (m.body == proto::Envelope::kSmail) last_smail_ = steady_clock::now();
        builder_.take(envelope_);
        if (!wanted) return;
        bodyOf(envelope_).SerializeToString(&bytes_);
        server_.publish(kFirstMail + c, display::stampOf(period, display_.dt_s()), bytes_);
      });
    }
  }
}

void LiveView::watch(std::vector<MailSignal> signals) {
  signals_ = std::move(signals);
  signal_boxes_ = 0;
  for (const MailSignal& s : signals_) signal_boxes_ |= bit(boxOf(s));
}

// Each signal from the newest mail of its box (NaN before any, or from a hello).
std::vector<std::pair<std::string, double>> LiveView::readSignals() {
  std::vector<std::pair<std::string, double>> values;
  for (const MailSignal& s : signals_) {
    const std::string& bytes = newest_[static_cast<std::size_t>(boxOf(s))];
    double v = std::numeric_limits<double>::quiet_NaN();
    if (!bytes.empty() && envelope_.ParseFromString(bytes) && envelope_.body_case() != proto::Envelope::BODY_NOT_SET) {
      const google::protobuf::Message& body = bodyOf(envelope_);
      if (body.GetDescriptor() == mailboxType(s.box)) v = readSignal(body, s);
    }
    values.emplace_back(s.name, v);
  }
  return values;
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
