#include "replay/rerun.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "common/error.hpp"
#include "common/robot_model_loader.hpp"
#include "common/task_file.hpp"
#include "sim/run_recording.hpp"

namespace rfms {

namespace {

HarnessConfig applyChanges(HarnessConfig c, const std::map<std::string, std::string>& changes) {
  for (const auto& [key, value] : changes) {
    try {
      if (key == "pik") {
        const auto s = parsePikScheme(value);
        if (!s) throw ConfigError("");
        c.pik = *s;
      } else if (key == "serial_ik") {
        if (value != "true" && value != "false") throw ConfigError("");
        c.serial_ik = value == "true";
      } else if (key == "dt_ms") {
        const double dt = std::stod(value);
        if (!(dt >= 0.5 && dt <= 10.0)) throw ConfigError("");
        c.dt = dt * 1e-3;
      } else if (key == "update_periods") {
        const int n = std::stoi(value);
        if (n < 1 || n > 100) throw ConfigError("");
        c.update_periods = n;
      } else if (key == "amplifier") {
        if (value != "current" && value != "voltage") throw ConfigError("");
        c.amplifier = value == "voltage" ? Amplifier::kVoltage : Amplifier::kCurrent;
      } else if (key == "servo_bandwidth_hz") {
        const double b = std::stod(value);
        if (!(b > 0.0 && b <= 50.0)) throw ConfigError("");
        c.servo_bandwidth_hz = b;
      } else {
        throw ConfigError("--set " + key + ": unknown setting (pik, serial_ik, dt_ms, update_periods, amplifier, "
                          "servo_bandwidth_hz)");
      }
    } catch (const ConfigError& e) {
      if (std::string(e.what()).empty() || std::string(e.what()).find("unknown setting") == std::string::npos)
        throw ConfigError("--set " + key + "=" + value + ": not a valid value");
      throw;
    } catch (const std::exception&) {
      throw ConfigError("--set " + key + "=" + value + ": not a valid value");
    }
  }
  return c;
}

}  // namespace

RerunResult rerunLog(const RunLog& log, const std::map<std::string, std::string>& changes) {
  const auto model_text = log.header.find("robot_model");
  const auto task_text = log.header.find("task");
  if (model_text == log.header.end() || model_text->second.empty())
    throw ConfigError("the log does not carry its robot model: it cannot be re-run");
  if (task_text == log.header.end() || task_text->second.empty())
    throw ConfigError("the log holds no task file to re-run (a run driven by remote clients)");
  const RobotModel model = parseRobotModel(model_text->second, "the log's robot model");
  const auto task = parseTaskFile(task_text->second, "the log's task");
  const HarnessConfig logged = harnessConfigFrom(log.header);
  RerunResult r;
  r.changes = changes;
  {
    Harness h(model, logged);
    r.original = runTask(h, task, RunOptions{});
  }
  {
    Harness h(model, applyChanges(logged, changes));
    r.changed = runTask(h, task, RunOptions{});
  }
  return r;
}

std::string comparisonTable(const RerunResult& r) {
  std::ostringstream o;
  o << "changed:";
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
  row("max path deviation (PIK setpoints)", r.original.max_setpoint_deviation_mm, r.changed.max_setpoint_deviation_mm, "mm");
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
