#include "harness/tracking_scenarios.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "common/kinematics.hpp"
#include "common/mail_codec.hpp"
#include "common/statistics.hpp"
#include "common/transform.hpp"
#include "harness/harness.hpp"

namespace rfms {

namespace {

constexpr double kMm = 1e-3;

// The tracking example's object: in front of the PUMA 260, hand pointing down.
Transform centre() { return trans(220 * kMm, -126.24 * kMm, 100 * kMm) * rpy(0, std::numbers::pi / 2, 0); }

// A task's requests, refused ones being a fault of the scenario, not of the controller.
class Task {
 public:
  explicit Task(Harness& h) : h_(h) {}
  bool transform(const std::string& name, const Transform& t) {
    proto::TaskRequest r;
    r.mutable_transform()->set_name(name);
    encode(t, *r.mutable_transform()->mutable_value());
    return h_.request(r).accepted();
  }
  bool position(const std::string& name, const std::string& on) {
    proto::TaskRequest r;
    auto* p = r.mutable_position();
    p->set_name(name);
    p->add_lhs("T6");
    p->add_rhs(on);
    encode(ArmConfig{.righty = true, .up = false, .flip = true}, *p->mutable_config());
    return h_.request(r).accepted();
  }
  bool motion(const std::string& name, bool cartesian, double segment, double accel, bool track = false) {
    proto::TaskRequest r;
    auto* m = r.mutable_motion();
    m->set_name(name);
    m->set_mode(cartesian ? proto::MM_CARTESIAN : proto::MM_JOINT);
    m->set_segment_s(segment);
    m->set_accel_s(accel);
    m->set_track(track);
    return h_.request(r).accepted();
  }
  bool move(const std::string& position, const std::string& motion) {
    proto::TaskRequest r;
    r.mutable_move()->set_position(position);
    r.mutable_move()->set_motion(motion);
    return h_.request(r).accepted();
  }
  bool control(proto::ControlCommand c) {
    proto::TaskRequest r;
    r.mutable_control()->set_command(c);
    return h_.request(r).accepted();
  }

 private:
  Harness& h_;
};

bool emergency(const Harness& h) { return h.supervisor().rtstate() == proto::RT_EMGCY; }

// Powered, calibrated and at `at`'s position, at rest; false if that failed.
bool ready(Harness& h, Task& task, const std::string& at) {
  h.runUntil([] { return false; }, 10);
  if (!task.control(proto::CC_CALIBRATE)) return false;
  if (!h.runUntil([&] { return h.supervisor().rtstate() == proto::RT_HOLD; }, 60000)) return false;
  if (!task.motion("reach", false, 2.0, 0.3) || !task.move(at, "reach")) return false;
  h.runUntil([] { return false; }, 10);
  return h.runUntil([&] { return emergency(h) || h.supervisor().trajectory().atRest(); }, 10000) && !emergency(h);
}

Vec3 setpointPosition(const Harness& h) {
  Transform t6;
  decode(h.lastOutbox().smail.t6(), t6);
  return t6.translation();
}

Vec3 armPosition(Harness& h) { return forwardKinematics(h.model(), h.arm().q()).translation(); }

}  // namespace

StepUpdateFigures runStepUpdate(const RobotModel& model, const proto::ControllerSettings& settings) {
  StepUpdateFigures f;
  Harness h(model, settings);
  Task task(h);
  f.limit_mm = settings.tracking().wrist_speed_mm_s() * h.dt();
  const Transform goal = trans(0, 40 * kMm, 0) * centre(), moved = trans(10 * kMm, 40 * kMm, 0) * centre();
  if (!task.transform("start", centre()) || !task.position("p0", "start") || !ready(h, task, "p0") ||
      !task.transform("goal", goal) || !task.position("p1", "goal") || !task.motion("line", true, 2.0, 0.3) ||
      !task.move("p1", "line")) {
    f.emergency = true;
    return f;
  }
  const int update = static_cast<int>(std::lround(1.0 / h.dt())), window = static_cast<int>(std::lround(0.5 / h.dt()));
  Vec3 last = setpointPosition(h);
  for (int n = 0; n < update + window && !emergency(h); ++n) {
    if (n == update) task.transform("goal", moved);
    h.step();
    const Vec3 p = setpointPosition(h);
    const double step = (p - last).norm() / kMm;
    last = p;
    if (n < update - window) continue;
    const bool after = n >= update;
    (after ? f.largest_step_mm : f.largest_step_before_mm) =
        std::max(after ? f.largest_step_mm : f.largest_step_before_mm, step);
    for (int i = 1; i <= kJoints; ++i) {
      const double e = std::abs(h.jmail(i).servo_error()) * 180.0 / std::numbers::pi;
      if (!after) {
        f.following_before_deg = std::max(f.following_before_deg, e);
      } else if (e > f.following_deg) {
        f.following_deg = e;
        f.following_joint = i;
      }
    }
  }
  h.runUntil([&] { return emergency(h) || h.supervisor().trajectory().atRest(); }, 20000);
  h.runUntil([] { return false; }, static_cast<std::uint64_t>(std::lround(0.5 / h.dt())));
  f.emergency = emergency(h);
  f.end_error_mm = (armPosition(h) - moved.translation()).norm() / kMm;
  return f;
}

CircleFigures runCircle(const RobotModel& model, const proto::ControllerSettings& settings, CircleMethod method,
                        double seconds) {
  CircleFigures f;
  Harness h(model, settings);
  Task task(h);
  const double radius = 20 * kMm, circle_s = 4.0;
  const auto object = [&](double t) {
    const double a = 2 * std::numbers::pi * t / circle_s;
    return Transform(trans(0, radius * std::cos(a), radius * std::sin(a)) * centre());
  };
  const bool track = method == CircleMethod::kTrack;
  if (!task.transform("obj", object(0)) || !task.position("follow", "obj") || !ready(h, task, "follow") ||
      !task.motion("track", true, 0.5, 0.1, track) || (track && !task.move("follow", "track"))) {
    f.emergency = true;
    return f;
  }
  const int periods = static_cast<int>(std::lround(seconds / h.dt()));
  const int every = std::max(1, static_cast<int>(std::lround(0.005 / h.dt())));
  const int poll = static_cast<int>(std::lround(0.05 / h.dt()));
  std::vector<double> trail;
  Vec3 last = setpointPosition(h);
  for (int n = 0; n < periods && !emergency(h); ++n) {
    const double t = n * h.dt();
    if (n % every == 0) task.transform("obj", object(t));
    // As the example did before: keep one short move queued behind the running one.
    const TrajectoryGenerator& g = h.supervisor().trajectory();
    if (!track && n % poll == 0 && (g.currentMove() != 0 ? 1 : 0) + g.queued() < 2) task.move("follow", "track");
    h.step();
    const Vec3 p = setpointPosition(h);
    if (t > 1.0) {
      trail.push_back((armPosition(h) - object(t).translation()).norm() / kMm);
      f.largest_step_mm = std::max(f.largest_step_mm, (p - last).norm() / kMm);
    }
    last = p;
  }
  f.emergency = emergency(h);
  f.trail_p50_mm = percentile(trail, 50);
  f.trail_p99_mm = percentile(trail, 99);
  f.trail_max_mm = percentile(trail, 100);
  return f;
}

}  // namespace rfms
