// Bringing a harness from power-up to HOLD, as most tests of the whole controller begin.
#pragma once

#include "harness/harness.hpp"
#include "tests/support/task_builders.hpp"

namespace rfms::test {

// A few periods for every node to be heard, the calibrate command, and the index search (at most
// a minute of simulated time). False when the command was refused or HOLD never came.
inline bool calibrate(Harness& h) {
  h.runUntil([] { return false; }, 10);
  return h.request(controlRequest(proto::CC_CALIBRATE)).accepted() &&
         h.runUntil([&] { return h.supervisor().rtstate() == proto::RT_HOLD; }, 60000);
}

}  // namespace rfms::test
