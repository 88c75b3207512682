#include "replay/log_view.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>

#include "common/error.hpp"
#include "common/mail_names.hpp"
#include "common/refusal.hpp"
#include "display/scene_messages.hpp"
#include "view/channels.hpp"

namespace rfms {

namespace {

constexpr std::chrono::milliseconds kSubscriptionGrace{500};

std::uint64_t periodOf(const proto::LogEvent& e) { return e.period(); }
std::uint64_t periodOf(const proto::LogRequest& r) { return r.period(); }
template <class Mail>
std::uint64_t periodOf(const Mail& m) {
  return m.header().period();
}

// Which kind of envelope a logged mail came in, for its mailbox channel.
constexpr proto::Envelope::BodyCase bodyCaseOf(const proto::SMail*) { return proto::Envelope::kSmail; }
constexpr proto::Envelope::BodyCase bodyCaseOf(const proto::JMail*) { return proto::Envelope::kJmail; }
constexpr proto::Envelope::BodyCase bodyCaseOf(const proto::MMail*) { return proto::Envelope::kMmail; }
constexpr proto::Envelope::BodyCase bodyCaseOf(const proto::Parcel*) { return proto::Envelope::kParcel; }
constexpr proto::Envelope::BodyCase bodyCaseOf(const proto::ArmSensors*) { return proto::Envelope::kSensors; }
constexpr proto::Envelope::BodyCase bodyCaseOf(const proto::TorqueCommand*) { return proto::Envelope::kTorque; }
constexpr proto::Envelope::BodyCase bodyCaseOf(const proto::AppliedTorques*) { return proto::Envelope::kApplied; }

}  // namespace

// The words the supervisor's own log uses for the same event (supervisor/shell/background_loop.cpp),
// so that the page and a reader of the log see a replay as they saw the run.
foxglove::Log eventLine(const proto::LogEvent& e) {
  foxglove::Log line;
  line.set_name("supervisor");
  line.set_level(foxglove::Log::INFO);
  const std::string at = "period " + std::to_string(e.period()) + ": ";
  const std::string move = at + "move #" + std::to_string(e.move_id());
  switch (e.kind()) {
    case proto::LogEvent::MOVE_STARTED: line.set_message(move + " started"); break;
    case proto::LogEvent::MOVE_COMPLETED: line.set_message(move + " completed"); break;
    case proto::LogEvent::MOVE_ABORTED:
      line.set_level(foxglove::Log::WARNING);
      line.set_message(move + " aborted");
      break;
    case proto::LogEvent::STATE_CHANGED: line.set_message(at + "state " + stateName(e.state())); break;
    case proto::LogEvent::EMERGENCY:
      line.set_level(foxglove::Log::ERROR);
      line.set_message(at + "EMGCY: " + describe(e.reason()) + " (" + nodeName(e.node()) + ")");
      break;
    case proto::LogEvent::MAIL_DAMAGED:
      line.set_level(foxglove::Log::WARNING);
      line.set_message(at + "mail damaged in " + e.box() + " (written by " + nodeName(e.node()) +
                       "): " + std::to_string(e.damaged()) + " dropped so far");
      break;
    default: line.set_message(at + "event " + std::to_string(e.kind())); break;
  }
  return line;
}

LogPlayer::LogPlayer(const RunLog& log, const LoggedArm& arm, view::FoxgloveServer& server, LogViewOptions options,
                     std::shared_ptr<spdlog::logger> out)
    : log_(log),
      server_(server),
      options_(options),
      out_(std::move(out)),
      display_(withTool(arm.model, arm.scene.tool), arm.scene, log.dtMs() * 1e-3, server),
      builder_(arm.scene) {
  first_ = log.firstPeriod();
  last_ = std::max(first_, log.periods());
  // The first subscription to anything starts the play: a viewer sees the run from its start.
  server_.onSubscribed([this](std::size_t) {
    if (started_) return;
    started_ = true;
    // A viewer subscribes channel by channel, a message each: the play waits for the rest.
    start_ = std::chrono::steady_clock::now() + kSubscriptionGrace;
    out_->info("playing periods {} .. {} at {}x", first_, last_, options_.speed);
  });
}

template <class Mail>
void LogPlayer::play(const std::vector<Mail>& mail, std::size_t& next, std::uint64_t period) {
  for (; next < mail.size() && periodOf(mail[next]) <= period; ++next) {
    const Mail& m = mail[next];
    if constexpr (std::is_same_v<Mail, proto::JMail> || std::is_same_v<Mail, proto::SMail> ||
                  std::is_same_v<Mail, proto::ArmSensors>)
      builder_.take(m);
    if constexpr (std::is_same_v<Mail, proto::LogEvent>) {
      world_.take(m);
      foxglove::Log line = eventLine(m);
      display_.log(line, display::stampOf(m.period(), display_.dt_s()));
    } else if constexpr (std::is_same_v<Mail, proto::LogRequest>) {
      world_.take(m);
      if (!m.reply().accepted())
        display_.log(foxglove::Log::WARNING, "supervisor", "request refused: " + refusalText(m.reply()),
                     display::stampOf(m.period(), display_.dt_s()));
    } else {
      const std::size_t channel = view::mailChannelOf(bodyCaseOf(static_cast<const Mail*>(nullptr)));
      if (!server_.subscribed(channel)) continue;
      m.SerializeToString(&bytes_);
      server_.publish(channel, display::stampOf(periodOf(m), display_.dt_s()), bytes_);
    }
  }
}

void LogPlayer::playTo(std::uint64_t period) {
  play(log_.smail, smail_, period);
  play(log_.jmail, jmail_, period);
  play(log_.sensors, sensors_, period);
  play(log_.mmail, mmail_, period);
  play(log_.parcel, parcel_, period);
  play(log_.torque, torque_, period);
  play(log_.applied, applied_, period);
  // A move's request before its start, which may come in the same period.
  play(log_.requests, requests_, period);
  play(log_.events, events_, period);
  if (const auto p = builder_.newest()) display_.show(*p, {}, &world_.at(p->period, display_.dt_s()));
}

std::chrono::microseconds LogPlayer::tick() {
  using namespace std::chrono;
  const microseconds display(1'000'000 / options_.rate_hz);
  if (!started_ || finished_) return display;
  if (steady_clock::now() < start_) return display;
  const double played_s = duration<double>(steady_clock::now() - start_).count() * options_.speed;
  const auto period = first_ + static_cast<std::uint64_t>(std::floor(played_s / display_.dt_s()));
  playTo(std::min(period, last_));
  if (period >= last_) {
    finished_ = true;
    out_->info("played to the end: {} pictures of the arm", display_.pictures());
    if (options_.exit_at_end) server_.stop();
  }
  return display;
}

int viewLog(const std::string& path, const std::string& address, const std::string& port_file, LogViewOptions options,
            std::shared_ptr<spdlog::logger> out) {
  const RunLog log = readRunLog(path);
  if (!log.error.empty()) out->warn("{}: {}; showing what comes before", path, log.error);
  const LoggedArm arm = loggedArm(log);
  view::ServerOptions at = view::serverAt(address);
  at.name = "rfms-replay view";
  view::FoxgloveServer server(at, view::viewChannels(), out);
  LogPlayer player(log, arm, server, options, out);
  if (!port_file.empty() && !(std::ofstream(port_file) << server.port() << "\n"))
    throw ConfigError("--port-file " + port_file + ": cannot write it");
  out->info(
      "ready: ws://{}:{} (foxglove.websocket.v1) and the page at http://{}:{}/; the log plays when a viewer "
      "subscribes",
      at.address, server.port(), at.address, server.port());
  server.run([&] { return player.tick(); });
  return player.finished() || !options.exit_at_end ? 0 : 1;
}

}  // namespace rfms
