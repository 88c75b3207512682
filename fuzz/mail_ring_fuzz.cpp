// A mailbox ring in shared memory, as another process could leave it: any bytes in its header and
// slots. A reader, in order and for the newest, must take only what a sequence lock and a length
// vouch for, pass the rest over (counted), parse what it takes as a mailbox, and never crash, loop
// or read outside the ring. The bytes are laid over a ring of the S_MAIL box's shape; a short
// input repeats, so that every slot is someone's.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "runtime/mail_box.hpp"
#include "runtime/mail_ring.hpp"
#include "runtime/mail_slot.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rfms;
  if (size == 0) return 0;
  constexpr int kDepth = 16;
  const std::uint32_t capacity = capacityOf(Box::kSMail);
  const std::size_t bytes = ringBytes(kDepth, capacity);
  const std::unique_ptr<std::byte, decltype(&std::free)> ring(static_cast<std::byte*>(std::aligned_alloc(64, bytes)),
                                                              &std::free);
  initRing(ring.get(), kDepth, capacity);
  // The readers attach to the empty ring (cursor 0), then the input takes its place, shape and all.
  RingReader in_order(ring.get(), kDepth, capacity), newest(ring.get(), kDepth, capacity);
  for (std::size_t at = 0; at < bytes; at += size) std::memcpy(ring.get() + at, data, std::min(size, bytes - at));
  static MailSlot slot;
  static std::byte buffer[kMaxMailBytes];
  for (int round = 0; round < 2 * kDepth; ++round) {
    if (const auto m = in_order.next(buffer)) slot.parse(buffer, m->size);
    if (const auto m = newest.latest(buffer)) slot.parse(buffer, m->size);
  }
  return 0;
}
