// Signals of a run log as columns against time, for `rfms-replay export` and `plot`. A signal
// names a field of a mailbox, as common/mail_signal.hpp defines:
//   jmail.3.angle   jmail.3.servo_setpoint   torque.2.torque   smail.rtstate   sensors.encoder[0]
#pragma once

#include <string>
#include <vector>

#include "replay/run_log_reader.hpp"

namespace rfms {

struct SignalTable {
  std::vector<std::string> names;
  std::vector<double> time_s;                // one row per period
  std::vector<std::vector<double>> columns;  // columns[signal][row]; NaN where the period lacks it
};

// Throws ConfigError naming a signal that does not resolve (and the fields there are), or that
// has no value anywhere in the log.
SignalTable extractSignals(const RunLog& log, const std::vector<std::string>& signals);
// The default set: each joint's servo setpoint and measured angle.
std::vector<std::string> defaultSignals();
std::string toCsv(const SignalTable& t);

}  // namespace rfms
