// rfms-link-attack: an attacker on the path between one client and rfms-bridge, with no key. It
// passes every datagram on both ways, unchanged and undropped, and, when told to, forges what the
// link protocol leaves unsigned, each ahead of the datagram it answers:
//   --forge hello     a REFUSE RF_UNKNOWN_KEY naming each HELLO's nonce
//   --forge version   a REFUSE RF_VERSION naming each HELLO's nonce
//   --forge session   a REFUSE RF_UNKNOWN_SESSION naming each REG's and SENDREQ's session and count
//   --forge none      nothing (the proxy's own cost, for comparison)
// Point a client's --bridge at --listen and measure what the forgeries cost it (exit code,
// requests per second, handshakes); docs/link-protocol.md's threat table quotes the figures.
#include <poll.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <map>

#include <CLI/CLI.hpp>

#include "common/command_line.hpp"
#include "common/error.hpp"
#include "net_bridge/link_frame.hpp"
#include "net_bridge/udp_socket.hpp"

namespace {

using namespace rfms;

volatile std::sig_atomic_t g_stop = 0;

// The REFUSE an attacker can make of a frame it saw: checksummed, naming what the frame named.
std::string forgedRefusal(const proto::LinkFrame& of, proto::RefuseCode code) {
  proto::LinkFrame r;
  r.set_type(proto::FT_REFUSE);
  r.set_session(of.session());
  r.set_count(of.count());
  r.set_seq(static_cast<std::uint32_t>(of.count() & 1u));
  r.set_refuse(code);
  r.set_reason("forged on the path");
  if (!of.handshake().client_nonce().empty()) r.mutable_handshake()->set_client_nonce(of.handshake().client_nonce());
  return encodeDatagram(r);
}

// What --forge forges for a datagram from the client, if anything.
bool forgery(const std::string& mode, std::string_view datagram, std::string& out) {
  proto::LinkFrame f;
  if (decodeDatagram(datagram, f) != Datagram::kOk) return false;
  const bool hello = f.type() == proto::FT_HELLO;
  const bool frame = f.type() == proto::FT_REG || f.type() == proto::FT_SENDREQ;
  if (mode == "hello" && hello)
    out = forgedRefusal(f, proto::RF_UNKNOWN_KEY);
  else if (mode == "version" && hello)
    out = forgedRefusal(f, proto::RF_VERSION);
  else if (mode == "session" && frame)
    out = forgedRefusal(f, proto::RF_UNKNOWN_SESSION);
  else
    return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rfms-link-attack: forges unsigned refusals between a client and rfms-bridge, dropping nothing"};
  std::string listen = "127.0.0.1:0", bridge = "127.0.0.1:47031", mode = "none";
  double seconds = 0.0;
  app.add_option("--listen", listen, "where the client sends, host:port (port 0: any; printed)")->capture_default_str();
  app.add_option("--bridge", bridge, "the bridge, host:port")->capture_default_str();
  app.add_option("--forge", mode, "hello, version, session or none")
      ->capture_default_str()
      ->check(CLI::IsMember({"hello", "version", "session", "none"}));
  app.add_option("--seconds", seconds, "stop after this long (0: at SIGINT or SIGTERM)")->check(CLI::Range(0.0, 1e6));
  if (const auto code = parseCommandLine(app, argc, argv)) return *code;
  return guardedMain(
      [&] {
        const UdpPeer upstream = resolvePeer(bridge);
        const auto colon = listen.rfind(':');
        const std::string port = colon == std::string::npos ? "" : listen.substr(colon + 1);
        if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
            std::stoul(port) > 65535)
          throw ConfigError("--listen " + listen + ": expected host:port, the port 0 .. 65535");
        UdpSocket front = UdpSocket::bound(listen.substr(0, colon), static_cast<std::uint16_t>(std::stoul(port)));
        UdpSocket back = UdpSocket::forPeer(upstream);
        std::printf("listening on port %u, forging %s\n", front.port(), mode.c_str());
        std::fflush(stdout);
        std::signal(SIGINT, [](int) { g_stop = 1; });
        std::signal(SIGTERM, [](int) { g_stop = 1; });
        const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
        UdpPeer client, from;
        bool have_client = false;
        std::uint64_t up = 0, down = 0, forged = 0;
        std::string datagram, forged_datagram;
        while (g_stop == 0 && (seconds == 0.0 || std::chrono::steady_clock::now() < end)) {
          pollfd fds[2] = {{front.fd(), POLLIN, 0}, {back.fd(), POLLIN, 0}};
          if (poll(fds, 2, 100) <= 0) continue;
          if ((fds[0].revents & POLLIN) != 0 && front.receive(datagram, from, 0)) {
            client = from;
            have_client = true;
            if (forgery(mode, datagram, forged_datagram)) {
              front.sendTo(client, forged_datagram);  // ahead of the bridge's own answer
              ++forged;
            }
            back.sendTo(upstream, datagram);
            ++up;
          }
          if ((fds[1].revents & POLLIN) != 0 && back.receive(datagram, from, 0) && have_client) {
            front.sendTo(client, datagram);
            ++down;
          }
        }
        std::printf("passed %llu datagrams to the bridge and %llu back; forged %llu refusals\n",
                    static_cast<unsigned long long>(up), static_cast<unsigned long long>(down),
                    static_cast<unsigned long long>(forged));
        return 0;
      },
      [](const std::string& why) { std::fprintf(stderr, "rfms-link-attack: error: %s\n", why.c_str()); });
}
