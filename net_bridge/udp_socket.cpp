#include "net_bridge/udp_socket.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "common/error.hpp"

namespace rfms {

std::string UdpPeer::key() const {
  char host[NI_MAXHOST], port[NI_MAXSERV];
  if (getnameinfo(reinterpret_cast<const sockaddr*>(&address), length, host, sizeof host, port, sizeof port,
                  NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    return "?";
  return std::string(host) + ":" + port;
}

bool isLoopback(const std::string& host) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (host.empty() || getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return false;
  bool all = true;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    if (a->ai_family == AF_INET) {
      const auto* in = reinterpret_cast<const sockaddr_in*>(a->ai_addr);
      all = all && (ntohl(in->sin_addr.s_addr) >> 24) == 127;
    } else if (a->ai_family == AF_INET6) {
      const auto* in6 = reinterpret_cast<const sockaddr_in6*>(a->ai_addr);
      all = all && IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
    } else {
      all = false;
    }
  }
  freeaddrinfo(found);
  return all;
}

UdpPeer resolvePeer(const std::string& host_port) {
  const auto colon = host_port.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == host_port.size())
    throw ConfigError("'" + host_port + "' is not host:port");
  // getaddrinfo takes port 99999 modulo 65536, or a service name: only a number in range is a port.
  const std::string port = host_port.substr(colon + 1);
  if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos || std::stoul(port) > 65535)
    throw ConfigError("'" + host_port + "': the port '" + port + "' is not 0 .. 65535");
  std::string host = host_port.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found);
  if (rc != 0) throw ConfigError("cannot resolve '" + host_port + "': " + gai_strerror(rc));
  UdpPeer p;
  std::memcpy(&p.address, found->ai_addr, found->ai_addrlen);
  p.length = found->ai_addrlen;
  freeaddrinfo(found);
  return p;
}

UdpSocket UdpSocket::bound(const std::string& host, std::uint16_t port) {
  const UdpPeer where = resolvePeer(host + ":" + std::to_string(port));
  const int fd = socket(where.address.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw SystemError(std::string("socket: ") + std::strerror(errno));
  UdpSocket s(fd);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&where.address), where.length) != 0)
    throw ConfigError("cannot bind UDP " + host + ":" + std::to_string(port) + ": " + std::strerror(errno));
  return s;
}

UdpSocket UdpSocket::forPeer(const UdpPeer& peer) {
  const int fd = socket(peer.address.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw SystemError(std::string("socket: ") + std::strerror(errno));
  return UdpSocket(fd);
}

UdpSocket::UdpSocket(UdpSocket&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

UdpSocket& UdpSocket::operator=(UdpSocket&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

UdpSocket::~UdpSocket() {
  if (fd_ >= 0) ::close(fd_);
}

void UdpSocket::sendTo(const UdpPeer& peer, std::string_view datagram) {
  // A datagram the kernel will not take now is as good as lost on the network: the link resends.
  (void)::sendto(fd_, datagram.data(), datagram.size(), MSG_DONTWAIT, reinterpret_cast<const sockaddr*>(&peer.address),
                 peer.length);
}

bool UdpSocket::receive(std::string& datagram, UdpPeer& from, int timeout_ms) {
  pollfd p{fd_, POLLIN, 0};
  int rc;
  do rc = ::poll(&p, 1, timeout_ms);
  while (rc < 0 && errno == EINTR);
  if (rc <= 0) return false;
  char buffer[65536];
  from.length = sizeof from.address;
  const ssize_t n =
      ::recvfrom(fd_, buffer, sizeof buffer, MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&from.address), &from.length);
  if (n < 0) return false;
  datagram.assign(buffer, static_cast<std::size_t>(n));
  return true;
}

std::uint16_t UdpSocket::port() const {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) return 0;
  if (a.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&a)->sin_port);
  return ntohs(reinterpret_cast<sockaddr_in6*>(&a)->sin6_port);
}

}  // namespace rfms
