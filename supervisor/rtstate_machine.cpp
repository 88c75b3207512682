#include "supervisor/rtstate_machine.hpp"

namespace rfms {

namespace {
proto::Node jointNode(int i) { return static_cast<proto::Node>(proto::NODE_JOINT1 + i); }
}  // namespace

RtStateMachine::Verdict RtStateMachine::silentNode(std::uint64_t k) const {
  for (proto::Node node : {proto::NODE_ARM, proto::NODE_JOINT1, proto::NODE_JOINT2, proto::NODE_JOINT3,
                           proto::NODE_JOINT4, proto::NODE_JOINT5, proto::NODE_JOINT6, proto::NODE_MATH})
    if (k > lastHeard(node) + watchdog_periods_) return {proto::ER_NODE_SILENT, node};
  return {};
}

// Ignoring an arm without power would let a paused joint drop the power silently, for as long as
// it stays paused.
RtStateMachine::Verdict RtStateMachine::powerLost(std::uint64_t k, const proto::ArmSensors* arm) const {
  if (!powers(state_) || k < power_since_ + kPowerOnPeriods || arm == nullptr || arm->powered()) return {};
  // The joint whose command the arm missed first (lowest number); the arm itself when none is named.
  proto::Node node = proto::NODE_ARM;
  for (int i = 0; i < kJoints && node == proto::NODE_ARM; ++i)
    if ((arm->missing_commands() >> i & 1u) != 0) node = jointNode(i);
  // A joint that also missed its J_MAIL is a silent node (paused, stalled or dead), named at once
  // rather than after the watchdog's N periods.
  const bool silent = node != proto::NODE_ARM && lastHeard(node) != k;
  return {silent ? proto::ER_NODE_SILENT : proto::ER_POWER_LOST, node};
}

RtStateMachine::Verdict RtStateMachine::jointFault(int joint, std::uint32_t f) {
  const proto::Node node = jointNode(joint - 1);
  if (f & proto::JF_RANGE) return {proto::ER_JOINT_LIMIT, node};
  if (f & proto::JF_FOLLOWING) return {proto::ER_FOLLOWING_ERROR, node};
  if (f & proto::JF_SATURATION) return {proto::ER_SATURATION, node};
  if (f & proto::JF_IK) return {proto::ER_IK_FAILURE, node};
  if (f & proto::JF_CALIBRATION) return {proto::ER_CALIBRATION, node};
  return {};
}

RtStateMachine::Verdict RtStateMachine::takeEmergencyStop() {
  if (!operator_stop_) return {};
  operator_stop_ = false;
  return {proto::ER_OPERATOR, proto::NODE_SUPERVISOR};
}

bool RtStateMachine::latch(const Verdict& v) {
  if (state_ == proto::RT_EMGCY) return false;
  reason_ = v.reason;
  node_ = v.node;
  axis_ = v.axis;
  axis_in_tool_ = v.axis_in_tool;
  pending_request_ = false;
  return true;
}

bool RtStateMachine::enter(proto::RtState s, std::uint64_t k) {
  if (s == state_) return false;
  if (s == proto::RT_IDLE) reason_ = proto::ER_NONE, node_ = proto::NODE_NONE, axis_ = -1, axis_in_tool_ = false;
  if (!powers(state_) && powers(s)) power_since_ = k;
  state_ = s;
  return true;
}

bool RtStateMachine::takeRequest(proto::RtState& to) {
  if (!pending_request_) return false;
  pending_request_ = false;
  to = requested_;
  return state_ != proto::RT_EMGCY || requested_ == proto::RT_IDLE;
}

}  // namespace rfms
