// Runs a task file (common/task_file.hpp) through the client library: opens a task, calibrates the
// arm if it is not, sends the statements in order (a `wait` waits for every move so far), waits for
// the last move and closes the task. A refused request is reported with its line and the task goes
// on, as it would in the supervisor's own task runner; an aborted move ends the run.
#pragma once

#include <string>
#include <vector>

#include "client/rfms_client.hpp"
#include "common/task_file.hpp"

namespace rfms {

struct RemoteTaskResult {
  int requests = 0;
  std::vector<std::string> refused;   // "line N: reason"
  std::vector<std::string> warnings;  // "line N: caution" of requests accepted with one
  std::vector<std::uint64_t> moves;   // handles, in order
  std::string failure;                // why the run stopped early; empty if it did not
  double seconds = 0.0;
  bool ok() const { return refused.empty() && failure.empty(); }
};

struct RemoteTaskOptions {
  bool calibrate = true;
  double move_timeout_s = 600.0;
};

RemoteTaskResult runRemoteTask(RfmsClient& client, const std::vector<TaskStatement>& task, const std::string& name,
                               const RemoteTaskOptions& options = {});

}  // namespace rfms
