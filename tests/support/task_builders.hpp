// Building task requests in tests without a task file.
#pragma once

#include <initializer_list>
#include <string>

#include "common/ik_opw.hpp"
#include "common/mail_codec.hpp"
#include "proto/task.pb.h"

namespace rfms::test {

inline proto::DefineTransform transformDef(const std::string& name, const Transform& t) {
  proto::DefineTransform d;
  d.set_name(name);
  encode(t, *d.mutable_value());
  return d;
}

inline proto::DefinePosition positionDef(const std::string& name, const ArmConfig& config,
                                         std::initializer_list<const char*> lhs,
                                         std::initializer_list<const char*> rhs) {
  proto::DefinePosition d;
  d.set_name(name);
  encode(config, *d.mutable_config());
  for (const char* s : lhs) d.add_lhs(s);
  for (const char* s : rhs) d.add_rhs(s);
  return d;
}

inline proto::DefineMotion motionDef(const std::string& name, bool cartesian, double segment, double accel,
                                     std::uint32_t compliance = 0, bool track = false) {
  proto::DefineMotion d;
  d.set_name(name);
  d.set_mode(cartesian ? proto::MM_CARTESIAN : proto::MM_JOINT);
  d.set_segment_s(segment);
  d.set_accel_s(accel);
  d.set_compliance(compliance);
  d.set_track(track);
  return d;
}

inline proto::TaskRequest request(const proto::DefineTransform& d) {
  proto::TaskRequest r;
  *r.mutable_transform() = d;
  return r;
}
inline proto::TaskRequest request(const proto::DefinePosition& d) {
  proto::TaskRequest r;
  *r.mutable_position() = d;
  return r;
}
inline proto::TaskRequest request(const proto::DefineMotion& d) {
  proto::TaskRequest r;
  *r.mutable_motion() = d;
  return r;
}
inline proto::TaskRequest moveRequest(const std::string& position, const std::string& motion) {
  proto::TaskRequest r;
  r.mutable_move()->set_position(position);
  r.mutable_move()->set_motion(motion);
  return r;
}
inline proto::TaskRequest controlRequest(proto::ControlCommand c, int joint = 0, int direction = 0) {
  proto::TaskRequest r;
  r.mutable_control()->set_command(c);
  r.mutable_control()->set_joint(joint);
  r.mutable_control()->set_direction(direction);
  return r;
}

}  // namespace rfms::test
