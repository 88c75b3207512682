// A task file drawn at random from a seed, for tests that must drive every path of the
// controller rather than a quiet stretch of one move: joint and straight-line moves, blends,
// compliant moves, guarded touches, pressing and sliding under force control, joint and Cartesian
// jogs, a tracked frame that moves, a stop in the middle of a move, names forgotten, requests that
// must be refused, and at the end an emergency stop. Its poses lie above the default scene's table
// (deploy/scenes/table.textproto), reachable with the PUMA 260's righty,down,flip; the same seed
// gives the same text.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace rfms::test {

struct RandomTask {
  std::string text;
  // How many episodes of each kind it holds ("joint", "line", "blend", "compliant", "force",
  // "jog", "track", "stop", "forget", "refused"), and how many requests it sends in all.
  std::map<std::string, int> episodes;
  int requests = 0;
};

// `episodes` episodes in random order, then `emergency-stop`.
RandomTask randomTask(std::uint32_t seed, int episodes);

}  // namespace rfms::test
