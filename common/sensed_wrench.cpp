#include "common/sensed_wrench.hpp"

namespace rfms {

bool sensedFlangeWrench(const proto::ArmSensors& s, const WristModel* wrist, const ToolModel& tool, Vec6& out) {
  if (s.wrench_size() == 6) {
    for (int i = 0; i < 6; ++i) out[i] = s.wrench(i);
    return true;
  }
  if (s.deflection_size() == 6 && wrist != nullptr) {
    Vec6 d;
    for (int i = 0; i < 6; ++i) d[i] = s.deflection(i);
    out = wrenchFromDeflection(*wrist, tool, d);
    return true;
  }
  return false;
}

}  // namespace rfms
