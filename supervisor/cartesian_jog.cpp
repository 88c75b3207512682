#include "supervisor/cartesian_jog.hpp"

namespace rfms {

double jogDistance(const JogSpec& jog, double done, double seconds) {
  return jog.length > 0.0 ? std::min(done + jog.speed * seconds, jog.length) : done + jog.speed * seconds;
}

Transform jogPose(const Transform& start, const JogSpec& jog, double done) {
  Vec3 axis = Vec3::Zero();
  axis[jog.axis % 3] = jog.direction;
  Transform next = start;
  if (jog.axis < 3) {
    const Vec3 step = axis * done;
    next.translation() += jog.tool_frame ? Vec3(start.linear() * step) : step;
  } else {  // about the wrist's centre (T6's origin), not the base's
    const Eigen::AngleAxisd turn(done, jog.tool_frame ? Vec3(start.linear() * axis) : axis);
    next.linear() = turn.toRotationMatrix() * start.linear();
  }
  return next;
}

}  // namespace rfms
