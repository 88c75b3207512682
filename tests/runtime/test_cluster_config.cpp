// The cluster file's checks: every field that cannot work is refused before a node starts,
// naming the file and the field (issue 15 found each of these accepted).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "runtime/cluster_config.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/temp_dir.hpp"

namespace rfms {
namespace {

namespace fs = std::filesystem;

std::string shipped(const std::string& name) { return std::string(RFMS_SOURCE_DIR) + "/deploy/clusters/" + name; }

// The shipped local configuration with `from` replaced by `to`, as a file of its own.
std::string variant(const std::string& from, const std::string& to) {
  std::ifstream in(shipped("local.textproto"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  if (const auto robots = text.find("../robots"); robots != std::string::npos)
    text.replace(robots, 9, std::string(RFMS_SOURCE_DIR) + "/deploy/robots");
  if (const auto scenes = text.find("../scenes"); scenes != std::string::npos)
    text.replace(scenes, 9, std::string(RFMS_SOURCE_DIR) + "/deploy/scenes");
  static int n = 0;
  const fs::path p = test::scratchDir() / ("cluster-" + std::to_string(++n) + ".textproto");
  std::ofstream(p) << text;
  return p.string();
}

// The error loading it gives, "" when it loads.
std::string refusal(const std::string& path) {
  try {
    loadClusterConfig(path, test::scratchDir().string());
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ClusterConfig, TheShippedConfigurationsLoad) {
  int n = 0;
  for (const auto& f : fs::directory_iterator(std::string(RFMS_SOURCE_DIR) + "/deploy/clusters"))
    if (f.path().extension() == ".textproto") {
      EXPECT_EQ(refusal(f.path().string()), "") << f.path();
      ++n;
    }
  EXPECT_GT(n, 0);
}

// A cluster file may name a shipped arm bare, as the command lines do (docs/arms.md).
TEST(ClusterConfig, ARobotNamedBareIsTheShippedModelAndAnUnknownNameIsRefused) {
  const ClusterSettings s = loadClusterConfig(variant("robot: \"../robots/puma260.textproto\"", "robot: \"gp7\""),
                                              test::scratchDir().string());
  EXPECT_EQ(s.config.robot(), std::string(RFMS_SOURCE_DIR) + "/deploy/robots/gp7.textproto");
  const std::string why = refusal(variant("robot: \"../robots/puma260.textproto\"", "robot: \"kr16\""));
  EXPECT_NE(why.find("robot: robot model 'kr16': no such file, and no shipped model of that name"), std::string::npos)
      << why;
}

// The modes are closed sets: a number that is none of them is refused where it is written.
TEST(ClusterConfig, AClockThatIsNoModeIsRefused) {
  const std::string path = variant("clock: CM_LOCKSTEP", "clock: 7");
  const std::string why = refusal(path);
  EXPECT_EQ(why.rfind(path + ":", 0), 0u) << why;
  EXPECT_NE(why.find("Unknown enumeration value of \"7\" for field \"clock\""), std::string::npos) << why;
  const std::string transport = refusal(variant("clock: CM_LOCKSTEP", "clock: CM_LOCKSTEP\nmail_transport: 2"));
  EXPECT_NE(transport.find("for field \"mail_transport\""), std::string::npos) << transport;
}

// A syntax error used to give "not a valid cluster configuration", with the line, column and
// reason only in the library's own message on stderr (issue 15).
TEST(ClusterConfig, ASyntaxErrorIsNamedWithItsLineAndColumn) {
  const std::string path = variant("clock: CM_LOCKSTEP", "clock: CM_LOCKSTE");
  const std::string why = refusal(path);
  // (protobuf places an unknown enum value at the token after it: the position is its own.)
  ASSERT_EQ(why.rfind(path + ":", 0), 0u) << why;
  const std::string position = why.substr(path.size() + 1, why.find(": ", path.size()) - path.size() - 1);
  EXPECT_TRUE(position.find(':') != std::string::npos && position.find_first_not_of("0123456789:") == std::string::npos)
      << "line:column, got '" << position << "'";
  EXPECT_NE(why.find("Unknown enumeration value of \"CM_LOCKSTE\" for field \"clock\""), std::string::npos) << why;
}

TEST(ClusterConfig, TimeoutsHaveUpperBounds) {
  EXPECT_NE(refusal(variant("startup_timeout_ms: 10000", "startup_timeout_ms: 4294967295"))
                .find("startup_timeout_ms: must be 100 .. 600000"),
            std::string::npos);
  EXPECT_NE(refusal(variant("lockstep_timeout_ms: 100", "lockstep_timeout_ms: 100000"))
                .find("lockstep_timeout_ms: must be 1 .. 60000"),
            std::string::npos);
  EXPECT_NE(refusal(variant("orphan_timeout_ms: 10000", "orphan_timeout_ms: 999"))
                .find("orphan_timeout_ms: must be 1000 .. 600000"),
            std::string::npos);
  const std::string why = refusal(variant("lockstep_timeout_ms: 100", "lockstep_timeout_ms: 20000"));
  EXPECT_NE(why.find("orphan_timeout_ms: must be longer than lockstep_timeout_ms (20000), got 10000"),
            std::string::npos)
      << why;
}

TEST(ClusterConfig, AnUnsetOrphanTimeoutIsTenSeconds) {
  const std::string path = variant("orphan_timeout_ms: 10000", "");
  EXPECT_EQ(loadClusterConfig(path, test::scratchDir().string()).config.orphan_timeout_ms(), 10000u);
}

// The schema's defaults (proto/cluster.proto, proto2 as the controller's settings are): a field
// left out takes its default; a 0 written out is a 0, refused where it cannot work, where it once
// stood for "the default" in some fields and was refused in others.
TEST(ClusterConfig, AFieldLeftOutTakesItsDefaultAndAZeroWrittenIsRefused) {
  const fs::path minimal = test::scratchDir() / "minimal.textproto";
  std::ofstream(minimal) << "robot: \"" << RFMS_SOURCE_DIR << "/deploy/robots/puma260.textproto\"\n"
                         << "supervisor_pub: \"ipc://{run}/s.pub\" supervisor_pull: \"ipc://{run}/s.pull\"\n"
                         << "arm_pub: \"ipc://{run}/a.pub\" arm_pull: \"ipc://{run}/a.pull\"\n";
  const fs::path run = test::scratchDir() / "run";
  const proto::ClusterConfig c = loadClusterConfig(minimal.string(), run.string()).config;
  EXPECT_EQ(c.clock(), proto::CM_LOCKSTEP);
  EXPECT_EQ(c.lockstep_timeout_ms(), 100u);
  EXPECT_EQ(c.startup_timeout_ms(), 10000u);
  EXPECT_EQ(c.orphan_timeout_ms(), 10000u);
  EXPECT_EQ(c.bridge_queue(), 64u);
  EXPECT_EQ(c.bridge_sessions(), 64u);
  EXPECT_EQ(c.bridge_sessions_per_key(), 8u);
  EXPECT_EQ(c.bridge_max_request(), 8192u);
  EXPECT_EQ(c.node_keys(), (run / "node-keys").string());
  EXPECT_DOUBLE_EQ(c.controller().dt_ms(), 1.0);  // the controller's own defaults, as before

  for (const auto& [field, why] : std::vector<std::pair<std::string, std::string>>{
           {"lockstep_timeout_ms: 0", "lockstep_timeout_ms: must be 1 .. 60000, got 0"},
           {"startup_timeout_ms: 0", "startup_timeout_ms: must be 100 .. 600000"},
           {"orphan_timeout_ms: 0", "orphan_timeout_ms: must be 1000 .. 600000"},
           {"bridge_queue: 0", "bridge_queue: must be 1 .. 1024, got 0"},
           {"bridge_sessions: 0", "bridge_sessions: must be 1 .. 4096, got 0"},
           {"bridge_sessions_per_key: 0", "bridge_sessions_per_key: must be 1 .. bridge_sessions (64), got 0"},
           {"bridge_max_request: 0", "bridge_max_request: must be 1024 .. 60000 bytes, got 0"},
           {"node_keys: \"\"", "node_keys: empty"}}) {
    const fs::path with = test::scratchDir() / "with-zero.textproto";
    std::ifstream in(minimal);
    std::ofstream(with) << in.rdbuf() << field << "\n";
    const std::string got = refusal(with.string());
    EXPECT_NE(got.find(why), std::string::npos) << field << ": " << got;
  }
}

TEST(ClusterConfig, ThePikSchemeAsAStringIsRefusedNamingItsName) {
  const std::string path = variant("seed: 1", "seed: 1\n  pik: \"paper-extrapolated\"");
  EXPECT_NE(refusal(path).find("controller.pik: '\"paper-extrapolated\"' is now a name, not a string: pik: "
                               "PAPER_EXTRAPOLATED"),
            std::string::npos)
      << refusal(path);
  EXPECT_EQ(loadClusterConfig(variant("seed: 1", "seed: 1\n  pik: PAPER_EXTRAPOLATED"), test::scratchDir().string())
                .config.controller()
                .pik(),
            proto::ControllerSettings::PAPER_EXTRAPOLATED);
}

// A key's share of the bridge's sessions: 8 unless set, never more than the sessions there are.
TEST(ClusterConfig, AKeysSessionQuotaDefaultsToEightAndStaysWithinTheSessions) {
  EXPECT_EQ(loadClusterConfig(shipped("local.textproto"), test::scratchDir().string()).config.bridge_sessions_per_key(),
            8u);
  const std::string few = variant("bridge_queue: 64", "bridge_queue: 64\nbridge_sessions: 3");
  EXPECT_EQ(loadClusterConfig(few, test::scratchDir().string()).config.bridge_sessions_per_key(), 3u);
  const std::string why =
      refusal(variant("bridge_queue: 64", "bridge_queue: 64\nbridge_sessions: 16\nbridge_sessions_per_key: 17"));
  EXPECT_NE(why.find("bridge_sessions_per_key: must be 1 .. bridge_sessions (16), got 17"), std::string::npos) << why;
}

TEST(ClusterConfig, EndpointsAreCheckedOneByOneAndMustDiffer) {
  std::string why = refusal(variant("\"ipc://{run}/arm.pub\"", "\"tcp://127.0.0.1:99999\""));
  EXPECT_NE(why.find("arm_pub: 'tcp://127.0.0.1:99999': the port '99999' is not 1 .. 65535"), std::string::npos) << why;
  why = refusal(variant("\"ipc://{run}/arm.pub\"", "\"ipc://{run}/supervisor.pub\""));
  EXPECT_NE(why.find("arm_pub: '"), std::string::npos) << why;
  EXPECT_NE(why.find("is supervisor_pub's endpoint too"), std::string::npos) << why;
  why = refusal(variant("\"ipc://{run}/arm.pull\"", "\"ipc://{run}/" + std::string(120, 'x') + "\""));
  EXPECT_NE(why.find("arm_pull: "), std::string::npos) << why;
  EXPECT_NE(why.find("more than the 107 a socket path may have"), std::string::npos) << why;
  why = refusal(variant("\"ipc://{run}/arm.pull\"", "\"udp://127.0.0.1:5\""));
  EXPECT_NE(why.find("arm_pull: 'udp://127.0.0.1:5': not an ipc:// or tcp:// endpoint"), std::string::npos) << why;
  EXPECT_EQ(refusal(variant("\"ipc://{run}/arm.pull\"", "\"tcp://127.0.0.1:*\"")), "") << "any free port";
  // Issue 54: an ipc endpoint in a folder that does not exist was neither used nor refused on a
  // cluster in shared memory (which binds none of them): refused, naming the folder.
  why = refusal(variant("\"ipc://{run}/supervisor.pub\"", "\"ipc:///no/such/folder/supervisor.pub\""));
  EXPECT_NE(
      why.find("supervisor_pub: 'ipc:///no/such/folder/supervisor.pub': its folder /no/such/folder does not exist"),
      std::string::npos)
      << why;
}

TEST(ClusterConfig, ADirectoryOrAnOverlongRobotPathIsRefusedByName) {
  const fs::path dir = test::scratchDir() / "config-directory";
  fs::create_directories(dir);
  EXPECT_EQ(refusal(dir.string()), dir.string() + ": cannot open cluster configuration: it is a directory");
  // A path longer than the system's limit used to end the node with an uncaught filesystem_error.
  const std::string why =
      refusal(variant("robot: \"../robots/puma260.textproto\"", "robot: \"/" + std::string(6000, 'r') + "\""));
  EXPECT_NE(why.find("File name too long"), std::string::npos) << why;
}

}  // namespace
}  // namespace rfms

namespace rfms {
namespace {

// The nodes' keys are found where the file says, relative to it, or in the run directory.
TEST(ClusterConfig, NodeKeysAreInTheRunDirectoryUnlessTheFileNamesThem) {
  const std::string run = test::scratchDir().string();
  const std::string plain = variant("clock: CM_LOCKSTEP", "clock: CM_LOCKSTEP");
  EXPECT_EQ(loadClusterConfig(plain, run).config.node_keys(), run + "/node-keys");
  const std::string named = variant("clock: CM_LOCKSTEP", "clock: CM_LOCKSTEP\nnode_keys: \"keys/cell-1\"");
  EXPECT_EQ(loadClusterConfig(named, run).config.node_keys(),
            (fs::path(named).parent_path() / "keys/cell-1").lexically_normal().string());
  const std::string in_run = variant("clock: CM_LOCKSTEP", "clock: CM_LOCKSTEP\nnode_keys: \"{run}/k\"");
  EXPECT_EQ(loadClusterConfig(in_run, run).config.node_keys(), run + "/k");
}

}  // namespace
}  // namespace rfms
