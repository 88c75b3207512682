#include "common/mail_codec.hpp"

#include <algorithm>
#include <cmath>
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

void encodeSetpoints(const JointVec& setpoint, proto::SMail& s) {
  std::uint32_t signs = 0;
  JointVec sines;
  for (int i = 0; i < kJoints; ++i) {
    sines[i] = std::sin(setpoint[i]);
    if (std::cos(setpoint[i]) < 0.0) signs |= 1u << i;
  }
  encode(sines, s.mutable_setpoint_sin());
  s.set_setpoint_cos_signs(signs);
}

JointVec decodeSetpoints(const proto::SMail& s) {
  JointVec q = JointVec::Zero();
  for (int j = 0; j < kJoints && j < s.setpoint_sin_size(); ++j) {
    const double sine = s.setpoint_sin(j);
    const double cosine = std::sqrt(std::max(0.0, 1.0 - sine * sine));
    q[j] = std::atan2(sine, (s.setpoint_cos_signs() >> j) & 1u ? -cosine : cosine);
  }
  return q;
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

namespace {
void copyHeader(const proto::Header& from, proto::Header& to) {
  to.set_period(from.period());
  to.set_sequence(from.sequence());
  to.set_send_time_ns(from.send_time_ns());
}
}  // namespace

void copyParcel(const proto::Parcel& from, proto::Parcel& to) {
  copyHeader(from.header(), *to.mutable_header());
  to.set_joint(from.joint());
  to.set_angles_period(from.angles_period());
  encode(decodeJoints(from.inertia_row()), to.mutable_inertia_row());
  to.set_velocity_torque(from.velocity_torque());
  to.set_gravity_torque(from.gravity_torque());
  encode(decodeJoints(from.compliance_row()), to.mutable_compliance_row());
  to.set_jacobian_singular(from.jacobian_singular());
  encode(decodeJoints(from.jacobian_column()), to.mutable_jacobian_column());
}

void copyTorque(const proto::TorqueCommand& from, proto::TorqueCommand& to) {
  copyHeader(from.header(), *to.mutable_header());
  to.set_joint(from.joint());
  to.set_torque(from.torque());
  to.set_power(from.power());
}

}  // namespace rfms
