#include "node/transport.hpp"

#include <cerrno>
#include <vector>

namespace rfms {

namespace {
// Linger 0: a node that exits does not wait for peers that are gone.
zmq::socket_t open(zmq::context_t& context, zmq::socket_type type) {
  zmq::socket_t s(context, type);
  s.set(zmq::sockopt::linger, 0);
  return s;
}
}  // namespace

zmq::socket_t Transport::bindPublisher(const std::string& endpoint) {
  zmq::socket_t s = open(context_, zmq::socket_type::pub);
  s.bind(endpoint);
  return s;
}

zmq::socket_t Transport::bindPull(const std::string& endpoint) {
  zmq::socket_t s = open(context_, zmq::socket_type::pull);
  s.bind(endpoint);
  return s;
}

zmq::socket_t Transport::connectSubscriber(const std::string& endpoint, std::initializer_list<Topic> topics) {
  zmq::socket_t s = open(context_, zmq::socket_type::sub);
  for (Topic t : topics) s.set(zmq::sockopt::subscribe, std::string(1, static_cast<char>(t)));
  s.connect(endpoint);
  return s;
}

zmq::socket_t Transport::connectPush(const std::string& endpoint) {
  zmq::socket_t s = open(context_, zmq::socket_type::push);
  s.connect(endpoint);
  return s;
}

zmq::socket_t Transport::bindRouter(const std::string& endpoint) {
  zmq::socket_t s = open(context_, zmq::socket_type::router);
  s.bind(endpoint);
  return s;
}

zmq::socket_t Transport::connectDealer(const std::string& endpoint) {
  zmq::socket_t s = open(context_, zmq::socket_type::dealer);
  s.connect(endpoint);
  return s;
}

void send(zmq::socket_t& socket, Topic topic, const proto::Envelope& e, std::string& buffer) {
  e.SerializeToString(&buffer);
  const char t = static_cast<char>(topic);
  socket.send(zmq::const_buffer(&t, 1), zmq::send_flags::sndmore);
  socket.send(zmq::const_buffer(buffer.data(), buffer.size()), zmq::send_flags::none);
}

namespace {
// One mail off `socket` (a topic frame, then the body) into `parse`; false when none waits or it
// is malformed (counted, and its frames dropped).
template <class Parse>
bool receiveWith(zmq::socket_t& socket, int timeout_ms, long* malformed, Parse&& parse) {
  if (timeout_ms > 0 && pollAny({&socket}, timeout_ms) < 0) return false;
  zmq::message_t topic, body;
  try {
    if (!socket.recv(topic, zmq::recv_flags::dontwait)) return false;
  } catch (const zmq::error_t& error) {
    if (error.num() == EINTR) return false;
    throw;
  }
  if (!topic.more() || !socket.recv(body, zmq::recv_flags::none) || body.more() || !parse(body.data(), body.size())) {
    while (body.more() && socket.recv(body, zmq::recv_flags::dontwait)) {
    }  // drop the rest
    if (malformed != nullptr) ++*malformed;
    return false;
  }
  return true;
}
}  // namespace

bool receive(zmq::socket_t& socket, proto::Envelope& e, int timeout_ms, long* malformed) {
  return receiveWith(socket, timeout_ms, malformed, [&](const void* data, std::size_t size) {
    return e.ParseFromArray(data, static_cast<int>(size));
  });
}

bool receive(zmq::socket_t& socket, MailSlot& slot, int timeout_ms, long* malformed) {
  return receiveWith(socket, timeout_ms, malformed,
                     [&](const void* data, std::size_t size) { return slot.parse(data, size); });
}

int pollAny(std::initializer_list<zmq::socket_t*> sockets, int timeout_ms) {
  zmq::pollitem_t items[8];
  int n = 0;
  for (zmq::socket_t* s : sockets) items[n++] = {s->handle(), 0, ZMQ_POLLIN, 0};
  try {
    zmq::poll(items, static_cast<std::size_t>(n), std::chrono::milliseconds(timeout_ms));
  } catch (const zmq::error_t& error) {
    if (error.num() == EINTR) return -1;  // a stop signal: the caller's loop looks at the flag
    throw;
  }
  for (int i = 0; i < n; ++i)
    if (items[i].revents & ZMQ_POLLIN) return i;
  return -1;
}

}  // namespace rfms
