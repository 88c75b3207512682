// What counts as period k's mail, by clock (proto/cluster.proto's ClockMode): the one place the
// shells learn it from.
//
// Lockstep and paced: every node waits for its period's mail; mail of another period is not this
// one's input (an older one is late). Realtime: each node keeps its own time, and takes the newest
// mail of a node with a clock of its own. Either way the joints answer every S_MAIL and the math
// server every M_MAIL, in order (a run log re-runs each core on every mail it answered, and an
// answer missing from a log that lost mail could otherwise not be told from one never sent), and
// the supervisor takes an answer to its own mail only in the period after it asked: those are
// not the clock's to decide.
#pragma once

#include <cstdint>

#include "proto/cluster.pb.h"

namespace rfms {

class ClockRules {
 public:
  explicit ClockRules(proto::ClockMode clock) : waits_(clock != proto::CM_REALTIME) {}

  // Whether nodes wait for each period's mail (lockstep, paced) or keep their own time (realtime).
  bool waitsForMail() const { return waits_; }
  // Whether mail of period `p` from a node with a clock of its own (the arm's sensors, a joint's
  // torque) is the input of a step of period `k`: exactly k's, or in realtime whatever is newest.
  bool isInput(std::uint64_t p, std::uint64_t k) const { return !waits_ || p == k; }
  // Whether it came after period k went on without it (never in realtime, where it is newest).
  bool isLate(std::uint64_t p, std::uint64_t k) const { return waits_ && p < k; }

 private:
  bool waits_;
};

}  // namespace rfms
