// Runs a task (task-file statements) on the in-process harness from power-up: IDLE, calibration,
// HOLD, then the task's requests, waiting where it says `wait` and for every move at the end; and
// measures the run for a summary.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/task_file.hpp"
#include "sim/harness.hpp"

namespace rfms {

struct MoveRecord {
  std::uint64_t id = 0;
  std::string position, motion;
  int line = 0;
  double started_s = -1.0, ended_s = -1.0;
  bool completed = false, aborted = false;
};

struct RunSummary {
  std::vector<MoveRecord> moves;
  std::vector<std::string> refused;            // "line N: reason"
  std::vector<proto::RtState> states;          // in the order they were entered
  std::vector<proto::TrajState> traj_states;   // each state seen, in the order first seen
  double final_position_error_mm = -1.0;       // arm at the end vs the last move's target
  double final_orientation_error_deg = -1.0;
  double max_path_deviation_mm = 0.0;          // the arm's tool from the straight line (Cartesian S1/S2)
  double max_setpoint_deviation_mm = 0.0;      // FK of the joints' PIK setpoints from that line
  JointVec max_following_error = JointVec::Zero();  // rad, in SETP and STOP
  bool emergency = false;
  proto::EmergencyReason reason = proto::ER_NONE;
  proto::Node node = proto::NODE_NONE;
  std::uint64_t periods = 0;
  double sim_time_s = 0.0;
  bool calibrated = false;
  bool allMovesCompleted() const;
};

struct RunOptions {
  bool calibrate = true;
  double timeout_s = 600.0;     // simulated time allowed for the whole task
  double settle_s = 0.5;        // simulated time after the last move, before the final error
};

RunSummary runTask(Harness& harness, const std::vector<TaskStatement>& task, const RunOptions& options);

// The summary as text for a person, or as one JSON object.
std::string summaryText(const RunSummary& s);
std::string summaryJson(const RunSummary& s);

}  // namespace rfms
