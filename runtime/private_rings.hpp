// Mail rings in this process's own memory, for the mail that comes over ZeroMQ: whoever drains
// the sockets writes them (the period's thread, or the relay thread of a node that also has
// neighbours in shared memory), and the node reads them as it reads the segment's.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "runtime/mail_box.hpp"
#include "runtime/mail_ring.hpp"

namespace rfms {

class PrivateRings {
 public:
  explicit PrivateRings(BoxSet boxes);  // one ring for each box in `boxes`

  const void* ring(Box b) const { return memory_.get() + offset_[static_cast<std::size_t>(b)]; }
  // Writes one mail of `b` as it arrived at `stamp_ns`; false when it is larger than `b` holds.
  bool write(Box b, const void* data, std::size_t size, std::int64_t stamp_ns);

 private:
  struct Free {
    void operator()(std::byte* p) const;
  };
  std::unique_ptr<std::byte, Free> memory_;
  std::array<std::size_t, kBoxCount> offset_{};
  std::array<RingWriter, kBoxCount> writers_{};
};

}  // namespace rfms
