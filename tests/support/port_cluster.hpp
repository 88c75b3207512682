// The nine nodes' mail ports in one test process, each as its node would open it: over shared
// memory (a segment of the test's own run directory) or over in-process ZeroMQ. Each port is then
// used by one thread only, as each node is a process of its own in a cluster.
#pragma once

#include <spdlog/spdlog.h>

#include <array>
#include <filesystem>
#include <memory>
#include <string>

#include "common/mail_names.hpp"
#include "runtime/mail_port.hpp"
#include "runtime/transport.hpp"
#include "tests/support/temp_dir.hpp"

namespace rfms::test {

// A cluster's settings for in-process tests: lockstep, patient timeouts, in-process endpoints
// (named after `name`, so that tests in one process do not share them).
inline ClusterSettings inProcessCluster(proto::MailTransport transport, const std::string& name) {
  ClusterSettings s;
  proto::ClusterConfig& c = s.config;
  c.set_clock(proto::CM_LOCKSTEP);
  c.set_mail_transport(transport);
  c.set_lockstep_timeout_ms(5000);  // a loaded machine must not turn into missed mail
  c.set_startup_timeout_ms(20000);
  c.set_orphan_timeout_ms(60000);
  c.set_supervisor_pub("inproc://" + name + ".supervisor.pub");
  c.set_supervisor_pull("inproc://" + name + ".supervisor.pull");
  c.set_arm_pub("inproc://" + name + ".arm.pub");
  c.set_arm_pull("inproc://" + name + ".arm.pull");
  s.robot_digest = "test";
  return s;
}

inline const char* transportName(proto::MailTransport t) { return t == proto::MT_ZEROMQ ? "ZeroMQ" : "SharedMemory"; }

class PortCluster {
 public:
  explicit PortCluster(const ClusterSettings& s) : run_(makeUniqueDir("rfms-ports")) {
    // The supervisor and the arm first: over ZeroMQ they bind what the others connect to.
    for (proto::Node n : kClusterNodes)
      ports_[static_cast<std::size_t>(n)] = openMailPort(s, n, run_.string(), transport_, *spdlog::default_logger());
  }
  ~PortCluster() {
    for (auto& p : ports_) p.reset();
    std::error_code ec;
    std::filesystem::remove_all(run_, ec);
  }
  MailPort& port(proto::Node n) { return *ports_[static_cast<std::size_t>(n)]; }
  const std::filesystem::path& runDir() const { return run_; }

 private:
  std::filesystem::path run_;
  Transport transport_;
  std::array<std::unique_ptr<MailPort>, kNodeSlots> ports_;
};

}  // namespace rfms::test
