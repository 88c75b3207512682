// A single-producer, single-consumer queue of values in storage taken when it is built: one
// thread pushes, another pops, and neither allocates, locks or waits. A push into a full queue
// fails and the producer decides what to do; the consumer sees values in the order they were pushed.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rfms {

template <typename T>
class SpscQueue {
 public:
  explicit SpscQueue(std::size_t capacity) : slots_(capacity) {}

  // Producer. False when the queue is full.
  bool push(const T& value) {
    const std::uint64_t head = head_.load(std::memory_order_relaxed);
    if (head - tail_.load(std::memory_order_acquire) == slots_.size()) return false;
    slots_[head % slots_.size()] = value;
    head_.store(head + 1, std::memory_order_release);
    return true;
  }

  // Consumer. The oldest value, or null when the queue is empty; it stays valid, and in the
  // queue, until pop().
  const T* front() const {
    const std::uint64_t tail = tail_.load(std::memory_order_relaxed);
    if (tail == head_.load(std::memory_order_acquire)) return nullptr;
    return &slots_[tail % slots_.size()];
  }
  // The n-th oldest value (0: front()), or null when the queue holds no more than n.
  const T* peek(std::size_t n) const {
    const std::uint64_t at = tail_.load(std::memory_order_relaxed) + n;
    if (at >= head_.load(std::memory_order_acquire)) return nullptr;
    return &slots_[at % slots_.size()];
  }
  // The oldest value leaves (the queue must hold one); `n` of them, oldest first.
  void pop(std::size_t n = 1) { tail_.store(tail_.load(std::memory_order_relaxed) + n, std::memory_order_release); }

  std::size_t capacity() const { return slots_.size(); }
  // Values ever pushed and ever popped: either side may read both.
  std::uint64_t pushed() const { return head_.load(std::memory_order_acquire); }
  std::uint64_t popped() const { return tail_.load(std::memory_order_acquire); }

 private:
  std::vector<T> slots_;
  alignas(64) std::atomic<std::uint64_t> head_{0};
  alignas(64) std::atomic<std::uint64_t> tail_{0};
};

}  // namespace rfms
