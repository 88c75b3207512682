// Drives a supervisor through a task from power-up, period by period, the same way wherever the
// supervisor runs (the in-process harness, the rfms-supervisor process): a few periods in IDLE so
// that every node has spoken, calibration, then the task's statements in order (a `wait` holds
// the rest until every move so far has ended), then until every move has ended, then a short
// settle. Because requests enter at the same periods, the same task gives the same mailboxes in
// one process and in the cluster.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/task_file.hpp"
#include "supervisor/supervisor_background.hpp"
#include "supervisor/supervisor_core.hpp"

namespace rfms {

struct ScriptOptions {
  std::uint64_t power_up_periods = 10;
  bool calibrate = true;
  std::uint64_t timeout_periods = 600000;  // the whole task
  std::uint64_t settle_periods = 500;      // after the last move
  double dt_s = 1e-3;                      // the sample period, for `at` statements
};

struct MoveRecord {
  std::uint64_t id = 0;
  std::string position, motion;
  int line = 0;
  std::uint64_t started = 0, ended = 0;  // periods; 0 when not yet
  bool completed = false, aborted = false;
  // Ended by its guard: where the tool met the force, and the contact force then (N, base axes).
  bool guarded = false;
  Transform contact_pose = Transform::Identity();
  Vec3 contact_force = Vec3::Zero();
  bool guard_missed = false;          // guarded, and ran its course without meeting its force
  std::optional<ForceFigures> force;  // a move under force control
  // A move with compliance bits alone: where it came to rest less its path's end (m, base axes).
  bool yielded = false;
  Vec3 yield = Vec3::Zero();
  // Ran its course but did not do what it was asked: its guard never met its force, or it ended
  // off the force its law holds to.
  bool failed() const { return completed && (guard_missed || (force && !force->held)); }
};

struct ScriptLog {
  std::vector<MoveRecord> moves;
  std::vector<std::string> refused;        // "line N: reason [code]"
  std::vector<RefusalCode> refusal_codes;  // each refusal's code, in the same order
  std::vector<std::string> warnings;       // "line N: caution" of requests accepted with one
  std::vector<proto::RtState> states;      // in the order they were entered
  bool calibrated = false;
  bool emergency = false;
  proto::EmergencyReason reason = proto::ER_NONE;
  proto::Node node = proto::NODE_NONE;
  const char* axis = "";  // a force move's fault: the axis it was found along (common/mail_names.hpp)
  bool timed_out = false;
  bool allMovesCompleted() const;
};

class TaskScript {
 public:
  TaskScript(std::vector<TaskStatement> task, const ScriptOptions& options);

  // Before the supervisor's step k: hands its background the requests that are due.
  void beforeStep(std::uint64_t k, SupervisorBackground& supervisor);
  // After step k: follows the events of its outbox.
  void afterStep(std::uint64_t k, const SupervisorOutbox& out);
  // One event of the period's, as afterStep() takes them (for a script beside the period).
  void note(const SupervisorEvent& e);
  bool done() const { return phase_ == Phase::kDone; }
  // Called with every request handed to the supervisor, the period it entered in and its answer
  // (for run logs).
  std::function<void(std::uint64_t, const proto::TaskRequest&, const proto::TaskReply&)> on_request;
  // The run-log record each request carries to the period that applies it (the cluster's
  // supervisor, whose period logs it); unset: none.
  std::function<std::string(const proto::TaskRequest&, const proto::TaskReply&)> record;
  const ScriptLog& log() const { return log_; }

 private:
  enum class Phase { kPowerUp, kCalibrating, kStatements, kFinishing, kSettling, kDone };
  bool movesEnded() const;
  void send(SupervisorBackground& supervisor, const TaskStatement& statement, std::uint64_t k);

  std::vector<TaskStatement> task_;
  ScriptOptions options_;
  ScriptLog log_;
  Phase phase_ = Phase::kPowerUp;
  std::size_t next_ = 0;
  std::uint64_t settle_until_ = 0;
  bool began_ = false;
  std::uint64_t statements_from_ = 0;  // the period the statements began in (`at` counts from it)
};

}  // namespace rfms
