// The ZeroMQ side of a node's mailboxes: the sockets that carry the boxes it exchanges with nodes
// on other hosts (or every box, when the cluster runs on ZeroMQ alone). Each mail is one message
// of two frames, its box's topic byte (runtime/mail_box.hpp) and the serialised envelope. The boxes
// the supervisor and the arm write go out on a PUB socket each binds; those the joints and the
// math server write are PUSHed to a PULL socket of their one reader's. Nothing here parses mail:
// it hands the bytes on, or drops (and counts) what no box of this node's could hold.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>
#include <zmq.hpp>

#include "runtime/cluster_config.hpp"
#include "runtime/mail_box.hpp"

namespace rfms {

class Transport;

class ZmqLinks {
 public:
  // `reads`: the boxes node `me` receives over ZeroMQ; `writes`: those it sends.
  ZmqLinks(const ClusterSettings& s, proto::Node me, BoxSet reads, BoxSet writes, Transport& transport);

  // Sends one mail of box `b` (one of `writes`). Never blocks: a peer that does not keep up loses
  // mail at ZeroMQ's high-water mark, as its ring would.
  void send(Box b, const void* data, std::size_t size);

  // A node with a backlog has the last mail queued behind the rest: closing with a linger of 0
  // would drop it, and leave that node to its orphan timeout. Up to 2 s to deliver it (a dead
  // peer's queue is dropped at once, so only a living one waits).
  void deliverBeforeClosing();

  // Hands every message waiting on the inbound sockets to `take(Box, const void*, std::size_t)`.
  // At most a ring's worth from each socket a call, so that a peer that sends without pause
  // cannot hold the caller here: what is left waits on the socket for the next call.
  template <class Take>
  void drain(Take&& take) {
    constexpr int kMostPerSocket = 1024;
    for (zmq::socket_t* s : inbound_)
      for (int n = 0; n < kMostPerSocket && receiveOne(*s); ++n)
        if (box_) take(*box_, body_.data(), body_.size());
  }

  // The inbound sockets, and the one that carries box `b` (nullptr when none does).
  std::span<zmq::socket_t* const> inbound() const { return inbound_; }
  zmq::socket_t* socketOf(Box b);
  std::uint64_t malformed() const { return malformed_; }

 private:
  // One message off `s` into body_ and box_ (unset when it was malformed); false when none waits.
  bool receiveOne(zmq::socket_t& s);

  proto::Node me_;
  BoxSet reads_;
  std::optional<zmq::socket_t> pub_, pull_, supervisor_sub_, arm_sub_, to_supervisor_, to_arm_;
  std::vector<zmq::socket_t*> inbound_;
  zmq::message_t topic_, body_;
  std::optional<Box> box_;
  std::uint64_t malformed_ = 0;
};

}  // namespace rfms
