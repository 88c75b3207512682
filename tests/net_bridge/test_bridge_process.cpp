// rfms-bridge and rfms-client as processes, on a cluster started by deploy/rfms, over loopback.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "client/remote_task.hpp"
#include "client/rfms_client.hpp"
#include "client/rfms_task.h"
#include "client/signal_watcher.hpp"
#include "client/task_link.hpp"
#include "common/mail_codec.hpp"
#include "net_bridge/udp_socket.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/cluster_run.hpp"
#include "tests/support/files.hpp"
#include "tests/support/process_group.hpp"
#include "tests/support/process_paths.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir.hpp"

namespace rfms {
namespace {

namespace fs = std::filesystem;
using test::kBin;
using test::kRfms;
using test::readFile;

// A UDP port nobody is using now.
int freePort() { return UdpSocket::bound("127.0.0.1", 0).port(); }

// A cluster with its bridge, stopped and removed whatever the test does. Without its view: the
// view holds a session of the observer's key, and these tests count the bridge's sessions. Its
// lockstep timeout is patient (5 s), so that a busy machine delays its periods rather than running
// one without a node's mail: its log then verifies whole. The bridge's port is the one the
// operating system gave it (bridge.port in the run directory).
struct Cluster {
  fs::path run;
  int port = 0;
  explicit Cluster(const std::string& name, const std::string& clock = "lockstep")
      : run(test::makeUniqueDir("rfms-" + name)) {
    const std::string config =
        test::configWith(run, "patient.textproto", {{"lockstep_timeout_ms: 100", "lockstep_timeout_ms: 5000"}});
    const test::Outcome up = test::runCommand(
        kRfms,
        "up --no-view --clock " + clock + " --config " + config + " --run-dir " + run.string() + " --bridge-port 0",
        60);
    EXPECT_EQ(up.code, 0) << up.err;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (port == 0 && std::chrono::steady_clock::now() < until) {
      const std::string written = readFile(run / "bridge.port");
      if (!written.empty() && written.back() == '\n') port = std::stoi(written);
      if (port == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_NE(port, 0) << "the bridge wrote no port within 30 s:\n" << readFile(run / "bridge.log");
  }
  ~Cluster() {
    test::runCommand(kRfms, "down " + run.string(), 60);
    fs::remove_all(run);
  }
  std::string bridge() const { return "127.0.0.1:" + std::to_string(port); }
  // The keys deploy/rfms up made for the run.
  std::string key(const std::string& who = "operator") const { return (run / "keys" / (who + ".key")).string(); }
  // Stops the cluster and re-runs the log its supervisor left: remote requests included, it must
  // come out the same, whole (the requests only the remote desk answered are not the core's to
  // repeat).
  void expectTheLogVerifies() const {
    ASSERT_EQ(test::runCommand(kRfms, "down " + run.string(), 60).code, 0);
    const test::Outcome v = test::runCommand(kBin + "/rfms-replay", "verify " + (run / "run.mcap").string(), 300);
    EXPECT_EQ(v.code, 0) << v.out << v.err;
  }
};

ClientOptions quickLink(const Cluster& c, const std::string& who = "operator") {
  ClientOptions o;
  o.bridge = c.bridge();
  o.key_file = c.key(who);
  o.link.timeout_s = 0.02;
  o.link.max_tries = 500;  // 10 s: long enough to ride out a bridge restart
  return o;
}

TEST(BridgeProcess, AClientRunsATaskFileOnAPacedCluster) {
  Cluster c("bridge-task", "paced");
  RfmsClient client(quickLink(c));
  const auto task = loadTaskFile(std::string(RFMS_SOURCE_DIR) + "/examples/line.task");
  const RemoteTaskResult r = runRemoteTask(client, task, "line");
  EXPECT_TRUE(r.ok()) << r.failure << (r.refused.empty() ? "" : r.refused.front());
  ASSERT_EQ(r.moves.size(), 2u);  // r.moves.back() below
  const ArmStatus s = client.status();
  EXPECT_TRUE(s.calibrated);
  EXPECT_EQ(s.ended_through, r.moves.back());
  EXPECT_EQ(s.task, "");  // closed
  // The arm is where the task's last position put it (low: 220, -126.24, -20 mm).
  EXPECT_NEAR(s.t6.translation().z(), -0.020, 0.001);
  EXPECT_GT(s.link.frames_in, 0u);
  c.expectTheLogVerifies();
}

TEST(BridgeProcess, ABridgeKilledAndRestartedMidStreamLosesNothingAndAppliesNothingTwice) {
  Cluster c("bridge-restart");
  RfmsClient client(quickLink(c));
  test::ProcessGroup g;
  for (std::uint64_t n = 1; n <= 150; ++n) {
    if (n == 50) {
      // Kill the bridge without warning and start a new one on the same port.
      const pid_t old = std::stoi(readFile(c.run / "bridge.pid"));
      ASSERT_EQ(kill(old, SIGKILL), 0);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      g.start({kBin + "/rfms-bridge", "--config", (c.run / "cluster.textproto").string(), "--run-dir", c.run.string(),
               "--port", std::to_string(c.port)},
              (c.run / "bridge2.log").string());
    }
    proto::TaskRequest r;
    r.mutable_transform()->set_name("track");
    encode(trans(0.001 * static_cast<double>(n), 0.0, 0.0), *r.mutable_transform()->mutable_value());
    const proto::TaskReply reply = client.wire().send(r);
    ASSERT_TRUE(reply.accepted()) << reply.reason();
    ASSERT_EQ(reply.handled(), n) << "request " << n;
  }
  EXPECT_GE(client.wire().link().counts().handshakes, 2u);
  c.expectTheLogVerifies();
}

TEST(BridgeProcess, ThePickAndPlaceExampleRuns) {
  Cluster c("bridge-example");
  const test::Outcome r = test::runCommand(kBin + "/rfms-example-pick_place",
                                           "--bridge " + c.bridge() + " --key " + c.key() + " --cycles 1", 300);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("moved 1 part(s)"), std::string::npos) << r.out;
}

// The manual's pumatask(), compiled as C against client/rfms_task.h, on a paced cluster: it
// complies along z on the spot and returns home. Then the same interface from this process, with
// T6 on the right-hand side and a transform the supervisor refuses.
TEST(BridgeProcess, TheManualsPumataskCompiledAsCRunsOnAPacedCluster) {
  Cluster c("bridge-pumatask-c", "paced");
  const test::Outcome r =
      test::runCommand(kBin + "/rfms-example-pumatask-c", "--bridge " + c.bridge() + " --key " + c.key(), 300);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("pumatask: done, 0 call(s) refused"), std::string::npos) << r.out;
  RfmsClient client(quickLink(c));
  const ArmStatus s = client.status();
  EXPECT_EQ(s.ended_through, 2u);
  EXPECT_EQ(s.task, "");  // closed by the manual's main()
  Transform arm = s.t6;   // not "t6": that name is the manual's, the handle of the arm's own transform
  EXPECT_LT((arm.translation() - Vec3(0.2032, -0.12623, 0.2032)).norm(), 1e-3) << arm.translation().transpose();

