// `rfms-replay info`: what a run log says happened, for a person.
#pragma once

#include <map>
#include <string>

#include "replay/run_log_reader.hpp"

namespace rfms {

struct LogInfo {
  std::string robot, source, clock, version;
  double dt_ms = 1.0;
  std::uint64_t periods = 0;
  // A fault record (the last periods before an emergency): what it was written for, and the
  // periods it holds. Empty for a run's own log.
  std::string fault;
  std::uint64_t first_period = 0, last_period = 0;
  double duration_s = 0.0;
  struct Move {
    std::uint64_t id = 0, started = 0, ended = 0;
    bool completed = false, aborted = false;
  };
  std::vector<Move> moves;
  std::vector<std::string> states;       // in the order entered
  std::vector<std::string> emergencies;  // reason (node) at period
  // Mail the supervisor dropped as damaged or impossible, by box: the last count logged, the writer.
  std::map<std::string, std::pair<std::uint64_t, proto::Node>> mail_damage;
  std::uint64_t requests = 0, refused = 0;
  double max_path_deviation_mm = 0.0;  // |FK(measured angles) - commanded T6| while following
  std::array<double, 6> max_following_error_deg{};
  std::uint64_t dropped = 0;
  // Realtime logs: misses and lateness (p50, p99, max, ms) by node name.
  struct Timing {
    std::uint64_t misses = 0;
    double p50 = 0, p99 = 0, max = 0;
  };
  std::map<std::string, Timing> timing;
};

// Needs the robot model the log carries (for the path deviation).
LogInfo summarise(const RunLog& log);
std::string infoText(const LogInfo& info, const RunLog& log);

}  // namespace rfms
