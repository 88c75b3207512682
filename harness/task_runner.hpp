// Runs a task (task-file statements) on the in-process harness from power-up: IDLE, calibration,
// HOLD, then the task's requests, waiting where it says `wait` and for every move at the end; and
// measures the run for a summary.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/task_file.hpp"
#include "harness/harness.hpp"
#include "supervisor/task_script.hpp"
#include "supervisor/task_summary.hpp"

namespace rfms {

// What a run of a task did: the script's record plus what only the emulated arm can tell.
struct RunSummary {
  ScriptLog script;
  std::vector<proto::TrajState> traj_states;  // each state seen, in the order first seen
  double final_position_error_mm = -1.0;      // arm at the end vs the last completed move's target
  double final_orientation_error_deg = -1.0;
  double max_path_deviation_mm = 0.0;               // the arm's tool from the straight line (Cartesian S1/S2)
  double max_setpoint_deviation_mm = 0.0;           // FK of the joints' PIK setpoints from that line
  JointVec max_following_error = JointVec::Zero();  // rad, in SETP and STOP
  std::uint64_t periods = 0;
  double dt = 1e-3;
  double simTime() const { return static_cast<double>(periods) * dt; }
  bool succeeded() const { return rfms::succeeded(script); }
};

struct RunOptions {
  bool calibrate = true;
  double timeout_s = 600.0;  // simulated time allowed for the whole task
  double settle_s = 0.5;     // simulated time after the last move, before the final error
  // Every request the task hands the supervisor, with its period and answer (run logs).
  std::function<void(std::uint64_t, const proto::TaskRequest&, const proto::TaskReply&)> on_request;
};

ScriptOptions scriptOptions(const RunOptions& options, double dt);

RunSummary runTask(Harness& harness, const std::vector<TaskStatement>& task, const RunOptions& options);

// The summary as text for a person, or as one JSON object.
std::string summaryText(const RunSummary& s);
std::string summaryJson(const RunSummary& s);

}  // namespace rfms
