// The operator's shell (rfms-client shell), its pure part: what a typed line asks for, the names
// worth completing, and the status line. The terminal around it is client/shell_terminal.cpp.
//
// A line is one of the shell's own words or any statement of a task file (docs/task-format.md),
// spelled as there:
//   status | help | quit
//   jog J +|- [counts N | angle A]       a joint on until hold or stop, or one step of it (MANU)
//   calibrate | hold | free | stop | emergency-stop | reset | power-off
//   units mm deg | transform ... | position ... | motion ... | move P M | wait
#pragma once

#include <set>
#include <string>
#include <vector>

#include "client/arm_status.hpp"
#include "proto/task.pb.h"

namespace rfms {

struct ShellLine {
  enum Kind { kNothing, kRequest, kWait, kStatus, kHelp, kQuit, kError } kind = kNothing;
  proto::TaskRequest request;  // kRequest
  std::string error;           // kError: why the line means nothing
};

class OperatorShell {
 public:
  // One line as typed. A `units` line changes the units of the lines after it and asks for nothing.
  ShellLine interpret(const std::string& line);
  // The supervisor accepted this request: its name is one to complete from now on.
  void accepted(const proto::TaskRequest& request);
  // Words that may complete `prefix` as word number `index` (0: the command) of a line that
  // begins with `first`.
  std::vector<std::string> completions(const std::string& first, int index, const std::string& prefix) const;

  static const char* help();

 private:
  std::string units_ = "units mm deg";
  std::set<std::string> transforms_, positions_, motions_;
};

// One line of state for the top of the operator's screen, at most `width` characters: with how
// the shell's last step ended (jogStepEnd's words) when there was one, else why the controller's
// last jog along an axis stopped short when it did.
std::string statusLine(const ArmStatus& s, std::size_t width, const std::string& last_step = {});

// Whether `r` is one step of a jog (a joint by counts or an angle, the wrist by a distance or an
// angle), which ends by itself: the shell then waits for its end and says how it ended.
bool isJogStep(const proto::TaskRequest& r);
// How the step `c` ended, from the status before it and after: what it made of what was asked,
// and why it stopped short when it did (the supervisor's word), e.g. "step: 1.6 mm of 20.0 mm
// along z; stopped short: the solution lies outside the joint limits".
std::string jogStepEnd(const proto::Control& c, const ArmStatus& before, const ArmStatus& after);

}  // namespace rfms
