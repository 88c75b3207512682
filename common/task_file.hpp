// The task file: a small text format for the requests of a task, with explicit units, so that a
// task can be written by hand and run by rfms-sim, deploy/rfms run and rfms-client. One statement
// a line; '#' starts a comment. The operator's shell (rfms-client shell), rfms-client's commands and
// the desk's jog speak the same statements. Lengths are millimetres, angles degrees and forces
// newtons unless a `units` line says otherwise. See docs/task-format.md.
//
//   units mm deg N                             # lengths, angles, forces (N or lbf; N unless named)
//   transform t2 trans 203.2 -126.23 203.2
//   transform obj rpy 300 0 100  0 90 0        # x y z, then Paul's roll pitch yaw
//   transform cam eul 0 0 500  90 180 0        # x y z, then Euler phi theta psi (ZYZ)
//   transform m matrix r11 r12 r13 px  r21 r22 r23 py  r31 r32 r33 pz
//   position home righty,down,flip T6 = t2
//   position grasp righty,up,noflip Z T6 tl = conv obj TL tl  # 'TL NAME' names the tool
//   motion mjnt joint 2.0 0.2
//   motion mcartcz cartesian 20 0.5 compliance z      # compliance: none, x,y,z,rx,ry,rz or 0x..
//   motion press cartesian 2 0.5 force z -10 law pi 0.5 20   # force control (docs/force.md):
//       force AXIS F, stiffness AXIS K, damping AXIS D in the file's units (N, N mm, N/mm,
//       N mm/deg, N s/mm, N mm s/deg under units mm deg N), frame base|tool, law p KP | pd KP KV | pi KP KI
//   move home mcartcz
//   wait                                              # until every move so far has completed
//   at 2.5                                            # not before 2.5 s after the statements began
//   calibrate | hold | free | stop | reset | power-off | emergency-stop
//   jog 2 +                                           # on until hold or stop; or one step:
//   jog 2 + counts 400 | jog 2 - angle 5 | jog tool z - distance 3
#pragma once

#include <string>
#include <vector>

#include "proto/task.pb.h"

namespace rfms {

// The latest an `at` statement may name, in seconds (eleven and a half days).
inline constexpr double kMaxAtS = 1e6;

struct TaskStatement {
  enum Kind { kRequest, kWait, kAt } kind = kRequest;
  proto::TaskRequest request;  // for kRequest; ids are the statement's line number
  double at_s = 0.0;           // for kAt: seconds after the task's first statement was taken up
  int line = 0;
};

// Throws ConfigError "<source>:<line>: <what is wrong>" on the first bad line.
std::vector<TaskStatement> parseTaskFile(const std::string& text, const std::string& source);
std::vector<TaskStatement> loadTaskFile(const std::string& path);
// One statement typed on its own, in the default units (rfms-client's jog, the desk's): its
// request. Throws ConfigError with the reason alone; `units`, `wait` and `at` ask for nothing.
proto::TaskRequest parseTaskLine(const std::string& line);

// A command's one name, as task files, rfms-client and the shell write it ("emergency-stop").
std::string commandName(proto::ControlCommand command);
// What replaced a word the task language no longer has ("estop": "'emergency-stop'"), for the
// refusal that names it; empty for any other word.
std::string retiredWord(const std::string& word);

// The RFMS manual's example task, pumatask() of A.5 §2.2.
extern const char* const kExampleTask;

}  // namespace rfms
