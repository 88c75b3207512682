// The supervisor's rtstate machine (RFMS manual, table 3) and the evidence that declares an
// emergency: which state the controller is in, which one the background asked for (applied at the
// start of the next step; only a reset leaves EMGCY), the emergency's reason and node latched until
// that reset, when the power went on, and when each node was last heard from. It decides; the
// supervisor's core carries a transition out (the trajectory stops or is dropped, the events are
// written). Pure and real-time safe.
#pragma once

#include <array>
#include <cstdint>

#include "common/mail_names.hpp"
#include "common/types.hpp"
#include "proto/mailboxes.pb.h"

namespace rfms {

class RtStateMachine {
 public:
  // `watchdog_periods`: how long a node may be silent before the controller goes to EMGCY.
  explicit RtStateMachine(int watchdog_periods) : watchdog_periods_(static_cast<std::uint64_t>(watchdog_periods)) {}

  proto::RtState state() const { return state_; }
  proto::EmergencyReason reason() const { return reason_; }
  proto::Node node() const { return node_; }
  // The emergency's axis, when a force move's loop found it along one (Verdict::axis; -1: none).
  int axis() const { return axis_; }
  bool axisInTool() const { return axis_in_tool_; }
  // Whether the arm's power is on in state s (all but IDLE and EMGCY).
  static bool powers(proto::RtState s) { return s != proto::RT_IDLE && s != proto::RT_EMGCY; }

  // The background's requests, as its commands are applied.
  void request(proto::RtState s) {
    requested_ = s;
    pending_request_ = true;
  }
  void requestEmergencyStop() { operator_stop_ = true; }

  void heard(proto::Node n, std::uint64_t k) { last_heard_[static_cast<std::size_t>(n)] = k; }
  std::uint64_t lastHeard(proto::Node n) const { return last_heard_[static_cast<std::size_t>(n)]; }

  // An emergency's cause; reason ER_NONE: none.
  struct Verdict {
    proto::EmergencyReason reason = proto::ER_NONE;
    proto::Node node = proto::NODE_NONE;
    // A fault of a force move's loop: the axis it was found along (0 .. 2: x y z; -1: none), and
    // whether of the tool frame.
    int axis = -1;
    bool axis_in_tool = false;
    explicit operator bool() const { return reason != proto::ER_NONE; }
  };
  // The watchdog: the first node (arm, joints, math server) not heard from for more than the
  // watchdog's periods.
  Verdict silentNode(std::uint64_t k) const;
  // The arm without power while the controller has kept it on for a few periods: a torque command
  // missed it. The joint named by the arm is a silent node when its J_MAIL is missing too.
  Verdict powerLost(std::uint64_t k, const proto::ArmSensors* arm) const;
  // A joint's fault bits, in the order of precedence RFMS reports them.
  static Verdict jointFault(int joint, std::uint32_t faults);
  // The operator's emergency stop, once.
  Verdict takeEmergencyStop();

  // Latches an emergency's cause and drops a pending request; false when already in EMGCY.
  bool latch(const Verdict& v);
  // Enters s at period k: the power's start is noted, and IDLE (a reset) forgets the emergency.
  // False when already in s.
  bool enter(proto::RtState s, std::uint64_t k);
  // The pending request, when there is one that may be entered now (only a reset, to IDLE, leaves
  // EMGCY); the request is taken either way.
  bool takeRequest(proto::RtState& to);

 private:
  // The power request travels S_MAIL -> joints -> arm and comes back in the arm's sensors a period
  // later in lockstep, a few later in realtime.
  static constexpr std::uint64_t kPowerOnPeriods = 10;

  std::uint64_t watchdog_periods_;
  proto::RtState state_ = proto::RT_IDLE;
  proto::RtState requested_ = proto::RT_IDLE;
  bool pending_request_ = false, operator_stop_ = false;
  proto::EmergencyReason reason_ = proto::ER_NONE;
  proto::Node node_ = proto::NODE_NONE;
  int axis_ = -1;
  bool axis_in_tool_ = false;
  std::uint64_t power_since_ = 0;
  std::array<std::uint64_t, kNodeSlots> last_heard_{};  // by proto::Node
};

}  // namespace rfms
