// Loopback TCP ports the kernel has free now: each socket bound to port 0 and all held until every
// port is known (so that they differ), then closed for the test's programs to bind. Another
// process may still take one in between — far less often than a port picked from a fixed range
// inside the kernel's ephemeral range, which any outgoing connection may be using; a test that
// starts a server retries with fresh ports when its bind fails.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

namespace rfms::test {

inline std::vector<int> freeLoopbackPorts(int n) {
  std::vector<int> fds, ports;
  for (int i = 0; i < n; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    socklen_t len = sizeof a;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      if (fd >= 0) ::close(fd);
      continue;
    }
    fds.push_back(fd);
    ports.push_back(ntohs(a.sin_port));
  }
  for (int fd : fds) ::close(fd);
  return ports;
}

}  // namespace rfms::test
