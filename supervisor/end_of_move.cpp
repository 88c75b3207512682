#include "supervisor/end_of_move.hpp"

namespace rfms {

Transform yieldedPose(const Transform& end, const Transform& arm, std::uint32_t compliance) {
  Transform out = end;
  for (int d = 0; d < 3; ++d)
    if ((compliance >> d) & 1u) out.translation()[d] = arm.translation()[d];
  if ((compliance >> 3) & 7u) {
    // The turn from the path's end to the arm, about the compliant base axes only.
    const Eigen::AngleAxisd turn(arm.linear() * end.linear().transpose());
    Vec3 r = turn.angle() * turn.axis();
    for (int d = 0; d < 3; ++d)
      if (((compliance >> (3 + d)) & 1u) == 0) r[d] = 0.0;
    if (r.norm() > 0.0) out.linear() = Eigen::AngleAxisd(r.norm(), r.normalized()).toRotationMatrix() * end.linear();
  }
  return out;
}

}  // namespace rfms
