// rfms-bridge: RoboNet's link between client machines and the supervisor. Clients send task
// requests and status requests as UDP datagrams (net_bridge/bridge_core.hpp); the bridge passes
// requests, one at a time per client and in order, to the supervisor's task endpoint and
// acknowledges each with the supervisor's answer.
#include <cerrno>
#include <chrono>
#include <fstream>
#include <mutex>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/error.hpp"
#include "net_bridge/bridge_core.hpp"
#include "net_bridge/fault_injector.hpp"
#include "net_bridge/udp_socket.hpp"
#include "node/node_shell.hpp"
#include "node/status_writer.hpp"
#include "common/command_line.hpp"

namespace {

std::string countersText(const rfms::proto::LinkCounters& c) {
  return "frames_in " + std::to_string(c.frames_in()) + ", frames_out " + std::to_string(c.frames_out()) +
         ", retransmissions " + std::to_string(c.retransmissions()) + ", duplicates " + std::to_string(c.duplicates()) +
         ", checksum_failures " + std::to_string(c.checksum_failures()) + ", malformed " +
         std::to_string(c.malformed()) + ", queue_depth " + std::to_string(c.queue_depth()) + ", withheld " +
         std::to_string(c.withheld()) + ", clients " + std::to_string(c.clients());
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rfms;
  CLI::App app{"rfms-bridge: the RoboNet-style UDP link between client programs and the RFMS supervisor"};
  NodeOptions options;
  addNodeOptions(app, options);
  std::string host = "127.0.0.1";
  int port = -1;
  FaultRates faults;
  std::uint64_t fault_seed = 1;
  app.add_option("--host", host, "address to listen on (0.0.0.0 for every interface)")->capture_default_str();
  app.add_option("--port", port, "UDP port (default: the configuration's bridge_port; 0 picks a free one)");
  app.add_option("--loss", faults.loss, "fault injection on sent datagrams: probability of loss")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--duplicate", faults.duplicate, "... of duplication")->check(CLI::Range(0.0, 1.0));
  app.add_option("--reorder", faults.reorder, "... of reordering")->check(CLI::Range(0.0, 1.0));
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
        UdpSocket udp = UdpSocket::bound(host, static_cast<std::uint16_t>(port));
        Transport transport;
        zmq::socket_t supervisor = transport.connectDealer(s.config.supervisor_tasks());
        BridgeCore core(s.config.bridge_queue());
        FaultInjector injector(faults, fault_seed);
        log->info("ready: UDP {}:{}, supervisor at {}, queue {}{}", host, udp.port(), s.config.supervisor_tasks(),
                  s.config.bridge_queue(), faults.any() ? " (fault injection on)" : "");
        // Where a test or deploy/rfms finds the port it got.
        std::ofstream(options.run_dir + "/bridge.port") << udp.port() << "\n";

        std::unordered_map<std::string, UdpPeer> peers;
        std::vector<Outgoing> out;
        std::vector<std::string> wire;
        std::string datagram, buffer;
        UdpPeer from;
        proto::Envelope envelope;
        auto flush = [&] {
          for (const Outgoing& o : out) {
            auto it = peers.find(o.peer);
            if (it == peers.end()) continue;
            wire.clear();
            injector.apply(o.datagram, wire);
            for (const auto& d : wire) udp.sendTo(it->second, d);
          }
          out.clear();
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
            // Only senders of sound frames are remembered: garbage must not grow the table.
            if (core.receive(key, datagram, out, std::chrono::duration_cast<std::chrono::nanoseconds>(arrived).count()))
              peers[key] = from;
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
          if (auto held = injector.release(); held && !peers.empty()) udp.sendTo(peers.begin()->second, *held);
          const auto now = std::chrono::steady_clock::now();
          if (now - last_snapshot > std::chrono::seconds(1)) {
            last_snapshot = now;
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
        const FaultCounts& f = injector.counts();
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
