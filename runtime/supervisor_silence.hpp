// How long a node goes on without a word from the supervisor. The supervisor is the cluster's
// clock and its only source of setpoints: once it is gone (killed, its machine lost), a node that
// waits for it forever is a process nobody stops, and an arm left powered. Each node's shell calls
// heard() on every mail from the supervisor and, once gone(), makes itself safe and exits.
#pragma once

#include <chrono>

#include "runtime/mail_wait.hpp"

namespace rfms {

class SupervisorSilence {
 public:
  explicit SupervisorSilence(std::chrono::milliseconds bound) : bound_(bound) {}
  void heard() { last_ = SteadyClock::now(); }
  bool gone() const { return SteadyClock::now() - last_ > bound_; }
  double boundSeconds() const { return std::chrono::duration<double>(bound_).count(); }

 private:
  std::chrono::milliseconds bound_;
  SteadyClock::time_point last_ = SteadyClock::now();
};

}  // namespace rfms
