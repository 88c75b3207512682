#include "supervisor/task_script.hpp"

#include "common/error.hpp"
#include "common/number_text.hpp"
#include "common/refusal.hpp"

#include <algorithm>
#include <cmath>

namespace rfms {

bool ScriptLog::allMovesCompleted() const {
  return std::all_of(moves.begin(), moves.end(), [](const MoveRecord& m) { return m.completed && !m.failed(); });
}

TaskScript::TaskScript(std::vector<TaskStatement> task, const ScriptOptions& options)
    : task_(std::move(task)), options_(options) {
  // A statement due after the run's time-out would only hold the run idle until it times out.
  const double timeout_s = static_cast<double>(options_.timeout_periods) * options_.dt_s;
  for (const TaskStatement& st : task_)
    if (st.kind == TaskStatement::kAt && st.at_s >= timeout_s)
      throw ConfigError("line " + std::to_string(st.line) + ": at " + numberText(st.at_s) +
                        " s comes after the run's time-out of " + numberText(timeout_s) + " s");
}

bool TaskScript::movesEnded() const {
  return std::all_of(log_.moves.begin(), log_.moves.end(),
                     [](const MoveRecord& m) { return m.completed || m.aborted; });
}

void TaskScript::send(SupervisorBackground& supervisor, const TaskStatement& st, std::uint64_t k) {
  const proto::TaskReply r = supervisor.handle(st.request);
  supervisor.commit(record ? record(st.request, r) : std::string());
  if (on_request) on_request(k, st.request, r);
  if (!r.accepted()) {
    log_.refused.push_back((st.line > 0 ? "line " + std::to_string(st.line) : std::string("calibrate")) + ": " +
                           refusalText(r));
    log_.refusal_codes.push_back(refusalCodeOf(r));
    return;
  }
  if (!r.warning().empty())
    log_.warnings.push_back((st.line > 0 ? "line " + std::to_string(st.line) : std::string("calibrate")) + ": " +
                            r.warning());
  if (st.request.has_move()) {
    MoveRecord m;
    m.id = r.move_id();
    m.position = st.request.move().position();
    m.motion = st.request.move().motion();
    m.line = st.line;
    log_.moves.push_back(m);
  }
}

void TaskScript::beforeStep(std::uint64_t k, SupervisorBackground& supervisor) {
  const bool emergency = supervisor.view().state == proto::RT_EMGCY;
  if (phase_ != Phase::kDone && k >= options_.timeout_periods) {
    log_.timed_out = true;
    phase_ = Phase::kDone;
  }
  // Each phase hands over to the next within the same period when its condition already holds.
  for (bool again = true; again;) {
    again = false;
    switch (phase_) {
      case Phase::kPowerUp:
        if (k < options_.power_up_periods) break;
        if (options_.calibrate) {
          TaskStatement cal;
          cal.request.mutable_control()->set_command(proto::CC_CALIBRATE);
          send(supervisor, cal, k);
          phase_ = Phase::kCalibrating;
        } else {
          phase_ = Phase::kStatements;
          again = true;
        }
        break;
      case Phase::kCalibrating:
        if (supervisor.view().state == proto::RT_HOLD || emergency) {
          log_.calibrated = supervisor.view().allCalibrated();
          phase_ = Phase::kStatements;
          again = true;
        }
        break;
      case Phase::kStatements:
        if (!began_) {
          began_ = true;
          statements_from_ = k;
        }
        while (next_ < task_.size() && !emergency) {
          const TaskStatement& st = task_[next_];
          if (st.kind == TaskStatement::kWait) {
            if (!movesEnded()) return;  // wait here
            ++next_;
            continue;
          }
          if (st.kind == TaskStatement::kAt) {
            const auto due = statements_from_ + static_cast<std::uint64_t>(std::llround(st.at_s / options_.dt_s));
            if (k < due) return;  // not yet
            ++next_;
            continue;
          }
          send(supervisor, st, k);
          ++next_;
        }
        phase_ = Phase::kFinishing;
        again = true;
        break;
      case Phase::kFinishing:
        if (movesEnded() || emergency) {
          settle_until_ = k + options_.settle_periods;
          phase_ = Phase::kSettling;
          again = true;
        }
        break;
      case Phase::kSettling:
        if (k >= settle_until_) phase_ = Phase::kDone;
        break;
      case Phase::kDone: break;
    }
  }
}

void TaskScript::afterStep(std::uint64_t k, const SupervisorOutbox& out) {
  (void)k;  // each event carries its period
  for (int n = 0; n < out.event_count; ++n) note(out.events[static_cast<std::size_t>(n)]);
}

void TaskScript::note(const SupervisorEvent& e) {
  const std::uint64_t k = e.period;
  auto rec = std::find_if(log_.moves.begin(), log_.moves.end(), [&](const MoveRecord& r) { return r.id == e.move_id; });
  switch (e.kind) {
    case SupervisorEvent::kMoveStarted:
      if (rec != log_.moves.end()) rec->started = k + 1;
      break;
    case SupervisorEvent::kMoveCompleted:
    case SupervisorEvent::kMoveAborted:
      if (rec != log_.moves.end()) {
        rec->ended = k + 1;
        (e.kind == SupervisorEvent::kMoveCompleted ? rec->completed : rec->aborted) = true;
        rec->guarded = e.guarded;
        rec->guard_missed = e.guard_missed;
        rec->contact_pose = e.contact_pose;
        rec->contact_force = e.contact_force;
        if (e.has_force) rec->force = e.force;
        rec->yielded = e.yielded;
        rec->yield = e.yield;
      }
      break;
    case SupervisorEvent::kStateChanged: log_.states.push_back(e.state); break;
    case SupervisorEvent::kEmergency:
      log_.emergency = true;
      log_.reason = e.reason;
      log_.node = e.node;
      log_.axis = forceAxisName(e.axis, e.axis_in_tool);
      break;
  }
}

}  // namespace rfms
