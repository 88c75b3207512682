#include "client/motion.hpp"

#include <stdexcept>

#include "client/motion_request.hpp"

namespace rfms {

namespace {

// The index 0..5 of a single axis bit; anything else is a programming error.
int indexOf(std::uint32_t axis, const char* who) {
  for (int d = 0; d < 6; ++d)
    if (axis == 1u << d) return d;
  throw std::invalid_argument(std::string(who) + ": an axis is one of kX kY kZ kRx kRy kRz");
}

void putAxes(google::protobuf::RepeatedField<double>* out, const std::array<double, 6>& v) {
  out->Resize(6, 0.0);
  for (int d = 0; d < 6; ++d) out->Set(d, v[static_cast<std::size_t>(d)]);
}

}  // namespace

Force& Force::press(CartesianAxis axis, double value) {
  setpoint[static_cast<std::size_t>(indexOf(axis, "Force::press"))] = value;
  force_axes |= axis;
  return *this;
}

Force& Force::spring(CartesianAxis axis, double k, double d) {
  const auto i = static_cast<std::size_t>(indexOf(axis, "Force::spring"));
  stiffness[i] = k;
  spring_axes |= axis;
  if (d != 0.0) {
    damping[i] = d;
    damped_axes |= axis;
  }
  return *this;
}

Force& Force::damp(CartesianAxis axis, double d) {
  damping[static_cast<std::size_t>(indexOf(axis, "Force::damp"))] = d;
  damped_axes |= axis;
  return *this;
}

Force& Force::inToolFrame() {
  tool_frame = true;
  return *this;
}

Force& Force::law(ForceLaw l, double p, double kv_or_ki) {
  chosen_law = l;
  kp = p;
  kv = l == ForceLaw::kPD ? kv_or_ki : 0.0;
  ki = l == ForceLaw::kPI ? kv_or_ki : 0.0;
  return *this;
}

proto::ForceControl forceControlOf(const Force& f) {
  proto::ForceControl out;
  if (f.force_axes != 0) putAxes(out.mutable_force(), f.setpoint);
  if (f.spring_axes != 0) putAxes(out.mutable_stiffness(), f.stiffness);
  if (f.damped_axes != 0) putAxes(out.mutable_damping(), f.damping);
  out.set_force_axes(f.force_axes);
  if (f.tool_frame) out.set_frame(proto::CF_TOOL);
  if (f.chosen_law) {
    out.set_law(*f.chosen_law == ForceLaw::kP    ? proto::FL_P
                : *f.chosen_law == ForceLaw::kPD ? proto::FL_PD
                                                 : proto::FL_PI);
    out.set_kp(f.kp);
    out.set_kv(f.kv);
    out.set_ki(f.ki);
  }
  return out;
}

proto::DefineMotion motionRecordOf(const std::string& name, const Motion& m) {
  proto::DefineMotion r;
  r.set_name(name);
  r.set_segment_s(m.segment_s);
  r.set_accel_s(m.accel_s);
  r.set_mode(m.mode == Motion::kCartesian ? proto::MM_CARTESIAN : proto::MM_JOINT);
  r.set_compliance(m.compliance | (m.force ? m.force->force_axes | m.force->spring_axes : 0u));
  r.set_track(m.track);
  r.set_guard_n(m.guard_n);
  r.set_compensation(m.compensation);
  const Compensator& c = m.compensator;
  if (c.rate_s != 0.0 || c.acceleration_s2 != 0.0 || c.lead_s != 0.0 || c.lag_s) {
    proto::Compensator& out = *r.mutable_compensator();
    out.set_rate_s(c.rate_s);
    out.set_acceleration_s2(c.acceleration_s2);
    out.set_lead_s(c.lead_s);
    if (c.lag_s) out.set_lag_s(*c.lag_s);
  }
  if (m.force) *r.mutable_force() = forceControlOf(*m.force);
  return r;
}

proto::Control jogControlOf(const Jog& j) {
  proto::Control c;
  c.set_command(proto::CC_JOG);
  c.set_direction(j.direction);
  if (j.joint != 0) {
    c.set_joint(j.joint);
  } else {
    c.set_axis(static_cast<proto::JogAxis>(proto::JA_X + indexOf(j.axis, "Jog::along")));
    c.set_tool_frame(j.tool_frame);
  }
  c.set_counts(j.step_counts);
  c.set_angle(j.step_angle);
  c.set_distance(j.step_distance);
  return c;
}

}  // namespace rfms
