// The cluster configuration (proto/cluster.proto): loading, checking and resolving it.
// Configuration time only: throws ConfigError with the file and field at fault.
#pragma once

#include <string>

#include "proto/cluster.pb.h"

namespace rfms {

struct ClusterSettings {
  proto::ClusterConfig config;  // with "{run}" replaced and the robot path made absolute
  std::string source;           // the file it came from
  std::string robot_digest;     // hash of the robot model file's text
  std::string scene_digest;     // hash of the scene file's text ("" without one)
};

// Loads `path`, replaces "{run}" in the endpoints by `run_dir`, and checks every field (the scene
// file's too: a node would otherwise find it wrong only when it starts).
// Whether the nodes wait for each period's mail (lockstep and paced) or keep their own time.
inline bool waitsForMail(proto::ClockMode c) { return c != proto::CM_REALTIME; }
const char* clockName(proto::ClockMode c);

ClusterSettings loadClusterConfig(const std::string& path, const std::string& run_dir);

// 64-bit FNV-1a of a text, as 16 hex digits: cheap agreement checks, not security.
std::string digestOf(const std::string& text);
std::string fileDigest(const std::string& path);

// Why `hello` disagrees with `mine`, or "" when it agrees.
std::string disagreement(const proto::Hello& mine, const proto::Hello& hello);

}  // namespace rfms
