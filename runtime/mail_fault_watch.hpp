// Says so when a node's mail is damaged. A thread of its own looks at the port's counts
// (MailPort::faults, relaxed atomics) every second and logs one line per box whose damage grew —
// corrupt, malformed, disordered, impossible: mail that was wrong, not merely late — naming the
// box, its writer and the counts. At most one line a box a second, however fast the damage
// comes; the period's thread only counts.
#pragma once

#include <spdlog/spdlog.h>

#include <array>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "proto/cluster.pb.h"
#include "runtime/mail_port.hpp"

namespace rfms {

class MailFaultWatch {
 public:
  MailFaultWatch(const MailPort& port, spdlog::logger& log);
  ~MailFaultWatch();
  MailFaultWatch(const MailFaultWatch&) = delete;
  MailFaultWatch& operator=(const MailFaultWatch&) = delete;

  // Logs what grew since the last look, now.
  void report();

 private:
  const MailPort& port_;
  spdlog::logger& log_;
  std::mutex mutex_;
  std::array<std::uint64_t, kBoxCount> seen_{};
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

// The port's counts as a node's last word holds them (empty when nothing was counted).
proto::MailFaults mailFaultsOf(const MailPort& port);
// One line for a status file: "mail damaged: none", or the damaged boxes and their counts.
std::string mailDamageLine(const MailPort& port);

}  // namespace rfms
