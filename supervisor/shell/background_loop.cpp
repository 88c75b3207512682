#include "supervisor/shell/background_loop.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <zmq.hpp>

#include "common/error.hpp"
#include "common/mail_names.hpp"
#include "common/thread_role.hpp"
#include "runtime/node_shell.hpp"

namespace rfms {

namespace {
using Clock = std::chrono::steady_clock;
constexpr auto kStopTimeout = std::chrono::seconds(5);  // a stop that cannot finish must not hold the power on
constexpr auto kRoomTimeout = std::chrono::seconds(2);  // how long a request waits for the period to take others
}  // namespace

BackgroundLoop::BackgroundLoop(const ClusterSettings& s, Supervisor& supervisor, LogTap& tap, spdlog::logger& log)
    : s_(s),
      supervisor_(supervisor),
      background_(supervisor.background()),
      tap_(tap),
      log_(log),
      in_step_(waitsForMail(s.config.clock())),
      wake_fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  if (wake_fd_ < 0) throw SystemError(std::string("supervisor background: eventfd: ") + std::strerror(errno));
}

BackgroundLoop::~BackgroundLoop() {
  end();
  if (thread_.joinable()) {
    quit_.store(true, std::memory_order_release);
    to_background_.fetch_add(1, std::memory_order_acq_rel);
    to_background_.notify_one();
    thread_.join();
  }
  ::close(wake_fd_);
}

void BackgroundLoop::begin(RemotePort* remote, TaskScript* script, std::uint64_t first) {
  remote_ = remote;
  script_ = script;
  script_done_.store(false, std::memory_order_relaxed);
  steps_.store(first, std::memory_order_relaxed);
  prepared_.store(first, std::memory_order_relaxed);
  now_k_ = first;
  when_full_before_ = background_.whenFull([this] { waitForRoom(); });
  idle_.store(false, std::memory_order_relaxed);
  active_.store(true, std::memory_order_release);
  if (!thread_.joinable()) {
    thread_ = std::thread([this] { run(); });
  } else {
    to_background_.fetch_add(1, std::memory_order_acq_rel);
    to_background_.notify_one();
  }
}

void BackgroundLoop::end() {
  if (!active_.load(std::memory_order_acquire)) return;
  active_.store(false, std::memory_order_release);
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_fd_, &one, sizeof one);
  to_background_.fetch_add(1, std::memory_order_acq_rel);  // a background waiting for room gives up
  to_background_.notify_one();
  for (std::uint64_t seen = to_period_.load(std::memory_order_acquire); !idle_.load(std::memory_order_acquire);
       seen = to_period_.load(std::memory_order_acquire))
    to_period_.wait(seen, std::memory_order_acquire);
  background_.whenFull(std::move(when_full_before_));
}

void BackgroundLoop::wakePeriod() {
  to_period_.fetch_add(1, std::memory_order_acq_rel);
  to_period_.notify_one();
}

void BackgroundLoop::prepared(std::uint64_t k) {
  if (!in_step_) return;
  for (;;) {
    const std::uint64_t seen = to_period_.load(std::memory_order_acquire);
    if (room_asked_.load(std::memory_order_acquire)) {
      // Before step k, as the step itself would first: the records go under k.
      SupervisorCore& core = supervisor_.core();
      core.takeCommands();
      tap_.requests(k, core);
      core.releaseCommands();
      room_asked_.store(false, std::memory_order_release);
      to_background_.fetch_add(1, std::memory_order_acq_rel);
      to_background_.notify_one();
    }
    if (prepared_.load(std::memory_order_acquire) > k) return;
    to_period_.wait(seen, std::memory_order_acquire);
  }
}

void BackgroundLoop::stepped(std::uint64_t k, const SupervisorOutbox& out, std::int64_t tick_ns) noexcept {
  tick_ns_.store(tick_ns, std::memory_order_relaxed);
  for (int n = 0; n < out.event_count; ++n)
    if (!events_.push(out.events[static_cast<std::size_t>(n)])) events_lost_.fetch_add(1, std::memory_order_relaxed);
  steps_.store(k + 1, std::memory_order_release);
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = ::write(wake_fd_, &one, sizeof one);
}

void BackgroundLoop::waitForRoom() {
  if (in_step_) {
    // The period waits for this preparation: ask it to take the commands now. (A run that ends
    // meanwhile wakes this too: end() bumps to_background_.)
    room_asked_.store(true, std::memory_order_release);
    wakePeriod();
    const Clock::time_point until = Clock::now() + kRoomTimeout;
    for (;;) {
      const std::uint64_t seen = to_background_.load(std::memory_order_acquire);  // before looking
      if (!room_asked_.load(std::memory_order_acquire) || !active_.load(std::memory_order_acquire) ||
          Clock::now() >= until)
        return;
      to_background_.wait(seen, std::memory_order_acquire);
    }
  }
  // Realtime: every step takes them.
  const Clock::time_point until = Clock::now() + kRoomTimeout;
  while (background_.linkFull() && Clock::now() < until && active_.load(std::memory_order_acquire))
    std::this_thread::sleep_for(std::chrono::microseconds(200));
}

