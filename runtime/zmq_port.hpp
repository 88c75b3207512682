// The mailboxes of a node with no neighbour on its host (or of every node, when the cluster file
// says `mail_transport: MT_ZEROMQ`): ZeroMQ sockets (runtime/zmq_links.hpp), read by the period's
// thread itself. What has arrived is taken into rings of this process's own before each read, so
// that the node reads the same rings, in the same order, as over shared memory. (It is taken in by
// wait and passUntil, not by each read: a period reads nine boxes or more, and each look at an
// empty socket is a system call.) A wait polls the
// sockets of the boxes it waits for, and of those it must have all of, only the first still
// missing (runtime/mail_box.hpp's order is a period's): the mail that comes before it is read when
// it does, without a wake of its own.
#pragma once

#include <optional>
#include <string>

#include "runtime/mail_port.hpp"
#include "runtime/private_rings.hpp"
#include "runtime/zmq_links.hpp"

namespace rfms {

class ZmqPort final : public MailPort {
 public:
  ZmqPort(const ClusterSettings& s, proto::Node me, BoxSet reads, BoxSet writes, Transport& transport);

  std::size_t publish(Box b, const proto::Envelope& mail, std::uint64_t period) override;
  void deliverBeforeClosing() override;
  bool wait(BoxSet all, BoxSet any, Clock::time_point deadline) override;
  void passUntil(Clock::time_point deadline) override;
  std::string refusal() override;
  std::string describe() const override { return "ZeroMQ"; }

 private:
  void refill();  // what has arrived on the sockets, into the rings
  std::uint64_t linkMalformed() const override { return links_.malformed(); }

  Transport& transport_;
  PrivateRings rings_;
  ZmqLinks links_;
  std::array<std::byte, kMaxMailBytes> out_{};
};

}  // namespace rfms
