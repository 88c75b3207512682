#include "common/mail_names.hpp"

namespace rfms {

const char* describe(proto::EmergencyReason reason) {
  switch (reason) {
    case proto::ER_NONE: return "none";
    case proto::ER_FOLLOWING_ERROR: return "following error above its limit";
    case proto::ER_JOINT_LIMIT: return "joint outside its range";
    case proto::ER_SATURATION: return "torque saturated too long";
    case proto::ER_NODE_SILENT: return "node silent";
    case proto::ER_IK_FAILURE: return "setpoint could not be solved";
    case proto::ER_CALIBRATION: return "index pulse not found";
    case proto::ER_OPERATOR: return "emergency stop requested";
    case proto::ER_UNREACHABLE: return "trajectory left the workspace";
    case proto::ER_POWER_LOST: return "the arm lost its power (a torque command missing)";
    case proto::ER_FORCE_LIMIT: return "contact force above its limit (force sensor)";
    case proto::ER_FORCE_OSCILLATION: return "force control oscillating (the force loop is unstable)";
    case proto::ER_FORCE_LOST_CONTACT: return "force control lost contact (the tool left the surface)";
    case proto::ER_FORCE_WRONG_SIGN: return "force control applied force the wrong way";
    case proto::ER_FORCE_RUNAWAY:
      return "force control ran away (nothing along a force axis stops the tool: no surface, or friction alone)";
    case proto::ER_COMPENSATION_OSCILLATION:
      return "deflection compensation oscillating (the compensator's loop is unstable on this arm)";
    default: return "unknown";
  }
}

const char* nodeName(proto::Node node) {
  static constexpr const char* kNames[kNodeSlots] = {"none",    "supervisor", "joint 1", "joint 2", "joint 3",
                                                     "joint 4", "joint 5",    "joint 6", "math",    "arm"};
  const int i = static_cast<int>(node);
  return i >= 0 && static_cast<std::size_t>(i) < kNodeSlots ? kNames[i] : "unknown";
}

const char* withoutPrefix(const std::string& generated_name) {
  const std::size_t cut = generated_name.find('_');
  return generated_name.c_str() + (cut == std::string::npos ? 0 : cut + 1);
}

const char* forceAxisName(int axis, bool in_tool) {
  static constexpr const char* kBase[] = {"x", "y", "z"};
  static constexpr const char* kTool[] = {"tool x", "tool y", "tool z"};
  if (axis < 0 || axis > 2) return "";
  return (in_tool ? kTool : kBase)[axis];
}

}  // namespace rfms
