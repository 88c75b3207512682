// rfms-replay view: a run log played through rfms-view's server and display (view/), so that
// Foxglove and the view's page show a finished run as they show a live one: the arm's frames and
// scene once a display period, the events and refused requests as log lines, and every mail to a
// viewer that subscribed to its mailbox. The log plays from its start half a second after the
// first viewer subscribes (its other subscriptions come meanwhile), at `speed` times the run's own
// pace, and its last picture stays on show.
#pragma once

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "display/arm_picture.hpp"
#include "display/world_picture.hpp"
#include "replay/run_log_reader.hpp"
#include "view/arm_display.hpp"
#include "view/foxglove_server.hpp"

namespace rfms {

struct LogViewOptions {
  double speed = 1.0;        // 0.1 .. 100
  int rate_hz = 60;          // display messages a second, at most
  bool exit_at_end = false;  // stop serving once the log has played
};

// A log event as a line of the view's log: its level and text.
foxglove::Log eventLine(const proto::LogEvent& e);

class LogPlayer {
 public:
  // `log` and `arm` must outlive the player.
  LogPlayer(const RunLog& log, const LoggedArm& arm, view::FoxgloveServer& server, LogViewOptions options,
            std::shared_ptr<spdlog::logger> out);
  // Plays what is due; returns when to look again.
  std::chrono::microseconds tick();
  bool finished() const { return finished_; }
  std::uint64_t pictures() const { return display_.pictures(); }

 private:
  void playTo(std::uint64_t period);
  template <class Mail>
  void play(const std::vector<Mail>& mail, std::size_t& next, std::uint64_t period);

  const RunLog& log_;
  view::FoxgloveServer& server_;
  LogViewOptions options_;
  std::shared_ptr<spdlog::logger> out_;
  view::ArmDisplay display_;
  display::PictureBuilder builder_;
  display::WorldTrack world_;  // the world model's frames and the target, from the requests and events
  std::uint64_t first_ = 0, last_ = 0;
  bool started_ = false, finished_ = false;
  std::chrono::steady_clock::time_point start_{};
  std::size_t smail_ = 0, jmail_ = 0, mmail_ = 0, parcel_ = 0, sensors_ = 0, torque_ = 0, applied_ = 0;
  std::size_t events_ = 0, requests_ = 0;
  std::string bytes_;
};

// Serves `path` on `address` (ADDRESS:PORT; port 0 takes a free one, written to `port_file` when
// one is named) until SIGINT or SIGTERM, or its end with exit_at_end; ConfigError for a log that
// cannot be shown.
int viewLog(const std::string& path, const std::string& address, const std::string& port_file, LogViewOptions options,
            std::shared_ptr<spdlog::logger> out);

}  // namespace rfms