  ASSERT_EQ(rfms_open(c.bridge().c_str(), c.key().c_str(), "c-api"), 0) << rfms_last_refusal();
  const int refused = rfms_refusals();
  TRSF* low = gentr_rpy("low", 220.0, -126.24, 260.0, 0, 90, 0);  // the hand pointing forward
  ASSERT_NE(low, nullptr) << rfms_last_refusal();
  EXPECT_EQ(gentr_rpy("low", 220.0, -126.24, 230.0, 0, 90, 0), low);  // redefined: the same handle
  PST* p = makepst("p_low", RIGHT, DOWN, FLIP, low, EQ, t6, TL, t6);
  ASSERT_NE(p, nullptr) << rfms_last_refusal();
  MOT* m = makemot(1.5, 0.2, JNT, 0);
  ASSERT_NE(m, nullptr) << rfms_last_refusal();
  EXPECT_EQ(makemot(1.5, 0.2, JNT, 0), m);  // the same record, the same handle
  EXPECT_EQ(makepst("p_low", RIGHT, DOWN, FLIP, low, EQ, t6, TL, t6), p);
  EXPECT_EQ(waitmove(move(p, m)), 0) << rfms_last_refusal();
  EXPECT_EQ(gentr_trsl("far", 5000, 0, 0), gentr_trsl("far", 5000, 0, 0));  // defining is not reaching
  PST* far = makepst("p_far", RIGHT, DOWN, FLIP, t6, EQ, gentr_trsl("far", 5000, 0, 0), TL, t6);
  ASSERT_NE(far, nullptr);
  EXPECT_EQ(move(far, m), 0);  // out of reach: refused by the supervisor, with its reason
  EXPECT_EQ(rfms_refusals(), refused + 1);
  EXPECT_EQ(rfms_last_refusal_code(), RFMS_REFUSED_UNREACHABLE) << rfms_last_refusal();
  EXPECT_STREQ(rfms_refusal_name(rfms_last_refusal_code()), "unreachable");
  EXPECT_EQ(move(nullptr, m), 0);  // an argument the library refuses itself
  EXPECT_EQ(rfms_last_refusal_code(), RFMS_REFUSED_INVALID) << rfms_last_refusal();
  EXPECT_EQ(rfms_close(), 0);
  arm = client.status().t6;
  EXPECT_NEAR(arm.translation().z(), 0.230, 1e-3);
  c.expectTheLogVerifies();
}

TEST(BridgeProcess, OnlyTheKeysItAdmitsCommandTheArmEachAsItsRoleAllows) {
  Cluster c("bridge-keys");
  const std::string link = "--bridge " + c.bridge() + " --tries 50 --link-timeout-ms 20 ";
  // No key of the run's: refused at the handshake, with the reason.
  const test::Outcome stranger = test::runCommand(kBin + "/rfms-client", link + "status");
  EXPECT_EQ(stranger.code, 1);
  EXPECT_NE(stranger.err.find("not among the bridge's allowed keys"), std::string::npos) << stranger.err;
  // The observer sees, and may stop, but may not calibrate.
  const std::string eye = link + "--key " + c.key("observer") + " ";
  EXPECT_EQ(test::runCommand(kBin + "/rfms-client", eye + "status").code, 0);
  EXPECT_EQ(test::runCommand(kBin + "/rfms-client", eye + "stop").code, 0);
  const test::Outcome refused = test::runCommand(kBin + "/rfms-client", eye + "calibrate");
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("[not_permitted]"), std::string::npos) << refused.err;
  // The operator calibrates (in a task of its own that rfms-client opens and closes).
  const test::Outcome op = test::runCommand(kBin + "/rfms-client", link + "--key " + c.key() + " calibrate", 120);
  EXPECT_EQ(op.code, 0) << op.err;
  const test::Outcome status = test::runCommand(kBin + "/rfms-client", eye + "status");
  EXPECT_NE(status.out.find("calibrated"), std::string::npos) << status.out;
  EXPECT_EQ(status.out.find("not calibrated"), std::string::npos) << status.out;
  // The stranger's three HELLOs: a checksummed refusal is final for a client only when it comes
  // three waits in a row (ClientLinkCore::kFinalRefusals; anyone on the path could forge one).
  EXPECT_NE(status.out.find("3 handshakes refused"), std::string::npos) << status.out;
}

// Keys change while the bridge runs (deploy/rfms reload-keys, a SIGHUP): a key removed from
// link_keys loses its sessions and is refused from then on, a key added is admitted, and a file
// that does not load changes nothing.
TEST(BridgeProcess, KeysAddedAndRevokedWithoutARestart) {
  Cluster c("bridge-reload");
  const std::string link = "--bridge " + c.bridge() + " --tries 50 --link-timeout-ms 20 ";
  const fs::path allowed = c.run / "keys" / "allowed-keys.textproto";
  ASSERT_EQ(test::runCommand(kBin + "/rfms-client", link + "--key " + c.key("observer") + " status").code, 0);
  // The observer's line goes; a camera's key is added (rfms-keys appends its line).
  std::string text = test::readFile(allowed);
  const auto line = text.find("client { name: \"observer\"");
  ASSERT_NE(line, std::string::npos) << text;
  text.erase(line, text.find('\n', line) + 1 - line);
  std::ofstream(allowed) << text;
  ASSERT_EQ(test::runCommand(kRfms, "keys " + (c.run / "keys").string() + " camera --role observer").code, 0);
  const test::Outcome reload = test::runCommand(kRfms, "reload-keys " + c.run.string(), 30);
  ASSERT_EQ(reload.code, 0) << reload.out << reload.err;
  EXPECT_NE(reload.out.find("keys reloaded from " + allowed.string() +
                            ": 2 client keys; 1 sessions of keys no longer "
                            "admitted closed"),
            std::string::npos)
      << reload.out;
  const test::Outcome revoked =
      test::runCommand(kBin + "/rfms-client", link + "--key " + c.key("observer") + " status");
  EXPECT_EQ(revoked.code, 1);
  EXPECT_NE(revoked.err.find("not among the bridge's allowed keys"), std::string::npos) << revoked.err;
  EXPECT_EQ(test::runCommand(kBin + "/rfms-client", link + "--key " + c.key("camera") + " status").code, 0);
  // A file that does not load: said so, and the keys stay as they were.
  std::ofstream(allowed, std::ios::app) << "client { name: \"broken\" public_key: \"not hex\" }\n";
  const test::Outcome broken = test::runCommand(kRfms, "reload-keys " + c.run.string(), 30);
  EXPECT_EQ(broken.code, 1);
  EXPECT_NE(broken.out.find("keys not reloaded"), std::string::npos) << broken.out << broken.err;
  EXPECT_EQ(test::runCommand(kBin + "/rfms-client", link + "--key " + c.key("camera") + " status").code, 0);
  EXPECT_EQ(test::runCommand(kBin + "/rfms-client", link + "--key " + c.key() + " status").code, 0);
}

// Issue 54: a key removed by reload-keys with two moves queued kept the arm until both had run
// (17 s). Revoking a key ends its task: the running move stops, the queued one never starts, and
// the task no longer holds the arm.
TEST(BridgeProcess, ARevokedKeysTaskEndsItsMoveStopsAndItsQueueIsDropped) {
  Cluster c("bridge-revoke", "paced");
  RfmsClient op(quickLink(c));
  op.beginTask("slow");
  op.calibrate();
  // examples/line.task's two positions, a joint move of 6 s between them and back.
  const double pi = 3.14159265358979323846;
  op.transform("top", trans(0.220, -0.12624, 0.280) * rpy(0.0, pi / 2, 0.0));
  op.transform("low", trans(0.220, -0.12624, -0.020) * rpy(0.0, pi / 2, 0.0));
  op.position("a", ArmConfig{.righty = true, .up = false, .flip = true}, {"T6"}, {"low"});
  op.position("b", ArmConfig{.righty = true, .up = false, .flip = true}, {"T6"}, {"top"});
  op.motion("slow", Motion::joint(6.0, 1.0));
  const std::uint64_t first = op.move("a", "slow");
  const std::uint64_t second = op.move("b", "slow");
  RfmsClient eye(quickLink(c, "observer"));
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (eye.status().state != ArmState::kSetp && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(eye.status().state, ArmState::kSetp);
  // The operator's line goes.
  const fs::path allowed = c.run / "keys" / "allowed-keys.textproto";
  std::string text = test::readFile(allowed);
  const auto line = text.find("client { name: \"operator\"");
  ASSERT_NE(line, std::string::npos) << text;
  text.erase(line, text.find('\n', line) + 1 - line);
  std::ofstream(allowed) << text;
  const auto revoked_at = std::chrono::steady_clock::now();
  const test::Outcome reload = test::runCommand(kRfms, "reload-keys " + c.run.string(), 30);
  ASSERT_EQ(reload.code, 0) << reload.out << reload.err;
  ArmStatus s = eye.status();
  while ((s.state != ArmState::kHold || s.moves_queued != 0) && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    s = eye.status();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - revoked_at).count();
  std::printf("the revoked key's task ended: the arm at rest %.2f s after reload-keys\n", seconds);
  EXPECT_EQ(s.state, ArmState::kHold);
  EXPECT_EQ(s.moves_queued, 0u);
  EXPECT_EQ(s.task, "");  // the arm is free for others
  EXPECT_GE(s.ended_through, second);
  bool first_aborted = false, second_ran = false;
  for (const MoveOutcome& m : s.recent_ended) {
    if (m.id == first) first_aborted = !m.completed;
    if (m.id == second) second_ran = m.completed;
  }
  EXPECT_TRUE(first_aborted) << "the running move was not stopped";
  EXPECT_FALSE(second_ran) << "the queued move ran";
}

// The operator's commands from rfms-client, in RFMS's order: a step jog before calibration
// (MANU from IDLE, counts), calibration from MANU, a step by angle, an emergency stop by the
// observer, a reset.
TEST(BridgeProcess, TheOperatorJogsBeforeCalibrationCalibratesStopsAndResets) {
  Cluster c("bridge-operator");
  const std::string op = "--bridge " + c.bridge() + " --key " + c.key() + " ";
  const std::string eye = "--bridge " + c.bridge() + " --key " + c.key("observer") + " ";
  auto run = [&](const std::string& who, const std::string& what) {
    const test::Outcome r = test::runCommand(kBin + "/rfms-client", who + what, 120);
    EXPECT_EQ(r.code, 0) << what << ": " << r.err;
    return r;
  };
  // The states as the observer's program sees them (the library's status); rfms-client's printed
  // form once, at the emergency.
  RfmsClient observer(quickLink(c, "observer"));
  auto state = [&] { return observer.status(); };
  // A program branches on the refusal's code, not its sentence.
  try {
    observer.calibrate();
    ADD_FAILURE() << "an observer's key calibrated the arm";
  } catch (const RequestRefused& e) {
    EXPECT_EQ(e.code(), RefusalCode::kNotPermitted) << e.what();
  }
  run(op, "jog 2 + counts 400");
  EXPECT_EQ(state().state, ArmState::kManu) << nameOf(state().state);
  EXPECT_FALSE(state().calibrated);
  const test::Outcome deg = test::runCommand(kBin + "/rfms-client", op + "jog 2 + angle 2", 60);
  EXPECT_EQ(deg.code, 1);
  EXPECT_NE(deg.err.find("[not_calibrated]"), std::string::npos) << deg.err;
  run(op, "calibrate");
  EXPECT_TRUE(state().calibrated);
  // The wrist along the base's z, then stopped: the controller is back in HOLD.
  run(op, "jog z - distance 1");
  EXPECT_EQ(state().state, ArmState::kSetp) << nameOf(state().state);
  run(op, "stop");
  for (int n = 0; n < 100 && state().state != ArmState::kHold; ++n)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(state().state, ArmState::kHold) << nameOf(state().state);
  const test::Outcome mixed = test::runCommand(kBin + "/rfms-client", op + "jog z - counts 2", 60);
  EXPECT_EQ(mixed.code, 2);  // refused before the link, as the task file refuses it
  EXPECT_NE(mixed.err.find("jog"), std::string::npos) << mixed.err;
  const test::Outcome old = test::runCommand(kBin + "/rfms-client", op + "step 3 - --deg 2", 60);
  EXPECT_EQ(old.code, 2);  // a spelling rfms-client once had: refused, naming the new one
  EXPECT_NE(old.err.find("'step' is now a jog with its size"), std::string::npos) << old.err;
  run(op, "jog 3 - angle 2");
  EXPECT_EQ(state().state, ArmState::kManu) << nameOf(state().state);
  run(eye, "emergency-stop");  // anyone admitted may
  const ArmStatus stopped = state();
  EXPECT_EQ(stopped.state, ArmState::kEmgcy) << nameOf(stopped.state);
  EXPECT_EQ(stopped.reason, EmergencyReason::kOperator) << describe(stopped.reason);
  EXPECT_EQ(stopped.reason_node, ClusterNode::kSupervisor) << nameOf(stopped.reason_node);
  const std::string printed = run(eye, "status").out;
  EXPECT_NE(printed.find("state EMGCY"), std::string::npos) << printed;
  EXPECT_NE(printed.find("emergency: emergency stop requested (supervisor)"), std::string::npos) << printed;
  run(op, "reset");
  EXPECT_EQ(state().state, ArmState::kIdle) << nameOf(state().state);
  // watch: a line a sample when not on a terminal, for as long as told.
  const std::string watched = run(eye, "watch --rate 10 --seconds 0.5").out;
  EXPECT_GE(std::count(watched.begin(), watched.end(), '\n'), 3) << watched;
  EXPECT_NE(watched.find("RFMS IDLE  calibrated"), std::string::npos) << watched;
}

// debug(): an observer's program watches a joint's angle and the trajectory's state at 50 Hz while
// the operator's task moves the arm. The samples come at the controller's pace, none dropped, and
// show the move; rfms-client watch prints them; a signal that does not exist is refused by name.
TEST(BridgeProcess, AProgramWatchesSignalsWhileTheArmMoves) {
  Cluster c("bridge-watch", "paced");
  ClientOptions eye = quickLink(c);
  eye.key_file = c.key("observer");
  std::mutex m;
  std::vector<WatchedSample> got;
  {
    SignalWatcher watcher(eye, {"jmail.1.angle", "smail.traj_state"}, 50.0, [&](const WatchedSample& s) {
      std::lock_guard<std::mutex> lock(m);
      got.push_back(s);
    });
    RfmsClient op(quickLink(c));
    const RemoteTaskResult r =
        runRemoteTask(op, loadTaskFile(std::string(RFMS_SOURCE_DIR) + "/examples/line.task"), "line");
    ASSERT_TRUE(r.ok()) << r.failure;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(watcher.error(), "");
    EXPECT_EQ(watcher.dropped(), 0u);
    EXPECT_DOUBLE_EQ(watcher.rateHz(), 50.0);
  }
  std::lock_guard<std::mutex> lock(m);
  ASSERT_GT(got.size(), 100u);
  double lo = got.front().values[0], hi = lo;
  std::set<double> states;
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].values.size(), 2u);
    if (i > 0) {
      ASSERT_EQ(got[i].period, got[i - 1].period + 20) << "sample " << i;  // every one, in order
    }
    lo = std::min(lo, got[i].values[0]);
    hi = std::max(hi, got[i].values[0]);
    states.insert(got[i].values[1]);
  }
  EXPECT_GT(hi - lo, 0.01);      // joint 1 moved while watched
  EXPECT_GE(states.size(), 3u);  // and the trajectory went through its states
  const std::string link = "--bridge " + c.bridge() + " --key " + c.key("observer") + " ";
  const test::Outcome printed =
      test::runCommand(kBin + "/rfms-client", link + "watch jmail.1.angle smail.rtstate --rate 100 --seconds 1", 60);
  EXPECT_EQ(printed.code, 0) << printed.err;
  EXPECT_EQ(printed.out.rfind("# time_s period jmail.1.angle smail.rtstate\n", 0), 0u) << printed.out;
  // One sample each 10 periods, in order: how many a second of wall time holds is the machine's
  // business (a paced cluster beside busy programs runs slower than real time).
  std::istringstream rows(printed.out.substr(printed.out.find('\n') + 1));
  std::uint64_t previous = 0, count = 0;
  for (std::string row; std::getline(rows, row); ++count) {
    std::istringstream fields(row);
    double t = 0;
    std::uint64_t period = 0;
    fields >> t >> period;
    if (count > 0) {
      EXPECT_EQ(period, previous + 10) << printed.out;
    }
    previous = period;
  }
  EXPECT_GE(count, 2u) << printed.out;
  const test::Outcome typo = test::runCommand(kBin + "/rfms-client", link + "watch jmail.1.angel --seconds 1", 60);
  EXPECT_EQ(typo.code, 1);
  EXPECT_NE(typo.err.find("has no field 'angel'"), std::string::npos) << typo.err;
  c.expectTheLogVerifies();  // watching changed nothing the controller computes
}

