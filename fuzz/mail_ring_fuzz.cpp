// A mailbox ring in shared memory, as another process could leave it: any bytes in its header and
// slots. A reader, in order and for the newest, must take only what a sequence lock, a length and
// a check vouch for, pass the rest over (counted), parse what it takes as a mailbox, and never
// crash, loop or read outside the ring. Two phases per input:
//   1. its bytes laid over a ring of the S_MAIL box's shape (a short input repeats, so that every
//      slot is someone's), then read;
//   2. its bytes as a script that interleaves a true writer, a corrupting one and the readers:
//      each step writes a whole mail, scribbles a byte anywhere in the ring (head, marks, checks,
//      payload), or reads. Every mail a reader takes must then be one the true writer wrote, whole.
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

  // Phase 2: the script. A true mail is its period's eight bytes, repeated to a length of its own.
  initRing(ring.get(), kDepth, capacity);
  RingWriter writer(ring.get(), kDepth, capacity);
  RingReader next_reader(ring.get(), kDepth, capacity), latest_reader(ring.get(), kDepth, capacity);
  auto* bytes_of_ring = reinterpret_cast<std::uint8_t*>(ring.get());
  std::uint64_t period = 0;
  auto whole = [&](const ReadMail& m) {
    if (m.period == 0 || m.period > period || m.size != 8 * (1 + m.period % 16)) return false;
    for (std::uint32_t at = 0; at < m.size; at += 8) {
      std::uint64_t w;
      std::memcpy(&w, buffer + at, 8);
      if (w != m.period) return false;
    }
    return true;
  };
  for (std::size_t i = 0; i + 2 < size; i += 3) {
    const std::uint8_t op = data[i] % 4;
    const std::size_t where = (static_cast<std::size_t>(data[i + 1]) << 8 | data[i + 2]) * 131 % bytes;
    if (op == 0) {
      ++period;
      std::uint64_t words[16];
      for (std::uint64_t& w : words) w = period;
      writer.write(words, static_cast<std::uint32_t>(8 * (1 + period % 16)), period, 0);
    } else if (op == 1) {
      bytes_of_ring[where] ^= static_cast<std::uint8_t>(data[i + 2] | 1);
    } else {
      RingReader& r = op == 2 ? next_reader : latest_reader;
      const auto m = op == 2 ? r.next(buffer) : r.latest(buffer);
      // A scribble that passes the CRC-32C is one in 2^32: a finding here is worth a look.
      if (m && !whole(*m)) __builtin_trap();
    }
  }
  return 0;
}
