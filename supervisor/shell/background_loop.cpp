#include "supervisor/shell/background_loop.hpp"

#include <array>
#include <chrono>
#include <cmath>
#include <string>
#include <zmq.hpp>

#include "common/thread_role.hpp"
#include "runtime/node_shell.hpp"

namespace rfms {

namespace {
using Clock = std::chrono::steady_clock;
constexpr auto kRoomTimeout = std::chrono::seconds(2);  // how long a request waits for the period to take others
}  // namespace

BackgroundLoop::BackgroundLoop(const ClusterSettings& s, SupervisorBackground& background, LogTap& tap,
                               spdlog::logger& log)
    : s_(s), background_(background), tap_(tap), log_(log), handshake_(waitsForMail(s.config.clock())), events_(log) {}

BackgroundLoop::~BackgroundLoop() {
  end();
  if (thread_.joinable()) {
    quit_.store(true, std::memory_order_release);
    runs_.fetch_add(1, std::memory_order_acq_rel);
    runs_.notify_one();
    thread_.join();
  }
}

void BackgroundLoop::begin(RemotePort* remote, TaskScript* script, std::uint64_t first) {
  remote_ = remote;
  script_ = script;
  script_done_.store(false, std::memory_order_relaxed);
  handshake_.restart(first);
  now_k_ = first;
  when_full_before_ = background_.whenFull([this] { waitForRoom(); });
  idle_.store(false, std::memory_order_relaxed);
  active_.store(true, std::memory_order_release);
  if (!thread_.joinable()) {
    thread_ = std::thread([this] { run(); });
  } else {
    runs_.fetch_add(1, std::memory_order_acq_rel);
    runs_.notify_one();
  }
}

void BackgroundLoop::end() {
  if (!active_.load(std::memory_order_acquire)) return;
  active_.store(false, std::memory_order_release);
  handshake_.interrupt();  // out of its poll, or of waiting for room
  idle_.wait(false, std::memory_order_acquire);
  background_.whenFull(std::move(when_full_before_));
}

void BackgroundLoop::setIdle(bool idle) {
  idle_.store(idle, std::memory_order_release);
  idle_.notify_all();
}

void BackgroundLoop::stepped(std::uint64_t k, const SupervisorOutbox& out, std::int64_t tick_ns) noexcept {
  tick_ns_.store(tick_ns, std::memory_order_relaxed);
  events_.take(out);
  handshake_.stepped(k);
}

void BackgroundLoop::waitForRoom() {
  // In step, the period waits for this preparation: it takes the commands when asked.
  if (handshake_.inStep()) {
    handshake_.askForRoom(Clock::now() + kRoomTimeout);
    return;
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
    const std::uint64_t seen = runs_.load(std::memory_order_acquire);
    if (quit_.load(std::memory_order_acquire)) return;
    if (!active_.load(std::memory_order_acquire)) {
      runs_.wait(seen, std::memory_order_acquire);
      continue;
    }
    try {
      serveUntilEnded();
    } catch (const std::exception& e) {
      log_.error("the supervisor's background failed: {}; ending the run", e.what());
      failed_.store(true, std::memory_order_release);
      handshake_.preparedAll();
      while (active_.load(std::memory_order_acquire)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    events_.follow(script_, remote_, event_file_);
    setIdle(true);
  }
}

void BackgroundLoop::serveUntilEnded() {
  std::array<zmq::pollitem_t, 2> items{};
  items[0] = {nullptr, handshake_.wakeFd(), ZMQ_POLLIN, 0};
  std::size_t n_items = 1;
  if (remote_ != nullptr) items[n_items++] = {remote_->socket().handle(), 0, ZMQ_POLLIN, 0};
  while (active_.load(std::memory_order_acquire)) {
    events_.follow(script_, remote_, event_file_);
    const std::uint64_t steps = handshake_.stepsDone();
    if (now_k_ <= steps) {  // a period has ended: prepare the next step
      now_k_ = steps;
      prepare(now_k_);
      handshake_.preparedUpTo(++now_k_);
    } else if (remote_ != nullptr && !handshake_.inStep() && !stopping()) {
      const NextStep next = nextStep(steps);
      remote_->serve(next.k, background_, next.ns);  // realtime: requests as they come
    }
    zmq::poll(items.data(), n_items, std::chrono::milliseconds(100));
    if ((items[0].revents & ZMQ_POLLIN) != 0) handshake_.drainWake();
  }
}

BackgroundLoop::NextStep BackgroundLoop::nextStep(std::uint64_t steps) const {
  const std::int64_t tick = tick_ns_.load(std::memory_order_relaxed);
  if (handshake_.inStep() || tick == 0 || steps == 0) return {steps, 0};
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

void BackgroundLoop::send(const proto::TaskRequest& request) {
  const proto::TaskReply reply = background_.handle(request);
  background_.commit(tap_.record(request, reply, false, background_.world()));
}

void BackgroundLoop::handleStop() {
  const bool asked = stopRequested();
  if (!asked && !stop_.stopping()) return;  // the view is read only when it matters
  const std::optional<proto::ControlCommand> command =
      stop_.next(asked, background_.view().state, StopSequence::Clock::now());
  if (!command) return;
  if (*command == proto::CC_STOP) {
    stopping_.store(true, std::memory_order_release);
    log_.info("stop requested: bringing the arm to rest");
  }
  proto::TaskRequest request;
  request.mutable_control()->set_command(*command);
  send(request);
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
