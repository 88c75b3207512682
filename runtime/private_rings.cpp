#include "runtime/private_rings.hpp"

#include <cstdlib>
#include <new>

namespace rfms {

void PrivateRings::Free::operator()(std::byte* p) const { std::free(p); }

PrivateRings::PrivateRings(BoxSet boxes) {
  std::size_t bytes = 0;
  for (int i = 0; i < kBoxCount; ++i) {
    const Box b = static_cast<Box>(i);
    if ((boxes & bit(b)) == 0) continue;
    offset_[static_cast<std::size_t>(i)] = bytes;
    bytes += ringBytes(depthOf(b), capacityOf(b));
  }
  // Rings are laid out on 64-byte lines, each a multiple of 64 bytes long.
  memory_.reset(static_cast<std::byte*>(std::aligned_alloc(64, bytes == 0 ? 64 : bytes)));
  if (!memory_) throw std::bad_alloc();
  for (int i = 0; i < kBoxCount; ++i) {
    const Box b = static_cast<Box>(i);
    if ((boxes & bit(b)) == 0) continue;
    std::byte* at = memory_.get() + offset_[static_cast<std::size_t>(i)];
    initRing(at, depthOf(b), capacityOf(b));
    writers_[static_cast<std::size_t>(i)] = RingWriter(at, depthOf(b), capacityOf(b));
  }
}

bool PrivateRings::write(Box b, const void* data, std::size_t size, std::int64_t stamp_ns) {
  return writers_[static_cast<std::size_t>(b)].write(data, static_cast<std::uint32_t>(size), 0, stamp_ns);
}

}  // namespace rfms
