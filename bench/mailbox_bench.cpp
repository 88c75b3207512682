// rfms-bench-mailbox: the mailbox transports alone, between processes, on this machine, with the
// controller's own mail (an S_MAIL, M_MAIL, J_MAILs, PARCEL and sensors taken from the harness):
//  - ping-pong: the supervisor sends M_MAIL, the math server answers with a PARCEL;
//  - fan-out 1-to-7: the supervisor sends S_MAIL to the six joints and the arm, each answers (its
//    J_MAIL, the arm its sensors), and the supervisor waits for all seven.
// Each is a round trip of real processes (the supervisor and eight forked peers), timed from the
// send to the last answer read, parse included. Transports: the project's shared-memory segment
// (runtime/shared_memory_port.hpp), ZeroMQ over ipc (runtime/zmq_port.hpp), and Eclipse iceoryx 2.0
// (publishers and subscribers, a WaitSet to block), when its RouDi daemon is installed: the
// benchmark starts one for the run (and uses one already running). Nobody spins: every wait sleeps.
// First, the floor under them all: a bare futex handed back and forth between two processes.
//   build/bin/rfms-bench-mailbox [--rounds N] [--transport rfms|zeromq|iceoryx]...
#include <linux/futex.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "bench/mailbox_peers.hpp"
#include "common/command_line.hpp"
#include "common/robot_model_loader.hpp"
#include "harness/harness.hpp"
#include "runtime/mail_port.hpp"
#include "runtime/start_handshake.hpp"
#include "runtime/transport.hpp"

