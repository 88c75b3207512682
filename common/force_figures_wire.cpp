#include "common/force_figures_wire.hpp"

#include "common/mail_codec.hpp"

namespace rfms {

void encode(const ForceFigures& f, proto::ForceFigures& out) {
  out.set_setpoint_n(f.setpoint_n);
  out.set_error_p50_n(f.error_p50_n);
  out.set_error_p99_n(f.error_p99_n);
  out.set_error_max_n(f.error_max_n);
  out.set_peak_n(f.peak_n);
  out.set_settle_s(f.settle_s);
  encode(f.end_pose, *out.mutable_end_pose());
  out.set_final_n(f.final_n);
  out.set_law_n(f.law_n);
  out.set_settle_final_s(f.settle_final_s);
  out.set_held(f.held);
  out.set_impedance(f.impedance);
  out.set_start_n(f.start_n);
  out.set_overshoot_final(f.overshoot_final);
}

std::optional<ForceFigures> decode(const proto::ForceFigures& f) {
  if (!(f.setpoint_n() > 0.0) && !f.impedance()) return std::nullopt;
  ForceFigures out;
  out.setpoint_n = f.setpoint_n();
  out.error_p50_n = f.error_p50_n();
  out.error_p99_n = f.error_p99_n();
  out.error_max_n = f.error_max_n();
  out.peak_n = f.peak_n();
  out.settle_s = f.settle_s();
  if (!decode(f.end_pose(), out.end_pose)) out.end_pose = Transform::Identity();
  out.final_n = f.final_n();
  out.law_n = f.law_n();
  out.settle_final_s = f.settle_final_s();
  out.held = f.held();
  out.impedance = f.impedance();
  out.start_n = f.start_n();
  out.overshoot_final = f.overshoot_final();
  return out;
}

}  // namespace rfms
