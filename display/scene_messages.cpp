#include "display/scene_messages.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/kinematics.hpp"
#include "common/link_shapes.hpp"

namespace rfms::display {

namespace {

constexpr double kNewtonsPerMetre = 100.0;  // the force arrow: 10 N is 100 mm long
constexpr double kLeastForceShown = 0.5;    // N

void setStamp(std::uint64_t ns, google::protobuf::Timestamp& t) {
  t.set_seconds(static_cast<std::int64_t>(ns / 1'000'000'000u));
  t.set_nanos(static_cast<std::int32_t>(ns % 1'000'000'000u));
}

void setPose(const Transform& t, foxglove::Pose& p) {
  const Vec3 x = t.translation();
  p.mutable_position()->set_x(x.x());
  p.mutable_position()->set_y(x.y());
  p.mutable_position()->set_z(x.z());
  const Eigen::Quaterniond q(t.linear());
  p.mutable_orientation()->set_x(q.x());
  p.mutable_orientation()->set_y(q.y());
  p.mutable_orientation()->set_z(q.z());
  p.mutable_orientation()->set_w(q.w());
}

void setColor(double r, double g, double b, double a, foxglove::Color& c) {
  c.set_r(r);
  c.set_g(g);
  c.set_b(b);
  c.set_a(a);
}

foxglove::SceneEntity& entity(const char* id, std::uint64_t ns, foxglove::SceneUpdate& out) {
  foxglove::SceneEntity& e = *out.add_entities();
  setStamp(ns, *e.mutable_timestamp());
  e.set_frame_id("base");
  e.set_id(id);
  return e;
}

void drawLinks(const RobotModel& model, const LinkFrames& frames, foxglove::SceneEntity& e) {
  for (int i = 1; i <= kJoints; ++i) {
    const DhParams& dh = model.joints[static_cast<std::size_t>(i - 1)].dh;
    const Transform joint_frame = frames[static_cast<std::size_t>(i)] * fixedPart(dh).inverse();
    for (const LinkCylinder& c : linkCylinders(dh)) {
      foxglove::CylinderPrimitive& p = *e.add_cylinders();
      setPose(joint_frame * c.centre, *p.mutable_pose());
      p.mutable_size()->set_x(2.0 * kLinkRadius);
      p.mutable_size()->set_y(2.0 * kLinkRadius);
      p.mutable_size()->set_z(c.length);
      p.set_bottom_scale(1.0);
      p.set_top_scale(1.0);
      setColor(0.8, 0.5, 0.2, 1.0, *p.mutable_color());
    }
  }
}

void drawSurfaces(const Scene& scene, foxglove::SceneEntity& e) {
  for (const SurfaceModel& s : scene.surfaces) {
    foxglove::CubePrimitive& c = *e.add_cubes();
    // A plane is drawn as a square metre of thin slab just behind its face.
    const bool box = s.shape == SurfaceModel::Shape::kBox;
    const Vec3 size = box ? Vec3(2.0 * s.half_size) : Vec3(1.0, 1.0, 0.002);
    setPose(box ? s.pose : s.pose * trans(0.0, 0.0, -0.001), *c.mutable_pose());
    c.mutable_size()->set_x(size.x());
    c.mutable_size()->set_y(size.y());
    c.mutable_size()->set_z(size.z());
    setColor(0.55, 0.4, 0.25, 0.8, *c.mutable_color());
  }
}

// The tool's tip as its ball, and the force the world puts on it (its weight taken out) as an
// arrow from the tip.
void drawTool(const RobotModel& model, const Scene& scene, const ArmPicture& picture, const Transform& t6,
              foxglove::SceneEntity& e) {
  const Transform tool = t6 * scene.tool.frame;
  foxglove::SpherePrimitive& tip = *e.add_spheres();
  setPose(tool, *tip.mutable_pose());
  const double d = 2.0 * scene.tool.tip_radius;
  tip.mutable_size()->set_x(d);
  tip.mutable_size()->set_y(d);
  tip.mutable_size()->set_z(d);
  setColor(0.3, 0.3, 0.35, 1.0, *tip.mutable_color());
  if (!picture.has_wrench) return;
  const Vec3 force = contactFromReading(scene.tool, model.gravity, t6, picture.wrench).head<3>();
  // Below the sensor's noise and the tool's own inertia in a quick move there is nothing to show.
  if (force.norm() < kLeastForceShown) return;
  const double length = force.norm() / kNewtonsPerMetre;
  foxglove::ArrowPrimitive& a = *e.add_arrows();
  // The arrow points along +x of its pose: turn x onto the force.
  const Eigen::Quaterniond turn = Eigen::Quaterniond::FromTwoVectors(Vec3::UnitX(), force);
  Transform along = Transform::Identity();
  along.linear() = turn.toRotationMatrix();
  along.translation() = tool.translation();
  setPose(along, *a.mutable_pose());
  a.set_shaft_length(0.8 * length);
  a.set_shaft_diameter(0.004);
  a.set_head_length(0.2 * length);
  a.set_head_diameter(0.01);
  setColor(0.9, 0.1, 0.1, 1.0, *a.mutable_color());
}

}  // namespace

void addFrame(const char* parent, const std::string& child, const Transform& t, std::uint64_t ns,
              foxglove::FrameTransforms& out) {
  foxglove::FrameTransform& f = *out.add_transforms();
  setStamp(ns, *f.mutable_timestamp());
  f.set_parent_frame_id(parent);
  f.set_child_frame_id(child);
  foxglove::Pose p;
  setPose(t, p);
  *f.mutable_translation() = p.position();
  *f.mutable_rotation() = p.orientation();
}

std::uint64_t periodsPerPicture(double dt_s, int hz) {
  // The small tolerance: 1/60 s at dt = 1/120 s is two periods, not three.
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(1.0 / (hz * dt_s) - 1e-9)));
}

std::uint64_t stampOf(std::uint64_t period, double dt_s) {
  return static_cast<std::uint64_t>(std::llround(static_cast<double>(period) * dt_s * 1e9));
}

void frameTransforms(const RobotModel& model, const Scene& scene, const ArmPicture& picture, std::uint64_t stamp_ns,
                     foxglove::FrameTransforms& out) {
  out.Clear();
  LinkFrames frames;
  linkFrames(model, picture.angles, frames);
  for (int i = 1; i < kJoints; ++i)
    addFrame("base", "link" + std::to_string(i), frames[static_cast<std::size_t>(i)], stamp_ns, out);
  addFrame("base", "t6", frames[kJoints], stamp_ns, out);
  addFrame("t6", "tool", scene.tool.frame, stamp_ns, out);
  if (picture.has_setpoint) addFrame("base", "setpoint", picture.setpoint, stamp_ns, out);
}

void sceneUpdate(const RobotModel& model, const Scene& scene, const ArmPicture& picture, std::uint64_t stamp_ns,
                 foxglove::SceneUpdate& out) {
  out.Clear();
  LinkFrames frames;
  linkFrames(model, picture.angles, frames);
  drawLinks(model, frames, entity("arm", stamp_ns, out));
  if (!scene.surfaces.empty()) drawSurfaces(scene, entity("surfaces", stamp_ns, out));
  drawTool(model, scene, picture, frames[kJoints], entity("tool", stamp_ns, out));
}

}  // namespace rfms::display
