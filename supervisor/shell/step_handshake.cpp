#include "supervisor/shell/step_handshake.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "common/error.hpp"
#include "runtime/doorbell.hpp"

namespace rfms {

StepHandshake::StepHandshake(bool in_step) : in_step_(in_step), wake_fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  if (wake_fd_ < 0) throw SystemError(std::string("supervisor background: eventfd: ") + std::strerror(errno));
}

StepHandshake::~StepHandshake() { ::close(wake_fd_); }

void StepHandshake::restart(std::uint64_t first) {
  steps_.store(first, std::memory_order_relaxed);
  prepared_.store(first, std::memory_order_relaxed);
  room_asked_.store(false, std::memory_order_relaxed);
  interrupted_.store(false, std::memory_order_release);
}

bool StepHandshake::prepared(std::uint64_t k) {
  if (!in_step_) return true;
  for (;;) {
    const std::uint64_t seen = to_period_.load(std::memory_order_acquire);  // before looking
    if (room_asked_.load(std::memory_order_acquire)) return false;
    if (prepared_.load(std::memory_order_acquire) > k) return true;
    to_period_.wait(seen, std::memory_order_acquire);
  }
}

void StepHandshake::roomMade() {
  room_asked_.store(false, std::memory_order_release);
  wakeBackground();
}

void StepHandshake::stepped(std::uint64_t k) noexcept {
  steps_.store(k + 1, std::memory_order_release);
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = ::write(wake_fd_, &one, sizeof one);
}

void StepHandshake::preparedUpTo(std::uint64_t next) {
  prepared_.store(next, std::memory_order_release);
  wakePeriod();
}

bool StepHandshake::askForRoom(Clock::time_point deadline) {
  room_asked_.store(true, std::memory_order_release);
  wakePeriod();
  for (;;) {
    const std::uint32_t seen = to_background_.load(std::memory_order_acquire);  // before looking
    if (!room_asked_.load(std::memory_order_acquire)) return true;
    if (interrupted_.load(std::memory_order_acquire) || Clock::now() >= deadline) return false;
    doorbell::sleep(to_background_, seen, deadline);
  }
}

void StepHandshake::drainWake() {
  std::uint64_t count = 0;
  [[maybe_unused]] const ssize_t n = ::read(wake_fd_, &count, sizeof count);
}

void StepHandshake::interrupt() {
  interrupted_.store(true, std::memory_order_release);
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_fd_, &one, sizeof one);
  wakeBackground();
}

void StepHandshake::wakePeriod() {
  to_period_.fetch_add(1, std::memory_order_acq_rel);
  to_period_.notify_one();
}

void StepHandshake::wakeBackground() {
  to_background_.fetch_add(1, std::memory_order_acq_rel);
  doorbell::wakeAll(to_background_);
}

}  // namespace rfms
