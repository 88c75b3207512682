// `rfms-replay rerun`: the log's task again, once with the logged settings and once with some
// changed (serial IK instead of PIK, another sample period or setpoint update period, ...), and a
// table comparing the two runs. A run driven by remote clients carries no task file; its task is
// rebuilt from the requests the clients made (taskFromRequests).
#pragma once

#include <map>
#include <string>

#include "harness/task_runner.hpp"
#include "replay/run_log_reader.hpp"

namespace rfms {

struct RerunResult {
  RunSummary original, changed;
  std::map<std::string, std::string> changes;  // what was set
  std::string source;                          // where the task came from, for the table
};

// The task of a run driven by remote clients, from its log: the requests the supervisor core took
// from clients and accepted, in order (calibration aside: a re-run calibrates first), each `at`
// its logged time after the first, with a `wait` before a move wherever every earlier move had
// ended when it came: there the client waited for the arm.
std::vector<TaskStatement> taskFromRequests(const RunLog& log);

// `changes`: field path = value pairs of the controller settings (proto/controller.proto: pik,
// serial_ik, dt_ms, update_periods, amplifier, servo.bandwidth_hz, ...). Throws ConfigError on an
// unknown field or a bad value, naming it.
RerunResult rerunLog(const RunLog& log, const std::map<std::string, std::string>& changes);
std::string comparisonTable(const RerunResult& r);

}  // namespace rfms
