// A UDP socket (POSIX), just what the link needs: bind, send to a peer, receive with a timeout.
// Errors that mean misconfiguration (a name that does not resolve, a port in use) throw
// ConfigError with one clear line.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace rfms {

struct UdpPeer {
  sockaddr_storage address{};
  socklen_t length = 0;
  std::string key() const;  // "host:port", also the peer's name in BridgeCore
};

// "host:port" (IPv4 or IPv6 names and literals).
UdpPeer resolvePeer(const std::string& host_port);
// Whether every address `host` names is a loopback one (127.0.0.0/8, ::1): reachable from this
// machine only.
bool isLoopback(const std::string& host);

class UdpSocket {
 public:
  // Bound to host:port (port 0: any free port).
  static UdpSocket bound(const std::string& host, std::uint16_t port);
  // Unbound, for a client; the family of `peer`.
  static UdpSocket forPeer(const UdpPeer& peer);
  UdpSocket(UdpSocket&& other) noexcept;
  UdpSocket& operator=(UdpSocket&& other) noexcept;
  UdpSocket(const UdpSocket&) = delete;
  UdpSocket& operator=(const UdpSocket&) = delete;
  ~UdpSocket();

  void sendTo(const UdpPeer& peer, std::string_view datagram);
  // Waits up to timeout_ms (0: do not wait) for a datagram; false when none came.
  bool receive(std::string& datagram, UdpPeer& from, int timeout_ms);
  std::uint16_t port() const;
  int fd() const { return fd_; }

 private:
  explicit UdpSocket(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace rfms
