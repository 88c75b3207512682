#include "client/signal_watcher.hpp"

#include <chrono>

namespace rfms {

SignalWatcher::SignalWatcher(const ClientOptions& options, const std::vector<std::string>& signals, double rate_hz,
                             Callback on_sample, double poll_s)
    : client_(options), signals_(signals), on_sample_(std::move(on_sample)) {
  client_.watch(signals, rate_hz);
  thread_ = std::thread([this, poll_s] { run(poll_s); });
}

SignalWatcher::~SignalWatcher() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  try {
    client_.watch({}, 0.0);  // the slot is the controller's to give to another client
  } catch (const std::exception&) {
    // The controller ends a watch nobody drains by itself (ArmStatus.watched).
  }
}

std::string SignalWatcher::error() const {
  std::lock_guard<std::mutex> lock(error_mutex_);
  return error_;
}

void SignalWatcher::run(double poll_s) {
  using Clock = std::chrono::steady_clock;
  const auto period = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(poll_s));
  WatchedSample sample;
  for (auto next = Clock::now(); !stop_; next += period) {
    try {
      const ArmStatus s = client_.status();
      if (s.watched.empty()) {  // ended by the controller (it went unasked too long): ask again
        client_.watch(signals_, rate_hz_ > 0.0 ? rate_hz_.load() : 1.0);
        continue;
      }
      rate_hz_ = s.watch_rate_hz;
      dropped_ = s.samples_dropped;
      for (const SignalSample& x : s.samples) {
        sample.period = x.period;
        sample.time_s = static_cast<double>(x.period) * s.dt_ms * 1e-3;
        sample.values = x.values;
        ++received_;
        on_sample_(sample);
      }
      // A full answer (ArmStatus: at most 4096 values) leaves more waiting: ask again at once.
      constexpr std::size_t kAnswerValues = 4096;
      if ((s.samples.size() + 1) * signals_.size() > kAnswerValues)
        next = Clock::now();
      else
        std::this_thread::sleep_until(next);
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(error_mutex_);
      error_ = e.what();
      return;
    }
  }
}

}  // namespace rfms