void BackgroundLoop::run() {
  // Below the period, at the default niceness: clients wait on what it answers.
  belowThePeriod("rfms-background", 0);
  for (;;) {
    const std::uint64_t seen = to_background_.load(std::memory_order_acquire);
    if (quit_.load(std::memory_order_acquire)) return;
    if (!active_.load(std::memory_order_acquire)) {
      to_background_.wait(seen, std::memory_order_acquire);
      continue;
    }
    try {
      serveUntilEnded();
    } catch (const std::exception& e) {
      log_.error("the supervisor's background failed: {}; ending the run", e.what());
      failed_.store(true, std::memory_order_release);
      prepared_.store(~std::uint64_t{0}, std::memory_order_release);
      wakePeriod();
      while (active_.load(std::memory_order_acquire)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    followEvents();
    idle_.store(true, std::memory_order_release);
    wakePeriod();
  }
}

void BackgroundLoop::serveUntilEnded() {
  std::array<zmq::pollitem_t, 2> items{};
  items[0] = {nullptr, wake_fd_, ZMQ_POLLIN, 0};
  std::size_t n_items = 1;
  if (remote_ != nullptr) items[n_items++] = {remote_->socket().handle(), 0, ZMQ_POLLIN, 0};
  while (active_.load(std::memory_order_acquire)) {
    followEvents();
    const std::uint64_t steps = steps_.load(std::memory_order_acquire);
    if (now_k_ <= steps) {  // a period has ended: prepare the next step
      now_k_ = steps;
      prepare(now_k_);
      ++now_k_;
      prepared_.store(now_k_, std::memory_order_release);
      wakePeriod();
    } else if (remote_ != nullptr && !in_step_ && !stopping()) {
      const NextStep next = nextStep(steps);
      remote_->serve(next.k, background_, next.ns);  // realtime: requests as they come
    }
    zmq::poll(items.data(), n_items, std::chrono::milliseconds(100));
    if ((items[0].revents & ZMQ_POLLIN) != 0) {
      std::uint64_t count = 0;
      [[maybe_unused]] const ssize_t n = ::read(wake_fd_, &count, sizeof count);
    }
  }
}

BackgroundLoop::NextStep BackgroundLoop::nextStep(std::uint64_t steps) const {
  const std::int64_t tick = tick_ns_.load(std::memory_order_relaxed);
  if (in_step_ || tick == 0 || steps == 0) return {steps, 0};
  const auto dt = static_cast<std::int64_t>(std::llround(sampleSeconds(s_.config.controller()) * 1e9));
  const std::int64_t now =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  // The last step done, steps - 1, ticked at `tick`; the first tick after now begins the next.
  const std::int64_t ahead = now > tick ? (now - tick) / dt + 1 : 1;
  return {steps - 1 + static_cast<std::uint64_t>(ahead), tick + dt * ahead};
}

void BackgroundLoop::prepare(std::uint64_t k) {
  watchLog();
  handleStop();
  if (stopping()) return;
  if (remote_ != nullptr) {
    const NextStep next = nextStep(k);
    remote_->serve(next.k, background_, next.ns);
  }
  if (script_ != nullptr && !script_done_.load(std::memory_order_relaxed)) {
    script_->beforeStep(k, background_);
    if (script_->done()) script_done_.store(true, std::memory_order_release);
  }
}

void BackgroundLoop::followEvents() {
  for (const SupervisorEvent* e = events_.front(); e != nullptr; e = events_.front()) {
    if (script_ != nullptr) script_->note(*e);
    if (remote_ != nullptr) remote_->note(*e);
    if (event_file_ != nullptr) event_file_->note(*e);
    switch (e->kind) {
      case SupervisorEvent::kStateChanged: log_.info("period {}: state {}", e->period, stateName(e->state)); break;
      case SupervisorEvent::kEmergency:
        log_.error("period {}: EMGCY: {}{}{} ({})", e->period, describe(e->reason), e->axis >= 0 ? ", along " : "",
                   forceAxisName(e->axis, e->axis_in_tool), nodeName(e->node));
        break;
      case SupervisorEvent::kMoveStarted: log_.info("period {}: move #{} started", e->period, e->move_id); break;
      case SupervisorEvent::kMoveCompleted: log_.info("period {}: move #{} completed", e->period, e->move_id); break;
      case SupervisorEvent::kMoveAborted: log_.warn("period {}: move #{} aborted", e->period, e->move_id); break;
    }
    events_.pop();
  }
  if (const std::uint64_t late = late_ticks_.exchange(0, std::memory_order_acquire); late > 0)
    log_.warn("period {}: {} tick(s) late; skipped", late_period_.load(std::memory_order_relaxed), late);
  if (const std::uint64_t lost = events_lost_.exchange(0); lost > 0)
    log_.error("{} events of the period were lost: the background fell behind", lost);
}

void BackgroundLoop::send(const proto::TaskRequest& request) {
  const proto::TaskReply reply = background_.handle(request);
  background_.commit(tap_.record(request, reply, false, background_.world()));
}

void BackgroundLoop::handleStop() {
  if (stopRequested() && !stopping()) {
    // Bring the arm to rest before leaving: stop the motion, then switch the power off.
    stopping_.store(true, std::memory_order_release);
    stop_deadline_ = Clock::now() + kStopTimeout;
    log_.info("stop requested: bringing the arm to rest");
    proto::TaskRequest stop;
    stop.mutable_control()->set_command(proto::CC_STOP);
    send(stop);
    return;
  }
  if (!stopping() || power_off_sent_) return;
  // At rest, or the time is up.
  const proto::RtState state = background_.view().state;
  if ((state != proto::RT_SETP && state != proto::RT_STOP) || Clock::now() > stop_deadline_) {
    proto::TaskRequest off;
    off.mutable_control()->set_command(proto::CC_POWER_OFF);
    send(off);
    power_off_sent_ = true;
  }
}

void BackgroundLoop::watchLog() {
  if (log_stopped_) return;
  const std::string why = tap_.stoppedWriting();
  if (why.empty()) return;
  log_stopped_ = true;
  const bool required = s_.config.controller().log().required();
  log_.error("period {}: the run log stopped writing ({}); {}", now_k_, why,
             required ? "the run requires a log (log.required): bringing the arm to rest, refusing moves"
                      : "the run goes on unlogged");
  background_.logStopped(why);
}

}  // namespace rfms
