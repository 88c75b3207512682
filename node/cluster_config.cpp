#include "node/cluster_config.hpp"

#include <google/protobuf/text_format.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/controller_settings.hpp"
#include "common/error.hpp"

namespace rfms {

namespace {
std::string readFile(const std::string& path, const char* what) {
  std::ifstream in(path);
  if (!in) throw ConfigError(path + ": cannot open " + what);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void replaceRun(std::string& endpoint, const std::string& run_dir) {
  for (std::size_t at; (at = endpoint.find("{run}")) != std::string::npos;) endpoint.replace(at, 5, run_dir);
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

std::string fileDigest(const std::string& path) { return digestOf(readFile(path, "file")); }

ClusterSettings loadClusterConfig(const std::string& path, const std::string& run_dir) {
  ClusterSettings s;
  s.source = path;
  const std::string text = readFile(path, "cluster configuration");
  if (!google::protobuf::TextFormat::ParseFromString(text, &s.config))
    throw ConfigError(path + ": not a valid cluster configuration (see proto/cluster.proto)");
  proto::ClusterConfig& c = s.config;
  auto fail = [&](const std::string& field, const std::string& why) {
    throw ConfigError(path + ": " + field + ": " + why);
  };
  if (c.robot().empty()) fail("robot", "missing (required): the robot model file");
  std::filesystem::path robot(c.robot());
  if (robot.is_relative()) robot = std::filesystem::path(path).parent_path() / robot;
  c.set_robot(std::filesystem::weakly_canonical(robot).string());
  s.robot_digest = fileDigest(c.robot());
  checkControllerSettings(c.controller(), path + ": controller");
  if (c.lockstep_timeout_ms() < 1) fail("lockstep_timeout_ms", "must be at least 1");
  if (c.startup_timeout_ms() < 100) fail("startup_timeout_ms", "must be at least 100");
  for (auto* e : {c.mutable_supervisor_pub(), c.mutable_supervisor_pull(), c.mutable_arm_pub(), c.mutable_arm_pull(),
                  c.mutable_supervisor_tasks()}) {
    if (e->empty()) {
      if (e == c.mutable_supervisor_tasks()) continue;  // optional: no remote clients
      fail("endpoints", "supervisor_pub, supervisor_pull, arm_pub and arm_pull are all required");
    }
    replaceRun(*e, run_dir);
    if (e->rfind("ipc://", 0) != 0 && e->rfind("tcp://", 0) != 0)
      fail("endpoints", "'" + *e + "' is not an ipc:// or tcp:// endpoint");
  }
  if (c.bridge_port() > 65535) fail("bridge_port", "must be a UDP port, 1 .. 65535");
  if (c.bridge_queue() == 0) c.set_bridge_queue(64);
  if (c.bridge_queue() > 1024) fail("bridge_queue", "must be 1 .. 1024");
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
  if (hello.clock() != mine.clock()) return "its clock mode differs from the supervisor's";
  const std::string why = settingsDifference(mine.controller(), hello.controller(), "the supervisor's");
  return why.empty() ? "" : "its controller." + why;
}

}  // namespace rfms
