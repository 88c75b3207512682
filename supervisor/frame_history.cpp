#include "supervisor/frame_history.hpp"

#include <algorithm>
#include <span>

namespace rfms {

void FrameHistory::add(double t, const Transform& value, double window) {
  const Sample s{t, value.translation(), Eigen::Quaterniond(value.rotation())};
  if (count_ < kSamples) {
    samples_[count_++] = s;
  } else {
    samples_[next_] = s;
    next_ = (next_ + 1) % kSamples;
  }
  newest_t_ = t;

  // Least squares over the updates within the window: slope = sum (t - tm)(x - xm) / sum (t - tm)^2.
  // Rotations are taken relative to the newest, as rotation vectors in the base frame, so that the
  // fit is of small angles and free of the 2 pi wrap.
  const std::span<const Sample> kept(samples_.data(), count_);
  double tm = 0.0;
  std::size_t n = 0;
  for (const Sample& u : kept)
    if (u.t >= t - window) {
      tm += u.t;
      ++n;
    }
  moving_ = false;
  velocity_.setZero();
  turn_rate_.setZero();
  if (n < kMinSamples) return;
  tm /= static_cast<double>(n);
  Vec3 pm = Vec3::Zero(), rm = Vec3::Zero();
  const auto relative = [&](const Sample& u) {
    const Eigen::AngleAxisd a(u.r * s.r.conjugate());
    return Vec3(a.angle() * a.axis());
  };
  for (const Sample& u : kept)
    if (u.t >= t - window) {
      pm += u.p;
      rm += relative(u);
    }
  pm /= static_cast<double>(n);
  rm /= static_cast<double>(n);
  double stt = 0.0;
  Vec3 stp = Vec3::Zero(), str = Vec3::Zero();
  for (const Sample& u : kept)
    if (u.t >= t - window) {
      const double dt = u.t - tm;
      stt += dt * dt;
      stp += dt * (u.p - pm);
      str += dt * (relative(u) - rm);
    }
  if (stt <= 0.0) return;  // every update in one instant: no time to move in
  velocity_ = stp / stt;
  turn_rate_ = str / stt;
  moving_ = true;
}

Transform FrameHistory::at(const Transform& newest, double t, double max_lead) const {
  if (!moving_) return newest;
  const double lead = std::clamp(t - newest_t_, 0.0, max_lead);
  Transform out = newest;
  out.translation() += velocity_ * lead;
  const double turn = turn_rate_.norm() * lead;
  if (turn > 0.0) out.linear() = Eigen::AngleAxisd(turn, turn_rate_.normalized()).toRotationMatrix() * newest.linear();
  return out;
}

}  // namespace rfms
