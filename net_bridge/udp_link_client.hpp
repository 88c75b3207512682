// A client's end of the link over UDP: ClientLinkCore's frames sent to the bridge, with retransmission
// on timeout and a new handshake when the bridge has restarted. Blocking, one frame at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/error.hpp"
#include "net_bridge/client_link_core.hpp"
#include "net_bridge/fault_injector.hpp"
#include "net_bridge/udp_socket.hpp"

namespace rfms {

// The bridge did not answer within the retry limit, or refused this client.
class LinkError : public Error {
 public:
  using Error::Error;
};

struct LinkClientCounts {
  std::uint64_t retransmissions = 0, handshakes = 0, bad_checksums = 0, stale = 0;
};

// The identity in a client's key file (made by rfms-keys; throws ConfigError), or, for an empty
// path, a fresh key pair that trusts whatever bridge answers: for a bridge started with --insecure.
LinkIdentity loadLinkIdentity(const std::string& key_file);

class UdpLinkClient {
 public:
  // `bridge`: "host:port". `client_session`: 0 draws a random one.
  UdpLinkClient(const std::string& bridge, const LinkIdentity& identity, const LinkOptions& options,
                const FaultRates& faults = {}, std::uint64_t fault_seed = 1, std::uint64_t client_session = 0);

  // Sends one frame (REG or SENDREQ) and returns what its ACK carried. Throws LinkError; the
  // client then goes on in a new client session (its request numbers start again at 1).
  std::string exchange(proto::FrameType type, const std::string& payload);

  std::uint64_t session() const { return link_.clientSession(); }
  const LinkClientCounts& counts() const { return counts_; }
  const FaultCounts& faults() const { return faults_.counts(); }

 private:
  double now() const;

  std::string bridge_name_;
  UdpPeer bridge_;
  UdpSocket socket_;
  LinkOptions options_;
  ClientLinkCore link_;
  FaultInjector faults_;
  LinkClientCounts counts_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace rfms
