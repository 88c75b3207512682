// `rfms-replay rerun`: the log's task again, once with the logged settings and once with some
// changed (serial IK instead of PIK, another sample period or setpoint update period, ...), and a
// table comparing the two runs.
#pragma once

#include <map>
#include <string>

#include "replay/run_log_reader.hpp"
#include "sim/task_runner.hpp"

namespace rfms {

struct RerunResult {
  RunSummary original, changed;
  std::map<std::string, std::string> changes;  // what was set
};

// `changes`: key=value pairs; keys: pik, serial_ik, dt_ms, update_periods, amplifier,
// servo_bandwidth_hz. Throws ConfigError on an unknown key or a bad value.
RerunResult rerunLog(const RunLog& log, const std::map<std::string, std::string>& changes);
std::string comparisonTable(const RerunResult& r);

}  // namespace rfms
