#include "common/mail_codec.hpp"

#include "common/transform.hpp"

namespace rfms {

bool decode(const proto::Transform3x4& in, Transform& out) {
  if (in.m_size() != 12) return false;
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) m(r, c) = in.m(4 * r + c);
  if (!isHomogeneous(m, 1e-6)) return false;
  out.matrix() = m;
  return true;
}

}  // namespace rfms
