// The moves waiting to run, in order, in a fixed ring. The trajectory generator runs from one and
// the background plans against a copy of it (TrajectoryTail): one type, so that the two cannot
// disagree on how a queue fills and empties. Real-time safe: no allocation.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace rfms {

struct MoveSpec {
  std::uint64_t id = 0;
  int position = -1;  // index in the world model
  int motion = -1;
};

class MoveQueue {
 public:
  static constexpr int kCapacity = 64;

  // At the end; false (and nothing changes) when full.
  bool push(const MoveSpec& move) {
    if (full()) return false;
    moves_[slot(count_)] = move;
    ++count_;
    return true;
  }
  // The first out into `out`; false when empty.
  bool pop(MoveSpec& out) {
    if (empty()) return false;
    out = moves_[slot(0)];
    head_ = (head_ + 1) % kCapacity;
    --count_;
    return true;
  }
  void clear() { head_ = count_ = 0; }
  // The n-th waiting, 0 the next to run (n < size()).
  const MoveSpec& at(int n) const { return moves_[slot(n)]; }
  const MoveSpec& front() const { return at(0); }
  int size() const { return count_; }
  bool empty() const { return count_ == 0; }
  bool full() const { return count_ == kCapacity; }

 private:
  std::size_t slot(int n) const { return static_cast<std::size_t>((head_ + n) % kCapacity); }

  std::array<MoveSpec, kCapacity> moves_{};
  int head_ = 0, count_ = 0;
};

}  // namespace rfms
