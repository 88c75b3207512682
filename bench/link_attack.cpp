// rfms-link-attack: an attacker on the path between one client and rfms-bridge, with no key. It
// passes every datagram on both ways, unchanged and undropped, and, as told, adds what an
// eavesdropper can make of them, each ahead of the datagram it answers or copies:
//   --forge hello        a REFUSE RF_UNKNOWN_KEY naming each HELLO's nonce
//   --forge version      a REFUSE RF_VERSION naming each HELLO's nonce
//   --forge session      a REFUSE RF_UNKNOWN_SESSION naming each REG's and SENDREQ's session and count
//   --forge replay-auth  the same, and each time the client handshakes again, the AUTH of its
//                        handshake before, replayed from the attacker's own address
//   --forge first-copy   a copy of each REG and SENDREQ from the attacker's own address, first
//   --forge none         nothing (the proxy's own cost, for comparison)
// --garbage N first sends N random datagrams from the attacker's address and counts the answers
// (a reflector answers them). Point a client's --bridge at --listen and measure what it costs the
// client (exit code, requests per second); bench/rfms-link-attacks and rfms-link-forgeries do.
#include <poll.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <map>
#include <thread>
#include <utility>

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
  return encodeDatagram(refusalOf(of, code, "forged on the path"));
}

// The attacker: what it adds for each datagram from the client, before passing it on.
struct Attacker {
  Attacker(std::string m, UdpSocket s, const UdpPeer& b) : mode(std::move(m)), side(std::move(s)), bridge(b) {}
  std::string mode;
  UdpSocket side;  // its own address, for copies and replays
  UdpPeer bridge;
  std::string previous_auth, last_auth;
  std::uint64_t forged = 0, copies = 0, replays = 0, answers_to_attacker = 0;

  void before(std::string_view datagram, UdpSocket& front, const UdpPeer& client) {
    proto::LinkFrame f;
    if (decodeDatagram(datagram, f) != Datagram::kOk) return;
    const bool hello = f.type() == proto::FT_HELLO, auth = f.type() == proto::FT_AUTH;
    const bool frame = f.type() == proto::FT_REG || f.type() == proto::FT_SENDREQ;
    auto forge = [&](proto::RefuseCode code) {
      front.sendTo(client, forgedRefusal(f, code));
      ++forged;
    };
    if (mode == "hello" && hello) forge(proto::RF_UNKNOWN_KEY);
    if (mode == "version" && hello) forge(proto::RF_VERSION);
    if ((mode == "session" || mode == "replay-auth") && frame) forge(proto::RF_UNKNOWN_SESSION);
    if (mode == "replay-auth" && auth && datagram != last_auth) {
      previous_auth = std::exchange(last_auth, std::string(datagram));
      if (!previous_auth.empty()) {
        side.sendTo(bridge, previous_auth);
        ++replays;
      }
    }
    if (mode == "first-copy" && frame) {
      side.sendTo(bridge, datagram);
      ++copies;
    }
  }
  // Whatever the bridge sends the attacker's address.
  void drain() {
    std::string d;
    UdpPeer from;
    while (side.receive(d, from, 0)) ++answers_to_attacker;
  }
};

// N random datagrams of 45 bytes from the attacker's address; the answers within half a second.
std::uint64_t garbage(Attacker& a, int n) {
  std::string d(45, '\0');
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < n; ++i) {
    for (char& c : d) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      c = static_cast<char>(state >> 56);
    }
    a.side.sendTo(a.bridge, d);
    if (i % 1000 == 999) a.drain();
  }
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  while (std::chrono::steady_clock::now() < end) {
    a.drain();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return a.answers_to_attacker;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rfms-link-attack: an attacker on the path between a client and rfms-bridge, dropping nothing"};
  std::string listen = "127.0.0.1:0", bridge = "127.0.0.1:47031", mode = "none";
  double seconds = 0.0;
  int garbage_count = 0;
  app.add_option("--listen", listen, "where the client sends, host:port (port 0: any; printed)")->capture_default_str();
  app.add_option("--bridge", bridge, "the bridge, host:port")->capture_default_str();
  app.add_option("--forge", mode, "hello, version, session, replay-auth, first-copy or none")
      ->capture_default_str()
      ->check(CLI::IsMember({"hello", "version", "session", "replay-auth", "first-copy", "none"}));
  app.add_option("--garbage", garbage_count, "first send this many random datagrams and count the answers")
      ->check(CLI::Range(0, 10000000));
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
        Attacker attacker{mode, UdpSocket::forPeer(upstream), upstream};
        if (garbage_count > 0)
          std::printf("garbage: %d random datagrams sent, %llu answered\n", garbage_count,
                      static_cast<unsigned long long>(garbage(attacker, garbage_count)));
        std::printf("listening on port %u, forging %s\n", front.port(), mode.c_str());
        std::fflush(stdout);
        std::signal(SIGINT, [](int) { g_stop = 1; });
        std::signal(SIGTERM, [](int) { g_stop = 1; });
        const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
        UdpPeer client, from;
        bool have_client = false;
        std::uint64_t up = 0, down = 0;
        std::string datagram;
        while (g_stop == 0 && (seconds == 0.0 || std::chrono::steady_clock::now() < end)) {
          pollfd fds[3] = {{front.fd(), POLLIN, 0}, {back.fd(), POLLIN, 0}, {attacker.side.fd(), POLLIN, 0}};
          if (poll(fds, 3, 100) <= 0) continue;
          if ((fds[0].revents & POLLIN) != 0 && front.receive(datagram, from, 0)) {
            client = from;
            have_client = true;
            attacker.before(datagram, front, client);
            back.sendTo(upstream, datagram);
            ++up;
          }
          if ((fds[1].revents & POLLIN) != 0 && back.receive(datagram, from, 0) && have_client) {
            front.sendTo(client, datagram);
            ++down;
          }
          if ((fds[2].revents & POLLIN) != 0) attacker.drain();
        }
        std::printf(
            "passed %llu datagrams to the bridge and %llu back; forged %llu refusals, sent %llu first copies and "
            "%llu replayed AUTHs; the bridge answered the attacker %llu times\n",
            static_cast<unsigned long long>(up), static_cast<unsigned long long>(down),
            static_cast<unsigned long long>(attacker.forged), static_cast<unsigned long long>(attacker.copies),
            static_cast<unsigned long long>(attacker.replays),
            static_cast<unsigned long long>(attacker.answers_to_attacker));
        return 0;
      },
      [](const std::string& why) { std::fprintf(stderr, "rfms-link-attack: error: %s\n", why.c_str()); });
}
