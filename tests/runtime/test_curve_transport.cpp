// The transport of a cluster node: CURVE on tcp endpoints with the node keys (runtime/node_keys.hpp,
// runtime/curve_guard.hpp), and ipc endpoints only in private directories. Real sockets on loopback,
// ports chosen by the system.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <spdlog/sinks/ostream_sink.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/error.hpp"
#include "runtime/node_keys.hpp"
#include "runtime/transport.hpp"
#include "tests/support/temp_dir.hpp"

namespace rfms {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string readAll(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A logger whose lines the test reads.
struct CapturedLog {
  std::ostringstream text;
  std::shared_ptr<spdlog::logger> log =
      std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::ostream_sink_mt>(text));
  std::string lines() {
    log->flush();
    return text.str();
  }
};

// One node key directory for all tests of this process.
const fs::path& clusterKeys() {
  static const fs::path dir = [] {
    const fs::path d = test::scratchDir() / "node-keys";
    makeNodeKeys(d.string());
    return d;
  }();
  return dir;
}

// A publisher the test keeps publishing on, and whether a subscriber hears it within `timeout`.
bool hears(zmq::socket_t& pub, zmq::socket_t& sub, Transport& subscriber, std::chrono::milliseconds timeout,
           std::string* refusal = nullptr) {
  const auto end = Clock::now() + timeout;
  while (Clock::now() < end) {
    pub.send(zmq::str_buffer("C"), zmq::send_flags::sndmore);
    pub.send(zmq::str_buffer("hello"), zmq::send_flags::none);
    zmq::message_t topic, body;
    if (pollAny({&sub}, 10) == 0 && sub.recv(topic, zmq::recv_flags::dontwait) && topic.more() &&
        sub.recv(body, zmq::recv_flags::none))
      return true;
    if (refusal != nullptr && refusal->empty()) *refusal = subscriber.refusal();
  }
  return false;
}

std::string boundEndpoint(zmq::socket_t& s) { return s.get(zmq::sockopt::last_endpoint); }

TEST(NodeKeys, EveryNodeLoadsItsOwnPairAndEveryonesPublicKey) {
  for (const char* n : kKeyedNodes) {
    const NodeKeys k = loadNodeKeys(clusterKeys().string(), n);
    EXPECT_EQ(k.me, n);
    EXPECT_EQ(k.nodes.size(), kKeyedNodes.size());
    ASSERT_NE(k.publicKeyOf(n), nullptr);
    EXPECT_EQ(*k.publicKeyOf(n), k.mine.public_key);
    EXPECT_EQ(k.nameOf(k.mine.public_key), n);
  }
  struct stat st {};
  ASSERT_EQ(stat(clusterKeys().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 077, 0u) << "the key directory is its owner's alone";
  ASSERT_EQ(stat((clusterKeys() / "joint3.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 077, 0u);
  EXPECT_THROW(makeNodeKeys(clusterKeys().string()), ConfigError) << "keys are never replaced unasked";
}

TEST(NodeKeys, AreRefusedWithTheFileAndTheReason) {
  const fs::path d = test::makeUniqueDir("rfms-keys");
  auto why = [&](const std::string& node) -> std::string {
    try {
      loadNodeKeys(d.string(), node);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(why("joint3").find("node-keys.textproto"), std::string::npos) << why("joint3");  // no list
  fs::copy(clusterKeys(), d, fs::copy_options::overwrite_existing | fs::copy_options::recursive);
  EXPECT_EQ(why("joint3"), "");
  // Another node's pair in joint3's file: named, not a handshake that never succeeds.
  fs::copy_file(d / "joint4.key", d / "joint3.key", fs::copy_options::overwrite_existing);
  EXPECT_NE(why("joint3").find("joint3.key: not the key"), std::string::npos) << why("joint3");
  const std::string list = readAll(d / kNodeKeyList);
  auto withList = [&](const std::string& text) { std::ofstream(d / kNodeKeyList) << text; };
  withList(list + "node { name: \"joint9\" public_key: \"00\" }\n");
  EXPECT_NE(why("arm").find("'joint9'): not a node"), std::string::npos) << why("arm");
  withList(list + "node { name: \"arm\" public_key: \"00\" }\n");
  EXPECT_NE(why("arm").find("'arm'): listed twice"), std::string::npos) << why("arm");
  withList("node { name: \"arm\" public_key: \"xyz\" }\n");
  EXPECT_NE(why("arm").find("64 hex digits"), std::string::npos) << why("arm");
  withList("node { name: \"math\" public_key: \"" + std::string(64, 'a') + "\" }\nnode { name: \"arm\" public_key: \"" +
           std::string(64, 'a') + "\" }\n");
  EXPECT_NE(why("arm").find("the same key as math"), std::string::npos) << why("arm");
  fs::remove_all(d);
}

TEST(CurveTransport, ANodeOfTheClusterIsHeardOverTcp) {
  CapturedLog log;
  Transport supervisor(loadNodeKeys(clusterKeys().string(), "supervisor"), {}, *log.log);
  zmq::socket_t pub = supervisor.bindPublisher("tcp://127.0.0.1:*");
  const std::string endpoint = boundEndpoint(pub);
  Transport joint(loadNodeKeys(clusterKeys().string(), "joint1"), {{endpoint, "supervisor"}}, *log.log);
  zmq::socket_t sub = joint.connectSubscriber(endpoint, "C");
  EXPECT_TRUE(hears(pub, sub, joint, std::chrono::seconds(30)));
  EXPECT_EQ(joint.refusal(), "");
  EXPECT_EQ(log.lines().find("refused"), std::string::npos) << log.lines();
}

// A key of another cluster (a node given the wrong key file): the binder refuses it and logs the
// address and key; the node learns that its key was refused, and by whom.
TEST(CurveTransport, AKeyTheClusterDoesNotListIsRefusedAndBothSidesSaySo) {
  CapturedLog server_log, client_log;
  Transport supervisor(loadNodeKeys(clusterKeys().string(), "supervisor"), {}, *server_log.log);
  zmq::socket_t pub = supervisor.bindPublisher("tcp://127.0.0.1:*");
  const std::string endpoint = boundEndpoint(pub);
  const fs::path other = test::scratchDir() / "other-keys";
  if (!fs::exists(other)) makeNodeKeys(other.string());
  NodeKeys stranger = loadNodeKeys(clusterKeys().string(), "joint1");
  stranger.mine = loadNodeKeys(other.string(), "joint1").mine;  // it knows the supervisor's key, not its own
  Transport joint(stranger, {{endpoint, "supervisor"}}, *client_log.log);
  zmq::socket_t sub = joint.connectSubscriber(endpoint, "C");
  std::string refusal;
  const auto end = Clock::now() + std::chrono::seconds(30);
  while (refusal.empty() && Clock::now() < end)
    EXPECT_FALSE(hears(pub, sub, joint, std::chrono::milliseconds(50), &refusal));
  EXPECT_NE(refusal.find("supervisor at " + endpoint + " refused this node's key"), std::string::npos) << refusal;
  EXPECT_NE(server_log.lines().find("refused a connection to the mail endpoints from 127.0.0.1"), std::string::npos)
      << server_log.lines();
  EXPECT_NE(server_log.lines().find("is not one of the cluster's node keys"), std::string::npos) << server_log.lines();
}

// The bridge's key opens the task endpoint and nothing else; a node's key does not open it.
TEST(CurveTransport, TheTaskEndpointAdmitsTheBridgeAloneAndTheMailEndpointsEveryNodeButIt) {
  const NodeKeys keys = loadNodeKeys(clusterKeys().string(), "supervisor");
  for (const char* n : kKeyedNodes) {
    const Key& k = *keys.publicKeyOf(n);
    EXPECT_EQ(admittedAs(keys, kTaskDomain, k), std::string(n) == "bridge" ? "bridge" : "") << n;
    EXPECT_EQ(admittedAs(keys, kMailDomain, k), std::string(n) == "bridge" ? "" : n) << n;
  }
  EXPECT_EQ(admittedAs(keys, "another-domain", *keys.publicKeyOf("arm")), "");
  CapturedLog log;
  Transport supervisor(keys, {}, *log.log);
  zmq::socket_t pub = supervisor.bindPublisher("tcp://127.0.0.1:*");
  const std::string endpoint = boundEndpoint(pub);
  Transport bridge(loadNodeKeys(clusterKeys().string(), "bridge"), {{endpoint, "supervisor"}}, *log.log);
  zmq::socket_t sub = bridge.connectSubscriber(endpoint, "C");
  std::string refusal;
  const auto end = Clock::now() + std::chrono::seconds(30);
  while (refusal.empty() && Clock::now() < end)
    EXPECT_FALSE(hears(pub, sub, bridge, std::chrono::milliseconds(50), &refusal));
  EXPECT_NE(refusal.find("refused this node's key"), std::string::npos) << refusal;
  EXPECT_NE(log.lines().find("the key of bridge, which may not connect here"), std::string::npos) << log.lines();
}

// What a stranger without keys meets: the server's greeting names CURVE as the only mechanism, so
// nothing travels in clear; a ZeroMQ client without keys hears nothing.
TEST(CurveTransport, AClientWithoutKeysMeetsCurveAndHearsNothing) {
  CapturedLog log;
  Transport supervisor(loadNodeKeys(clusterKeys().string(), "supervisor"), {}, *log.log);
  zmq::socket_t pub = supervisor.bindPublisher("tcp://127.0.0.1:*");
  const std::string endpoint = boundEndpoint(pub);
  const int port = std::stoi(endpoint.substr(endpoint.rfind(':') + 1));

  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  timeval tv{10, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<std::uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to), 0);
  // ZMTP 3: a 64-byte greeting each way; the mechanism's name is at bytes 12 .. 31. The signature
  // and major version are enough for the server to send all of its own.
  const unsigned char start[11] = {0xFF, 0, 0, 0, 0, 0, 0, 0, 1, 0x7F, 3};
  ASSERT_EQ(write(fd, start, sizeof start), static_cast<ssize_t>(sizeof start));
  unsigned char theirs[64] = {};
  std::size_t got = 0;
  while (got < sizeof theirs) {
    const ssize_t n = read(fd, theirs + got, sizeof theirs - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  close(fd);
  ASSERT_GE(got, 32u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(theirs + 12), 5), "CURVE");

  Transport plain;
  zmq::socket_t sub = plain.connectSubscriber(endpoint, "C");
  EXPECT_FALSE(hears(pub, sub, plain, std::chrono::milliseconds(500)));
}

TEST(CurveTransport, AnIpcEndpointIsBoundOnlyInADirectoryNoOtherUserCanOpen) {
  const fs::path d = test::makeUniqueDir("rfms-ipc");
  EXPECT_EQ(ipcDirectoryProblem("ipc://" + (d / "a.pub").string()), "");
  ASSERT_EQ(chmod(d.c_str(), 0755), 0);
  const std::string why = ipcDirectoryProblem("ipc://" + (d / "a.pub").string());
  EXPECT_NE(why.find("may be opened by other users (mode 0755; chmod 700 it)"), std::string::npos) << why;
  CapturedLog log;
  Transport node(NodeKeys{}, {}, *log.log);
  try {
    node.bindPublisher("ipc://" + (d / "a.pub").string());
    ADD_FAILURE() << "bound in an open directory";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("must be in a directory only this user can open"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(d / "a.pub"));
  ASSERT_EQ(chmod(d.c_str(), 0700), 0);
  EXPECT_NO_THROW(node.bindPublisher("ipc://" + (d / "b.pub").string()));
  fs::remove_all(d);
}

}  // namespace
}  // namespace rfms
