#include "net_bridge/bridge_core.hpp"

#include "net_bridge/link_frame.hpp"

namespace rfms {

void BridgeCore::ack(const std::string& peer, const proto::LinkFrame& of, std::string payload, bool resync,
                     std::vector<Outgoing>& out, std::string* keep) {
  proto::LinkFrame a;
  a.set_type(proto::FT_ACK);
  a.set_seq(of.seq());
  a.set_count(of.count());
  a.set_session(of.session());
  a.set_payload(std::move(payload));
  a.set_resync(resync);
  std::string d = encodeDatagram(a);
  if (keep != nullptr) *keep = d;
  out.push_back({peer, std::move(d)});
  count(&proto::LinkCounters::frames_out, &proto::LinkCounters::set_frames_out);
}

bool BridgeCore::receive(const std::string& peer, std::string_view datagram, std::vector<Outgoing>& out,
                         std::int64_t arrived_ns) {
  using C = proto::LinkCounters;
  count(&C::frames_in, &C::set_frames_in);
  switch (decodeDatagram(datagram, frame_)) {
    case Datagram::kBadChecksum: count(&C::checksum_failures, &C::set_checksum_failures); return false;
    case Datagram::kMalformed: count(&C::malformed, &C::set_malformed); return false;
    case Datagram::kOk: break;
  }
  const std::uint64_t id = frame_.session();
  if (frame_.type() == proto::FT_ACK || frame_.count() == 0) {  // the bridge never waits for an ACK
    count(&C::malformed, &C::set_malformed);
    return false;
  }
  if (frame_.type() == proto::FT_SYNC) {
    Session& s = sessions_[id];
    s.peer = peer;
    if (frame_.count() > s.last_count) s.last_count = frame_.count();
    counters_.set_clients(sessions_.size());
    ack(peer, frame_, "", false, out);
    return true;
  }
  auto it = sessions_.find(id);
  if (it == sessions_.end()) {
    ack(peer, frame_, "", true, out);
    return true;
  }
  Session& s = it->second;
  s.peer = peer;
  if (frame_.count() <= s.last_count) {
    // A frame taken before: the client did not get its ACK, or the network delivered a copy late.
    // Never delivered twice.
    count(&C::retransmissions, &C::set_retransmissions);
    if (frame_.type() == proto::FT_REG) count(&C::duplicates, &C::set_duplicates);
    if (!s.pending && frame_.count() == s.last_ack_count) resendLast(s, peer, out);
    return true;
  }
  if (s.pending) {
    // A new frame while the previous answer is outstanding cannot come from a stop-and-wait
    // client; dropped, and the client will retry.
    count(&C::malformed, &C::set_malformed);
    return true;
  }
  proto::Envelope message;
  if (frame_.type() == proto::FT_SENDREQ) {
    message.mutable_status_request()->set_session(id);
  } else {
    proto::TaskRequest& request = *message.mutable_task_request();
    if (!request.ParseFromString(frame_.payload()) || request.session() != id || request.number() == 0) {
      // A frame that arrived intact but carries no valid request: answered, so the client learns why.
      proto::TaskReply refused;
      refused.set_id(request.id());
      refused.set_session(id);
      refused.set_number(request.number());
      refused.set_reason("malformed request: not a task request of this session with a request number");
      s.last_count = s.last_ack_count = frame_.count();
      count(&C::malformed, &C::set_malformed);
      ack(peer, frame_, refused.SerializeAsString(), false, out, &s.last_ack);
      return true;
    }
    request.set_arrived_ns(arrived_ns);
    s.pending_number = request.number();
  }
  if (queueDepth() >= capacity_) {
    count(&C::withheld, &C::set_withheld);
    return true;  // no ACK: the client retries
  }
  s.last_count = frame_.count();
  s.pending = true;
  s.pending_status = frame_.type() == proto::FT_SENDREQ;
  s.pending_count = frame_.count();
  waiting_.push_back(std::move(message));
  counters_.set_queue_depth(queueDepth());
  return true;
}

void BridgeCore::resendLast(const Session& s, const std::string& peer, std::vector<Outgoing>& out) {
  if (s.last_ack.empty()) return;
  out.push_back({peer, s.last_ack});
  count(&proto::LinkCounters::frames_out, &proto::LinkCounters::set_frames_out);
}

bool BridgeCore::nextForSupervisor(proto::Envelope& message) {
  if (waiting_.empty()) return false;
  message = std::move(waiting_.front());
  waiting_.pop_front();
  ++forwarded_;
  return true;
}

void BridgeCore::settle(Session& s, std::uint64_t session, std::string payload, std::vector<Outgoing>& out) {
  s.pending = false;
  if (forwarded_ > 0) --forwarded_;
  counters_.set_queue_depth(queueDepth());
  proto::LinkFrame of;
  of.set_session(session);
  of.set_count(s.pending_count);
  of.set_seq(static_cast<std::uint32_t>(s.pending_count & 1u));
  s.last_ack_count = s.pending_count;
  ack(s.peer, of, std::move(payload), false, out, &s.last_ack);
}

void BridgeCore::answer(const proto::TaskReply& reply, std::vector<Outgoing>& out) {
  auto it = sessions_.find(reply.session());
  if (it == sessions_.end() || !it->second.pending || it->second.pending_status ||
      it->second.pending_number != reply.number())
    return;
  settle(it->second, reply.session(), reply.SerializeAsString(), out);
}

void BridgeCore::answer(const proto::ArmStatus& status, std::vector<Outgoing>& out) {
  auto it = sessions_.find(status.session());
  if (it == sessions_.end() || !it->second.pending || !it->second.pending_status) return;
  proto::ArmStatus st = status;
  *st.mutable_link() = counters_;
  st.mutable_link()->set_queue_depth(queueDepth() - 1);  // this one is answered
  settle(it->second, status.session(), st.SerializeAsString(), out);
}

}  // namespace rfms
