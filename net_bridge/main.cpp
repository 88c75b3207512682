// rfms-bridge: RoboNet's link between client machines and the supervisor. Clients send task
// requests and status requests as UDP datagrams (net_bridge/bridge_core.hpp); the bridge passes
// requests, one at a time per client and in order, to the supervisor's task endpoint and
// acknowledges each with the supervisor's answer. SIGHUP reloads the admitted keys (link_keys), as
// daemons reload their configuration: a key added is admitted at once, a key removed loses its
// sessions at once.
#include <fstream>

#include <CLI/CLI.hpp>

#include "common/command_line.hpp"
#include "common/error.hpp"
#include "net_bridge/allowed_keys.hpp"
#include "net_bridge/bridge_core.hpp"
#include "net_bridge/bridge_loop.hpp"
#include "net_bridge/udp_socket.hpp"
#include "runtime/node_shell.hpp"
#include "runtime/status_writer.hpp"

namespace {

using namespace rfms;

struct BridgeOptions {
  NodeOptions node;
  std::string host = "127.0.0.1";
  int port = -1;
  bool insecure = false;
  BridgeFaults faults;
};

void addBridgeOptions(CLI::App& app, BridgeOptions& o) {
  addNodeOptions(app, o.node);
  app.add_option("--host", o.host, "address to listen on (0.0.0.0 for every interface)")->capture_default_str();
  app.add_option("--port", o.port, "UDP port (default: the configuration's bridge_port; 0 picks a free one)");
  app.add_flag("--insecure", o.insecure,
               "admit any client key, as an operator, without the configuration's link_keys: loopback only");
  app.add_option("--loss", o.faults.rates.loss, "fault injection on sent datagrams: probability of loss")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--duplicate", o.faults.rates.duplicate, "... of duplication")->check(CLI::Range(0.0, 1.0));
  app.add_option("--reorder", o.faults.rates.reorder, "... of reordering (per client)")->check(CLI::Range(0.0, 1.0));
  app.add_option("--corrupt", o.faults.rates.corrupt, "... of corruption")->check(CLI::Range(0.0, 1.0));
  app.add_option("--fault-seed", o.faults.seed, "seed of the fault injection")->capture_default_str();
}

// The keys the bridge admits: the configuration's link_keys, or any key with --insecure (which
// listens on loopback only, and is refused beside link_keys so that nobody loses them unawares).
BridgeKeys admittedKeys(const ClusterSettings& s, const BridgeOptions& o) {
  if (o.insecure) {
    if (!s.config.link_keys().empty())
      throw ConfigError("--insecure: the configuration names link_keys (" + s.config.link_keys() +
                        "); leave out --insecure to use them");
    if (!isLoopback(o.host)) throw ConfigError("--insecure: listens on loopback only, not on '" + o.host + "'");
    return insecureBridgeKeys();
  }
  if (s.config.link_keys().empty())
    throw ConfigError(o.node.config +
                      ": link_keys: missing; the bridge admits only keys it is given (deploy/rfms keys), "
                      "or any key with --insecure on loopback");
  return loadBridgeKeys(s.config.link_keys());
}

BridgeLimits limitsOf(const ClusterSettings& s) {
  BridgeLimits limits;
  limits.queue = s.config.bridge_queue();
  limits.sessions = s.config.bridge_sessions();
  limits.sessions_per_key = s.config.bridge_sessions_per_key();
  limits.max_request = s.config.bridge_max_request();
  return limits;
}

int serve(BridgeOptions& o, spdlog::logger& log) {
  const ClusterSettings s = loadClusterConfig(o.node.config, o.node.run_dir);
  if (s.config.supervisor_tasks().empty())
    throw ConfigError(o.node.config + ": supervisor_tasks: missing; the bridge needs the supervisor's task endpoint");
  if (o.port < 0) o.port = static_cast<int>(s.config.bridge_port());
  if (o.port > 65535) throw ConfigError("--port must be 0 .. 65535");
  BridgeKeys keys = admittedKeys(s, o);
  UdpSocket udp = UdpSocket::bound(o.host, static_cast<std::uint16_t>(o.port));
  Transport transport(s, "bridge", log);
  zmq::socket_t supervisor = transport.connectDealer(s.config.supervisor_tasks());
  const BridgeLimits limits = limitsOf(s);
  const std::size_t allowed = keys.clients.size();
  BridgeCore core(std::move(keys), limits);
  log.info("ready: UDP {}:{}, supervisor at {}, queue {}, sessions {} ({} a key), {}{}", o.host, udp.port(),
           s.config.supervisor_tasks(), limits.queue, limits.sessions, limits.sessions_per_key,
           o.insecure ? "INSECURE: any key admitted as an operator (loopback only)"
                      : std::to_string(allowed) + " client keys from " + s.config.link_keys(),
           o.faults.rates.any() ? " (fault injection on)" : "");
  // Where a test or deploy/rfms finds the port it got.
  std::ofstream(o.node.run_dir + "/bridge.port") << udp.port() << "\n";

  BridgeLoop loop(udp, supervisor, core, transport, o.insecure ? "" : s.config.link_keys(), o.faults, log);
  // A thread of its own writes bridge-status.txt from the loop's snapshot: a disk that stalls
  // (seconds, on a busy machine) must not stop the link.
  StatusWriter status(o.node.run_dir + "/bridge-status.txt", [&] { return loop.snapshot() + "\n"; });
  loop.run();
  log.info("stopped: {}", countersText(core.counters()));
  if (o.faults.rates.any()) {
    const FaultCounts f = loop.injected();
    log.info("faults injected on {} datagrams: {} lost, {} duplicated, {} reordered, {} corrupted", f.datagrams, f.lost,
             f.duplicated, f.reordered, f.corrupted);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rfms-bridge: the RoboNet-style UDP link between client programs and the RFMS supervisor"};
  BridgeOptions options;
  addBridgeOptions(app, options);
  if (const auto code = parseCommandLine(app, argc, argv)) return *code;
  auto log = makeNodeLogger("bridge");
  installStopSignals();
  const int code =
      guardedMain([&] { return serve(options, *log); }, [&](const std::string& message) { log->error("{}", message); });
  spdlog::shutdown();  // writes what the logger's thread still holds
  return code;
}
