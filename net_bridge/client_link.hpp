// The client side of RoboNet's logical link control (A.5 Appendix A.4.2, the VAX side): one frame
// in flight at a time (one-bit sliding window), sent again on each timeout until its ACK arrives or
// the retry limit is reached. Pure: time is passed in, datagrams are handed out and in, so the same
// code runs over UDP (LinkClient) and over a simulated network in tests.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "proto/link.pb.h"

namespace rfms {

struct LinkOptions {
  double timeout_s = 0.02;  // wait this long for an ACK before sending again
  int max_tries = 100;      // sends of one frame before the link gives up
};

class ClientLink {
 public:
  ClientLink(std::uint64_t session, const LinkOptions& options) : session_(session), options_(options) {}

  // Starts sending a frame (SYNC, REG or SENDREQ); the link must not be busy.
  void begin(proto::FrameType type, std::string payload);
  // The datagram to send now, if one is due: at once after begin(), then after each timeout.
  bool due(double now, std::string& datagram);
  // The time of the next retransmission (when busy).
  double nextSend() const { return next_send_; }

  enum class Event { kNone, kAcked, kResync, kBadChecksum, kMalformed, kStale };
  // A datagram from the bridge. kAcked: the frame in flight is acknowledged (answer() holds what
  // the ACK carried). kResync: the bridge does not know this session; SYNC, then begin() the
  // same frame again (pending() gives it back).
  Event receive(std::string_view datagram);

  bool busy() const { return busy_; }
  bool failed() const { return busy_ && tries_ >= options_.max_tries && waited_out_; }
  const std::string& answer() const { return answer_; }
  proto::FrameType pendingType() const { return type_; }
  const std::string& pendingPayload() const { return payload_; }
  void abandon() { busy_ = false; }
  std::uint64_t session() const { return session_; }
  std::uint64_t retransmissions() const { return retransmissions_; }

 private:
  std::uint64_t session_;
  LinkOptions options_;
  std::uint64_t count_ = 0;  // frames begun in this session; seq is its low bit
  bool busy_ = false, waited_out_ = false;
  proto::FrameType type_ = proto::FT_NONE;
  std::string payload_, datagram_, answer_;
  int tries_ = 0;
  double next_send_ = 0.0;
  bool first_ = true;
  std::uint64_t retransmissions_ = 0;
  proto::LinkFrame frame_;
};

}  // namespace rfms
