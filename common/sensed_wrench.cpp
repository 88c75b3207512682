#include "common/sensed_wrench.hpp"

namespace rfms {

bool sensedWristDeflection(const proto::ArmSensors& s, const WristModel& wrist, const ToolModel& tool, Vec6& out) {
  if (s.wrist_angle_size() == 6) {
    Vec6 angles;
    for (int i = 0; i < 6; ++i) angles[i] = s.wrist_angle(i);
    out = deflectionFromAngles(wrist.linkage, tool.com, angles);
    return true;
  }
  if (s.deflection_size() == 6) {
    for (int i = 0; i < 6; ++i) out[i] = s.deflection(i);
    return true;
  }
  return false;
}

bool sensedFlangeWrench(const proto::ArmSensors& s, const WristModel* wrist, const ToolModel& tool, Vec6& out) {
  if (s.wrench_size() == 6) {
    for (int i = 0; i < 6; ++i) out[i] = s.wrench(i);
    return true;
  }
  Vec6 d;
  if (wrist == nullptr || !sensedWristDeflection(s, *wrist, tool, d)) return false;
  out = wrenchFromDeflection(*wrist, tool, d);
  return true;
}

}  // namespace rfms
