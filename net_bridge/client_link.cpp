#include "net_bridge/client_link.hpp"

#include "net_bridge/link_frame.hpp"

namespace rfms {

void ClientLink::begin(proto::FrameType type, std::string payload) {
  type_ = type;
  payload_ = std::move(payload);
  ++count_;
  proto::LinkFrame f;
  f.set_type(type);
  f.set_seq(static_cast<std::uint32_t>(count_ & 1u));
  f.set_count(count_);
  f.set_session(session_);
  f.set_payload(payload_);
  datagram_ = encodeDatagram(f);
  busy_ = true;
  waited_out_ = false;
  first_ = true;
  tries_ = 0;
}

bool ClientLink::due(double now, std::string& datagram) {
  if (!busy_) return false;
  if (!first_ && now < next_send_) return false;
  if (tries_ >= options_.max_tries) {
    waited_out_ = true;
    return false;
  }
  if (!first_) ++retransmissions_;
  first_ = false;
  ++tries_;
  next_send_ = now + options_.timeout_s;
  datagram = datagram_;
  return true;
}

ClientLink::Event ClientLink::receive(std::string_view datagram) {
  switch (decodeDatagram(datagram, frame_)) {
    case Datagram::kBadChecksum: return Event::kBadChecksum;
    case Datagram::kMalformed: return Event::kMalformed;
    case Datagram::kOk: break;
  }
  // Only an ACK of the frame in flight counts; ACKs of earlier frames (late duplicates) do not.
  if (!busy_ || frame_.type() != proto::FT_ACK || frame_.session() != session_ || frame_.count() != count_)
    return Event::kStale;
  if (frame_.resync()) return Event::kResync;
  busy_ = false;
  answer_ = frame_.payload();
  return Event::kAcked;
}

}  // namespace rfms