// A terminal the test drives as a person would: tmux on a socket of the test's own, keys sent,
// the screen read; killed whatever the test does.
struct Terminal {
  std::string socket;
  explicit Terminal(const fs::path& dir, const std::string& command) : socket((dir / "tmux.sock").string()) {
    const test::Outcome r =
        test::runCommand("tmux", "-S " + socket + " new-session -d -x 120 -y 30 '" + command + "'", 10);
    EXPECT_EQ(r.code, 0) << r.err;
  }
  ~Terminal() { test::runCommand("tmux", "-S " + socket + " kill-server", 10); }
  std::string screen() const { return test::runCommand("tmux", "-S " + socket + " capture-pane -p", 10).out; }
  void type(const std::string& line) const {
    test::runCommand("tmux", "-S " + socket + " send-keys -l '" + line + "'", 10);
    test::runCommand("tmux", "-S " + socket + " send-keys Enter", 10);
  }
  // Until the screen shows `text` (true) or `seconds` pass (false).
  bool shows(const std::string& text, double seconds) const {
    for (auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
         std::chrono::steady_clock::now() < until; std::this_thread::sleep_for(std::chrono::milliseconds(100)))
      if (screen().find(text) != std::string::npos) return true;
    return screen().find(text) != std::string::npos;
  }
  bool running() const { return test::runCommand("tmux", "-S " + socket + " has-session", 10).code == 0; }
};

