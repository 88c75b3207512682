// What rfms-view does while a cluster runs: take the mail that came from the run's segment, put the
// newest whole period's picture of the arm together and show it once a display period (at most
// 60 a second), pass the supervisor's log lines on, and hand every mail to a viewer that subscribed
// to its mailbox (view/channels.hpp).
//
// Passive: it reads the segment read-only and the log file, and sends no node anything.
#pragma once

#include <spdlog/spdlog.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/mail_signal.hpp"
#include "common/robot_model.hpp"
#include "common/scene.hpp"
#include "display/arm_picture.hpp"
#include "proto/cluster.pb.h"
#include "view/arm_display.hpp"
#include "view/foxglove_server.hpp"
#include "view/log_tail.hpp"
#include "view/mail_tap.hpp"
#include "view/status_poll.hpp"

namespace rfms::view {

struct LiveViewSettings {
  int rate_hz = 60;  // display messages a second, at most
  RobotModel model;  // with the scene's tool
  Scene scene;
  double dt_s = 1e-3;
  std::string segment_path;    // the run's mail (runtime/mail_segment.hpp)
  std::string supervisor_log;  // its lines become the Log channel
  // The run has ended when its directory is gone, or when its supervisor has sent no S_MAIL for
  // this long (the nodes' own orphan timeout): the view then has nothing more to show.
  std::string run_dir;
  std::chrono::milliseconds run_ended_after{10000};
};

class LiveView {
 public:
  LiveView(LiveViewSettings settings, FoxgloveServer& server, std::shared_ptr<spdlog::logger> log);
  // Takes the mail that came, and draws the arm when a display period has passed; returns when
  // to look again: a display period, or sooner while a viewer wants the torque mailboxes, whose
  // rings hold only a few periods of mail.
  std::chrono::microseconds tick();

  std::uint64_t pictures() const { return display_.pictures(); }
  bool ended() const { return ended_; }
  // The signals the desk plots, read at each picture from the newest mail of their boxes.
  void watch(std::vector<MailSignal> signals);
  // The supervisor's status, whose world model and running move go with each picture; it must
  // outlive the view.
  void follow(const StatusPoll& status) { status_ = &status; }

 private:
  void takeMail();
  std::vector<std::pair<std::string, double>> readSignals();
  void report();

  int rate_hz_;
  std::string segment_path_, run_dir_;
  std::chrono::milliseconds run_ended_after_;
  std::chrono::steady_clock::time_point last_smail_{};
  bool ended_ = false;
  FoxgloveServer& server_;
  std::shared_ptr<spdlog::logger> log_;
  ArmDisplay display_;
  MailTap tap_;
  display::PictureBuilder builder_;
  LogTail log_tail_;
  proto::Envelope envelope_;
  std::string bytes_;
  foxglove::Log line_;
  std::uint64_t unparsed_ = 0;
  bool said_waiting_ = false;
  std::uint64_t ticks_ = 0, reported_dropped_ = 0, reported_lost_ = 0;
  std::chrono::steady_clock::time_point next_display_{};
  std::size_t torque_channel_ = 0;
  std::vector<MailSignal> signals_;
  const StatusPoll* status_ = nullptr;
  BoxSet signal_boxes_ = 0;
  std::array<std::string, kBoxCount> newest_;  // the newest mail of each signal box, as it came
};

}  // namespace rfms::view
