#include "runtime/zmq_port.hpp"

#include <algorithm>
#include <array>

#include "runtime/mail_wait.hpp"
#include "runtime/transport.hpp"

namespace rfms {

ZmqPort::ZmqPort(const ClusterSettings& s, proto::Node me, BoxSet reads, BoxSet writes, Transport& transport)
    : MailPort(me, reads), transport_(transport), rings_(reads), links_(s, me, reads, writes, transport) {
  for (int i = 0; i < kBoxCount; ++i)
    if ((reads & bit(static_cast<Box>(i))) != 0) attach(static_cast<Box>(i), rings_.ring(static_cast<Box>(i)));
}

std::size_t ZmqPort::publish(Box b, const proto::Envelope& mail, std::uint64_t) {
  const std::size_t size = mail.ByteSizeLong();
  if (size > capacityOf(b)) {
    tooLarge();
    return 0;
  }
  mail.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(out_.data()));
  links_.send(b, out_.data(), size);
  return size;
}

void ZmqPort::deliverBeforeClosing() { links_.deliverBeforeClosing(); }

void ZmqPort::refill() {
  const std::int64_t now =
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
  links_.drain([&](Box b, const void* data, std::size_t size) { rings_.write(b, data, size, now); });
}

bool ZmqPort::wait(BoxSet all, BoxSet any, Clock::time_point deadline) {
  for (;;) {
    refill();
    const BoxSet unread = unreadAmong(all | any);
    const BoxSet missing = all & ~unread;
    if ((all != 0 && missing == 0) || (any & unread) != 0) return true;
    // The sockets of every box in `any`, and of the first box of `all` still missing.
    std::array<zmq::socket_t*, 4> watched{};
    std::size_t n = 0;
    auto watch = [&](zmq::socket_t* s) {
      if (s != nullptr && n < watched.size() &&
          std::find(watched.begin(), watched.begin() + n, s) == watched.begin() + n)
        watched[n++] = s;
    };
    for (int i = 0; i < kBoxCount; ++i)
      if ((any & bit(static_cast<Box>(i))) != 0) watch(links_.socketOf(static_cast<Box>(i)));
    for (int i = 0; i < kBoxCount; ++i)
      if ((missing & bit(static_cast<Box>(i))) != 0) {
        watch(links_.socketOf(static_cast<Box>(i)));
        break;
      }
    if (!waitForMail(std::span<zmq::socket_t* const>(watched.data(), n), deadline)) return false;
  }
}

void ZmqPort::passUntil(Clock::time_point deadline) {
  // Mail is timed as it comes: it is taken in as soon as it does.
  while (waitForMail(links_.inbound(), deadline)) refill();
  refill();
}

std::string ZmqPort::refusal() { return transport_.refusal(); }

}  // namespace rfms
