// debug() for programs: named signals of the controller's mailboxes, sampled while the arm moves
// and handed to a callback. The watcher opens a link session of its own (an RfmsClient is not
// shared between threads), asks for the watch, and from a thread of its own drains the samples
// with status requests every `poll_s`, calling back once per sample in order. A watch that asks
// for more than the link carries loses samples at the controller, counted (dropped()), never the
// controller's period.
//
//   rfms::SignalWatcher w(options, {"jmail.3.angle", "smail.t6.m[3]"}, 50.0,
//                         [](const rfms::WatchedSample& s) { std::printf("%g %g\n", s.time_s, s.values[0]); });
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client/rfms_client.hpp"

namespace rfms {

struct WatchedSample {
  std::uint64_t period = 0;
  double time_s = 0.0;         // period times the sample period: the controller's clock
  std::vector<double> values;  // one per signal, in the order asked; NaN where a mail was missing
};

class SignalWatcher {
 public:
  using Callback = std::function<void(const WatchedSample&)>;

  // Throws RequestRefused (an unknown signal, a rate out of range, too many watchers) or
  // LinkError before any thread starts.
  SignalWatcher(const ClientOptions& options, const std::vector<std::string>& signals, double rate_hz,
                Callback on_sample, double poll_s = 0.02);
  // Stops the thread and ends the watch.
  ~SignalWatcher();
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

  const std::vector<std::string>& signals() const { return signals_; }
  double rateHz() const { return rate_hz_.load(); }  // as the controller takes it (a whole number of periods)
  std::uint64_t received() const { return received_.load(); }
  std::uint64_t dropped() const { return dropped_.load(); }
  // Why the thread stopped early (the link gave up), or "".
  std::string error() const;

 private:
  void run(double poll_s);

  RfmsClient client_;
  std::vector<std::string> signals_;
  Callback on_sample_;
  std::atomic<bool> stop_{false};
  std::atomic<double> rate_hz_{0.0};
  std::atomic<std::uint64_t> received_{0}, dropped_{0};
  mutable std::mutex error_mutex_;
  std::string error_;
  std::thread thread_;
};

}  // namespace rfms
