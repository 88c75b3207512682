// What a task run did, told the same way by rfms-sim and by the cluster's supervisor: the states
// entered, each move with its start and end, what was refused, the tool's final error and any
// emergency. Each program adds what only it knows (rfms-sim the true arm's path deviation, the
// cluster the mail that missed its period) around these lines.
#pragma once

#include <ostream>

#include "common/robot_model.hpp"
#include "supervisor/task_script.hpp"
#include "supervisor/world_model.hpp"

namespace rfms {

struct FinalError {
  double mm = -1.0, deg = -1.0;  // -1: no move completed
};

// The tool at joint angles `q` against the target of the last completed move, solved in the world
// model as it stands at the end (its names, and the period's values).
FinalError finalError(const ScriptLog& log, const WorldModel& names, const WorldValues& values, const RobotModel& model,
                      const JointVec& q);

// Nothing refused, every move completed (a task without moves has none to miss), no emergency,
// no time-out: how rfms-sim and the cluster's supervisor judge a run, exit 0 or 1.
bool succeeded(const ScriptLog& log);

// "states: ...", "moves (n):" with one line each, "refused: ...", "final T6 error: ...", "EMGCY: ...".
void writeSummaryText(std::ostream& o, const ScriptLog& log, double dt, const FinalError& f);
// The same as JSON members, without braces, ending with "emergency" (and its reason and node).
void writeSummaryJson(std::ostream& o, const ScriptLog& log, double dt, const FinalError& f);

}  // namespace rfms