// An operator drives the arm from rfms-client shell through a terminal: a step jog before
// calibration, calibration, a move defined and waited for, an emergency stop, a reset, quit. The
// status line at the top follows each step.
TEST(BridgeProcess, AnOperatorAtTheShellJogsCalibratesMovesStopsAndResets) {
  Cluster c("bridge-shell");
  Terminal t(c.run, kBin + "/rfms-client --bridge " + c.bridge() + " --key " + c.key() + " shell");
  ASSERT_TRUE(t.shows("rfms>", 20)) << t.screen();  // the screen as read has no trailing blanks
  EXPECT_TRUE(t.shows("not calibrated", 10)) << t.screen();
  t.type("jog 2 + counts 400");
  EXPECT_TRUE(t.shows("RFMS MANU", 20)) << t.screen();
  t.type("calibrate");
  ASSERT_TRUE(t.shows("RFMS HOLD  calibrated", 120)) << t.screen();
  t.type("transform t2 trans 203.2 -126.23 203.2");
  t.type("position home righty,down,flip T6 = t2");
  t.type("motion mj joint 2 0.2");
  t.type("move home mj");
  EXPECT_TRUE(t.shows("move 1 queued", 20)) << t.screen();
  t.type("wait");
  EXPECT_TRUE(t.shows("every move has ended", 120)) << t.screen();
  EXPECT_TRUE(t.shows("moves 1/1", 10)) << t.screen();
  // Issue 57: at the manual's home pose the wrist is at its singularity, and a step up ends short.
  // The shell says so where the step was asked for (it answered "ok" before).
  t.type("jog z + distance 20");
  EXPECT_TRUE(t.shows("step: ", 60)) << t.screen();
  EXPECT_TRUE(t.shows("mm of 20.0 mm along z; stopped short: ", 10)) << t.screen();
  t.type("move nowhere mj");
  EXPECT_TRUE(t.shows("refused: ", 20)) << t.screen();
  t.type("emergency-stop");
  EXPECT_TRUE(t.shows("RFMS EMGCY", 20)) << t.screen();
  t.type("reset");
  EXPECT_TRUE(t.shows("RFMS IDLE", 20)) << t.screen();
  t.type("quit");
  for (int n = 0; n < 100 && t.running(); ++n) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(t.running());
  RfmsClient client(quickLink(c));
  EXPECT_EQ(client.status().task, "");  // the shell closed its task
}

