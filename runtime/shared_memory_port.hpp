// The mailboxes of a node whose neighbours share its host: rings in the run's segment
// (runtime/mail_segment.hpp) and a doorbell per reader. A write is a copy into the box's ring and,
// for each reader that waits for it, one atomic operation, plus a futex wake when that completes
// its wait; a wait is one futex sleep. Boxes exchanged with nodes on other hosts still go over
// ZeroMQ: sent from the period's thread, and received by a relay thread of this port's that
// puts them into rings of this process's own and rings this node's doorbell, so that the period's
// thread waits on the one doorbell whatever the mail's origin.
#pragma once

#include <spdlog/spdlog.h>

#include <array>
#include <atomic>
#include <optional>
#include <string>
#include <thread>

#include "runtime/mail_port.hpp"
#include "runtime/mail_segment.hpp"
#include "runtime/private_rings.hpp"
#include "runtime/zmq_links.hpp"

namespace rfms {

class SharedMemoryPort final : public MailPort {
 public:
  // `local`: the boxes node `me` reads or writes with neighbours on its host; `remote_reads` and
  // `remote_writes`: those it exchanges with other hosts.
  SharedMemoryPort(const ClusterSettings& s, proto::Node me, const std::string& run_dir, BoxSet local,
                   BoxSet remote_reads, BoxSet remote_writes, Transport& transport, spdlog::logger& log);
  ~SharedMemoryPort() override;

  std::size_t publish(Box b, const proto::Envelope& mail, std::uint64_t period) override;
  void deliverBeforeClosing() override;
  bool wait(BoxSet all, BoxSet any, Clock::time_point deadline) override;
  void passUntil(Clock::time_point deadline) override;
  std::string refusal() override;
  std::string describe() const override;
  // The turns wait() has taken so far (a look at the boxes and at most one sleep each): with a
  // doorbell others scribble on, it is what shows that a wait stays bounded.
  std::uint64_t waitTurns() const { return wait_turns_; }
  // This node's doorbell word, for tests that scribble on it.
  std::atomic<std::uint32_t>& doorbellWord() { return doorbell_; }

 private:
  std::uint64_t linkMalformed() const override { return relay_malformed_.load(std::memory_order_relaxed); }
  static bool satisfied(BoxSet all, BoxSet any, BoxSet unread);
  std::uint32_t doorbellWord(BoxSet all, BoxSet any) const;
  void relay();

  // Whom a box's write may wake: a reader's doorbell and the box's bit in it.
  struct Wake {
    std::atomic<std::uint32_t>* word = nullptr;
    unsigned bit = 0;
  };

  Transport& transport_;
  MailSegment segment_;
  std::atomic<std::uint32_t>& doorbell_;  // this node's
  BoxSet local_writes_ = 0, remote_writes_ = 0;
  std::array<RingWriter, kBoxCount> writers_{};
  std::array<std::array<Wake, kClusterNodes.size()>, kBoxCount> wakes_{};
  std::array<int, kBoxCount> wake_count_{};
  std::optional<PrivateRings> remote_;  // mail from other hosts
  std::optional<ZmqLinks> links_;
  std::array<std::byte, kMaxMailBytes> out_{};
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> relay_malformed_{0};
  std::uint64_t wait_turns_ = 0;
  std::thread relay_;
};

}  // namespace rfms
