#include "runtime/cluster_config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <string>
#include <utility>

#include "common/controller_settings.hpp"
#include "common/error.hpp"
#include "common/robot_model_loader.hpp"
#include "common/scene.hpp"
#include "common/text_file.hpp"
#include "common/text_proto.hpp"

namespace rfms {

namespace {
void replaceRun(std::string& endpoint, const std::string& run_dir) {
  for (std::size_t at; (at = endpoint.find("{run}")) != std::string::npos;) endpoint.replace(at, 5, run_dir);
}

// Why an endpoint cannot be bound or connected to, or "" when it can: ZeroMQ takes a port of
// 99999 modulo 65536 without a word, and a socket path longer than a sockaddr_un holds fails only
// when the node starts.
std::string endpointProblem(const std::string& e) {
  constexpr std::size_t kSocketPath = 107;  // sizeof(sockaddr_un::sun_path) - 1 on Linux
  if (e.rfind("ipc://", 0) == 0) {
    const std::size_t n = e.size() - 6;
    if (n == 0) return "an ipc:// endpoint needs a path";
    if (n > kSocketPath)
      return "its socket path has " + std::to_string(n) + " characters, more than the " + std::to_string(kSocketPath) +
             " a socket path may have";
    return "";
  }
  if (e.rfind("tcp://", 0) != 0) return "not an ipc:// or tcp:// endpoint";
  const std::size_t colon = e.rfind(':');
  if (colon <= 5 || colon + 1 == e.size()) return "a tcp:// endpoint is host:port";
  const std::string port = e.substr(colon + 1);
  // A dotted quad is an IPv4 address: four numbers of 0 .. 255 (a name is left to the resolver).
  const std::string host = e.substr(6, colon - 6);
  if (!host.empty() && host.find_first_not_of("0123456789.") == std::string::npos) {
    int parts = 0;
    for (std::size_t at = 0; at <= host.size(); ++parts) {
      const std::size_t dot = std::min(host.find('.', at), host.size());
      const std::string n = host.substr(at, dot - at);
      if (n.empty() || n.size() > 3 || std::stoi(n) > 255)
        return "'" + host + "' is not an IPv4 address (four numbers of 0 .. 255)";
      at = dot + 1;
    }
    if (parts != 4) return "'" + host + "' is not an IPv4 address (four numbers of 0 .. 255)";
  }
  if (port == "*") return "";  // bind to any free port
  if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos || std::stoul(port) < 1 ||
      std::stoul(port) > 65535)
    return "the port '" + port + "' is not 1 .. 65535";
  return "";
}
}  // namespace