TEST(BridgeProcess, WithoutKeysItStartsOnlyWhenToldInsecureAndThenOnLoopbackOnly) {
  const fs::path dir = test::makeUniqueDir("rfms-bridge-nokeys");
  const std::string config = std::string(RFMS_SOURCE_DIR) + "/deploy/clusters/local.textproto";
  const std::string common = "--config " + config + " --run-dir " + dir.string() + " --port 0 ";
  const test::Outcome none = test::runCommand(kBin + "/rfms-bridge", common);
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("link_keys: missing"), std::string::npos) << none.err;
  const test::Outcome open = test::runCommand(kBin + "/rfms-bridge", common + "--insecure --host 0.0.0.0");
  EXPECT_EQ(open.code, 2);
  EXPECT_NE(open.err.find("loopback only"), std::string::npos) << open.err;
  fs::remove_all(dir);
}

// A client written in Python from docs/link-protocol.md and the .proto files alone: the document
// is enough to open a session, ask for status, send requests exactly once and start again.
TEST(BridgeProcess, AClientWrittenFromTheDocumentAloneTalksToTheBridge) {
  Cluster c("doc-client");
  const test::Outcome r = test::runCommand("/usr/bin/python3",
                                           std::string(RFMS_SOURCE_DIR) + "/tests/net_bridge/doc_client.py --key " +
                                               c.key() + " --port " + std::to_string(c.port),
                                           120);
  EXPECT_EQ(r.code, 0) << r.out << r.err << readFile(c.run / "bridge.log");
  EXPECT_NE(r.out.find("the document was enough"), std::string::npos) << r.out << r.err;
  // The same client as an attacker beside a victim, each on a socket of its own.
  const test::Outcome attacks =
      test::runCommand("/usr/bin/python3",
                       std::string(RFMS_SOURCE_DIR) + "/tests/net_bridge/doc_client.py --attacks --key " + c.key() +
                           " --observer-key " + c.key("observer") + " --port " + std::to_string(c.port),
                       120);
  EXPECT_EQ(attacks.code, 0) << attacks.out << attacks.err;
  EXPECT_NE(attacks.out.find("every attack was refused and counted"), std::string::npos) << attacks.out << attacks.err;
}

