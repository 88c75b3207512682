// rfms-bridge: RoboNet's link between client machines and the supervisor. Clients send task
// requests and status requests as UDP datagrams (net_bridge/bridge_core.hpp); the bridge passes
// requests, one at a time per client and in order, to the supervisor's task endpoint and
// acknowledges each with the supervisor's answer. SIGHUP reloads the admitted keys (link_keys), as
// daemons reload their configuration: a key added is admitted at once, a key removed loses its
// sessions at once.
#include <cerrno>
#include <chrono>
#include <csignal>
#include <fstream>
#include <mutex>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/command_line.hpp"
#include "common/error.hpp"
#include "net_bridge/allowed_keys.hpp"
#include "net_bridge/bridge_core.hpp"
#include "net_bridge/fault_injector.hpp"
#include "net_bridge/udp_socket.hpp"
#include "runtime/node_shell.hpp"
#include "runtime/status_writer.hpp"

namespace {

volatile std::sig_atomic_t g_reload_keys = 0;

std::string countersText(const rfms::proto::LinkCounters& c) {
  return "frames_in " + std::to_string(c.frames_in()) + ", frames_out " + std::to_string(c.frames_out()) +
         ", retransmissions " + std::to_string(c.retransmissions()) + ", duplicates " + std::to_string(c.duplicates()) +
         ", checksum_failures " + std::to_string(c.checksum_failures()) + ", malformed " +
         std::to_string(c.malformed()) + ", queue_depth " + std::to_string(c.queue_depth()) + ", withheld " +
         std::to_string(c.withheld()) + ", clients " + std::to_string(c.clients()) + ", handshakes " +
         std::to_string(c.handshakes()) + ", refused " + std::to_string(c.refused()) + ", forged " +
         std::to_string(c.forged()) + ", unknown_sessions " + std::to_string(c.unknown_sessions()) + ", evicted " +
         std::to_string(c.evicted()) + ", refusals_unsent " + std::to_string(c.refusals_unsent()) +
         ", resends_unsent " + std::to_string(c.resends_unsent()) + ", retries_sent " +
         std::to_string(c.retries_sent()) + (c.insecure() ? ", INSECURE (any key admitted)" : "");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rfms;
  CLI::App app{"rfms-bridge: the RoboNet-style UDP link between client programs and the RFMS supervisor"};
  NodeOptions options;
  addNodeOptions(app, options);
  std::string host = "127.0.0.1";
  int port = -1;
  bool insecure = false;
  FaultRates faults;
  std::uint64_t fault_seed = 1;
  app.add_option("--host", host, "address to listen on (0.0.0.0 for every interface)")->capture_default_str();
  app.add_option("--port", port, "UDP port (default: the configuration's bridge_port; 0 picks a free one)");
  app.add_flag("--insecure", insecure,
               "admit any client key, as an operator, without the configuration's link_keys: loopback only");
  app.add_option("--loss", faults.loss, "fault injection on sent datagrams: probability of loss")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--duplicate", faults.duplicate, "... of duplication")->check(CLI::Range(0.0, 1.0));
  app.add_option("--reorder", faults.reorder, "... of reordering (per client)")->check(CLI::Range(0.0, 1.0));
  app.add_option("--corrupt", faults.corrupt, "... of corruption")->check(CLI::Range(0.0, 1.0));
  app.add_option("--fault-seed", fault_seed, "seed of the fault injection")->capture_default_str();
  if (const auto code = parseCommandLine(app, argc, argv)) return *code;
  auto log = makeNodeLogger("bridge");
  installStopSignals();
  const int code = guardedMain(
      [&] {
        const ClusterSettings s = loadClusterConfig(options.config, options.run_dir);
        if (s.config.supervisor_tasks().empty())
          throw ConfigError(options.config +
                            ": supervisor_tasks: missing; the bridge needs the supervisor's task endpoint");
        if (port < 0) port = static_cast<int>(s.config.bridge_port());
        if (port > 65535) throw ConfigError("--port must be 0 .. 65535");
        BridgeKeys keys;
        if (insecure) {
          if (!s.config.link_keys().empty())
            throw ConfigError("--insecure: the configuration names link_keys (" + s.config.link_keys() +
                              "); leave out --insecure to use them");
          if (!isLoopback(host)) throw ConfigError("--insecure: listens on loopback only, not on '" + host + "'");
          keys = insecureBridgeKeys();
        } else {
          if (s.config.link_keys().empty())
            throw ConfigError(options.config +
                              ": link_keys: missing; the bridge admits only keys it is given (deploy/rfms keys), "
                              "or any key with --insecure on loopback");
          keys = loadBridgeKeys(s.config.link_keys());
        }
        UdpSocket udp = UdpSocket::bound(host, static_cast<std::uint16_t>(port));
        Transport transport(s, "bridge", *log);
        zmq::socket_t supervisor = transport.connectDealer(s.config.supervisor_tasks());
        BridgeLimits limits;
        limits.queue = s.config.bridge_queue();
        limits.sessions = s.config.bridge_sessions();
        limits.sessions_per_key = s.config.bridge_sessions_per_key();
        limits.max_request = s.config.bridge_max_request();
        const std::size_t allowed = keys.clients.size();
        BridgeCore core(std::move(keys), limits);
        log->info("ready: UDP {}:{}, supervisor at {}, queue {}, sessions {} ({} a key), {}{}", host, udp.port(),
                  s.config.supervisor_tasks(), limits.queue, limits.sessions, limits.sessions_per_key,
                  insecure ? "INSECURE: any key admitted as an operator (loopback only)"
                           : std::to_string(allowed) + " client keys from " + s.config.link_keys(),
                  faults.any() ? " (fault injection on)" : "");
        // Where a test or deploy/rfms finds the port it got.
        std::ofstream(options.run_dir + "/bridge.port") << udp.port() << "\n";

        // The addresses of the clients whose sessions are open (the core names them by key).
        std::unordered_map<std::string, UdpPeer> peers;
        // Fault injection per client, so that a datagram held back goes to its own client.
        std::unordered_map<std::string, FaultInjector> injectors;
        FaultCounts injected;
        std::vector<Outgoing> out;
        std::vector<std::string> wire;
        std::string datagram, buffer;
        UdpPeer from;
        proto::Envelope envelope;
        auto send = [&](const std::string& key, const UdpPeer& to, const std::string& d) {
          if (!faults.any()) {
            udp.sendTo(to, d);
            return;
          }
          auto it = injectors.try_emplace(key, faults, fault_seed + injectors.size()).first;
          wire.clear();
          it->second.apply(d, wire);
          for (const auto& w : wire) udp.sendTo(to, w);
        };
        auto flush = [&] {
          for (const Outgoing& o : out)
            if (auto it = peers.find(o.peer); it != peers.end()) send(o.peer, it->second, o.datagram);
          out.clear();
        };
        // SIGHUP: the keys file again. A file that does not load, or that changes the bridge's own
        // key, changes nothing and says why.
        std::signal(SIGHUP, [](int) { g_reload_keys = 1; });
        auto reloadKeys = [&] {
          g_reload_keys = 0;
          if (insecure) {
            log->warn("SIGHUP: this bridge admits any key (--insecure): there are no keys to reload");
            return;
          }
          try {
            BridgeKeys fresh = loadBridgeKeys(s.config.link_keys());
            const std::size_t admitted = fresh.clients.size();
            std::size_t revoked = 0;
            if (const std::string why = core.replaceKeys(std::move(fresh), revoked); !why.empty())
              log->error("SIGHUP: keys not reloaded from {}: {}; the keys loaded before stay", s.config.link_keys(),
                         why);
            else
              log->info("SIGHUP: keys reloaded from {}: {} client keys; {} sessions of keys no longer admitted closed",
                        s.config.link_keys(), admitted, revoked);
          } catch (const Error& e) {
            log->error("SIGHUP: keys not reloaded: {}; the keys loaded before stay", e.what());
          }
        };
        // bridge-status.txt is written by a thread of its own from a snapshot the loop takes once a
        // second: a disk that stalls (seconds, on a busy machine) must not stop the link.
        std::mutex snapshot_mutex;
        std::string snapshot = countersText(core.counters());
        auto last_snapshot = std::chrono::steady_clock::now();
        StatusWriter status(options.run_dir + "/bridge-status.txt", [&] {
          std::lock_guard lock(snapshot_mutex);
          return snapshot + "\n";
        });
        while (!stopRequested()) {
          if (g_reload_keys != 0) reloadKeys();
          zmq::pollitem_t items[] = {{static_cast<void*>(supervisor), 0, ZMQ_POLLIN, 0},
                                     {nullptr, udp.fd(), ZMQ_POLLIN, 0}};
          try {
            zmq::poll(items, 2, std::chrono::milliseconds(5));
          } catch (const zmq::error_t& e) {
            if (e.num() != EINTR) throw;
            continue;  // a signal: the loop condition sees a stop request
          }
          while (udp.receive(datagram, from, 0)) {
            const std::string key = from.key();
            const auto arrived = std::chrono::system_clock::now().time_since_epoch();
            // Only senders of authentic frames are remembered; a handshake's answer goes straight
            // back to whoever asked.
            if (core.receive(key, datagram, out, std::chrono::duration_cast<std::chrono::nanoseconds>(arrived).count()))
              peers[key] = from;
            for (const Outgoing& o : out)
              if (o.peer == key) send(key, from, o.datagram);
            std::erase_if(out, [&](const Outgoing& o) { return o.peer == key; });
            flush();
          }
          zmq::message_t message;
          while (supervisor.recv(message, zmq::recv_flags::dontwait)) {
            if (!envelope.ParseFromArray(message.data(), static_cast<int>(message.size()))) continue;
            if (envelope.has_task_reply())
              core.answer(envelope.task_reply(), out);
            else if (envelope.has_status())
              core.answer(envelope.status(), out);
          }
          while (core.nextForSupervisor(envelope)) {
            envelope.SerializeToString(&buffer);
            supervisor.send(zmq::buffer(buffer), zmq::send_flags::dontwait);
          }
          flush();
          for (auto& [key, injector] : injectors)
            if (auto held = injector.release())
              if (auto p = peers.find(key); p != peers.end()) udp.sendTo(p->second, *held);
          const auto now = std::chrono::steady_clock::now();
          if (now - last_snapshot > std::chrono::seconds(1)) {
            last_snapshot = now;
            // A supervisor that refuses this bridge's node key will never answer: say so and stop.
            if (const std::string why = transport.refusal(); !why.empty()) throw ConfigError(why);
            // Addresses of closed sessions go: the table is as large as the sessions at most.
            std::erase_if(peers, [&](const auto& p) { return !core.knowsPeer(p.first); });
            std::erase_if(injectors, [&](const auto& i) {
              if (peers.count(i.first) != 0) return false;
              const FaultCounts& c = i.second.counts();
              injected.datagrams += c.datagrams, injected.lost += c.lost, injected.duplicated += c.duplicated;
              injected.reordered += c.reordered, injected.corrupted += c.corrupted;
              return true;
            });
            std::string text = countersText(core.counters());
            std::lock_guard lock(snapshot_mutex);
            snapshot.swap(text);
          }
        }
        {
          std::string text = countersText(core.counters());
          std::lock_guard lock(snapshot_mutex);
          snapshot.swap(text);
        }
        for (const auto& [key, i] : injectors) {
          const FaultCounts& c = i.counts();
          injected.datagrams += c.datagrams, injected.lost += c.lost, injected.duplicated += c.duplicated;
          injected.reordered += c.reordered, injected.corrupted += c.corrupted;
        }
        const FaultCounts& f = injected;
        log->info("stopped: {}", countersText(core.counters()));
        if (faults.any())
          log->info("faults injected on {} datagrams: {} lost, {} duplicated, {} reordered, {} corrupted", f.datagrams,
                    f.lost, f.duplicated, f.reordered, f.corrupted);
        return 0;
      },
      [&](const std::string& message) { log->error("{}", message); });
  spdlog::shutdown();  // writes what the logger's thread still holds
  return code;
}
