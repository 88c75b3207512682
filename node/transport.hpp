// The mailbox transport of the cluster: ZeroMQ sockets carrying one proto::Envelope per message,
// behind a one-character topic frame so that subscribers take only what they need
// ('S' S_MAIL, 'M' M_MAIL, 'A' arm sensors, 'T' the torques the arm applied (for the run log),
// 'C' control: hello, start, stop, refuse).
// "Would block" is an empty result (false); real failures are exceptions (cppzmq's).
#pragma once

#include <initializer_list>
#include <string>
#include <zmq.hpp>

#include "node/mail_slot.hpp"
#include "proto/cluster.pb.h"

namespace rfms {

enum Topic : char { kTopicSMail = 'S', kTopicMMail = 'M', kTopicArm = 'A', kTopicTorques = 'T', kTopicControl = 'C' };

class Transport {
 public:
  Transport() : context_(1) {}
  zmq::socket_t bindPublisher(const std::string& endpoint);
  zmq::socket_t bindPull(const std::string& endpoint);
  zmq::socket_t connectSubscriber(const std::string& endpoint, std::initializer_list<Topic> topics);
  zmq::socket_t connectPush(const std::string& endpoint);
  // Task requests and status between rfms-bridge (dealer) and the supervisor (router).
  zmq::socket_t bindRouter(const std::string& endpoint);
  zmq::socket_t connectDealer(const std::string& endpoint);

 private:
  zmq::context_t context_;
};

// Sends `e` with its topic; `buffer` is reused for the serialisation.
void send(zmq::socket_t& socket, Topic topic, const proto::Envelope& e, std::string& buffer);

// Waits up to `timeout_ms` (0: do not wait) for a message on `socket`; false when none came.
// A message that does not parse is dropped and counted in `malformed`.
bool receive(zmq::socket_t& socket, proto::Envelope& e, int timeout_ms, long* malformed = nullptr);

// The same into a slot (node/mail_slot.hpp): no allocation on this thread. ZeroMQ itself allocates
// a message larger than 33 bytes when it is sent; that allocation is libzmq's, not ours.
bool receive(zmq::socket_t& socket, MailSlot& slot, int timeout_ms = 0, long* malformed = nullptr);

// Which of the sockets has a message, waiting up to timeout_ms; -1 when none.
int pollAny(std::initializer_list<zmq::socket_t*> sockets, int timeout_ms);

}  // namespace rfms