TEST(BridgeProcess, HelpAndClearErrors) {
  for (const auto& [exe, option] :
       {std::pair{"rfms-bridge", "--insecure"}, std::pair{"rfms-client", "--key"}, std::pair{"rfms-keys", "client"}}) {
    const test::Outcome help = test::runCommand(kBin + "/" + exe, "--help");
    EXPECT_EQ(help.code, 0) << exe;
    EXPECT_NE(help.out.find(option), std::string::npos) << exe << ": " << help.out;
  }
  const test::Outcome bad = test::runCommand(kBin + "/rfms-bridge", "--config /nonexistent.textproto");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("cannot open cluster configuration"), std::string::npos) << bad.err;
  // A bad task file is refused before the arm is touched (there is no bridge to touch here).
  const fs::path task = test::scratchDir() / "bad.task";
  std::ofstream(task) << "units mm deg\nmotion m joint soon 0.2\n";
  const test::Outcome parse = test::runCommand(kBin + "/rfms-client", "run " + task.string());
  EXPECT_EQ(parse.code, 2);
  EXPECT_NE(parse.err.find("bad.task:2:"), std::string::npos) << parse.err;
  // No bridge: the link gives up with one clear line.
  const test::Outcome none =
      test::runCommand(kBin + "/rfms-client",
                       "--bridge 127.0.0.1:" + std::to_string(freePort()) + " --tries 3 --link-timeout-ms 10 status");
  EXPECT_EQ(none.code, 1);
  EXPECT_NE(none.err.find("no answer from the bridge"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace rfms
