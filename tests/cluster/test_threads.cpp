// Which thread runs in which scheduling class: docs/architecture.md's table of threads, checked
// against a running cluster's processes as /proc shows them.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/cluster_run.hpp"

namespace rfms {
namespace {

namespace fs = std::filesystem;

constexpr int kRtPriority = 5;

// What the page says of a thread's class.
struct Class {
  enum Kind { kFifo, kOther, kNodes } kind = kOther;  // kNodes: the node's own, as its main thread
  int value = 0;                                      // kFifo: added to rt_priority; kOther: the niceness
};

// The page's table under "## Threads": each name in backticks of a row's first cell, with the
// class its third cell gives.
std::map<std::string, Class> threadTable() {
  const std::string page = test::readFile(std::string(RFMS_SOURCE_DIR) + "/docs/architecture.md");
  const auto from = page.find("\n## Threads\n");
  EXPECT_NE(from, std::string::npos) << "docs/architecture.md has no '## Threads' section";
  std::map<std::string, Class> table;
  if (from == std::string::npos) return table;
  std::istringstream lines(page.substr(from + 1, page.find("\n## ", from + 1) - from));
  const std::regex row(R"(^\| ([^|]+) \| [^|]+ \| ([^|]+) \| .*\|$)"), name("`([^`]+)`"),
      nice(R"(SCHED_OTHER`, nice (\d+))");
  for (std::string line; std::getline(lines, line);) {
    std::smatch m, n;
    if (!std::regex_match(line, m, row) || line.starts_with("| thread")) continue;
    const std::string names = m[1], cls = m[2];
    Class c;
    if (cls.find("SCHED_FIFO") != std::string::npos)
      c = {Class::kFifo, cls.find("+ 1") != std::string::npos ? 1 : 0};
    else if (std::regex_search(cls, n, nice))
      c = {Class::kOther, std::stoi(n[1])};
    else if (cls.find("the node's own") != std::string::npos)
      c = {Class::kNodes, 0};
    else
      ADD_FAILURE() << "docs/architecture.md, threads: no class I can read in '" << cls << "'";
    for (std::sregex_iterator i(names.begin(), names.end(), name), end; i != end; ++i) table[(*i)[1]] = c;
  }
  return table;
}

struct ThreadSeen {
  std::string tid, name;
  int policy = 0, rt_priority = 0, nice = 0;
};

// Every thread of `pid`, from /proc/PID/task/TID/stat (fields 19 nice, 40 rt_priority, 41 policy).
std::vector<ThreadSeen> threadsOf(const std::string& pid) {
  std::vector<ThreadSeen> out;
  std::error_code ec;
  for (const auto& t : fs::directory_iterator("/proc/" + pid + "/task", ec)) {
    const std::string stat = test::readFile(t.path() / "stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 2));
    std::vector<std::string> f{std::istream_iterator<std::string>(fields), {}};
    if (f.size() < 39) continue;
    std::string comm = test::readFile(t.path() / "comm");
    if (!comm.empty() && comm.back() == '\n') comm.pop_back();
    // f[0] is field 3 (state): field N is f[N - 3].
    out.push_back({t.path().filename().string(), comm, std::stoi(f[38]), std::stoi(f[37]), std::stoi(f[16])});
  }
  return out;
}

std::string describe(const std::vector<ThreadSeen>& threads) {
  std::string s;
  for (const ThreadSeen& t : threads)
    s += "  " + t.name + ": policy " + std::to_string(t.policy) + ", rt_priority " + std::to_string(t.rt_priority) +
         ", nice " + std::to_string(t.nice) + "\n";
  return s;
}

TEST(Cluster, EachThreadRunsInTheClassThisPageGivesIt) {
  const std::map<std::string, Class> table = threadTable();
  ASSERT_FALSE(table.empty());
  test::RunDir run("threads");
  const std::string cfg =
      test::configWith(run.path, "threads.textproto",
                       {{"clock: CM_LOCKSTEP", "clock: CM_PACED\nrt_priority: " + std::to_string(kRtPriority)}});
  const test::Outcome up =
      test::runCommand(test::kRfms, "up --config " + cfg + " --run-dir " + run.path.string() + " --no-view", 120);
  ASSERT_EQ(up.code, 0) << up.err;

  // The threads each process must have started: the period's, spdlog's, the fault recorder's, and
  // the supervisor's background, run-log writer and status writer.
  const std::set<std::string> every_node = {"rfms-log-lines", "rfms-fault-rec"};
  const std::map<std::string, std::set<std::string>> required = {
      {"supervisor", {"rfms-supervisor", "rfms-background", "rfms-log-writer", "rfms-status"}},
      {"joint1", {"rfms-joint"}},
      {"joint6", {"rfms-joint"}},
      {"math", {"rfms-math"}},
      {"arm", {"rfms-arm"}},
      {"bridge", {"rfms-bridge", "rfms-log-lines", "rfms-status"}}};
  for (const auto& [node, names] : required) {
    std::string pid = test::readFile(run.path / (node + ".pid"));
    pid = pid.substr(0, pid.find('\n'));
    std::set<std::string> want = names;
    if (node != "bridge") want.insert(every_node.begin(), every_node.end());
    // Started by now or soon: the fault recorder comes after the start handshake.
    std::vector<ThreadSeen> seen;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (;;) {
      seen = threadsOf(pid);
      std::set<std::string> have;
      for (const ThreadSeen& t : seen) have.insert(t.name);
      if (std::includes(have.begin(), have.end(), want.begin(), want.end())) break;
      ASSERT_LT(std::chrono::steady_clock::now(), until)
          << node << " (pid " << pid << ") has not started every thread the page names for it:\n"
          << describe(seen);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    // Its main thread: the node's SCHED_FIFO priority, or the bridge's plain class.
    const auto main_thread = std::find_if(seen.begin(), seen.end(), [&](const ThreadSeen& t) { return t.tid == pid; });
    ASSERT_NE(main_thread, seen.end()) << node;
    const ThreadSeen main = *main_thread;
    if (node != "bridge" && main.policy != 1)
      FAIL() << node << " could not take SCHED_FIFO on this machine (rt_priority " << kRtPriority << "; see its log in "
             << run.path << "): this test needs a user allowed real-time priority\n"
             << describe(seen);
    for (const ThreadSeen& t : seen) {
      const auto row = table.find(t.name);
      if (row == table.end()) {
        ADD_FAILURE() << node << ": thread '" << t.name << "' is not in docs/architecture.md's table\n"
                      << describe(seen);
        continue;
      }
      const Class& c = row->second;
      if (c.kind == Class::kNodes) {
        EXPECT_EQ(t.policy, main.policy) << node << ": " << t.name;
        EXPECT_EQ(t.rt_priority, main.rt_priority) << node << ": " << t.name;
      } else if (c.kind == Class::kFifo && node != "bridge") {
        EXPECT_EQ(t.policy, 1) << node << ": " << t.name << " should be SCHED_FIFO\n" << describe(seen);
        EXPECT_EQ(t.rt_priority, kRtPriority + c.value) << node << ": " << t.name;
      } else if (c.kind == Class::kOther) {
        EXPECT_EQ(t.policy, 0) << node << ": " << t.name << " should be SCHED_OTHER\n" << describe(seen);
        EXPECT_EQ(t.nice, c.value) << node << ": " << t.name << "'s niceness";
      }
    }
  }
}

}  // namespace
}  // namespace rfms
