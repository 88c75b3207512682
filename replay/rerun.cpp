#include "replay/rerun.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

#include "common/controller_settings.hpp"
#include "common/error.hpp"
#include "common/robot_model_loader.hpp"
#include "common/task_file.hpp"

namespace rfms {

namespace {

proto::ControllerSettings applyChanges(proto::ControllerSettings s, const std::map<std::string, std::string>& changes) {
  std::vector<std::string> assignments;
  for (const auto& [path, value] : changes) assignments.push_back(path + "=" + value);
  applySettingAssignments(s, assignments);
  checkControllerSettings(s, "--set");
  return s;
}

}  // namespace

std::vector<TaskStatement> taskFromRequests(const RunLog& log) {
  std::map<std::uint64_t, std::uint64_t> ended;  // move id -> the period it ended in
  for (const proto::LogEvent& e : log.events)
    if (e.kind() == proto::LogEvent::MOVE_COMPLETED || e.kind() == proto::LogEvent::MOVE_ABORTED)
      ended[e.move_id()] = e.period();
  const double dt = log.dtMs() * 1e-3;
  std::vector<TaskStatement> task;
  std::vector<std::uint64_t> moves;  // accepted so far
  std::optional<std::uint64_t> first, last;
  for (const proto::LogRequest& q : log.requests) {
    const proto::TaskRequest& r = q.request();
    if (q.desk_only() || r.session() == 0 || !q.reply().accepted()) continue;
    if (r.has_control() && r.control().command() == proto::CC_CALIBRATE) continue;
    const std::uint64_t k = q.period();
    if (!first) first = k;
    const bool all_ended = std::all_of(moves.begin(), moves.end(), [&](std::uint64_t id) {
      const auto it = ended.find(id);
      return it != ended.end() && it->second < k;
    });
    if (r.has_move() && !moves.empty() && all_ended) task.push_back(TaskStatement{TaskStatement::kWait, {}, 0.0, 0});
    if (last && k > *last)
      task.push_back(TaskStatement{TaskStatement::kAt, {}, static_cast<double>(k - *first) * dt, 0});
    task.push_back(TaskStatement{TaskStatement::kRequest, r, 0.0, static_cast<int>(task.size()) + 1});
    last = k;
    if (q.reply().move_id() > 0) moves.push_back(q.reply().move_id());
  }
  return task;
}

RerunResult rerunLog(const RunLog& log, const std::map<std::string, std::string>& changes) {
  const auto task_text = log.header.find("task");
  const LoggedArm arm = loggedArm(log);
  RerunResult r;
  std::vector<TaskStatement> task;
  if (task_text != log.header.end() && !task_text->second.empty()) {
    task = parseTaskFile(task_text->second, "the log's task");
    r.source = "the log's task file";
  } else {
    task = taskFromRequests(log);
    const auto requests = std::count_if(task.begin(), task.end(),
                                        [](const TaskStatement& s) { return s.kind == TaskStatement::kRequest; });
    if (requests == 0) throw ConfigError("the log holds neither a task file nor requests from clients to re-run");
    r.source = std::to_string(requests) + " client requests, each at its logged time, waiting where the client waited";
  }
  const proto::ControllerSettings& logged = log.requireSettings();
  r.changes = changes;
  {
    Harness h(arm.model, logged, arm.scene);
    r.original = runTask(h, task, RunOptions{});
  }
  {
    Harness h(arm.model, applyChanges(logged, changes), arm.scene);
    r.changed = runTask(h, task, RunOptions{});
  }
  return r;
}

std::string comparisonTable(const RerunResult& r) {
  std::ostringstream o;
  o << "task: " << r.source << "\nchanged:";
  for (const auto& [k, v] : r.changes) o << " " << k << "=" << v;
  o << "\n";
  char line[200];
  auto row = [&](const char* what, double a, double b, const char* unit) {
    // A relative change of something that is zero to rounding says nothing.
    char change[24] = "          -";
    if (std::abs(a) > 1e-6) std::snprintf(change, sizeof change, "%+10.1f%%", 100.0 * (b - a) / a);
    std::snprintf(line, sizeof line, "%-36s %14.6g %14.6g %11s  %s\n", what, a, b, change, unit);
    o << line;
  };
  std::snprintf(line, sizeof line, "%-36s %14s %14s %11s\n", "", "as logged", "changed", "change");
  o << line;
  auto completion = [](const RunSummary& s) {
    double t = 0.0;
    for (const auto& m : s.script.moves) t = std::max(t, static_cast<double>(m.ended) * s.dt);
    return t;
  };
  row("time to complete the last move", completion(r.original), completion(r.changed), "s");
  row("max path deviation (arm)", r.original.max_path_deviation_mm, r.changed.max_path_deviation_mm, "mm");
  row("max path deviation (PIK setpoints)", r.original.max_setpoint_deviation_mm, r.changed.max_setpoint_deviation_mm,
      "mm");
  row("final position error", r.original.final_position_error_mm, r.changed.final_position_error_mm, "mm");
  row("final orientation error", r.original.final_orientation_error_deg, r.changed.final_orientation_error_deg, "deg");
  for (int j = 0; j < kJoints; ++j) {
    const std::string name = "max following error, joint " + std::to_string(j + 1);
    row(name.c_str(), r.original.max_following_error[j] * 180.0 / M_PI, r.changed.max_following_error[j] * 180.0 / M_PI,
        "deg");
  }
  o << "moves completed: " << (r.original.succeeded() ? "all" : "NOT all") << " as logged, "
    << (r.changed.succeeded() ? "all" : "NOT all") << " changed\n";
  return o.str();
}

}  // namespace rfms
