// The mailbox ring (runtime/mail_ring.hpp): every mail in order or the newest, what a slow reader
// loses, and what a reader does with memory that no writer would leave — counted and dropped,
// never taken, never a loop.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "runtime/mail_ring.hpp"

namespace rfms {
namespace {

constexpr int kDepth = 8;
constexpr std::uint32_t kCapacity = 256;

struct Ring {
  std::unique_ptr<std::byte, decltype(&std::free)> memory{
      static_cast<std::byte*>(std::aligned_alloc(64, ringBytes(kDepth, kCapacity))), &std::free};
  Ring() { initRing(memory.get(), kDepth, kCapacity); }
  RingWriter writer() { return RingWriter(memory.get(), kDepth, kCapacity); }
  RingReader reader() const { return RingReader(memory.get(), kDepth, kCapacity); }
  RingHeader& header() { return *reinterpret_cast<RingHeader*>(memory.get()); }
  SlotHeader& slot(int i) {
    return *reinterpret_cast<SlotHeader*>(memory.get() + sizeof(RingHeader) +
                                          static_cast<std::size_t>(i) * (sizeof(SlotHeader) + kCapacity));
  }
};

bool write(RingWriter& w, const std::string& text, std::uint64_t period) {
  return w.write(text.data(), static_cast<std::uint32_t>(text.size()), period, 0);
}

std::string text(const std::byte* buffer, const ReadMail& m) {
  return std::string(reinterpret_cast<const char*>(buffer), m.size);
}

TEST(MailRing, AReaderTakesEveryMailInOrderOrOnlyTheNewest) {
  Ring ring;
  RingWriter w = ring.writer();
  RingReader in_order = ring.reader(), newest = ring.reader();
  std::byte buffer[kCapacity];
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(write(w, "mail " + std::to_string(i), static_cast<std::uint64_t>(i)));
  for (int i = 0; i < 5; ++i) {
    const auto m = in_order.next(buffer);
    ASSERT_TRUE(m);
    EXPECT_EQ(text(buffer, *m), "mail " + std::to_string(i));
    EXPECT_EQ(m->period, static_cast<std::uint64_t>(i));
  }
  EXPECT_FALSE(in_order.next(buffer));
  const auto m = newest.latest(buffer);
  ASSERT_TRUE(m);
  EXPECT_EQ(text(buffer, *m), "mail 4");
  EXPECT_FALSE(newest.latest(buffer));
  EXPECT_EQ(in_order.lost() + newest.lost(), 0u);  // passing mail over is not losing it
}

TEST(MailRing, AReaderSeesOnlyWhatIsWrittenAfterItAttaches) {
  Ring ring;
  RingWriter w = ring.writer();
  write(w, "before", 0);
  RingReader r = ring.reader();
  std::byte buffer[kCapacity];
  EXPECT_FALSE(r.unread());
  write(w, "after", 1);
  EXPECT_TRUE(r.unread());
  const auto m = r.next(buffer);
  ASSERT_TRUE(m);
  EXPECT_EQ(text(buffer, *m), "after");
}

TEST(MailRing, AReaderThatFallsBehindLosesTheOldestAndCountsThem) {
  Ring ring;
  RingWriter w = ring.writer();
  RingReader r = ring.reader();
  for (int i = 0; i < kDepth + 3; ++i) write(w, std::to_string(i), 0);
  std::byte buffer[kCapacity];
  const auto m = r.next(buffer);
  ASSERT_TRUE(m);
  EXPECT_EQ(text(buffer, *m), "3");
  EXPECT_EQ(r.lost(), 3u);
}

TEST(MailRing, AMailLargerThanTheRingHoldsIsNotWritten) {
  Ring ring;
  RingWriter w = ring.writer();
  RingReader r = ring.reader();
  EXPECT_FALSE(write(w, std::string(kCapacity + 1, 'x'), 0));
  EXPECT_FALSE(r.unread());
  EXPECT_TRUE(write(w, std::string(kCapacity, 'x'), 0));
}

// Memory another process scribbled on: a length beyond the slot, a sequence no writer leaves, a
// head far beyond anything written. Each is counted and passed over; the mail after it is read.
TEST(MailRing, ALengthOrSequenceNoWriterLeavesIsCountedAndDropped) {
  Ring ring;
  RingWriter w = ring.writer();
  RingReader r = ring.reader();
  std::byte buffer[kCapacity];
  write(w, "a", 0);
  write(w, "b", 1);
  ring.slot(0).length.store(kCapacity + 100);
  ring.slot(1).sequence.store(1);  // "mail 0 being written" where mail 1 was
  write(w, "c", 2);
  const auto m = r.next(buffer);
  ASSERT_TRUE(m);
  EXPECT_EQ(text(buffer, *m), "c");
  EXPECT_EQ(r.corrupt(), 2u);
}

// The head set far beyond anything written (issue 54: 2^62 starved every S_MAIL reader for good):
// no slot vouches for it, so it is passed over, once counted, and the writer's next mail puts
// the head right and is read.
TEST(MailRing, AHeadNoSlotVouchesForIsPassedOverUntilTheWriterPutsItRight) {
  Ring ring;
  RingWriter w = ring.writer();
  RingReader in_order = ring.reader(), newest = ring.reader();
  std::byte buffer[kCapacity];
  write(w, "a", 0);
  ring.header().head.store(std::uint64_t{1} << 62);
  EXPECT_FALSE(in_order.unread());
  EXPECT_FALSE(in_order.next(buffer));
  EXPECT_FALSE(in_order.next(buffer));
  EXPECT_FALSE(newest.latest(buffer));
  EXPECT_EQ(in_order.badHeads(), 1u);  // once per value, however often it is looked at
  write(w, "b", 1);
  for (RingReader* r : {&in_order, &newest}) {
    const auto m = r == &in_order ? r->next(buffer) : r->latest(buffer);
    ASSERT_TRUE(m);
    EXPECT_EQ(text(buffer, *m), r == &in_order ? "a" : "b");
  }
  EXPECT_EQ(text(buffer, *in_order.next(buffer)), "b");
  EXPECT_EQ(in_order.lost(), 0u);
}

// A head set below what the reader has read is a scribble while the reader's own place still
// holds; a reader whose place came from a scribble goes back to the writer's head once the slot
// it names holds other mail.
TEST(MailRing, AHeadBelowTheReaderIsWaitedOutAndAReaderAheadOfTheWriterComesBack) {
  Ring ring;
  RingWriter w = ring.writer();
  RingReader r = ring.reader();
  std::byte buffer[kCapacity];
  for (int i = 0; i < 3; ++i) write(w, std::to_string(i), static_cast<std::uint64_t>(i));
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(r.next(buffer));
  ring.header().head.store(1);
  EXPECT_FALSE(r.next(buffer));
  write(w, "3", 3);
  EXPECT_EQ(text(buffer, *r.next(buffer)), "3");

  // A liar that wrote a head and a matching mark: the reader follows it to 100 and reads nothing.
  RingReader fooled = ring.reader();
  ring.slot(99 % kDepth).sequence.store(200);
  ring.header().head.store(100);
  EXPECT_FALSE(fooled.next(buffer));  // the mark vouches, the mail fails its check: nothing taken
  for (int i = 4; i < 4 + kDepth; ++i) write(w, std::to_string(i), static_cast<std::uint64_t>(i));
  // The writer's mail has covered the liar's slot: the reader is back with the writer.
  EXPECT_FALSE(fooled.next(buffer));
  write(w, "after", 99);
  const auto m = fooled.next(buffer);
  ASSERT_TRUE(m);
  EXPECT_EQ(text(buffer, *m), "after");
}

// Any byte of a slot changed after the writer wrote it: the check fails, the mail is dropped and
// counted, the next one is read.
TEST(MailRing, AMailChangedByAStrayWriteFailsItsCheckAndIsDropped) {
  for (std::size_t offset :
       {std::size_t{8}, std::size_t{16}, std::size_t{24}, sizeof(SlotHeader), sizeof(SlotHeader) + 3}) {
    Ring ring;
    RingWriter w = ring.writer();
    RingReader r = ring.reader();
    std::byte buffer[kCapacity];
    write(w, "a mail of some length", 7);
    write(w, "next", 8);
    reinterpret_cast<unsigned char*>(&ring.slot(0))[offset] ^= 0x10;
    const auto m = r.next(buffer);
    ASSERT_TRUE(m) << offset;
    EXPECT_EQ(text(buffer, *m), "next") << offset;
    EXPECT_EQ(r.corrupt(), 1u) << offset;
  }
}

// Issue 58: a reader exactly a ring behind while the writer is writing the mail a lap on lost
// only the mail under the writer; the seven after it were whole and are read, in order.
TEST(MailRing, AReaderARingBehindLosesOnlyTheMailUnderTheWriter) {
  Ring ring;
  RingWriter w = ring.writer();
  RingReader r = ring.reader();
  for (int i = 0; i < kDepth; ++i) write(w, std::to_string(i), static_cast<std::uint64_t>(i));
  ring.slot(0).sequence.store(2 * kDepth + 1);  // mail 8 half written over mail 0, the head still 8
  std::byte buffer[kCapacity];
  for (int i = 1; i < kDepth; ++i) {
    const auto m = r.next(buffer);
    ASSERT_TRUE(m) << i;
    EXPECT_EQ(text(buffer, *m), std::to_string(i));
  }
  EXPECT_FALSE(r.next(buffer));
  EXPECT_EQ(r.lost(), 1u);
  EXPECT_EQ(r.torn(), 0u);
}

// A writer that takes over a ring whose head was scribbled on goes on after the newest mail in
// its slots, and its readers read what it writes.
TEST(MailRing, AWriterTakingOverAScribbledRingGoesOnAfterItsNewestMail) {
  Ring ring;
  {
    RingWriter first = ring.writer();
    for (int i = 0; i < 5; ++i) write(first, std::to_string(i), static_cast<std::uint64_t>(i));
  }
  RingReader r = ring.reader();
  ring.header().head.store(~std::uint64_t{0});
  RingWriter second = ring.writer();
  write(second, "5", 5);
  std::byte buffer[kCapacity];
  const auto m = r.next(buffer);
  ASSERT_TRUE(m);
  EXPECT_EQ(text(buffer, *m), "5");
}

// A writer killed mid-write leaves its slot marked odd; the next run's writer (or this one, on)
// writes past it, and readers read what it writes.
TEST(MailRing, ASlotLeftHalfWrittenIsWrittenOverByTheNextWriter) {
  Ring ring;
  RingReader r = ring.reader();
  ring.slot(0).sequence.store(1);  // mail 0 half written, head still 0
  RingWriter w = ring.writer();
  write(w, "whole", 0);
  std::byte buffer[kCapacity];
  const auto m = r.next(buffer);
  ASSERT_TRUE(m);
  EXPECT_EQ(text(buffer, *m), "whole");
}

// A writer as fast as it goes and readers of both kinds beside it: every mail a reader takes is
// whole (each carries its own check), whatever is lost to the writer's lapping.
TEST(MailRing, AReaderNeverTakesAMailThatWasRewrittenUnderIt) {
  Ring ring;
  // The readers exist before the writer starts: on a busy machine the writer may be done before
  // either reader's thread runs, and a reader made then would find nothing it had not missed.
  RingReader in_order_reader = ring.reader(), newest_reader = ring.reader();
  std::atomic<bool> done{false};
  constexpr int kMails = 200000;
  std::thread writer([&] {
    RingWriter w = ring.writer();
    std::array<std::uint64_t, kCapacity / 8> words{};
    for (int i = 1; i <= kMails; ++i) {
      const std::uint32_t n = 1 + static_cast<std::uint32_t>(i % (kCapacity / 8));
      for (std::uint32_t j = 0; j < n; ++j) words[j] = static_cast<std::uint64_t>(i) * 1000003u + j;
      w.write(words.data(), n * 8, static_cast<std::uint64_t>(i), i);
    }
    done = true;
  });
  auto check = [&](bool newest) {
    RingReader& r = newest ? newest_reader : in_order_reader;
    alignas(8) std::byte buffer[kCapacity];
    std::uint64_t taken = 0, bad = 0;
    while (!done.load() || r.unread()) {
      const auto m = newest ? r.latest(buffer) : r.next(buffer);
      if (!m) continue;
      ++taken;
      std::vector<std::uint64_t> words(m->size / 8);
      std::memcpy(words.data(), buffer, m->size);
      const std::uint64_t i = m->period;
      if (m->size != 8 * (1 + i % (kCapacity / 8)) || static_cast<std::uint64_t>(m->stamp_ns) != i) ++bad;
      for (std::size_t j = 0; j < words.size(); ++j)
        if (words[j] != i * 1000003u + j) ++bad;
    }
    EXPECT_EQ(bad, 0u);
    EXPECT_GT(taken, 0u);
    EXPECT_EQ(r.corrupt(), 0u);
  };
  std::thread in_order([&] { check(false); }), newest([&] { check(true); });
  writer.join();
  in_order.join();
  newest.join();
}

}  // namespace
}  // namespace rfms
