#include "runtime/zmq_links.hpp"

#include <cerrno>
#include <chrono>
#include <string>
#include <thread>

#include "runtime/transport.hpp"

namespace rfms {

namespace {
constexpr BoxSet kFromSupervisor = bit(Box::kSMail) | bit(Box::kMMail) | bit(Box::kControl);
constexpr BoxSet kFromArm = bit(Box::kSensors) | bit(Box::kArmReport);
constexpr BoxSet kToSupervisor = kAllJMail | bit(Box::kParcel);
constexpr BoxSet kToArm = kAllTorques;

std::string topicsOf(BoxSet boxes) {
  std::string t;
  for (int i = 0; i < kBoxCount; ++i)
    if ((boxes & bit(static_cast<Box>(i))) != 0) t += topicOf(static_cast<Box>(i));
  return t;
}
}  // namespace

ZmqLinks::ZmqLinks(const ClusterSettings& s, proto::Node me, BoxSet reads, BoxSet writes, Transport& transport)
    : me_(me), reads_(reads) {
  const proto::ClusterConfig& c = s.config;
  if ((writes & (kFromSupervisor | kFromArm)) != 0)
    pub_ = transport.bindPublisher(me == proto::NODE_ARM ? c.arm_pub() : c.supervisor_pub());
  if ((reads & (kToSupervisor | kToArm)) != 0)
    pull_ = transport.bindPull(me == proto::NODE_ARM ? c.arm_pull() : c.supervisor_pull());
  if ((reads & kFromSupervisor) != 0)
    supervisor_sub_ = transport.connectSubscriber(c.supervisor_pub(), topicsOf(reads & kFromSupervisor));
  if ((reads & kFromArm) != 0) arm_sub_ = transport.connectSubscriber(c.arm_pub(), topicsOf(reads & kFromArm));
  if ((writes & kToSupervisor) != 0) to_supervisor_ = transport.connectPush(c.supervisor_pull());
  if ((writes & kToArm) != 0) to_arm_ = transport.connectPush(c.arm_pull());
  for (auto* socket : {&supervisor_sub_, &arm_sub_, &pull_})
    if (socket->has_value()) inbound_.push_back(&**socket);
}

void ZmqLinks::send(Box b, const void* data, std::size_t size) {
  zmq::socket_t* s = nullptr;
  if ((bit(b) & (kFromSupervisor | kFromArm)) != 0)
    s = pub_ ? &*pub_ : nullptr;
  else if ((bit(b) & kToSupervisor) != 0)
    s = to_supervisor_ ? &*to_supervisor_ : nullptr;
  else
    s = to_arm_ ? &*to_arm_ : nullptr;
  if (s == nullptr) return;
  const char topic = topicOf(b);
  // Both frames or neither: ZeroMQ queues a message's frames together.
  if (s->send(zmq::const_buffer(&topic, 1), zmq::send_flags::sndmore | zmq::send_flags::dontwait))
    s->send(zmq::const_buffer(data, size), zmq::send_flags::dontwait);
}

void ZmqLinks::deliverBeforeClosing() {
  for (auto* socket : {&pub_, &to_supervisor_, &to_arm_})
    if (socket->has_value()) (*socket)->set(zmq::sockopt::linger, 2000);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

zmq::socket_t* ZmqLinks::socketOf(Box b) {
  if ((bit(b) & reads_) == 0) return nullptr;
  if ((bit(b) & kFromSupervisor) != 0) return supervisor_sub_ ? &*supervisor_sub_ : nullptr;
  if ((bit(b) & kFromArm) != 0) return arm_sub_ ? &*arm_sub_ : nullptr;
  return pull_ ? &*pull_ : nullptr;
}

bool ZmqLinks::receiveOne(zmq::socket_t& s) {
  box_.reset();
  try {
    if (!s.recv(topic_, zmq::recv_flags::dontwait)) return false;
  } catch (const zmq::error_t& error) {
    if (error.num() == EINTR) return false;
    throw;
  }
  if (!topic_.more()) {
    ++malformed_;
    return true;
  }
  // The body comes with its topic: ZeroMQ delivers a message's frames together.
  const bool body = s.recv(body_, zmq::recv_flags::none).has_value() && !body_.more();
  while (body_.more() && s.recv(body_, zmq::recv_flags::dontwait)) {
  }  // a message of more than two frames: the rest dropped
  const auto box = topic_.size() == 1 ? boxOfTopic(*topic_.data<char>()) : std::nullopt;
  // Only a box this node reads, from the socket that carries it, and no larger than it holds.
  if (body && box && socketOf(*box) == &s && body_.size() <= capacityOf(*box))
    box_ = box;
  else
    ++malformed_;
  return true;
}

}  // namespace rfms
