// Conversions between the mailboxes' protobuf fields and the mathematics' fixed-size types.
// Real-time safe once the message's repeated fields have reached their size (they keep capacity).
#pragma once

#include <cstdint>
#include <string>
#include "common/ik_opw.hpp"
#include "common/types.hpp"

#include "proto/mailboxes.pb.h"

namespace rfms {

inline void encode(const Transform& t, proto::Transform3x4& out) {
  auto* m = out.mutable_m();
  m->Resize(12, 0.0);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) m->Set(4 * r + c, t.matrix()(r, c));
}

// False when the message does not hold 12 finite numbers forming a rotation and a translation.
bool decode(const proto::Transform3x4& in, Transform& out);

inline void encode(const ArmConfig& c, proto::ArmConfigFlags& out) {
  out.set_righty(c.righty);
  out.set_up(c.up);
  out.set_flip(c.flip);
}

inline ArmConfig decode(const proto::ArmConfigFlags& in) { return {in.righty(), in.up(), in.flip()}; }

// A repeated double field of exactly six values, resized once and then overwritten.
template <class Field>
void encode(const JointVec& v, Field* out) {
  out->Resize(kJoints, 0.0);
  for (int i = 0; i < kJoints; ++i) out->Set(i, v[i]);
}

// Six values into a JointVec; missing values read as zero.
template <class Field>
JointVec decodeJoints(const Field& in) {
  JointVec v = JointVec::Zero();
  for (int i = 0; i < kJoints && i < in.size(); ++i) v[i] = in.Get(i);
  return v;
}

// The joints' setpoints in S_MAIL the way RFMS passed angles around: their sines and a bit per
// joint set when the cosine is negative. Decoding gives angles in (-pi, pi].
void encodeSetpoints(const JointVec& setpoint, proto::SMail& s);
JointVec decodeSetpoints(const proto::SMail& s);

// A running 64-bit FNV-1a hash of serialised mail, to compare two runs mail by mail.
class MailDigest {
 public:
  void add(const google::protobuf::MessageLite& mail);
  std::string hex() const;
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 1469598103934665603ull;
  std::string buffer_;
};

// Copies a PARCEL field by field. Protobuf's CopyFrom clears first, and clearing a proto3 message
// frees its sub-messages, so a plain copy allocates every period; this one reuses `to`.
void copyParcel(const proto::Parcel& from, proto::Parcel& to);
// The same for a torque command.
void copyTorque(const proto::TorqueCommand& from, proto::TorqueCommand& to);

}  // namespace rfms
