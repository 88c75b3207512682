// The newest value of something one thread writes and another reads, without either waiting:
// three copies, one being written, one being read and one in between. publish() swaps the written
// copy into the middle; latest() takes the middle one when it is newer than what the reader holds.
// The reader may miss values in between (it only ever wants the newest); it never sees one half
// written. Neither side allocates or locks.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

namespace rfms {

template <typename T>
class TripleBuffer {
 public:
  // Writer: the copy to fill, then publish() it.
  T& back() { return copies_[back_]; }
  void publish() {
    const std::uint8_t old = middle_.exchange(static_cast<std::uint8_t>(back_ | kFresh), std::memory_order_acq_rel);
    back_ = old & kIndex;
  }

  // Reader: the newest value published (a default T before the first).
  const T& latest() {
    if ((middle_.load(std::memory_order_relaxed) & kFresh) != 0) {
      const std::uint8_t old = middle_.exchange(front_, std::memory_order_acq_rel);
      front_ = old & kIndex;
    }
    return copies_[front_];
  }

 private:
  static constexpr std::uint8_t kIndex = 3, kFresh = 4;
  std::array<T, 3> copies_{};
  std::uint8_t back_ = 0, front_ = 1;
  std::atomic<std::uint8_t> middle_{2};
};

}  // namespace rfms
