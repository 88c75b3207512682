// rfms-view: the running cluster seen from outside it. Speaks the Foxglove WebSocket protocol, so
// that Foxglove and Lichtblick draw the arm live, and serves the page of its folder on the same
// port. It reads the run's mail read-only and the supervisor's log, and sends no node anything;
// it runs below the nodes' priority, and a viewer that cannot keep up loses frames, never the
// cluster's time (view/live_view.hpp, view/foxglove_server.hpp).
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "common/command_line.hpp"
#include "common/controller_settings.hpp"
#include "common/error.hpp"
#include "common/robot_model_loader.hpp"
#include "display/scene_messages.hpp"
#include "runtime/cluster_config.hpp"
#include "runtime/mail_segment.hpp"
#include "runtime/node_shell.hpp"
#include "view/channels.hpp"
#include "view/desk_api.hpp"
#include "view/live_view.hpp"
#include "view/status_poll.hpp"

namespace {

// Below every node: a niceness of 10 when they run at the default, and no real-time class.
constexpr int kNiceness = 10;
constexpr int kMaxRateHz = rfms::display::kMaxPicturesPerSecond;

struct Options {
  std::string run_dir;
  std::string config;  // default: RUN_DIR/cluster.textproto
  std::string view = "127.0.0.1:8765";
  std::string web_root = rfms::view::defaultWebRoot();
  int rate_hz = kMaxRateHz;
  std::string bridge;        // default: 127.0.0.1 and RUN_DIR/bridge.port, when the run has a bridge
  std::string observer_key;  // default: RUN_DIR/keys/observer.key, when there is one
  std::string operator_key;
  std::vector<std::string> hosts, origins;  // added to the server's own (view/foxglove_server.hpp)
};

std::string firstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The page's commands: through the run's bridge, with its keys (view/desk_api.hpp).
rfms::view::DeskApiOptions deskOptions(const Options& o) {
  rfms::view::DeskApiOptions d;
  d.bridge = o.bridge;
  if (d.bridge.empty())
    if (const std::string port = firstLine(o.run_dir + "/bridge.port"); !port.empty()) d.bridge = "127.0.0.1:" + port;
  d.observer_key = o.observer_key;
  if (d.observer_key.empty() && std::filesystem::exists(o.run_dir + "/keys/observer.key"))
    d.observer_key = o.run_dir + "/keys/observer.key";
  d.operator_key = o.operator_key;
  if (!d.operator_key.empty() && !std::filesystem::is_regular_file(d.operator_key))
    throw rfms::ConfigError("--operator-key " + d.operator_key + ": no such file");
  d.token = rfms::view::makeToken();
  return d;
}

rfms::view::ServerOptions serverOptions(const Options& o) {
  rfms::view::ServerOptions s = rfms::view::serverAt(o.view);
  s.web_root = o.web_root;
  s.hosts.insert(s.hosts.end(), o.hosts.begin(), o.hosts.end());
  s.origins.insert(s.origins.end(), o.origins.begin(), o.origins.end());
  return s;
}

rfms::view::LiveViewSettings viewSettings(const Options& o) {
  using namespace rfms;
  const ClusterSettings cluster = loadClusterConfig(o.config, o.run_dir);
  view::LiveViewSettings v;
  if (!cluster.config.scene().empty()) v.scene = loadScene(cluster.config.scene());
  v.model = withTool(loadRobotModel(cluster.config.robot()), v.scene.tool);
  v.dt_s = sampleSeconds(cluster.config.controller());
  if (cluster.config.mail_transport() != proto::MT_SHARED_MEMORY)
    throw ConfigError(o.config +
                      ": the cluster's mail goes over ZeroMQ (mail_transport); rfms-view reads the "
                      "shared-memory mailboxes only");
  v.segment_path = MailSegment::pathFor(o.run_dir);
  v.supervisor_log = o.run_dir + "/supervisor.log";
  v.rate_hz = o.rate_hz;
  v.run_dir = o.run_dir;
  const std::uint32_t orphan = cluster.config.orphan_timeout_ms();
  v.run_ended_after = std::chrono::milliseconds(orphan == 0 ? 10000 : orphan);
  return v;
}

// As Jupyter does: whoever opens the page at this address may command the arm. The token is also
// in a file only this user can read, for scripts.
void announceToken(const std::string& run_dir, const std::string& page, const std::string& token, spdlog::logger& log) {
  const std::string file = run_dir + "/view.token";
  {
    std::ofstream out(file);
    std::filesystem::permissions(file, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    if (!(out << token << "\n")) throw rfms::ConfigError("cannot write " + file);
  }
  log.info("the page's operator commands need its token: {}?token={}", page, token);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rfms;
  CLI::App app{
      "rfms-view: the running cluster in Foxglove and in the browser (Foxglove WebSocket protocol v1 "
      "and the page, on one port)"};
  Options o;
  app.add_option("--run-dir", o.run_dir, "the cluster's run directory (deploy/rfms up prints it)")
      ->required()
      ->check(CLI::ExistingDirectory);
  app.add_option("--config", o.config, "the cluster file (default: RUN_DIR/cluster.textproto)");
  app.add_option("--view", o.view, "ADDRESS:PORT to serve on (port 0: any free one, written to RUN_DIR/view.port)")
      ->capture_default_str();
  app.add_option("--web-root", o.web_root, "the page's folder")->capture_default_str();
  app.add_option("--bridge", o.bridge, "the run's bridge for the page's commands (default: RUN_DIR/bridge.port's)");
  app.add_option("--observer-key", o.observer_key, "key for the page's stop (default: RUN_DIR/keys/observer.key)");
  app.add_option("--operator-key", o.operator_key,
                 "key for the page's calibrate, jog and task, which also need the token printed at start");
  app.add_option("--view-host", o.hosts,
                 "a name this server answers to besides its addresses and localhost (repeat for more): a page "
                 "from any other name, as a DNS name rebound to this machine would be, is refused");
  app.add_option("--view-origin", o.origins,
                 "a web origin whose pages may connect besides this server's own page and Foxglove's web app "
                 "(repeat for more), e.g. http://my-dashboard:8080");
  app.add_option("--rate", o.rate_hz, "display messages per second")
      ->check(CLI::Range(1, kMaxRateHz))
      ->capture_default_str();
  if (const auto code = parseCommandLine(app, argc, argv)) return *code;
  if (o.config.empty()) o.config = o.run_dir + "/cluster.textproto";
  auto log = makeNodeLogger("view");
  const int code = guardedMain(
      [&] {
        // Everything read and checked before the port is taken: a bad configuration is said as such.
        view::LiveViewSettings settings = viewSettings(o);
        const view::DeskApiOptions desk = deskOptions(o);
        view::ServerOptions at = serverOptions(o);
        // The operator's page (the one with the token) gets in beside any number of other viewers.
        if (!desk.operator_key.empty()) at.slot_token = desk.token;
        view::FoxgloveServer server(at, view::viewChannels(), log);
        view::LiveView live(std::move(settings), server, log);
        view::DeskApi api(desk, log, [&](std::vector<MailSignal> s) { live.watch(std::move(s)); });
        // The world model's frames and the running move come with the supervisor's status.
        std::unique_ptr<view::StatusPoll> status;
        if (!desk.bridge.empty() && !desk.observer_key.empty()) {
          status = std::make_unique<view::StatusPoll>(desk.bridge, desk.observer_key, log);
          live.follow(*status);
        }
        server.onApi([&](const view::HttpRequest& r, const view::HttpAnswer& a) { api.handle(r, a); });
        if (setpriority(PRIO_PROCESS, 0, kNiceness) != 0)
          log->warn("cannot lower this process's priority: {}", std::strerror(errno));
        const std::string page = "http://" + at.address + ":" + std::to_string(server.port()) + "/";
        if (!desk.operator_key.empty()) announceToken(o.run_dir, page, desk.token, *log);
        std::ofstream(o.run_dir + "/view.port") << server.port() << "\n";
        log->info("ready: ws://{}:{} (foxglove.websocket.v1) and the page at {}", at.address, server.port(), page);
        server.run([&] {
          const auto next = live.tick();
          if (live.ended()) server.stop();
          return next;
        });
        const view::ServerCounts c = server.counts();
        log->info(
            "stopped: {} pictures of the arm; {} messages sent, {} dropped for slow viewers; {} viewers "
            "and requests refused, {} lines about them not logged",
            live.pictures(), c.sent, c.dropped, c.refused, c.unlogged);
        return 0;
      },
      [&](const std::string& message) { log->error("{}", message); });
  spdlog::shutdown();
  return code;
}
