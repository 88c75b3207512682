#include "supervisor/world_status.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "common/mail_codec.hpp"

namespace rfms {

namespace {

const std::string* nameAt(const std::map<std::string, int>& index, int place) {
  for (const auto& [name, i] : index)
    if (i == place) return &name;
  return nullptr;
}

void addPose(const std::string& name, const Transform& pose,
             google::protobuf::RepeatedPtrField<proto::NamedPose>& out) {
  proto::NamedPose& p = *out.Add();
  p.set_name(name);
  encode(pose, *p.mutable_pose());
}

// A transform is drawn where the first position (by name) that has it, not inverted, puts it: the
// product of that equation's transforms up to and with it, which is a frame of the base because
// the whole product is T6.
void worldFrames(const WorldModel& world, google::protobuf::RepeatedPtrField<proto::NamedPose>& out) {
  // Each transform's name by its place, looked up once rather than for every factor.
  std::vector<const std::string*> names(world.values().places(), nullptr);
  for (const auto& [name, i] : world.transformIndex())
    if (static_cast<std::size_t>(i) < names.size()) names[static_cast<std::size_t>(i)] = &name;
  std::vector<bool> placed(names.size(), false);
  int positions = 0, transforms = 0;
  for (const auto& [name, i] : world.positionIndex()) {
    if (positions++ == kMostWorldFrames) break;
    addPose("position " + name, world.solve(i), out);
    Transform upto = Transform::Identity();
    for (const Atom& a : world.position(i).product()) {
      const Transform v = world.values().current(a.transform);
      upto = a.inverse ? Transform(upto * v.inverse(Eigen::Isometry)) : Transform(upto * v);
      const auto place = static_cast<std::size_t>(a.transform);
      if (a.inverse || place >= placed.size() || placed[place] || transforms == kMostWorldFrames) continue;
      placed[place] = true;
      ++transforms;
      if (names[place] != nullptr) addPose("transform " + *names[place], upto, out);
    }
  }
}

}  // namespace

void describeWorld(const WorldModel& world, const TrajectoryTail& t, proto::ArmStatus& s) {
  s.clear_running();
  s.clear_world();
  worldFrames(world, *s.mutable_world());
  if (t.inMove()) {
    proto::RunningMove& r = *s.mutable_running();
    r.set_id(t.current.id);
    if (const std::string* n = nameAt(world.positionIndex(), t.current.position)) r.set_position(*n);
    if (const std::string* n = nameAt(world.motionIndex(), t.current.motion)) r.set_motion(*n);
    encode(t.fixed_stop ? t.stop_pose : world.solve(t.current.position), *r.mutable_target());
    r.set_elapsed_s(std::min(t.current_s, t.current_segment));
    r.set_duration_s(t.current_segment);
  }
}

std::string worldRecord(const WorldModel& world, const proto::TaskRequest& request, const proto::TaskReply& reply) {
  if (!reply.accepted()) return {};
  // A motion record changes no frame.
  if (!request.has_transform() && !request.has_position() && !request.has_forget() && !request.has_move()) return {};
  proto::LogRequest r;
  worldFrames(world, *r.mutable_world()->mutable_frames());
  if (request.has_move()) {
    const int position = world.findPosition(request.move().position());
    if (position >= 0) encode(world.solve(position), *r.mutable_move_target());
  }
  return r.SerializeAsString();
}

}  // namespace rfms
