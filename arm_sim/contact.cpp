#include "arm_sim/contact.hpp"

#include <algorithm>
#include <cmath>

namespace rfms {

Penetration penetration(const SurfaceModel& s, const Vec3& centre, double radius, double t) {
  // The surface has moved by v t since the start: the ball's place relative to where it started.
  const Vec3 c = centre - s.velocity * t;
  Penetration p;
  if (s.shape == SurfaceModel::Shape::kPlane) {
    p.normal = s.pose.linear().col(2);
    p.depth = radius - p.normal.dot(c - s.pose.translation());
    return p;
  }
  const Vec3 local = s.pose.inverse() * c;
  const Vec3 nearest = local.cwiseMax(-s.half_size).cwiseMin(s.half_size);
  const Vec3 out = local - nearest;
  const double distance = out.norm();
  Vec3 n_local;
  if (distance > 0.0) {
    n_local = out / distance;
    p.depth = radius - distance;
  } else {
    // The centre is inside: out through the nearest face.
    int axis = 0;
    const Vec3 to_face = s.half_size - local.cwiseAbs();
    to_face.minCoeff(&axis);
    n_local = Vec3::Zero();
    n_local[axis] = local[axis] < 0.0 ? -1.0 : 1.0;
    p.depth = radius + to_face[axis];
  }
  p.normal = s.pose.linear() * n_local;
  return p;
}

ContactWrench contactWrench(const Scene& scene, const Vec3& centre, const Vec3& velocity, const Vec3& omega, double t) {
  ContactWrench w;
  const double r = scene.tool.tip_radius;
  for (std::size_t i = 0; i < scene.surfaces.size(); ++i) {
    const SurfaceModel& s = scene.surfaces[i];
    const Penetration p = penetration(s, centre, r, t);
    if (p.depth <= 0.0) continue;
    const Vec3 arm = -r * p.normal;  // from the ball's centre to the contact point
    const Vec3 slip = velocity + omega.cross(arm) - s.velocity;
    const double closing = -slip.dot(p.normal);
    const double normal_force = std::max(0.0, s.stiffness * p.depth + s.damping * closing);
    Vec3 force = normal_force * p.normal;
    const Vec3 tangential = slip + closing * p.normal;
    const double speed = tangential.norm();
    if (s.friction > 0.0 && speed > 0.0) {
      // tanh(v / v_s) / v, written to stay finite as v goes to zero.
      const double x = speed / scene.slip_velocity;
      const double gain = x < 1e-6 ? 1.0 / scene.slip_velocity : std::tanh(x) / speed;
      force -= s.friction * normal_force * gain * tangential;
    }
    w.force += force;
    w.moment += arm.cross(force);
    w.energy += 0.5 * s.stiffness * p.depth * p.depth;
    if (p.depth > w.depth) {
      w.depth = p.depth;
      w.surface = static_cast<int>(i);
    }
  }
  return w;
}

}  // namespace rfms
