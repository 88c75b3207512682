#include "supervisor/force_control.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "common/kinematics.hpp"
#include "common/number_text.hpp"

namespace rfms {

bool operator==(const ForceSpec& a, const ForceSpec& b) {
  return a.tool_frame == b.tool_frame && a.force_axes == b.force_axes && a.force == b.force &&
         a.stiffness == b.stiffness && a.damping == b.damping && a.gains.law == b.gains.law &&
         a.gains.kp == b.gains.kp && a.gains.kv == b.gains.kv && a.gains.ki == b.gains.ki;
}

namespace {

constexpr const char* kAxisNames[6] = {"x", "y", "z", "rx", "ry", "rz"};

// Reads one per-axis list: none, or six finite values, each within [0 or -max, max].
std::string axisValues(const google::protobuf::RepeatedField<double>& v, const char* what, bool signed_values,
                       double max_force, double max_moment, Vec6& out) {
  out.setZero();
  if (v.empty()) return "";
  if (v.size() != 6) return std::string(what) + " has one value per axis (6), got " + std::to_string(v.size());
  for (int d = 0; d < 6; ++d) {
    const double limit = d < 3 ? max_force : max_moment;
    const double x = v[d];
    if (!std::isfinite(x) || x > limit || x < (signed_values ? -limit : 0.0))
      return std::string(what) + " " + kAxisNames[d] + ": must be " + numberText(signed_values ? -limit : 0.0) +
             " .. " + numberText(limit) + ", got " + numberText(x);
    out[d] = x;
  }
  return "";
}

ForceLaw lawFor(ForceGains g, double dt, double max_force) {
  // The integral alone never asks for more than the force limit.
  const double reach = g.kp * g.ki;
  g.integral_limit = reach > 0.0 ? max_force / reach : 0.0;
  return ForceLaw(g, dt);
}

// Scales v down to length at most `limit`.
Vec3 bounded(const Vec3& v, double limit) {
  const double n = v.norm();
  return n > limit ? Vec3(v * (limit / n)) : v;
}

}  // namespace

std::string forceSpecOf(const proto::ForceControl& f, std::uint32_t compliance, ForceSpec& out) {
  out = ForceSpec{};
  if (f.frame() != proto::CF_BASE && f.frame() != proto::CF_TOOL) return "force frame must be base or tool";
  out.tool_frame = f.frame() == proto::CF_TOOL;
  if (f.force_axes() > 0x3f) return "force axes have six bits (x y z rx ry rz), got " + std::to_string(f.force_axes());
  if ((f.force_axes() & ~compliance) != 0) return "force axes must be among the compliance axes";
  out.force_axes = f.force_axes();
  if (std::string why = axisValues(f.force(), "force", true, 1e4, 1e3, out.force); !why.empty()) return why;
  if (std::string why = axisValues(f.stiffness(), "stiffness", false, 1e6, 1e4, out.stiffness); !why.empty())
    return why;
  if (std::string why = axisValues(f.damping(), "damping", false, 1e5, 1e3, out.damping); !why.empty()) return why;
  if (f.damping().empty())
    for (int d = 0; d < 6; ++d)
      if ((out.force_axes >> d) & 1u) out.damping[d] = d < 3 ? kDefaultForceDamping : kDefaultMomentDamping;
  for (int d = 0; d < 6; ++d) {
    const bool force_axis = (out.force_axes >> d) & 1u;
    if (out.force[d] != 0.0 && !force_axis)
      return std::string("force ") + kAxisNames[d] + ": a setpoint on an axis not under force control";
    if (out.stiffness[d] != 0.0 && (force_axis || ((compliance >> d) & 1u) == 0))
      return std::string("stiffness ") + kAxisNames[d] + ": only a compliant axis not under force control has one";
    if (out.damping[d] != 0.0 && ((compliance >> d) & 1u) == 0)
      return std::string("damping ") + kAxisNames[d] + ": only a compliant axis has one";
  }
  switch (f.law()) {
    case proto::FL_P: out.gains.law = ForceLawKind::kP; break;
    case proto::FL_PD: out.gains.law = ForceLawKind::kPD; break;
    case proto::FL_PI: out.gains.law = ForceLawKind::kPI; break;
    default: return "force law must be P, PD or PI";
  }
  if (!(std::isfinite(f.kp()) && f.kp() >= 0.0 && f.kp() <= 100.0))
    return "force law kp must be 0 .. 100 (0: the default)";
  if (!(std::isfinite(f.kv()) && f.kv() >= 0.0 && f.kv() <= 1.0)) return "force law kv must be 0 .. 1 s";
  if (!(std::isfinite(f.ki()) && f.ki() >= 0.0 && f.ki() <= 1000.0))
    return "force law ki must be 0 .. 1000 /s (0: the default for PI)";
  if (f.kv() != 0.0 && out.gains.law != ForceLawKind::kPD) return "force law kv belongs to the PD law";
  if (f.ki() != 0.0 && out.gains.law != ForceLawKind::kPI) return "force law ki belongs to the PI law";
  out.gains.kp = f.kp() > 0.0 ? f.kp() : kDefaultForceKp;
  out.gains.kv = f.kv();
  out.gains.ki = out.gains.law == ForceLawKind::kPI ? (f.ki() > 0.0 ? f.ki() : kDefaultForceKi) : 0.0;
  return "";
}

ForceInputs forceInputsAt(const RobotModel& model, const JointVec& q, const JointVec& qd, const Transform& path_t6,
                          const Transform& tool, const Vec6& contact) {
  ForceInputs in;
  const Transform t6 = forwardKinematics(model, q);
  in.tool = t6 * tool;
  in.path = path_t6 * tool;
  const Vec6 wrist = jacobianBase(model, q) * qd;
  const Vec3 lever = in.tool.translation() - t6.translation();
  in.twist << wrist.head<3>() + wrist.tail<3>().cross(lever), wrist.tail<3>();
  in.contact = contact;
  return in;
}

ForceController::ForceController(double dt, double max_force, double max_moment)
    : dt_(dt),
      max_force_(max_force),
      max_moment_(max_moment),
      laws_{lawFor({}, dt, max_force), lawFor({}, dt, max_force), lawFor({}, dt, max_force),
            lawFor({}, dt, max_force), lawFor({}, dt, max_force), lawFor({}, dt, max_force)},
      yield_alpha_(1.0 - std::exp(-2.0 * std::numbers::pi * kYieldHz * dt)) {}

Vec6 ForceController::update(const ForceSpec& spec, std::uint32_t compliance, std::uint64_t move,
                             const ForceInputs& in) {
  if (!running_ || !(spec == spec_) || compliance != compliance_) {
    // A new contact task: no integral, no rate from before. The same spec carried on from one
    // move to the next keeps its laws (pressing, then sliding, is one contact).
    spec_ = spec;
    compliance_ = compliance;
    for (int d = 0; d < 6; ++d)
      laws_[static_cast<std::size_t>(d)] = lawFor(spec.gains, dt_, d < 3 ? max_force_ : max_moment_);
    running_ = true;
    held_ = last_path_ = in.path;  // from the setpoint the servo holds now: no step in it
  }
  if (move != move_) last_path_ = in.path;
  move_ = move;
  const Mat3 r = complianceAxes(spec, in);
  // Everything along the compliance frame's axes.
  Vec6 applied, offset, velocity;
  applied << r.transpose() * -in.contact.head<3>(), r.transpose() * -in.contact.tail<3>();
  const Eigen::AngleAxisd turn(in.path.linear() * in.tool.linear().transpose());
  offset << r.transpose() * (in.path.translation() - in.tool.translation()),
      r.transpose() * (turn.angle() * turn.axis());
  velocity << r.transpose() * in.twist.head<3>(), r.transpose() * in.twist.tail<3>();

  // The held frame moves as the path does (so that its speed carries on, with no step in the
  // setpoint's velocity, when force control takes over a moving arm) and is drawn to the arm's.
  held_.translation() +=
      in.path.translation() - last_path_.translation() + yield_alpha_ * (in.tool.translation() - held_.translation());
  held_.linear() = in.path.linear() * last_path_.linear().transpose() * held_.linear();
  const Eigen::AngleAxisd toward(in.tool.linear() * held_.linear().transpose());
  held_.linear() = Eigen::AngleAxisd(yield_alpha_ * toward.angle(), toward.axis()).toRotationMatrix() * held_.linear();
  last_path_ = in.path;
  // From the path to the held frame along the frame's axes, the compliant components only.
  Vec3 shift = r.transpose() * (held_.translation() - in.path.translation());
  const Eigen::AngleAxisd away(held_.linear() * in.path.linear().transpose());
  Vec3 spin = r.transpose() * (away.angle() * away.axis());
  for (int d = 0; d < 3; ++d) {
    if (((compliance >> d) & 1u) == 0) shift[d] = 0.0;
    if (((compliance >> (d + 3)) & 1u) == 0) spin[d] = 0.0;
  }
  setpoint_ = in.path;
  setpoint_.translation() += r * shift;
  const Vec3 w_spin = r * spin;
  if (w_spin.norm() > 0.0)
    setpoint_.linear() = Eigen::AngleAxisd(w_spin.norm(), w_spin.normalized()).toRotationMatrix() * in.path.linear();

  Vec6 w = Vec6::Zero();
  error_.setZero();
  applied_ = applied;
  for (int d = 0; d < 6; ++d) {
    if (((compliance >> d) & 1u) == 0) continue;
    if ((spec.force_axes >> d) & 1u) {
      error_[d] = spec.force[d] - applied[d];
      // In contact when the tool applies at least a tenth of the setpoint, the way it points.
      const bool touching = applied[d] * spec.force[d] >= 0.1 * spec.force[d] * spec.force[d];
      w[d] = laws_[static_cast<std::size_t>(d)].update(spec.force[d], applied[d], touching);
    } else {
      w[d] = spec.stiffness[d] * offset[d];
    }
    w[d] -= spec.damping[d] * velocity[d];
  }
  Vec6 out;
  out << bounded(r * w.head<3>(), max_force_), bounded(r * w.tail<3>(), max_moment_);
  return out;
}

}  // namespace rfms
