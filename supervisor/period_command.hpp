// What the supervisor's background hands its period (RFMS's split: the background edits the
// world model, the real-time process runs the period): one command per request, the outcome of a
// request the background has checked in full, of fixed size but for the request's record for the
// run log (written by the background, only read by the period). The period applies them at the
// start of its next step, in order, without checking or allocating, and lets them go once its
// shell has logged their records; the channel between the two sides is a lock-free queue one way
// and the period's published view the other (SupervisorLink).
#pragma once

#include <cstdint>
#include <string>

#include "common/spsc_queue.hpp"
#include "common/triple_buffer.hpp"
#include "proto/mailboxes.pb.h"
#include "supervisor/trajectory.hpp"
#include "supervisor/world_values.hpp"

namespace rfms {

struct PeriodCommand {
  enum Kind : std::uint8_t {
    kTransform,      // place `index` now holds `value`, moving as `history` says
    kPosition,       // place `index` now holds `position`
    kMotion,         // place `index` now holds `motion`
    kMove,           // queue `move`
    kJog,            // jog along or about an axis as `jog` says
    kJointJog,       // jog `joint` in `direction` by `counts` (-1: until stopped), in MANU
    kState,          // go to `state` at this step
    kEmergencyStop,  // the operator's emergency stop
    kNone,           // nothing to apply: a request that changes nothing, carried for its record
  };
  Kind kind = kState;
  int index = -1;
  Transform value = Transform::Identity();
  FrameHistory history;
  PositionEquation position;
  MotionRecord motion;
  MoveSpec move;
  JogSpec jog;
  // kMove, kJog: first put the trajectory at rest on the setpoints the joints hold (the arm
  // starts from rest in HOLD); then go to SETP (it starts from HOLD).
  bool reset = false, to_setp = false;
  int joint = 0, direction = 0;
  std::int64_t counts = 0;
  proto::RtState state = proto::RT_IDLE;
  // The request's run-log record (proto::LogRequest, serialised without its period), which the
  // period logs under the period that applied it; empty when nothing is logged.
  std::string record;
  std::uint64_t checked_after = 0;  // the view's period the background checked the request against
};

// What the period publishes after each step for the background to check requests against.
struct SupervisorView {
  std::uint64_t period = 0;   // the step that published it: the background's clock stands there
  std::uint64_t applied = 0;  // commands the period has applied, ever
  proto::RtState state = proto::RT_IDLE;
  proto::TrajState traj_state = proto::TS_S0;
  proto::EmergencyReason reason = proto::ER_NONE;
  proto::Node reason_node = proto::NODE_NONE;
  const char* reason_axis = "";  // a force move's fault: the axis ("x", "tool z"; forceAxisName), "" else
  std::array<bool, kJoints> calibrated{};
  JointVec servo_setpoint = JointVec::Zero();  // what the joints hold
  JointVec angles = JointVec::Zero();          // what they last reported
  std::int64_t jog_left = 0;                   // counts of a joint's step jog still to go; -1: continuous
  TrajectoryTail trajectory;
  const char* jog_stopped_why = nullptr;  // a Cartesian jog that ended short: why (static text)
  bool senses_force = false;
  Vec6 wrench = Vec6::Zero(), contact = Vec6::Zero();  // as SupervisorCore's sensedWrench(), contactWrench()
  std::uint32_t wrench_saturated = 0;

  bool allCalibrated() const {
    for (bool c : calibrated)
      if (!c) return false;
    return true;
  }
};

// The two sides' channel: commands from the background, the view from the period. Either side
// may run on its own thread.
struct SupervisorLink {
  static constexpr std::size_t kCommands = 256;  // more than a period's worth of requests
  SpscQueue<PeriodCommand> commands{kCommands};
  TripleBuffer<SupervisorView> view;
};

}  // namespace rfms
