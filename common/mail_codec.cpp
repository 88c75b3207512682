#include "common/mail_codec.hpp"

#include <cstdio>

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

void MailDigest::add(const google::protobuf::MessageLite& mail) {
  buffer_.clear();
  mail.SerializeToString(&buffer_);
  for (unsigned char c : buffer_) {
    hash_ ^= c;
    hash_ *= 1099511628211ull;
  }
}

std::string MailDigest::hex() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(hash_));
  return buf;
}

void copyParcel(const proto::Parcel& from, proto::Parcel& to) {
  to.mutable_header()->set_period(from.header().period());
  to.mutable_header()->set_sequence(from.header().sequence());
  to.mutable_header()->set_send_time_ns(from.header().send_time_ns());
  to.set_joint(from.joint());
  to.set_angles_period(from.angles_period());
  encode(decodeJoints(from.inertia_row()), to.mutable_inertia_row());
  to.set_velocity_torque(from.velocity_torque());
  to.set_gravity_torque(from.gravity_torque());
  encode(decodeJoints(from.compliance_row()), to.mutable_compliance_row());
  to.set_jacobian_singular(from.jacobian_singular());
}

}  // namespace rfms
