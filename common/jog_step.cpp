#include "common/jog_step.hpp"

#include <cmath>

namespace rfms {

std::string jogStepProblem(const proto::Control& c) {
  const bool along = c.joint() == 0 && c.axis() >= proto::JA_X && c.axis() <= proto::JA_Z;
  if (c.counts() != 0 && c.angle() != 0.0) return "jog: counts or an angle, not both";
  if (c.counts() != 0) {
    if (c.joint() == 0) return "jog counts: for a joint; along an axis, distance D or angle A";
    if (c.counts() < 1 || c.counts() > kMaxJogCounts)
      return "jog counts: a whole number 1.." + std::to_string(kMaxJogCounts);
  }
  if (c.distance() != 0.0) {
    if (!along) return "jog distance: for x, y or z; a joint or rx ry rz takes an angle";
    if (!(std::isfinite(c.distance()) && c.distance() > 0.0 && c.distance() <= kMaxJogDistanceM))
      return "jog distance: a positive length, at most 1 m";
  }
  if (c.angle() != 0.0) {
    if (along) return "jog angle: for a joint or rx, ry, rz; along x, y or z, a distance";
    if (!(std::isfinite(c.angle()) && c.angle() > 0.0 && c.angle() <= kMaxJogAngleRad))
      return "jog angle: a positive angle, at most half a turn";
  }
  return "";
}

}  // namespace rfms