std::string digestOf(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string fileDigest(const std::string& path) { return digestOf(loadTextFile(path, "file")); }

ClusterSettings loadClusterConfig(const std::string& path, const std::string& run_dir) {
  ClusterSettings s;
  s.source = path;
  const std::string text = loadTextFile(path, "cluster configuration");
  if (const auto retired = retiredPikSpelling(text))
    throw ConfigError(path + ": controller.pik: '\"" + retired->was +
                      "\"' is now a name, not a string: pik: " + retired->now);
  parseTextProto(text, s.config, path);
  proto::ClusterConfig& c = s.config;
  auto fail = [&](const std::string& field, const std::string& why) {
    throw ConfigError(path + ": " + field + ": " + why);
  };
  if (c.robot().empty()) fail("robot", "missing (required): the robot model file");
  std::filesystem::path robot(c.robot());
  if (robot.is_relative()) {
    // Beside the cluster file, or a shipped model named bare ("gp7", docs/arms.md).
    const std::filesystem::path beside = std::filesystem::path(path).parent_path() / robot;
    try {
      robot = std::filesystem::exists(beside) ? beside : std::filesystem::path(robotModelPath(c.robot()));
    } catch (const ConfigError& e) {
      fail("robot", e.what());
    }
    if (robot.is_relative()) robot = beside;
  }
  std::error_code ec;
  robot = std::filesystem::weakly_canonical(robot, ec);
  if (ec) fail("robot", "'" + c.robot() + "': " + ec.message());
  c.set_robot(robot.string());
  try {
    s.robot_digest = fileDigest(c.robot());
  } catch (const ConfigError& e) {
    fail("robot", e.what());
  }
  if (!c.scene().empty()) {
    std::filesystem::path scene(c.scene());
    if (scene.is_relative()) scene = std::filesystem::path(path).parent_path() / scene;
    c.set_scene(scene.lexically_normal().string());
    try {
      loadScene(c.scene());
      s.scene_digest = fileDigest(c.scene());
    } catch (const ConfigError& e) {
      fail("scene", e.what());
    }
  }
  checkControllerSettings(c.controller(), path + ": controller");
  // The supervisor, the clock the others answer to, runs one step above them.
  if (c.rt_priority() > 98)
    fail("rt_priority", "must be 0 (no real-time priority) .. 98 (the supervisor runs one above), got " +
                            std::to_string(c.rt_priority()));
  if (c.lockstep_timeout_ms() < 1 || c.lockstep_timeout_ms() > 60'000)
    fail("lockstep_timeout_ms", "must be 1 .. 60000, got " + std::to_string(c.lockstep_timeout_ms()));
  if (c.startup_timeout_ms() < 100 || c.startup_timeout_ms() > 600'000)
    fail("startup_timeout_ms", "must be 100 .. 600000 (ten minutes), got " + std::to_string(c.startup_timeout_ms()));
  if (c.orphan_timeout_ms() < 1000 || c.orphan_timeout_ms() > 600'000)
    fail("orphan_timeout_ms", "must be 1000 .. 600000 (ten minutes), got " + std::to_string(c.orphan_timeout_ms()));
  // A supervisor waiting out a missing node's mail is slow, not gone.
  if (c.orphan_timeout_ms() <= c.lockstep_timeout_ms())
    fail("orphan_timeout_ms", "must be longer than lockstep_timeout_ms (" + std::to_string(c.lockstep_timeout_ms()) +
                                  "), got " + std::to_string(c.orphan_timeout_ms()));
  const std::pair<const char*, std::string*> endpoints[] = {{"supervisor_pub", c.mutable_supervisor_pub()},
                                                            {"supervisor_pull", c.mutable_supervisor_pull()},
                                                            {"arm_pub", c.mutable_arm_pub()},
                                                            {"arm_pull", c.mutable_arm_pull()},
                                                            {"supervisor_tasks", c.mutable_supervisor_tasks()}};
  for (std::size_t i = 0; i < std::size(endpoints); ++i) {
    const auto& [name, e] = endpoints[i];
    if (e->empty()) {
      if (e == c.mutable_supervisor_tasks()) continue;  // optional: no remote clients
      fail(name, "missing: supervisor_pub, supervisor_pull, arm_pub and arm_pull are all required");
    }
    const bool in_run = e->find("{run}") != std::string::npos;
    replaceRun(*e, run_dir);
    if (const std::string why = endpointProblem(*e); !why.empty()) fail(name, "'" + *e + "': " + why);
    // Refused whether or not this cluster will use it (a cluster in shared memory binds none of the
    // mail endpoints): a folder that is not there is a mistake in the file either way, and a
    // cluster changed later to place a node elsewhere would meet it only as that node starts. (A
    // folder in the run directory is deploy/rfms's to make.)
    if (e->rfind("ipc://", 0) == 0 && !in_run) {
      const std::filesystem::path dir = std::filesystem::path(e->substr(6)).parent_path();
      std::error_code not_there;
      if (!dir.empty() && !std::filesystem::is_directory(dir, not_there))
        fail(name, "'" + *e + "': its folder " + dir.string() + " does not exist");
    }
    // Two sockets cannot bind one endpoint; one bound twice would read the other's mail.
    for (std::size_t j = 0; j < i; ++j)
      if (*endpoints[j].second == *e) fail(name, "'" + *e + "' is " + endpoints[j].first + "'s endpoint too");
  }
  if (c.bridge_port() > 65535) fail("bridge_port", "must be a UDP port, 1 .. 65535");
  if (c.bridge_queue() < 1 || c.bridge_queue() > 1024)
    fail("bridge_queue", "must be 1 .. 1024, got " + std::to_string(c.bridge_queue()));
  if (c.bridge_max_request() < 1024 || c.bridge_max_request() > 60000)
    fail("bridge_max_request", "must be 1024 .. 60000 bytes, got " + std::to_string(c.bridge_max_request()));
  if (c.bridge_sessions() < 1 || c.bridge_sessions() > 4096)
    fail("bridge_sessions", "must be 1 .. 4096, got " + std::to_string(c.bridge_sessions()));
  // Eight unless the file says, or fewer if the bridge holds fewer sessions in all.
  if (!c.has_bridge_sessions_per_key()) c.set_bridge_sessions_per_key(std::min(8u, c.bridge_sessions()));
  if (c.bridge_sessions_per_key() < 1 || c.bridge_sessions_per_key() > c.bridge_sessions())
    fail("bridge_sessions_per_key", "must be 1 .. bridge_sessions (" + std::to_string(c.bridge_sessions()) + "), got " +
                                        std::to_string(c.bridge_sessions_per_key()));
  // Key files are named relative to this file, as the robot is.
  auto besideThisFile = [&](std::string* file) {
    std::filesystem::path p(*file);
    if (p.is_relative()) p = std::filesystem::path(path).parent_path() / p;
    *file = p.lexically_normal().string();
  };
  if (!c.link_keys().empty()) besideThisFile(c.mutable_link_keys());
  if (c.node_keys().empty()) fail("node_keys", "empty: name the directory, or leave the line out for {run}/node-keys");
  if (c.node_keys().find("{run}") == std::string::npos) besideThisFile(c.mutable_node_keys());
  replaceRun(*c.mutable_node_keys(), run_dir);
  return s;
}

const char* clockName(proto::ClockMode c) {
  switch (c) {
    case proto::CM_LOCKSTEP: return "lockstep";
    case proto::CM_REALTIME: return "realtime";
    case proto::CM_PACED: return "paced";
    default: return "unknown";
  }
}

std::string disagreement(const proto::Hello& mine, const proto::Hello& hello) {
  if (hello.robot_digest() != mine.robot_digest()) return "its robot model differs from the supervisor's";
  if (hello.scene_digest() != mine.scene_digest()) return "its scene (tool and surfaces) differs from the supervisor's";
  if (hello.clock() != mine.clock()) return "its clock mode differs from the supervisor's";
  const std::string why = settingsDifference(mine.controller(), hello.controller(), "the supervisor's");
  return why.empty() ? "" : "its controller." + why;
}

}  // namespace rfms
