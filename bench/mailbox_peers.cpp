#include "bench/mailbox_peers.hpp"

#include <signal.h>
#include <spdlog/sinks/null_sink.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "runtime/mail_port.hpp"
#include "runtime/start_handshake.hpp"
#include "runtime/transport.hpp"

namespace rfms::bench {

std::filesystem::path privateTempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "rfms-bench-mail-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp " + pattern + " failed");
  return pattern;
}

ClusterSettings clusterIn(const std::filesystem::path& dir, proto::MailTransport transport) {
  ClusterSettings s;
  proto::ClusterConfig& c = s.config;
  c.set_clock(proto::CM_LOCKSTEP);
  c.set_mail_transport(transport);
  c.set_lockstep_timeout_ms(5000);
  c.set_startup_timeout_ms(20000);
  c.set_orphan_timeout_ms(20000);
  c.set_supervisor_pub("ipc://" + (dir / "supervisor.pub").string());
  c.set_supervisor_pull("ipc://" + (dir / "supervisor.pull").string());
  c.set_arm_pub("ipc://" + (dir / "arm.pub").string());
  c.set_arm_pull("ipc://" + (dir / "arm.pull").string());
  s.robot_digest = "bench";
  return s;
}

int runPeer(const ClusterSettings& s, proto::Node node, const std::string& run_dir, const Payloads& mail) {
  auto log = spdlog::null_logger_mt("peer");
  Transport t(s, "peer", *log);
  const std::unique_ptr<MailPort> port = openMailPort(s, node, run_dir, t, *log);
  if (awaitStart(node, s, *port, *log) != StartResult::kStarted) return 1;
  const bool math = node == proto::NODE_MATH;
  const Box in_box = math ? Box::kMMail : Box::kSMail;
  const Box out_box = math                      ? Box::kParcel
                      : node == proto::NODE_ARM ? Box::kSensors
                                                : jmailBox(node - proto::NODE_JOINT1 + 1);
  proto::Envelope answer = math                      ? mail.parcel
                           : node == proto::NODE_ARM ? mail.sensors
                                                     : mail.jmail[static_cast<std::size_t>(node - proto::NODE_JOINT1)];
  MailSlot in;
  for (;;) {
    port->wait(bit(in_box), bit(Box::kControl), std::chrono::steady_clock::now() + std::chrono::seconds(30));
    while (port->next(Box::kControl, in))
      if (in.mail().has_stop()) return 0;
    while (port->next(in_box, in)) port->publish(out_box, answer, 0);
  }
}

void reap(const std::vector<pid_t>& peers) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (pid_t p : peers) {
    int status = 0;
    while (waitpid(p, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > end) {
        kill(p, SIGKILL);
        waitpid(p, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
}

std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

}  // namespace rfms::bench
