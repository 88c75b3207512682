// The distributed cluster: one process per node over ZeroMQ, started by deploy/rfms.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "common/mail_codec.hpp"
#include "common/robot_model_loader.hpp"
#include "harness/run_recording.hpp"
#include "harness/task_runner.hpp"
#include "replay/run_log_reader.hpp"
#include "replay/verify.hpp"
#include "runlog/run_logger.hpp"
#include "runtime/mail_ring.hpp"
#include "runtime/mail_segment.hpp"
#include "tests/support/build_paths.hpp"
#include "tests/support/cluster_run.hpp"
#include "tests/support/files.hpp"
#include "tests/support/free_ports.hpp"
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

bool waitForText(const fs::path& p, const std::string& text, std::chrono::seconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (readFile(p).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// `rfms-replay verify` of a run's log: its exit code (0 identical, 3 identical as far as the log
// goes), with what it printed for a failure message.
test::Outcome verifyRunLog(const fs::path& log) {
  return test::runCommand(kBin + "/rfms-replay", "verify " + log.string(), 300);
}

using test::configWith;
using test::eventsText;
using test::isEvent;
using test::RunDir;
using test::waitForEvent;
using Json = nlohmann::json;

// The run's first move has started; fails, saying why, when an emergency or the run's end came
// first (a node that never answers; a busy machine that stalled a realtime cluster past its
// watchdog): the case did not run, and a test that needs the move fails rather than skipping.
::testing::AssertionResult moveStarted(const fs::path& run, std::chrono::seconds timeout) {
  const std::optional<Json> e = waitForEvent(
      run, [](const Json& j) { return isEvent(j, "MOVE_STARTED") || isEvent(j, "EMERGENCY") || isEvent(j, "stopped"); },
      timeout);
  if (!e)
    return ::testing::AssertionFailure() << "no move started within " << timeout.count() << " s; events:\n"
                                         << eventsText(run) << "supervisor.log:\n"
                                         << readFile(run / "supervisor.log");
  if (!isEvent(*e, "MOVE_STARTED"))
    return ::testing::AssertionFailure() << (isEvent(*e, "stopped")
                                                 ? "the run stopped"
                                                 : "the run went to EMGCY (" + e->value("reason", "") + ", " +
                                                       e->value("node", "") + ") at period " + e->value("period", ""))
                                         << " before its first move started: the case could not run; events:\n"
                                         << eventsText(run);
  return ::testing::AssertionSuccess();
}

// The summary a task's run printed with the supervisor's --json (its line of JSON among the rest).
Json summaryOf(const std::string& out) {
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("{\"sim_time_s\"")) return Json::parse(line, nullptr, false);
  ADD_FAILURE() << "no JSON summary in what the run printed:\n" << out;
  return Json::object();
}

// The first emergency of the run, once it is in the event file.
std::optional<Json> emergency(const fs::path& run, std::chrono::seconds timeout) {
  return waitForEvent(
      run, [](const Json& j) { return isEvent(j, "EMERGENCY"); }, timeout);
}

std::string harnessDigest(const std::string& task = kExampleTask) {
  const RobotModel model = loadRobotModel(std::string(RFMS_SOURCE_DIR) + "/deploy/robots/puma260.textproto");
  Harness h(model, proto::ControllerSettings{},
            loadScene(std::string(RFMS_SOURCE_DIR) + "/deploy/scenes/table.textproto"));
  MailDigest digest;
  std::array<proto::JMail, kJoints> previous_jmail;
  proto::Parcel previous_parcel;
  // The mail the supervisor used and sent in each period, in the order the cluster's supervisor
  // adds it: sensors(k), J_MAIL(k-1) x6, PARCEL(k-1), S_MAIL(k), M_MAIL(k).
  h.on_period = [&](const PeriodMail& m) {
    digest.add(*m.sensors);
    if (m.k > 0) {
      for (const proto::JMail& j : previous_jmail) digest.add(j);
      digest.add(previous_parcel);
    }
    digest.add(*m.smail);
    digest.add(*m.mmail);
    for (int i = 0; i < kJoints; ++i)
      previous_jmail[static_cast<std::size_t>(i)] = *m.jmail[static_cast<std::size_t>(i)];
    previous_parcel = *m.parcel;
  };
  const RunSummary s = runTask(h, parseTaskFile(task, "task"), RunOptions{});
  EXPECT_TRUE(s.succeeded());
  return digest.hex();
}

TEST(Cluster, LockstepClusterExchangesTheHarnessesMailboxes) {
  RunDir run("lockstep");
  // A generous lockstep timeout: on a loaded machine a stall must not turn into a missed mail.
  const std::string config =
      configWith(run.path, "patient.textproto", {{"lockstep_timeout_ms: 100", "lockstep_timeout_ms: 5000"}});
  const fs::path digest = run.path / "digest";
  const test::Outcome r = test::runCommand(kRfms,
                                           "run --example --config " + config + " --run-dir " + run.path.string() +
                                               " -- --json --mail-digest " + digest.string(),
                                           300);
  ASSERT_EQ(r.code, 0) << r.out << r.err << readFile(run.path / "supervisor.log");
  const Json summary = summaryOf(r.out);
  ASSERT_EQ(summary.value("moves", Json::array()).size(), 2u) << r.out;
  EXPECT_EQ(summary["moves"][1].value("motion", ""), "mjnt") << r.out;
  EXPECT_TRUE(summary["moves"][1].value("completed", false)) << r.out;
  const Json misses = summary.value("misses", Json::object());
  EXPECT_EQ(misses.size(), 8u) << r.out;
  for (const auto& [node, count] : misses.items()) EXPECT_EQ(count, 0) << node << " missed its period: " << r.out;
  const std::string cluster = readFile(digest);
  ASSERT_EQ(cluster.size(), 17u) << cluster;
  EXPECT_EQ(cluster.substr(0, 16), harnessDigest());
  // The run log the supervisor left in the run directory re-runs identically in one process.
  const test::Outcome v = test::runCommand(kBin + "/rfms-replay", "verify " + (run.path / "run.mcap").string(), 300);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
  EXPECT_NE(v.out.find("verified: "), std::string::npos) << v.out;
  // The joints' torques reach the log through the arm's reports: six a period, all compared.
  const RunLog log = readRunLog((run.path / "run.mcap").string());
  EXPECT_GE(log.torque.size() + kJoints, kJoints * log.smail.size());
  EXPECT_EQ(log.applied.size(), log.torque.size() / kJoints);
}

// Today's industrial arms on the cluster in lockstep, named as a user names them
// (deploy/rfms run --robot gp7): each arm's example task ends where it was sent, and its run log
// (which carries that arm's model) re-runs identically in one process.
class IndustrialArmCluster : public ::testing::TestWithParam<const char*> {};

TEST_P(IndustrialArmCluster, RunsItsExampleTaskInLockstepAndItsLogVerifies) {
  const std::string arm = GetParam();
  RunDir run(arm.substr(0, 6));
  const std::string config =
      configWith(run.path, "patient.textproto", {{"lockstep_timeout_ms: 100", "lockstep_timeout_ms: 5000"}});
  const test::Outcome r =
      test::runCommand(kRfms,
                       "run --robot " + arm + " --task " + RFMS_SOURCE_DIR + "/examples/" + arm + ".task --config " +
                           config + " --run-dir " + run.path.string() + " --no-view -- --json",
                       300);
  ASSERT_EQ(r.code, 0) << r.out << r.err << readFile(run.path / "supervisor.log");
  const Json summary = summaryOf(r.out);
  EXPECT_TRUE(summary.value("completed", false)) << r.out;
  ASSERT_EQ(summary.value("moves", Json::array()).size(), 4u) << r.out;
  for (const Json& move : summary["moves"]) EXPECT_TRUE(move.value("completed", false)) << r.out;
  EXPECT_LT(summary.value("final_position_error_mm", 1e9), 0.1) << r.out;
  const RunLog log = readRunLog((run.path / "run.mcap").string());
  EXPECT_EQ(log.header.count("robot") ? log.header.at("robot") : "", arm);
  const test::Outcome v = verifyRunLog(run.path / "run.mcap");
  EXPECT_EQ(v.code, 0) << v.out << v.err;
}

INSTANTIATE_TEST_SUITE_P(Arms, IndustrialArmCluster,
                         ::testing::Values("kr6_r700_sixx", "irb2400", "lrmate200id", "gp7"));

// A task that hands the supervisor more requests in one period than the link between its
// background and its period holds (300 definitions beside the example's): the waiting period takes
// them as the background asks, and the mail still equals the harness's.
TEST(Cluster, ALockstepTaskWithMoreRequestsThanTheLinkHoldsStillExchangesTheHarnessesMailboxes) {
  RunDir run("lockstep-many");
  const std::string config =
      configWith(run.path, "patient.textproto", {{"lockstep_timeout_ms: 100", "lockstep_timeout_ms: 5000"}});
  std::string task = kExampleTask;
  for (int n = 0; n < 300; ++n)
    task += "transform spare" + std::to_string(n) + " trans " + std::to_string(n) + " 0 0\n";
  const fs::path task_file = run.path / "many.task";
  std::ofstream(task_file) << task;
  const fs::path digest = run.path / "digest";
  const test::Outcome r = test::runCommand(kRfms,
                                           "run --task " + task_file.string() + " --config " + config + " --run-dir " +
                                               run.path.string() + " -- --json --mail-digest " + digest.string(),
                                           300);
  ASSERT_EQ(r.code, 0) << r.out << r.err << readFile(run.path / "supervisor.log");
  EXPECT_EQ(summaryOf(r.out).value("refused", -1), 0) << r.out;
  const std::string cluster = readFile(digest);
  ASSERT_EQ(cluster.size(), 17u) << cluster;
  EXPECT_EQ(cluster.substr(0, 16), harnessDigest(task));
  const test::Outcome v = test::runCommand(kBin + "/rfms-replay", "verify " + (run.path / "run.mcap").string(), 300);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
}

// The same under force control: a guarded move finds the table, the probe presses on it with
// 10 N and slides 100 mm holding it. Contact, the sensor's seeded noise, the force laws and the
// math server's tool-point Jacobians all travel the mailboxes exactly as in one process.
TEST(Cluster, LockstepClusterUnderForceControlExchangesTheHarnessesMailboxes) {
  RunDir run("lockstep-force");
  const std::string config =
      configWith(run.path, "patient.textproto", {{"lockstep_timeout_ms: 100", "lockstep_timeout_ms: 5000"}});
  const fs::path digest = run.path / "digest";
  const std::string task = std::string(RFMS_SOURCE_DIR) + "/examples/slide.task";
  const test::Outcome r = test::runCommand(kRfms,
                                           "run --task " + task + " --config " + config + " --run-dir " +
                                               run.path.string() + " -- --json --mail-digest " + digest.string(),
                                           300);
  ASSERT_EQ(r.code, 0) << r.out << r.err << readFile(run.path / "supervisor.log");
  // The slide held its 10 N (the force figures of its move).
  const Json moves = summaryOf(r.out).value("moves", Json::array());
  const auto slide =
      std::find_if(moves.begin(), moves.end(), [](const Json& m) { return m.value("motion", "") == "slide"; });
  ASSERT_NE(slide, moves.end()) << r.out;
  EXPECT_EQ((*slide)["force"].value("setpoint_n", 0.0), 10.0) << r.out;
  EXPECT_TRUE((*slide)["force"].value("held", false)) << r.out;
  const std::string cluster = readFile(digest);
  ASSERT_EQ(cluster.size(), 17u) << cluster;
  EXPECT_EQ(cluster.substr(0, 16), harnessDigest(readFile(task)));
  const test::Outcome v = test::runCommand(kBin + "/rfms-replay", "verify " + (run.path / "run.mcap").string(), 300);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
}

// A node killed (SIGKILL) or paused (SIGSTOP, then let go) mid-move, in a paced and in a realtime
// cluster: an emergency naming it, never a silent power drop; the supervisor stops the cluster;
// the arm ends at rest with its power off; and the run's log verifies to its end, core by core.
// In a paced cluster the pauses are of 2 s, past what the supervisor waits for a node: a paused
// joint holds the arm, and the supervisor waits the watchdog's 10 timeouts for it (1 s) before it
// goes on without it, the arm's power goes off and the joint is named; a paused arm or math server
// costs no power (the arm's time stands still with it; the parcels are background work the joints
// may miss for a while): each is named once silent for the watchdog's periods (10, each waited
// out for 100 ms by the paced supervisor). In realtime the watchdog is
// raised to 100 periods (100 ms), so that a busy machine's stalls do not end the run before the
// fault; the pauses of 300 ms are past it.
struct Fault {
  std::string node;
  int signal;
  int pause_ms;  // SIGSTOP: how long before SIGCONT
  std::string clock;
};

void PrintTo(const Fault& f, std::ostream* os) {
  *os << f.node << (f.signal == SIGKILL ? " killed" : " paused for " + std::to_string(f.pause_ms) + " ms") << ", "
      << f.clock;
}

class NodeFault : public ::testing::TestWithParam<Fault> {};

TEST_P(NodeFault, IsAnEmergencyNamingItTheArmComesToRestAndTheLogVerifies) {
  const Fault f = GetParam();
  RunDir run(f.node + (f.signal == SIGKILL ? "-kill-" : "-stop-") + f.clock);
  const fs::path task = run.path / "slow.task";
  std::ofstream(task) << "transform t rpy 180 -126.24 250 0 90 0\nposition p righty,down,flip T6 = t\n"
                         "motion slow joint 8 1\nmove p slow\n";
  const std::string config = f.clock == "realtime" ? configWith(run.path, "patient.textproto",
                                                                {{"watchdog_periods: 10", "watchdog_periods: 100"}})
                                                   : configWith(run.path, "local.textproto", {});
  const test::Outcome up = test::runCommand(
      kRfms,
      "up --clock " + f.clock + " --config " + config + " --task " + task.string() + " --run-dir " + run.path.string(),
      60);
  ASSERT_EQ(up.code, 0) << up.err;
  const fs::path log = run.path / "supervisor.log";
  ASSERT_TRUE(moveStarted(run.path, std::chrono::seconds(120)));
  const pid_t victim = std::stoi(readFile(run.path / (f.node + ".pid")));
  ASSERT_EQ(kill(victim, f.signal), 0);
  if (f.signal == SIGSTOP) {
    std::this_thread::sleep_for(std::chrono::milliseconds(f.pause_ms));
    ASSERT_EQ(kill(victim, SIGCONT), 0);
  }

  const std::string node = f.node == "joint3" ? "NODE_JOINT3" : f.node == "math" ? "NODE_MATH" : "NODE_ARM";
  // A paused joint is named either way it shows first: silent (its J_MAIL missing too), or the
  // arm's power lost for want of its torque command (its J_MAIL came, its command missed the arm's
  // period). Either is an emergency naming it; neither is a silent power drop.
  const std::optional<Json> e = emergency(run.path, std::chrono::seconds(60));
  ASSERT_TRUE(e) << "no emergency after the fault; events:\n" << eventsText(run.path) << readFile(log);
  EXPECT_EQ(e->value("node", ""), node) << eventsText(run.path);
  const std::string reason = e->value("reason", "");
  EXPECT_TRUE(reason == "ER_NODE_SILENT" || (f.node == "joint3" && f.signal == SIGSTOP && reason == "ER_POWER_LOST"))
      << eventsText(run.path);
  // The task ends after the emergency; the supervisor stops the cluster.
  EXPECT_TRUE(waitForEvent(
      run.path, [](const Json& j) { return isEvent(j, "stopped"); }, std::chrono::seconds(60)))
      << eventsText(run.path) << readFile(log);
  if (!(f.node == "arm" && f.signal == SIGKILL)) {
    const Json arm = test::waitForNodeEnd(run.path, "arm", std::chrono::seconds(10));
    EXPECT_TRUE(test::armLeftAtRest(arm)) << arm << readFile(run.path / "arm.log");
  }
  const test::Outcome down = test::runCommand(kRfms, "down " + run.path.string(), 60);
  EXPECT_EQ(down.code, 0) << down.err;
  for (const char* n : {"arm", "math", "joint1", "joint6", "supervisor"})
    EXPECT_FALSE(fs::exists(run.path / (std::string(n) + ".pid")));
  // The log of a run that lost a node is read and checked to its end, core by core.
  const test::Outcome v = verifyRunLog(run.path / "run.mcap");
  EXPECT_EQ(v.code, 0) << v.out << v.err;
}

INSTANTIATE_TEST_SUITE_P(Nodes, NodeFault,
                         ::testing::Values(Fault{"joint3", SIGKILL, 0, "paced"}, Fault{"math", SIGKILL, 0, "paced"},
                                           Fault{"arm", SIGKILL, 0, "paced"}, Fault{"joint3", SIGSTOP, 3500, "paced"},
                                           Fault{"math", SIGSTOP, 2000, "paced"}, Fault{"arm", SIGSTOP, 2000, "paced"},
                                           Fault{"joint3", SIGKILL, 0, "realtime"},
                                           Fault{"math", SIGKILL, 0, "realtime"}, Fault{"arm", SIGKILL, 0, "realtime"},
                                           Fault{"joint3", SIGSTOP, 300, "realtime"},
                                           Fault{"math", SIGSTOP, 300, "realtime"},
                                           Fault{"arm", SIGSTOP, 300, "realtime"}),
                         [](const ::testing::TestParamInfo<Fault>& i) {
                           return i.param.node + (i.param.signal == SIGKILL ? "Killed" : "Paused") +
                                  (i.param.clock == "paced" ? "Paced" : "Realtime");
                         });

// By design, a paced cluster rides out a short pause of any node, as a busy machine's stalls: a
// paused joint holds the arm and the supervisor waits for both (up to the watchdog's 10 timeouts,
// 1 s); the arm's time stands still with the arm (a period that went on without its sensors is
// only counted); the joints go on with the last parcel while the math server is away. Only a
// longer silence is an emergency (the 2 s pauses above).
class ShortPause : public ::testing::TestWithParam<std::string> {};

TEST_P(ShortPause, OfAnyPacedNodeIsRiddenOutAndTheRunCompletes) {
  const std::string node = GetParam();
  RunDir run("pause-" + node);
  const fs::path task = run.path / "slow.task";
  std::ofstream(task) << "transform t rpy 180 -126.24 250 0 90 0\nposition p righty,down,flip T6 = t\n"
                         "motion brisk joint 3 0.5\nmove p brisk\n";
  const test::Outcome up = test::runCommand(kRfms,
                                            "up --clock paced --config " + configWith(run.path, "local.textproto", {}) +
                                                " --task " + task.string() + " --run-dir " + run.path.string(),
                                            60);
  ASSERT_EQ(up.code, 0) << up.err;
  ASSERT_TRUE(moveStarted(run.path, std::chrono::seconds(120)));
  const pid_t victim = std::stoi(readFile(run.path / (node + ".pid")));
  ASSERT_EQ(kill(victim, SIGSTOP), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the pause itself
  ASSERT_EQ(kill(victim, SIGCONT), 0);
  const std::optional<Json> end = waitForEvent(
      run.path, [](const Json& j) { return isEvent(j, "stopped"); }, std::chrono::seconds(180));
  ASSERT_TRUE(end) << eventsText(run.path) << readFile(run.path / "supervisor.log");
  EXPECT_EQ((*end)["stopped"].value("why", ""), "task finished") << eventsText(run.path);
  const std::vector<Json> events = test::runEvents(run.path);
  EXPECT_TRUE(std::none_of(events.begin(), events.end(), [](const Json& j) { return isEvent(j, "EMERGENCY"); }))
      << eventsText(run.path);
  EXPECT_TRUE(std::any_of(events.begin(), events.end(), [](const Json& j) {
    return isEvent(j, "MOVE_COMPLETED") && j.value("move_id", "") == "1";
  })) << eventsText(run.path);
  EXPECT_EQ(readFile(run.path / "arm.log").find("watchdog"), std::string::npos) << readFile(run.path / "arm.log");
  test::runCommand(kRfms, "down " + run.path.string(), 60);
  const test::Outcome v = verifyRunLog(run.path / "run.mcap");
  EXPECT_EQ(v.code, 0) << v.out << v.err;
}

INSTANTIATE_TEST_SUITE_P(Nodes, ShortPause, ::testing::Values("joint3", "arm", "math"));

// A realtime arm ticks on its own clock and used to drive on with the joints' last commands
// when the supervisor died (the joints then fall silent). Its own watchdog takes the power off
// once no joint's command is renewed for watchdog_periods, says so, and the brakes stop it. The
// supervisor is killed while calibration moves the arm, and watchdog_periods is 1000 (its most),
// so that a busy machine's stalls rarely end the run before the kill.
TEST(Cluster, TheRealtimeArmTakesItsPowerOffWhenTheSupervisorIsKilled) {
  RunDir run("kill-supervisor");
  const std::string config =
      configWith(run.path, "patient.textproto", {{"watchdog_periods: 10", "watchdog_periods: 1000"}});
  const fs::path task = run.path / "slow.task";
  std::ofstream(task) << "transform t rpy 180 -126.24 250 0 90 0\nposition p righty,down,flip T6 = t\n"
                         "motion slow joint 8 1\nmove p slow\n";
  const test::Outcome up = test::runCommand(
      kRfms, "up --clock realtime --config " + config + " --task " + task.string() + " --run-dir " + run.path.string(),
      60);
  ASSERT_EQ(up.code, 0) << up.err;
  const std::optional<Json> calib = waitForEvent(
      run.path,
      [](const Json& j) {
        return (isEvent(j, "STATE_CHANGED") && j.value("state", "") == "RT_CALIB") || isEvent(j, "EMERGENCY");
      },
      std::chrono::seconds(120));
  ASSERT_TRUE(calib) << "calibration did not begin; events:\n" << eventsText(run.path);
  ASSERT_FALSE(isEvent(*calib, "EMERGENCY"))
      << "the run went to EMGCY before calibration: the case could not run. On a loaded machine a realtime "
         "cluster stalled past its watchdog; events:\n"
      << eventsText(run.path);
  ASSERT_EQ(kill(std::stoi(readFile(run.path / "supervisor.pid")), SIGKILL), 0);
  const fs::path arm = run.path / "arm.log";
  EXPECT_TRUE(waitForText(arm, "watchdog: no new torque command from joint 1,2,3,4,5,6 for 1000 periods: power off",
                          std::chrono::seconds(30)))
      << readFile(arm);
  // deploy/rfms status says so, not only "stopped" in the supervisor's row.
  const test::Outcome status = test::runCommand(kRfms, "status " + run.path.string(), 60);
  EXPECT_NE(status.out.find("the supervisor is gone and 8 other node(s) are still running"), std::string::npos)
      << status.out << status.err << " (exit " << status.code << ")";
  // status.txt is written each second: a kill in the first may come before it.
  if (fs::exists(run.path / "status.txt")) {
    EXPECT_NE(status.out.find("timing (the supervisor's last view):"), std::string::npos) << status.out;
  }
  // Given a moment, the brakes have stopped it: what the arm says when it is stopped.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const test::Outcome down = test::runCommand(kRfms, "down " + run.path.string(), 60);
  EXPECT_EQ(down.code, 0) << down.err;
  const Json end = test::waitForNodeEnd(run.path, "arm", std::chrono::seconds(10));
  EXPECT_EQ(end.value("cause", ""), "SIGNAL") << end;
  EXPECT_TRUE(test::armLeftAtRest(end)) << end << readFile(arm);
}

bool processGone(pid_t pid) { return kill(pid, 0) != 0 && errno == ESRCH; }

// Whether every process in `pids` has ended within `timeout`.
bool allGoneWithin(const std::vector<pid_t>& pids, std::chrono::seconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (std::all_of(pids.begin(), pids.end(), processGone)) return true;
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// A supervisor killed or paused mid-move, in a paced cluster: no node waits for it forever. Each
// goes safe and exits after orphan_timeout_ms (2 s here), the arm at rest with its power off; a
// paused supervisor that comes back finds its nodes gone and ends in EMGCY.
class LostSupervisor : public ::testing::TestWithParam<std::tuple<int, std::string>> {};

TEST_P(LostSupervisor, EveryNodeGoesSafeAndExitsWithinTheOrphanTimeout) {
  const auto& [signal, clock] = GetParam();
  RunDir run(std::string(signal == SIGKILL ? "orphan-kill-" : "orphan-stop-") + clock);
  // (Realtime: a watchdog of 100 periods, so that a busy machine's stalls do not end the run first.)
  const std::string config =
      configWith(run.path, "orphan.textproto",
                 {{"clock: CM_LOCKSTEP", clock == "paced" ? "clock: CM_PACED" : "clock: CM_REALTIME"},
                  {"orphan_timeout_ms: 10000", "orphan_timeout_ms: 2000"},
                  {"watchdog_periods: 10", clock == "paced" ? "watchdog_periods: 10" : "watchdog_periods: 100"}});
  const fs::path task = run.path / "slow.task";
  std::ofstream(task) << "transform t rpy 180 -126.24 250 0 90 0\nposition p righty,down,flip T6 = t\n"
                         "motion slow joint 8 1\nmove p slow\n";
  const test::Outcome up = test::runCommand(
      kRfms, "up --config " + config + " --task " + task.string() + " --run-dir " + run.path.string(), 60);
  ASSERT_EQ(up.code, 0) << up.err;
  const fs::path log = run.path / "supervisor.log";
  ASSERT_TRUE(moveStarted(run.path, std::chrono::seconds(120)));
  std::vector<pid_t> nodes;
  for (const char* n : {"arm", "math", "joint1", "joint2", "joint3", "joint4", "joint5", "joint6"})
    nodes.push_back(std::stoi(readFile(run.path / (std::string(n) + ".pid"))));
  const pid_t supervisor = std::stoi(readFile(run.path / "supervisor.pid"));
  // Each node leads a session of its own, so that no other node's exit can send a paused
  // supervisor SIGCONT (the kernel does so to a stopped member of a group left orphaned).
  for (pid_t p : nodes) EXPECT_EQ(getsid(p), p);
  ASSERT_EQ(getsid(supervisor), supervisor);
  ASSERT_EQ(kill(supervisor, signal), 0);

  // 2 s of silence, up to 10 s for the arm's brakes (they need far less), and a busy machine's slack.
  EXPECT_TRUE(allGoneWithin(nodes, std::chrono::seconds(30)));
  // Each node's own word: the arm left with its power off and at rest.
  const Json arm = test::nodeEnd(run.path, "arm");
  EXPECT_EQ(arm.value("cause", ""), "SUPERVISOR_SILENT") << arm << readFile(run.path / "arm.log");
  EXPECT_EQ(arm.value("detail", ""), "silent for 2 s") << arm;
  EXPECT_FALSE(arm.value("power_on", true)) << arm;
  EXPECT_EQ(arm.value("fastest_joint_rad_s", -1.0), 0.0) << arm;
  for (const char* n : {"math", "joint1", "joint2", "joint3", "joint4", "joint5", "joint6"})
    EXPECT_EQ(test::nodeEnd(run.path, n).value("cause", ""), "SUPERVISOR_SILENT")
        << n << ": " << test::nodeEnd(run.path, n) << readFile(run.path / (std::string(n) + ".log"));
  if (signal == SIGSTOP) {
    ASSERT_EQ(kill(supervisor, SIGCONT), 0) << "the paused supervisor ran on and ended:\n" << readFile(log);
    // Its nodes gone, it names the first silence it sees: in realtime often the arm's lost power
    // (the arm's sensors and a joint's answers from before the pause are still queued).
    EXPECT_TRUE(emergency(run.path, std::chrono::seconds(60))) << eventsText(run.path) << readFile(log);
    EXPECT_TRUE(allGoneWithin({supervisor}, std::chrono::seconds(60))) << readFile(log);
  }
  const test::Outcome down = test::runCommand(kRfms, "down " + run.path.string(), 60);
  EXPECT_EQ(down.code, 0) << down.out << down.err;
  // A killed supervisor's log ends mid-record: it is verified as far as it goes (exit 3). A paused
  // one verifies whole, but in realtime: the arm ticked on for the orphan timeout, and of its
  // mail what the supervisor's rings (a second of it) could not hold was lost, and counted in
  // the log as dropped; the log is verified up to there (exit 3, naming the drop).
  const test::Outcome v = verifyRunLog(run.path / "run.mcap");
  if (signal == SIGKILL || clock == "paced") {
    EXPECT_EQ(v.code, signal == SIGKILL ? 3 : 0) << v.out << v.err;
  } else {
    EXPECT_TRUE(v.code == 0 || (v.code == 3 && v.out.find("not checked: dropped by the logger") != std::string::npos))
        << v.out << v.err;
    // A joint that answered late, on a busy machine, may have read sensors the rings then lost:
    // that joint is checked up to there, and only for that reason.
    for (std::size_t at = v.out.find("not checked: joint"); at != std::string::npos;
         at = v.out.find("not checked: joint", at + 1)) {
      const std::string line = v.out.substr(at, v.out.find('\n', at) - at);
      EXPECT_NE(line.find("read the arm's sensors of its period"), std::string::npos) << line << "\n" << v.out;
      EXPECT_NE(line.find("which are not in the log"), std::string::npos) << line;
      EXPECT_NE(v.out.find("/rfms/sensors"), std::string::npos) << "no sensors were dropped:\n" << v.out;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Signals, LostSupervisor,
                         ::testing::Combine(::testing::Values(SIGKILL, SIGSTOP),
                                            ::testing::Values(std::string("paced"), std::string("realtime"))),
                         [](const auto& i) {
                           return std::string(std::get<0>(i.param) == SIGKILL ? "Killed" : "Paused") +
                                  (std::get<1>(i.param) == "paced" ? "Paced" : "Realtime");
                         });

const char* kShortTask =
    "transform t rpy 180 -126.24 250 0 90 0\nposition p righty,down,flip T6 = t\n"
    "motion m joint 1.5 0.3\nmove p m\n";

// A cluster killed outright (kill -9 of every node, mid-move) leaves its shared-memory mailbox
// segment behind, as no node lived to remove it: the next `deploy/rfms up` removes it, and a run
// in the killed run's own directory starts and completes as if nothing had happened.
TEST(Cluster, ARunKilledOutrightLeavesNothingThatStopsTheNext) {
  RunDir killed("killed"), next("after-kill");
  const fs::path task = killed.path / "slow.task";
  std::ofstream(task) << "transform t rpy 180 -126.24 250 0 90 0\nposition p righty,down,flip T6 = t\n"
                         "motion slow joint 8 1\nmove p slow\n";
  ASSERT_EQ(
      test::runCommand(kRfms, "up --clock paced --task " + task.string() + " --run-dir " + killed.path.string(), 60)
          .code,
      0);
  ASSERT_TRUE(moveStarted(killed.path, std::chrono::seconds(120)));
  const fs::path segment = fs::read_symlink(killed.path / "mailboxes");
  std::vector<pid_t> nodes;
  for (const char* n : {"supervisor", "arm", "math", "joint1", "joint2", "joint3", "joint4", "joint5", "joint6"})
    nodes.push_back(std::stoi(readFile(killed.path / (std::string(n) + ".pid"))));
  for (pid_t p : nodes) kill(p, SIGKILL);
  ASSERT_TRUE(allGoneWithin(nodes, std::chrono::seconds(30)));
  EXPECT_TRUE(fs::exists(segment)) << "no node lived to remove it";

  std::ofstream(next.path / "short.task") << kShortTask;
  const test::Outcome other = test::runCommand(
      kRfms, "run --task " + (next.path / "short.task").string() + " --run-dir " + next.path.string(), 300);
  EXPECT_EQ(other.code, 0) << other.out << other.err;
  EXPECT_FALSE(fs::exists(segment)) << "the next up left the dead run's segment " << segment;
  EXPECT_FALSE(fs::exists(MailSegment::pathFor(next.path.string()))) << "the run's own segment outlived it";
  EXPECT_FALSE(fs::is_symlink(next.path / "mailboxes"));

  for (const char* n : {"supervisor", "arm", "math", "joint1", "joint2", "joint3", "joint4", "joint5", "joint6"})
    fs::remove(killed.path / (std::string(n) + ".pid"));
  std::ofstream(killed.path / "short.task") << kShortTask;
  const test::Outcome again = test::runCommand(
      kRfms, "run --task " + (killed.path / "short.task").string() + " --run-dir " + killed.path.string(), 300);
  EXPECT_EQ(again.code, 0) << again.out << again.err << readFile(killed.path / "supervisor.log");
  EXPECT_NE(again.out.find("completed"), std::string::npos) << again.out;
}

// A placement that is neither netns: nor ssh: was refused only when its node's turn came, with
// the nodes before it left running (issue 15). It is refused before any node starts.
TEST(Cluster, AWrongPlacementIsRefusedBeforeAnyNodeStarts) {
  RunDir run("placement");
  const std::string cfg = configWith(run.path, "bad.textproto", {});
  std::ofstream(cfg, std::ios::app) << "placement { node: \"joint3\" via: \"bogus:host\" }\n";
  const test::Outcome up =
      test::runCommand(kRfms, "up --config " + cfg + " --run-dir " + run.path.string() + " --example", 60);
  EXPECT_EQ(up.code, 2) << up.out << up.err;
  EXPECT_NE(up.err.find("placement of joint3: 'bogus:host' is neither netns:NAME nor ssh:HOST"), std::string::npos)
      << up.err;
  for (const auto& f : fs::directory_iterator(run.path))
    EXPECT_NE(f.path().extension(), ".pid") << "a node was started: " << f.path();
}

// A filesystem of its own, 8 MiB of memory, unmounted afterwards; `ok` is false where mounting is
// not permitted.
struct SmallFilesystem {
  fs::path path;
  bool ok = false;
  SmallFilesystem() : path(test::makeUniqueDir("rfms-small-fs")) {
    ok = geteuid() == 0 && std::system(("mount -t tmpfs -o size=8m tmpfs " + path.string()).c_str()) == 0;
  }
  ~SmallFilesystem() {
    if (ok) std::system(("umount " + path.string()).c_str());
    fs::remove_all(path);
  }
};

// The run log on a filesystem that fills mid-run (the example task's log is about 17 MB), in a run
// that requires its log: the controller keeps running, says why the log stopped, brings the arm to
// rest (dropping the moves queued) and holds it; every node ends, and the log verifies as far as
// it goes.
TEST(Cluster, ADiskThatFillsStopsALogThatTheRunRequiresAndTheArmComesToRest) {
  SmallFilesystem small;
  if (!small.ok) FAIL() << "this case needs root, to mount an 8 MiB tmpfs (deploy/test runs as root)";
  RunDir run("disk-full");
  const std::string config =
      configWith(run.path, "required.textproto", {{"seed: 1", "seed: 1 log { required: true }"}});
  const fs::path log = small.path / "run.mcap";
  const test::Outcome r = test::runCommand(
      kRfms, "run --example --config " + config + " --run-dir " + run.path.string() + " -- --log " + log.string(), 300);
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  const std::string supervisor = readFile(run.path / "supervisor.log");
  EXPECT_NE(supervisor.find("the run log stopped writing (cannot write log " + log.string() +
                            ": No space left on device); the run requires a log (log.required): bringing the arm "
                            "to rest, refusing moves"),
            std::string::npos)
      << supervisor;
  // The moves already queued are dropped by the stop; the arm came to rest and held.
  EXPECT_NE(r.out.find("ABORTED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" STOP HOLD\n"), std::string::npos) << r.out;
  EXPECT_TRUE(test::armLeftAtRest(test::nodeEnd(run.path, "arm")))
      << test::nodeEnd(run.path, "arm") << readFile(run.path / "arm.log");
  const test::Outcome v = verifyRunLog(log);
  EXPECT_EQ(v.code, 3) << v.out << v.err;
  EXPECT_NE(v.out.find("not checked: the run after the log's end"), std::string::npos) << v.out;
}

TEST(Cluster, DownMidMoveBringsTheArmToRestFirst) {
  RunDir run("down");
  const fs::path task = run.path / "slow.task";
  std::ofstream(task) << "transform t rpy 180 -126.24 250 0 90 0\nposition p righty,down,flip T6 = t\n"
                         "motion slow joint 8 1\nmove p slow\n";
  ASSERT_EQ(test::runCommand(kRfms, "up --task " + task.string() + " --run-dir " + run.path.string(), 60).code, 0);
  ASSERT_TRUE(moveStarted(run.path, std::chrono::seconds(120)));
  const test::Outcome down = test::runCommand(kRfms, "down " + run.path.string(), 60);
  EXPECT_EQ(down.code, 0) << down.err;
  // Brought to rest (STOP), then its power off (IDLE), before the cluster stopped.
  std::vector<std::string> states;
  for (const Json& j : test::runEvents(run.path))
    if (isEvent(j, "STATE_CHANGED")) states.push_back(j.value("state", ""));
  const auto stop = std::find(states.begin(), states.end(), "RT_STOP");
  EXPECT_NE(stop, states.end()) << eventsText(run.path);
  EXPECT_NE(std::find(stop, states.end(), "RT_IDLE"), states.end()) << eventsText(run.path);
  const std::vector<Json> events = test::runEvents(run.path);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back()["stopped"].value("why", ""), "supervisor stopped by signal") << eventsText(run.path);
  EXPECT_TRUE(test::armLeftAtRest(test::nodeEnd(run.path, "arm")))
      << test::nodeEnd(run.path, "arm") << readFile(run.path / "arm.log");
}

// Issue 54's writes into a running cluster's mail segment, as a stray tool or a node's bug would
// make them as the same user: 20,000 random bytes over joint 3's J_MAIL ring, ten times while the
// arm moves; S_MAIL's head set to 2^62; the newest S_MAIL slot's period set to 2^62. Before, each
// cost the run an emergency (a setpoint of 1.5e62 rad acted on; every S_MAIL reader starved for
// good). Now each damaged mail fails its check or its box's vouching and is dropped, counted and
// named: the move completes, with no emergency, and the supervisor's status and the joints' last
// words say what was damaged.
TEST(Cluster, WritesIntoTheMailSegmentAreDroppedCountedAndNamedAndTheMoveCompletes) {
  RunDir run("scribble");
  const fs::path task = run.path / "move.task";
  std::ofstream(task) << "transform t rpy 180 -126.24 250 0 90 0\nposition p righty,down,flip T6 = t\n"
                         "motion slow joint 3 1\nmove p slow\n";
  ASSERT_EQ(test::runCommand(kRfms, "up --task " + task.string() + " --run-dir " + run.path.string(), 60).code, 0);
  ASSERT_TRUE(moveStarted(run.path, std::chrono::seconds(120)));
  {
    const MailSegment segment = MailSegment::open(fs::read_symlink(run.path / "mailboxes").string());
    std::mt19937_64 random(54);
    auto scribble = [&](unsigned char* at, std::size_t n) {
      for (std::size_t i = 0; i < n; ++i)
        std::atomic_ref<unsigned char>(at[i]).store(static_cast<unsigned char>(random()), std::memory_order_relaxed);
    };
    auto* jmail = static_cast<RingHeader*>(segment.ring(jmailBox(3)));
    const std::size_t slot_bytes = sizeof(SlotHeader) + capacityOf(jmailBox(3));
    auto slotOf = [](RingHeader* ring, Box b, std::uint64_t n) {
      return reinterpret_cast<unsigned char*>(ring + 1) +
             (n % static_cast<std::uint64_t>(depthOf(b))) * (sizeof(SlotHeader) + capacityOf(b));
    };
    // 20,000 random bytes over the ring, header and all.
    scribble(reinterpret_cast<unsigned char*>(jmail), 20000);
    // Then the newest mail, past its sequence mark, twenty times: some of it is read before the
    // joint writes the next.
    for (int round = 0; round < 20; ++round) {
      scribble(slotOf(jmail, jmailBox(3), jmail->head.load() - 1) + 8, slot_bytes - 8);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    auto* smail = static_cast<RingHeader*>(segment.ring(Box::kSMail));
    smail->head.store(std::uint64_t{1} << 62);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    reinterpret_cast<SlotHeader*>(slotOf(smail, Box::kSMail, smail->head.load() - 1))
        ->period.store(std::uint64_t{1} << 62);
  }
  const std::optional<Json> end = waitForEvent(
      run.path, [](const Json& j) { return isEvent(j, "stopped"); }, std::chrono::seconds(180));
  ASSERT_TRUE(end) << eventsText(run.path);
  EXPECT_EQ((*end)["stopped"].value("why", ""), "task finished") << eventsText(run.path);
  for (const Json& e : test::runEvents(run.path)) {
    EXPECT_FALSE(isEvent(e, "EMERGENCY")) << eventsText(run.path) << readFile(run.path / "supervisor.log");
    EXPECT_FALSE(isEvent(e, "MOVE_ABORTED")) << eventsText(run.path);
  }
  EXPECT_NE(readFile(run.path / "status.txt").find("mail damaged: J_MAIL of joint 3 (corrupt"), std::string::npos)
      << readFile(run.path / "status.txt");
  EXPECT_NE(readFile(run.path / "supervisor.log").find("mail damaged in J_MAIL of joint 3 (written by joint 3)"),
            std::string::npos)
      << readFile(run.path / "supervisor.log");
  // The arm was left at rest with its power off, as a task's end leaves it.
  EXPECT_TRUE(test::armLeftAtRest(test::waitForNodeEnd(run.path, "arm", std::chrono::seconds(60))));
  // The run log has the damage as an event of its own, which rfms-replay info reports.
  const test::Outcome info = test::runCommand(kBin + "/rfms-replay", "info " + (run.path / "run.mcap").string(), 60);
  EXPECT_EQ(info.code, 0) << info.err;
  EXPECT_NE(info.out.find("mail damaged: \n  J_MAIL of joint 3 (written by joint 3): "), std::string::npos) << info.out;
}

// An emergency leaves, in the run directory, each node's last 100 periods of mail as it took and
// sent them, whether or not the run is logged; rfms-replay reads them as logs of their own.
TEST(Cluster, AnEmergencyLeavesEveryNodesLastPeriodsWithoutARunLog) {
  RunDir run("fault-record");
  const std::string config = configWith(run.path, "c.textproto", {});
  const fs::path task = run.path / "emergency-stop.task";
  std::ofstream(task) << "units mm deg\ntransform t2 trans 203.2 -126.23 203.2\n"
                         "position home righty,down,flip T6 = t2 TL T6\nmotion mjnt joint 2.0 0.2\n"
                         "move home mjnt\nat 0.5\nemergency-stop\n";
  const test::Outcome r = test::runCommand(
      kRfms, "run --task " + task.string() + " --config " + config + " --run-dir " + run.path.string() + " -- --no-log",
      300);
  EXPECT_EQ(r.code, 1) << r.out << r.err;  // an emergency is no success
  EXPECT_NE(r.out.find("EMGCY: emergency stop requested (supervisor)"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(run.path / "run.mcap"));

  std::string period;  // the emergency's, from the supervisor's record's name
  for (const auto& f : fs::directory_iterator(run.path)) {
    const std::string name = f.path().filename().string();
    if (name.rfind("fault-supervisor-p", 0) == 0) period = name.substr(18, name.size() - 18 - 5);
  }
  ASSERT_FALSE(period.empty()) << readFile(run.path / "supervisor.log");
  for (const std::string node :
       {"supervisor", "arm", "math", "joint1", "joint2", "joint3", "joint4", "joint5", "joint6"}) {
    const fs::path record = run.path / ("fault-" + node + "-p" + period + ".mcap");
    ASSERT_TRUE(fs::exists(record)) << record << "\n" << readFile(run.path / (node + ".log"));
    const test::Outcome info = test::runCommand(kBin + "/rfms-replay", "info " + record.string(), 60);
    EXPECT_EQ(info.code, 0) << info.out << info.err;
    EXPECT_NE(info.out.find("fault record: emergency stop requested (supervisor) at period " + period +
                            ", recorded by " + node),
              std::string::npos)
        << info.out;
    const RunLog log = readRunLog(record.string());
    EXPECT_TRUE(log.error.empty()) << log.error;
    // A hundred periods of the node's own mail: what it sends, one a period.
    const std::size_t own = node == "supervisor" ? log.smail.size()
                            : node == "arm"      ? log.applied.size()
                            : node == "math"     ? log.parcel.size()
                                                 : log.jmail.size();
    EXPECT_EQ(own, 100u) << node;
  }
  // The supervisor's ends with the emergency itself.
  const test::Outcome info = test::runCommand(
      kBin + "/rfms-replay", "info " + (run.path / ("fault-supervisor-p" + period + ".mcap")).string(), 60);
  EXPECT_NE(info.out.find("emergency stop requested (supervisor) at period " + period + "\n"), std::string::npos)
      << info.out;
}

TEST(Cluster, RunsOverTcpOnLoopback) {
  RunDir run("tcp");
  const std::vector<int> ports = test::freeLoopbackPorts(4);
  ASSERT_EQ(ports.size(), 4u);
  auto tcp = [&](int i) { return "\"tcp://127.0.0.1:" + std::to_string(ports[static_cast<std::size_t>(i)]) + "\""; };
  // Every node's mail over ZeroMQ (on one host it would go through shared memory otherwise).
  const std::string cfg = configWith(run.path, "tcp.textproto",
                                     {{"\"ipc://{run}/supervisor.pub\"", tcp(0)},
                                      {"\"ipc://{run}/supervisor.pull\"", tcp(1)},
                                      {"\"ipc://{run}/arm.pub\"", tcp(2)},
                                      {"\"ipc://{run}/arm.pull\"", tcp(3)},
                                      {"clock: CM_LOCKSTEP", "mail_transport: MT_ZEROMQ\nclock: CM_LOCKSTEP"}});
  std::ofstream(run.path / "short.task") << kShortTask;
  const test::Outcome r = test::runCommand(
      kRfms,
      "run --config " + cfg + " --task " + (run.path / "short.task").string() + " --run-dir " + run.path.string(), 300);
  EXPECT_EQ(r.code, 0) << r.out << r.err << readFile(run.path / "supervisor.log");
  EXPECT_NE(r.out.find("completed"), std::string::npos) << r.out;
  // Over CURVE, with keys deploy/rfms made for the run in a directory of this user's alone.
  EXPECT_NE(readFile(run.path / "cluster.textproto").find("node_keys: \"" + run.path.string() + "/node-keys\""),
            std::string::npos);
  struct stat st {};
  ASSERT_EQ(stat((run.path / "node-keys").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 077, 0u);
  ASSERT_EQ(stat(run.path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 077, 0u) << "deploy/rfms makes the run directory private";
}

// Nodes authenticate each other by key on tcp (every node's mail over ZeroMQ here, as between
// hosts): joint 3 holding a key the cluster does not list (a key file from another cluster) is refused at the
// supervisor's and the arm's endpoints, and both sides name what happened; the cluster does not start.
TEST(Cluster, ANodeWithAKeyTheClusterDoesNotListIsRefusedAndNamed) {
  RunDir run("badkey");
  const fs::path keys = run.path / "node-keys", other = run.path / "other-keys", joint3 = run.path / "joint3-keys";
  ASSERT_EQ(test::runCommand(kBin + "/rfms-keys", "nodes " + keys.string()).code, 0);
  ASSERT_EQ(test::runCommand(kBin + "/rfms-keys", "nodes " + other.string()).code, 0);
  // joint 3 knows the cluster's keys, but its own pair is another cluster's.
  fs::create_directories(joint3);
  fs::copy_file(other / "joint3.key", joint3 / "joint3.key");
  std::istringstream list(readFile(keys / "node-keys.textproto")), theirs(readFile(other / "node-keys.textproto"));
  std::string line, own;
  while (std::getline(theirs, line))
    if (line.find("\"joint3\"") != std::string::npos) own = line;
  std::ofstream joint3_list(joint3 / "node-keys.textproto");
  while (std::getline(list, line)) joint3_list << (line.find("\"joint3\"") != std::string::npos ? own : line) << "\n";
  joint3_list.close();

  const std::vector<int> ports = test::freeLoopbackPorts(4);
  ASSERT_EQ(ports.size(), 4u);
  auto tcp = [&](int i) { return "\"tcp://127.0.0.1:" + std::to_string(ports[static_cast<std::size_t>(i)]) + "\""; };
  const std::vector<std::pair<std::string, std::string>> endpoints = {
      {"\"ipc://{run}/supervisor.pub\"", tcp(0)},
      {"\"ipc://{run}/supervisor.pull\"", tcp(1)},
      {"\"ipc://{run}/arm.pub\"", tcp(2)},
      {"\"ipc://{run}/arm.pull\"", tcp(3)},
      {"startup_timeout_ms: 10000", "startup_timeout_ms: 5000"},
      {"clock: CM_LOCKSTEP", "mail_transport: MT_ZEROMQ\nclock: CM_LOCKSTEP"}};
  const std::string cfg = configWith(run.path, "cluster.textproto", endpoints);
  std::ofstream(cfg, std::ios::app) << "node_keys: \"node-keys\"\n";
  const std::string cfg3 = configWith(run.path, "joint3.textproto", endpoints);
  std::ofstream(cfg3, std::ios::app) << "node_keys: \"joint3-keys\"\n";

  test::ProcessGroup g;
  const std::string dir = run.path.string();
  auto node = [&](const std::string& exe, const std::string& name, const std::string& config,
                  std::vector<std::string> more = {}) {
    std::vector<std::string> argv = {kBin + "/" + exe, "--config", config, "--run-dir", dir};
    argv.insert(argv.end(), more.begin(), more.end());
    return g.start(argv, (run.path / (name + ".log")).string());
  };
  node("rfms-arm", "arm", cfg);
  node("rfms-math", "math", cfg);
  pid_t j3 = -1;
  for (int j = 1; j <= 6; ++j) {
    const pid_t p =
        node("rfms-joint", "joint" + std::to_string(j), j == 3 ? cfg3 : cfg, {"--joint", std::to_string(j)});
    if (j == 3) j3 = p;
  }
  const pid_t sup = node("rfms-supervisor", "supervisor", cfg, {"--example"});
  EXPECT_EQ(g.wait(j3, std::chrono::seconds(120)), 2) << readFile(run.path / "joint3.log");
  const std::string j3log = readFile(run.path / "joint3.log");
  EXPECT_NE(j3log.find("refused this node's key (joint3 in node_keys is not the key"), std::string::npos) << j3log;
  EXPECT_EQ(g.wait(sup, std::chrono::seconds(120)), 1) << readFile(run.path / "supervisor.log");
  const std::string suplog = readFile(run.path / "supervisor.log");
  EXPECT_NE(suplog.find("not ready after 5000 ms: joint 3"), std::string::npos) << suplog;
  // Whichever of its four connections the joint saw refused first, the binders logged theirs.
  const std::string binders = suplog + readFile(run.path / "arm.log");
  EXPECT_NE(binders.find("refused a connection to the mail endpoints from 127.0.0.1"), std::string::npos) << binders;
  EXPECT_NE(binders.find("is not one of the cluster's node keys"), std::string::npos) << binders;
}

// Another host reached over ssh: a private sshd on a free loopback port (its own host key, one
// authorised client key), and joint 3 placed on it; deploy/rfms starts and stops it over ssh.
TEST(Cluster, AJointStartedOverSsh) {
  if (geteuid() != 0 || !fs::exists("/usr/sbin/sshd") || std::system("command -v ssh-keygen >/dev/null") != 0)
    FAIL() << "this case needs root and openssh-server (deploy/install-deps --for-tests installs it)";
  RunDir run("ssh");
  const fs::path d = run.path;
  ASSERT_EQ(
      std::system(("ssh-keygen -q -t ed25519 -N '' -f " + (d / "host_key").string() +
                   " && ssh-keygen -q -t ed25519 -N '' -f " + (d / "client_key").string() + " && cp " +
                   (d / "client_key.pub").string() + " " + (d / "authorized_keys").string() + " && mkdir -p /run/sshd")
                      .c_str()),
      0);
  // A free port, and another if something takes it before sshd binds it.
  test::ProcessGroup g;
  int port = 0;
  bool listening = false;
  std::string why;
  fs::path sshd_log;
  for (int attempt = 1; attempt <= 3 && !listening; ++attempt) {
    port = test::freeLoopbackPorts(1).at(0);
    std::ofstream(d / "sshd_config") << "Port " << port << "\nListenAddress 127.0.0.1\nHostKey "
                                     << (d / "host_key").string() << "\nAuthorizedKeysFile "
                                     << (d / "authorized_keys").string()
                                     << "\nPermitRootLogin prohibit-password\nPasswordAuthentication no\nUsePAM no\n"
                                        "StrictModes no\nPidFile "
                                     << (d / "sshd.pid").string() << "\n";
    sshd_log = d / ("sshd-" + std::to_string(attempt) + ".log");
    g.start({"/usr/sbin/sshd", "-D", "-f", (d / "sshd_config").string(), "-E", sshd_log.string()},
            (d / "sshd.out").string());
    listening = waitForText(sshd_log, "Server listening", std::chrono::seconds(10));
    if (!listening) why += "attempt " + std::to_string(attempt) + ": " + readFile(sshd_log);
  }
  ASSERT_TRUE(listening) << why;
  std::ofstream(d / "ssh_config") << "Host rfms-test-host\n  HostName 127.0.0.1\n  Port " << port
                                  << "\n  User root\n  IdentityFile " << (d / "client_key").string()
                                  << "\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n";
  setenv("RFMS_SSH_CONFIG", (d / "ssh_config").c_str(), 1);
  const std::vector<int> ports = test::freeLoopbackPorts(4);
  ASSERT_EQ(ports.size(), 4u);
  auto tcp = [&](int i) { return "\"tcp://127.0.0.1:" + std::to_string(ports[static_cast<std::size_t>(i)]) + "\""; };
  std::string cfg = configWith(d, "ssh.textproto",
                               {{"\"ipc://{run}/supervisor.pub\"", tcp(0)},
                                {"\"ipc://{run}/supervisor.pull\"", tcp(1)},
                                {"\"ipc://{run}/arm.pub\"", tcp(2)},
                                {"\"ipc://{run}/arm.pull\"", tcp(3)}});
  std::ofstream(cfg, std::ios::app) << "placement { node: \"joint3\" via: \"ssh:rfms-test-host\" }\n";
  std::ofstream(d / "short.task") << kShortTask;
  const test::Outcome r = test::runCommand(
      kRfms, "run --config " + cfg + " --task " + (d / "short.task").string() + " --run-dir " + d.string(), 300);
  unsetenv("RFMS_SSH_CONFIG");
  EXPECT_EQ(r.code, 0) << r.out << r.err << readFile(d / "supervisor.log");
  EXPECT_NE(r.out.find("completed"), std::string::npos) << r.out;
  EXPECT_NE(readFile(sshd_log).find("Accepted publickey"), std::string::npos) << readFile(sshd_log);
  EXPECT_NE(readFile(d / "joint3.log").find("stop: task finished"), std::string::npos) << readFile(d / "joint3.log");
  EXPECT_FALSE(fs::exists(d / "joint3.pid"));  // stopped over ssh, and forgotten
}

// Two hosts on this machine: joint 3 alone in a network namespace of its own, reaching the rest
// over a veth pair, as it would reach another machine.
class Namespace {
 public:
  Namespace() {
    const int id = static_cast<int>(getpid() % 200) + 20;
    name_ = "rfms-h" + std::to_string(getpid());
    veth_ = "rfv" + std::to_string(getpid() % 100000);
    here_ = "10.77." + std::to_string(id) + ".1";
    there_ = "10.77." + std::to_string(id) + ".2";
    const std::string peer = veth_ + "p";
    ok_ = sh("ip netns add " + name_) && sh("ip link add " + veth_ + " type veth peer name " + peer) &&
          sh("ip link set " + peer + " netns " + name_) && sh("ip addr add " + here_ + "/30 dev " + veth_) &&
          sh("ip link set " + veth_ + " up") &&
          sh("ip netns exec " + name_ + " ip addr add " + there_ + "/30 dev " + peer) &&
          sh("ip netns exec " + name_ + " ip link set " + peer + " up") &&
          sh("ip netns exec " + name_ + " ip link set lo up");
  }
  ~Namespace() {
    sh("ip netns del " + name_);  // takes the veth pair with it
    sh("ip link del " + veth_);
  }
  bool ok() const { return ok_; }
  const std::string& name() const { return name_; }
  const std::string& here() const { return here_; }

 private:
  static bool sh(const std::string& cmd) { return std::system((cmd + " 2>/dev/null").c_str()) == 0; }
  std::string name_, veth_, here_, there_;
  bool ok_ = false;
};

TEST(Cluster, AJointInAnotherNetworkNamespace) {
  Namespace ns;
  if (!ns.ok()) FAIL() << "this case needs network namespaces: root and iproute2 (deploy/test runs as root)";
  RunDir run("netns");
  // Ports the kernel has free now: one another program holds on every address would fail the
  // bind on the veth's address as well.
  const std::vector<int> ports = test::freeLoopbackPorts(4);
  ASSERT_EQ(ports.size(), 4u) << "no free ports";
  auto tcp = [&](int i) {
    return "\"tcp://" + ns.here() + ":" + std::to_string(ports[static_cast<std::size_t>(i)]) + "\"";
  };
  std::string cfg = configWith(run.path, "two-hosts.textproto",
                               {{"\"ipc://{run}/supervisor.pub\"", tcp(0)},
                                {"\"ipc://{run}/supervisor.pull\"", tcp(1)},
                                {"\"ipc://{run}/arm.pub\"", tcp(2)},
                                {"\"ipc://{run}/arm.pull\"", tcp(3)}});
  std::ofstream(cfg, std::ios::app) << "placement { node: \"joint3\" via: \"netns:" << ns.name() << "\" }\n";
  std::ofstream(run.path / "short.task") << kShortTask;
  const test::Outcome r = test::runCommand(
      kRfms,
      "run --config " + cfg + " --task " + (run.path / "short.task").string() + " --run-dir " + run.path.string(), 300);
  EXPECT_EQ(r.code, 0) << r.out << r.err << readFile(run.path / "supervisor.log") << readFile(run.path / "joint3.log");
  EXPECT_NE(r.out.find("completed"), std::string::npos) << r.out;
}

TEST(Cluster, RealtimeClockRunsAndReportsItsTiming) {
  RunDir run("realtime");
  const std::string cfg = configWith(run.path, "rt.textproto", {{"clock: CM_LOCKSTEP", "clock: CM_REALTIME"}});
  ASSERT_EQ(test::runCommand(kRfms,
                             "up --config " + cfg + " --run-dir " + run.path.string() +
                                 " --bridge-port 0 -- --run-for-s 2 --stats " + (run.path / "stats.json").string(),
                             60)
                .code,
            0);
  const std::optional<Json> end = waitForEvent(
      run.path, [](const Json& j) { return isEvent(j, "stopped"); }, std::chrono::seconds(60));
  ASSERT_TRUE(end) << eventsText(run.path) << readFile(run.path / "supervisor.log");
  EXPECT_EQ((*end)["stopped"].value("periods", 0), 2000) << eventsText(run.path);  // 2 s at 1 kHz, by count
  // The supervisor finishes its run log, then writes the stats: on a busy machine, a while later.
  EXPECT_TRUE(waitForText(run.path / "stats.json", "\"joint 6\"", std::chrono::seconds(60)));
  const std::string stats = readFile(run.path / "stats.json");
  EXPECT_NE(stats.find("\"periods\":2000"), std::string::npos) << stats;  // 2 s at 1 kHz, by count not by clock
  EXPECT_NE(stats.find("\"joint 6\":{\"misses\":"), std::string::npos) << stats;
  EXPECT_NE(readFile(run.path / "status.txt").find("lateness ms p50"), std::string::npos);
  const test::Outcome status = test::runCommand(kRfms, "status " + run.path.string());
  EXPECT_EQ(status.code, 0);
  EXPECT_NE(status.out.find("supervisor"), std::string::npos) << status.out;
  // The run log carries each period's timing: rfms-replay reads misses and lateness from it.
  const test::Outcome info = test::runCommand(kBin + "/rfms-replay", "info " + (run.path / "run.mcap").string(), 120);
  EXPECT_EQ(info.code, 0) << info.err;
  EXPECT_NE(info.out.find("deadline misses and lateness after the tick"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("joint 6"), std::string::npos) << info.out;
}

// A realtime run's mail depends on the wall clock (late J_MAILs are not read, joints read the
// latest sensors), so its log is verified core by core from what each read; a tampered log fails
// where the tampering is.
TEST(Cluster, ARealtimeRunLogVerifiesCoreByCore) {
  RunDir run("rt-verify");
  const std::string cfg = configWith(run.path, "rt.textproto", {{"clock: CM_LOCKSTEP", "clock: CM_REALTIME"}});
  const fs::path task = run.path / "short.task";
  std::ofstream(task) << kShortTask;
  const test::Outcome up = test::runCommand(
      kRfms, "up --task " + task.string() + " --config " + cfg + " --run-dir " + run.path.string(), 60);
  ASSERT_EQ(up.code, 0) << up.err;
  const fs::path supervisor = run.path / "supervisor.log";
  // Late mail for certain, whatever the machine: joint 3 stalls for 3 ms (3 periods, well inside
  // the watchdog's 10) five times as the run starts. Whether the task completes, and so how long
  // the run is, still depends on the machine's own stalls (a long one on a busy machine trips the
  // watchdog, even while calibrating); the log must verify either way.
  const pid_t joint3 = std::stoi(readFile(run.path / "joint3.pid"));
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    ASSERT_EQ(kill(joint3, SIGSTOP), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    ASSERT_EQ(kill(joint3, SIGCONT), 0);
  }
  ASSERT_TRUE(waitForText(supervisor, "run log ", std::chrono::seconds(120))) << readFile(supervisor);
  const test::Outcome v = test::runCommand(kBin + "/rfms-replay", "verify " + (run.path / "run.mcap").string(), 300);
  EXPECT_EQ(v.code, 0) << v.out << v.err;
  EXPECT_NE(v.out.find("each core re-run alone"), std::string::npos) << v.out;

  const RunLog log = readRunLog((run.path / "run.mcap").string());
  const LoggedArm arm = loggedArm(log);
  const RobotModel model = withTool(arm.model, arm.scene.tool);
  const proto::ControllerSettings& c = log.requireSettings();
  ASSERT_GT(log.smail.size(), 200u);  // the first stall, at 150 ms, is inside the run
  std::size_t late = 0, joint3_late = 0;
  for (const proto::PeriodTiming& t : log.timing) {
    late += t.missed() != 0;
    joint3_late += (t.missed() >> proto::NODE_JOINT3) & 1u;
  }
  std::printf("realtime log: %zu periods, %zu with late mail (%zu of joint 3), %zu J_MAILs\n", log.smail.size(), late,
              joint3_late, log.jmail.size());
  ASSERT_GE(joint3_late, 1u);
  ASSERT_TRUE(verifyEachCore(log, model, arm.scene, c, false).ok);
  // The official reader takes the cluster's log too, the arm's reports included.
  const test::Outcome official = test::runCommand(
      "node", std::string(RFMS_SOURCE_DIR) + "/tools/mcap-check/check.mjs " + (run.path / "run.mcap").string(), 300);
  ASSERT_EQ(official.code, 0) << official.err;
  EXPECT_NE(official.out.find("\"messages\":" + std::to_string(log.messages)), std::string::npos) << official.out;
  EXPECT_NE(official.out.find("\"/rfms/applied\":" + std::to_string(log.applied.size())), std::string::npos)
      << official.out;
  EXPECT_NE(official.out.find("\"rfms.proto.PeriodRecord\""), std::string::npos) << official.out;

  // The tampering below needs the arm powered and servoing; a run that a busy machine ended in an
  // emergency before that has nothing for it to change (the log verified above all the same).
  std::vector<std::uint64_t> powered;
  for (const proto::SMail& m : log.smail)
    if (m.power()) powered.push_back(m.header().period());
  if (powered.size() < 100) {
    std::printf("the arm was powered for %zu periods only: no tampering checked\n", powered.size());
    return;
  }
  const std::uint64_t mid = powered[powered.size() / 2];

  // A joint's torque nudged: that joint's re-run differs in that period.
  RunLog nudged = log;
  const auto servoing = std::find_if(nudged.jmail.begin(), nudged.jmail.end(), [&](const proto::JMail& m) {
    return m.header().period() >= mid && m.torque() != 0.0;
  });
  ASSERT_NE(servoing, nudged.jmail.end());
  proto::JMail& j = *servoing;
  j.set_torque(j.torque() + 1e-9);
  const VerifyResult a = verifyEachCore(nudged, model, arm.scene, c, false);
  EXPECT_FALSE(a.ok);
  EXPECT_EQ(a.divergence.rfind("period " + std::to_string(j.header().period()) + ", /rfms/jmail joint " +
                                   std::to_string(j.joint()) + ": logged vs re-run: modified: torque",
                               0),
            0u)
      << a.divergence;

  // The inbox record says the supervisor did not read joint 3's mail: what it sends that period
  // differs.
  RunLog unread = log;
  proto::PeriodTiming* t = nullptr;
  for (proto::PeriodTiming& candidate : unread.timing)
    if (candidate.period() >= mid && ((candidate.used() >> proto::NODE_JOINT3) & 1u)) {
      t = &candidate;
      break;
    }
  ASSERT_NE(t, nullptr);
  t->set_used(t->used() & ~(1u << proto::NODE_JOINT3));
  const VerifyResult b = verifyEachCore(unread, model, arm.scene, c, false);
  EXPECT_FALSE(b.ok);
  EXPECT_EQ(b.divergence.rfind("period " + std::to_string(t->period()) + ", /rfms/", 0), 0u) << b.divergence;
  EXPECT_NE(b.divergence.find("mail"), std::string::npos) << b.divergence;

  // The arm's report says joint 2's command did not come: the arm integrates without it (no
  // power), and its next sensor mail differs.
  RunLog unpowered = log;
  std::map<std::uint64_t, double> joint2_torque;
  for (const proto::TorqueCommand& command : log.torque)
    if (command.joint() == 2) joint2_torque[command.header().period()] = command.torque();
  const auto driven =
      std::find_if(unpowered.applied.begin(), unpowered.applied.end(), [&](const proto::AppliedTorques& r) {
        if (r.header().period() < mid || r.applied_period_size() != kJoints || r.applied_period(1) < 0) return false;
        const auto command = joint2_torque.find(static_cast<std::uint64_t>(r.applied_period(1)));
        return command != joint2_torque.end() && command->second != 0.0;
      });
  ASSERT_NE(driven, unpowered.applied.end());
  proto::AppliedTorques& applied = *driven;
  applied.set_applied_period(1, -1);
  const VerifyResult d = verifyEachCore(unpowered, model, arm.scene, c, false);
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.divergence.rfind("period " + std::to_string(applied.header().period() + 1) + ", /rfms/sensors", 0), 0u)
      << d.divergence;
  // An answer of joint 3 lost from the log: the joint's re-run cannot know it stepped, and the next
  // answer gives it away. (A late one, which the supervisor did not read, when there is one: a
  // realtime joint answers only the newest S_MAIL, so its answers are late only when it stalls
  // between reading its mail and answering.)
  RunLog gap = log;
  auto unreadAnswer = [&](const proto::JMail& m, bool went_unread) {
    if (m.joint() != 3 || m.header().period() < mid) return false;
    for (const proto::PeriodTiming& p : log.timing)
      if (p.period() == m.header().period() + 1) return (((p.used() >> proto::NODE_JOINT3) & 1u) == 0) == went_unread;
    return false;
  };
  auto lost =
      std::find_if(gap.jmail.begin(), gap.jmail.end(), [&](const proto::JMail& m) { return unreadAnswer(m, true); });
  const bool late_answer = lost != gap.jmail.end();
  if (!late_answer)
    lost =
        std::find_if(gap.jmail.begin(), gap.jmail.end(), [&](const proto::JMail& m) { return unreadAnswer(m, false); });
  ASSERT_NE(lost, gap.jmail.end());
  const std::uint64_t lost_period = lost->header().period();
  gap.jmail.erase(lost);
  const VerifyResult e = verifyEachCore(gap, model, arm.scene, c, false);
  EXPECT_FALSE(e.ok);
  if (late_answer) {  // only the joint's re-run can miss it
    EXPECT_NE(e.divergence.find("/rfms/jmail joint 3"), std::string::npos) << e.divergence;
    EXPECT_NE(e.divergence.find("lacks this joint's answers"), std::string::npos) << e.divergence;
  } else {  // the supervisor read it: its re-run misses it first
    EXPECT_NE(e.divergence.find("the supervisor read joint 3's J_MAIL of period " + std::to_string(lost_period) +
                                ", which is not in the log"),
              std::string::npos)
        << e.divergence;
  }

  // A log the logger dropped J_MAILs from (a realtime writer that fell behind): verify checks what
  // it can, says what it could not, and calls nothing a divergence that the log cannot show.
  RunLog lossy = log;
  // A period whose J_MAILs the supervisor read, all six, in the next: its re-run needs them there.
  // (In realtime a period's answers may all come late and go unread; a hole there costs nothing.)
  const auto readAll = [&](std::uint64_t k) {
    for (const proto::PeriodTiming& p : log.timing)
      if (p.period() == k + 1) return ((p.used() >> proto::NODE_JOINT1) & 0x3fu) == 0x3fu;
    return false;
  };
  std::uint64_t hole = lossy.smail.size() / 2;
  while (!readAll(hole) && hole + 2 < lossy.smail.size()) ++hole;
  ASSERT_TRUE(readAll(hole));
  const auto before = lossy.jmail.size();
  lossy.jmail.erase(std::remove_if(lossy.jmail.begin(), lossy.jmail.end(),
                                   [&](const proto::JMail& m) { return m.header().period() == hole; }),
                    lossy.jmail.end());
  ASSERT_LT(lossy.jmail.size(), before);
  lossy.drops.set_dropped(before - lossy.jmail.size());
  auto* dropped = lossy.drops.add_per_topic();
  dropped->set_topic(topic::kJMail);
  dropped->set_dropped(before - lossy.jmail.size());
  const VerifyResult f = verifyEachCore(lossy, model, arm.scene, c, false);
  EXPECT_TRUE(f.ok) << f.divergence;
  std::string unchecked;
  for (const std::string& u : f.unchecked) unchecked += u + "\n";
  EXPECT_NE(unchecked.find("dropped by the logger: " + std::to_string(before - lossy.jmail.size()) +
                           " messages (/rfms/jmail"),
            std::string::npos)
      << unchecked;
  EXPECT_NE(unchecked.find("supervisor checked up to period " + std::to_string(hole + 1) + " only"), std::string::npos)
      << unchecked;
  // The same hole in a log that claims to have lost nothing is a divergence, as before.
  lossy.drops.Clear();
  EXPECT_FALSE(verifyEachCore(lossy, model, arm.scene, c, false).ok);
  std::printf("tampered: %s\n  %s\n  %s\n  (J_MAIL %llu of joint 3 lost) %s\n", a.divergence.c_str(),
              b.divergence.c_str(), d.divergence.c_str(), static_cast<unsigned long long>(lost_period),
              e.divergence.c_str());
}

TEST(Cluster, ANodeWhoseConfigurationDisagreesIsRefused) {
  RunDir run("refuse");
  const std::string base = readFile(std::string(RFMS_SOURCE_DIR) + "/deploy/clusters/local.textproto");
  auto write = [&](const std::string& name, const std::string& dt, const std::string& extra = "") {
    std::string text = base;
    text.replace(text.find("controller {"), 12, "controller {" + extra);
    text.replace(text.find("dt_ms: 1"), 8, "dt_ms: " + dt);
    text.replace(text.find("startup_timeout_ms: 10000"), 25, "startup_timeout_ms: 3000");
    text.replace(text.find("../robots"), 9, std::string(RFMS_SOURCE_DIR) + "/deploy/robots");
    text.replace(text.find("../scenes"), 9, std::string(RFMS_SOURCE_DIR) + "/deploy/scenes");
    std::ofstream(run.path / name) << text;
    return (run.path / name).string();
  };
  const std::string good = write("good.textproto", "1"), bad = write("bad.textproto", "2"),
                    other_pik = write("pik.textproto", "1", "\n  pik: PAPER");
  test::ProcessGroup g;
  const std::string dir = run.path.string();
  auto log = [&](const char* n) { return (run.path / (std::string(n) + ".log")).string(); };
  const pid_t sup = g.start({kBin + "/rfms-supervisor", "--config", good, "--run-dir", dir}, log("supervisor"));
  g.start({kBin + "/rfms-arm", "--config", good, "--run-dir", dir}, log("arm"));
  g.start({kBin + "/rfms-math", "--config", good, "--run-dir", dir}, log("math"));
  pid_t odd = -1, odd_pik = -1;
  for (int j = 1; j <= 6; ++j) {
    const std::string cfg = j == 3 ? bad : j == 5 ? other_pik : good;
    const pid_t p = g.start({kBin + "/rfms-joint", "--config", cfg, "--run-dir", dir, "--joint", std::to_string(j)},
                            log(("joint" + std::to_string(j)).c_str()));
    if (j == 3) odd = p;
    if (j == 5) odd_pik = p;
  }
  // Each refused joint's own word: refused, and why (the supervisor's reason, as it sent it).
  EXPECT_EQ(g.wait(odd, std::chrono::seconds(20)), 2);
  const Json j3 = test::nodeEnd(run.path, "joint3");
  EXPECT_EQ(j3.value("cause", ""), "REFUSED") << j3 << readFile(log("joint3"));
  EXPECT_EQ(j3.value("detail", ""), "its controller.dt_ms 2 differs from the supervisor's 1") << j3;
  EXPECT_EQ(g.wait(odd_pik, std::chrono::seconds(20)), 2);
  const Json j5 = test::nodeEnd(run.path, "joint5");
  EXPECT_EQ(j5.value("cause", ""), "REFUSED") << j5 << readFile(log("joint5"));
  EXPECT_EQ(j5.value("detail", ""), "its controller.pik PAPER differs from the supervisor's DECOUPLED_EXTRAPOLATED")
      << j5;
  EXPECT_EQ(g.wait(sup, std::chrono::seconds(20)), 1);
  EXPECT_NE(readFile(log("supervisor")).find("not ready after 3000 ms: joint 3"), std::string::npos)
      << readFile(log("supervisor"));
}

TEST(Cluster, EveryNodeHasHelpAndRefusesABadConfiguration) {
  for (const char* exe : {"rfms-supervisor", "rfms-arm", "rfms-math", "rfms-joint"}) {
    const test::Outcome help = test::runCommand(kBin + "/" + exe, "--help");
    EXPECT_EQ(help.code, 0) << exe;
    EXPECT_NE(help.out.find("--config"), std::string::npos) << exe;
    const std::string joint = std::string(exe) == "rfms-joint" ? " --joint 1" : "";
    const test::Outcome bad = test::runCommand(kBin + "/" + exe, "--config /nonexistent.textproto" + joint);
    EXPECT_EQ(bad.code, 2) << exe;
    EXPECT_NE(bad.err.find("/nonexistent.textproto: cannot open cluster configuration"), std::string::npos)
        << exe << ": " << bad.err;
  }
}

}  // namespace
}  // namespace rfms
