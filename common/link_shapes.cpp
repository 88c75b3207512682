#include "common/link_shapes.hpp"

#include <cmath>

namespace rfms {

Transform fixedPart(const DhParams& dh) {
  return trans(0.0, 0.0, dh.d) * trans(dh.a, 0.0, 0.0) * rot(Axis::kX, dh.alpha());
}

std::vector<LinkCylinder> linkCylinders(const DhParams& dh) {
  std::vector<LinkCylinder> out;
  // Shorter than a micrometre is no cylinder worth drawing, and an exact zero is the usual case.
  if (std::abs(dh.d) >= 1e-9) out.push_back({trans(0.0, 0.0, dh.d / 2.0), std::abs(dh.d)});
  if (std::abs(dh.a) >= 1e-9) out.push_back({trans(dh.a / 2.0, 0.0, dh.d) * rot(Axis::kY, M_PI / 2.0), std::abs(dh.a)});
  return out;
}

}  // namespace rfms