namespace {

using namespace rfms;
using Clock = std::chrono::steady_clock;
using bench::Figures;

// The mail of one period of the whole controller, from the harness, moving the arm.
bench::Payloads realMail() {
  const RobotModel model = loadRobotModel(RFMS_DEFAULT_ROBOT);
  Harness h(model, proto::ControllerSettings{}, loadScene(RFMS_DEFAULT_SCENE));
  proto::TaskRequest calibrate;
  calibrate.mutable_control()->set_command(proto::CC_CALIBRATE);
  h.request(calibrate);
  bench::Payloads p;
  h.on_period = [&](const PeriodMail& m) {
    *p.smail.mutable_smail() = *m.smail;
    *p.mmail.mutable_mmail() = *m.mmail;
    *p.parcel.mutable_parcel() = *m.parcel;
    *p.sensors.mutable_sensors() = *m.sensors;
    for (int j = 0; j < kJoints; ++j)
      *p.jmail[static_cast<std::size_t>(j)].mutable_jmail() = *m.jmail[static_cast<std::size_t>(j)];
  };
  for (int k = 0; k < 3000; ++k) h.step();
  return p;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

// The supervisor's side over a MailPort: the cluster's own start handshake, then the rounds.
Figures runPorts(proto::MailTransport transport, int rounds, const bench::Payloads& mail) {
  const std::filesystem::path dir = bench::privateTempDir();
  ClusterSettings s = bench::clusterIn(dir, transport);
  std::vector<pid_t> peers;
  for (proto::Node n : kAnsweringNodes) {
    const pid_t pid = fork();
    if (pid == 0) _exit(bench::runPeer(s, n, dir.string(), mail));
    peers.push_back(pid);
  }
  Figures f;
  {
    auto log = spdlog::null_logger_mt("bench-supervisor");
    Transport t(s, "supervisor", *log);
    const std::unique_ptr<MailPort> port = openMailPort(s, proto::NODE_SUPERVISOR, dir.string(), t, *log);
    if (!waitForNodes(s, *port, *log)) {
      std::fprintf(stderr, "rfms-bench-mailbox: the peers did not start\n");
    } else {
      MailSlot in;
      proto::Envelope smail = mail.smail, mmail = mail.mmail;
      constexpr BoxSet kFanIn = kAllJMail | bit(Box::kSensors);
      for (int k = 1; k <= 2 * rounds; ++k) {
        const bool ping = k <= rounds;
        const auto start = Clock::now();
        const auto deadline = start + std::chrono::seconds(5);
        if (ping) {
          mmail.mutable_mmail()->mutable_header()->set_period(static_cast<std::uint64_t>(k));
          port->publish(Box::kMMail, mmail, static_cast<std::uint64_t>(k));
          if (!port->wait(bit(Box::kParcel), 0, deadline)) break;
          port->next(Box::kParcel, in);
          f.ping_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
        } else {
          smail.mutable_smail()->mutable_header()->set_period(static_cast<std::uint64_t>(k));
          port->publish(Box::kSMail, smail, static_cast<std::uint64_t>(k));
          if (!port->wait(kFanIn, 0, deadline)) break;
          for (int j = 1; j <= kJoints; ++j) port->next(jmailBox(j), in);
          port->next(Box::kSensors, in);
          f.fan_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
        }
      }
      proto::Envelope stop;
      stop.mutable_stop()->set_reason("benchmark over");
      port->publish(Box::kControl, stop, 0);
      port->deliverBeforeClosing();
    }
    spdlog::drop("bench-supervisor");
  }
  bench::reap(peers);
  std::filesystem::remove_all(dir);
  return f;
}

// The floor under every transport here: two processes handing a futex word back and forth, no
// mail, each wait a sleep.
Figures runFutexFloor(int rounds) {
  auto* words = static_cast<std::atomic<std::uint32_t>*>(
      mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  std::atomic<std::uint32_t>& ping = words[0];
  std::atomic<std::uint32_t>& pong = words[16];
  auto futex = [](std::atomic<std::uint32_t>& w, int op, std::uint32_t v) {
    return syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&w), op, v, nullptr, nullptr, 0);
  };
  const pid_t peer = fork();
  if (peer == 0) {
    for (int i = 0; i < rounds; ++i) {
      while (ping.load() == 0) futex(ping, FUTEX_WAIT, 0);
      ping.store(0);
      pong.store(1);
      futex(pong, FUTEX_WAKE, 1);
    }
    _exit(0);
  }
  Figures f;
  for (int i = 0; i < rounds; ++i) {
    const auto start = Clock::now();
    ping.store(1);
    futex(ping, FUTEX_WAKE, 1);
    while (pong.load() == 0) futex(pong, FUTEX_WAIT, 0);
    pong.store(0);
    f.ping_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  bench::reap({peer});
  munmap(words, 4096);
  return f;
}

void print(const char* name, const Figures& f, const Figures* base) {
  auto rate = [](const std::vector<double>& v) { return v.empty() ? 0.0 : 1e6 / percentile(v, 0.5); };
  std::printf("%-26s %8.1f %8.1f %9.0f", name, percentile(f.ping_us, 0.5), percentile(f.ping_us, 0.99),
              rate(f.ping_us));
  if (!f.fan_us.empty())
    std::printf(" %10.1f %8.1f %9.0f", percentile(f.fan_us, 0.5), percentile(f.fan_us, 0.99), rate(f.fan_us));
  if (base != nullptr && !base->fan_us.empty() && !f.fan_us.empty())
    std::printf("   x%.2f / x%.2f", percentile(f.ping_us, 0.5) / percentile(base->ping_us, 0.5),
                percentile(f.fan_us, 0.5) / percentile(base->fan_us, 0.5));
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rfms-bench-mailbox: ping-pong and 1-to-7 fan-out of the mailbox transports, between processes"};
  int rounds = 20000;
  std::vector<std::string> transports{"rfms", "zeromq", "iceoryx"};
  app.add_option("--rounds", rounds, "round trips of each kind")
      ->check(CLI::Range(100, 10'000'000))
      ->capture_default_str();
  app.add_option("--transport", transports, "which to measure")->check(CLI::IsMember({"rfms", "zeromq", "iceoryx"}));
  if (const auto code = rfms::parseCommandLine(app, argc, argv)) return *code;
  spdlog::set_level(spdlog::level::warn);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // nothing buffered is copied into the peers it forks

  utsname u{};
  uname(&u);
  std::printf("machine: %u cores, %s, %s\n", std::thread::hardware_concurrency(), bench::cpuModel().c_str(), u.release);
  const bench::Payloads mail = realMail();
  std::printf("mail: S_MAIL %zu B, M_MAIL %zu B, J_MAIL %zu B, PARCEL %zu B, sensors %zu B; %d round trips of each\n\n",
              mail.smail.ByteSizeLong(), mail.mmail.ByteSizeLong(), mail.jmail[0].ByteSizeLong(),
              mail.parcel.ByteSizeLong(), mail.sensors.ByteSizeLong(), rounds);
  std::printf("%-26s %8s %8s %9s %10s %8s %9s   %s\n", "", "ping p50", "p99", "per s", "fan-out p50", "p99", "per s",
              "against shared memory");
  std::printf("%-26s %8s %8s %9s %10s %8s %9s\n", "(microseconds)", "", "", "", "", "", "");
  print("a bare futex, no mail", runFutexFloor(rounds), nullptr);
  Figures shm;
  bool have_shm = false;
  for (const std::string& t : transports) {
    if (t == "rfms") {
      shm = runPorts(proto::MT_SHARED_MEMORY, rounds, mail);
      have_shm = true;
      print("shared memory (this one)", shm, nullptr);
    } else if (t == "zeromq") {
      print("ZeroMQ ipc", runPorts(proto::MT_ZEROMQ, rounds, mail), have_shm ? &shm : nullptr);
    } else {
      std::string why;
      const Figures f = bench::runIceoryx(rounds, mail, why);
      if (!why.empty())
        std::printf("%-26s not measured: %s\n", "iceoryx 2.0", why.c_str());
      else
        print("iceoryx 2.0 (WaitSet)", f, have_shm ? &shm : nullptr);
    }
  }
  return 0;
}
