#include "supervisor/mail_composer.hpp"

#include "common/mail_codec.hpp"

namespace rfms {

void composeMail(const MailFacts& f, proto::SMail& s, proto::MMail& m) {
  s.mutable_header()->set_period(f.period);
  s.mutable_header()->set_sequence(f.sequence);
  s.set_rtstate(f.state);
  s.set_traj_state(f.traj_state);
  s.set_power(f.power);
  encode(f.t6, *s.mutable_t6());
  encode(f.config, *s.mutable_config());
  s.set_new_setpoint(f.new_setpoint);
  s.set_setpoint_restart(f.setpoint_restart);
  s.set_update_periods(static_cast<std::uint32_t>(f.update_periods));
  encodeSetpoints(*f.setpoints, s);
  encode(*f.desired_acceleration, s.mutable_desired_acceleration());
  encode(*f.servo_error, s.mutable_servo_error());
  s.set_compliance(f.compliance);
  s.set_jog_joint(f.jog_counts > 0 ? f.jog_joint : 0);
  s.set_jog_direction(f.jog_counts > 0 ? f.jog_direction : 0);
  s.set_jog_counts(f.jog_counts);
  if (f.parcel != nullptr)
    copyParcel(*f.parcel, *s.mutable_parcel());
  else
    s.mutable_parcel()->set_joint(0);  // none this period: no joint takes it
  s.set_serial_ik(f.serial_ik);

  m.mutable_header()->set_period(f.period);
  m.mutable_header()->set_sequence(f.sequence);
  encode(*f.angles, m.mutable_angles());
  encode(*f.velocities, m.mutable_velocities());
  m.set_angles_period(f.angles_period);
  m.set_compliance(f.compliance);
  m.set_parcel_joint(parcelJointFor(f.period));
  m.set_compliance_in_tool(f.compliance_in_tool);
  m.set_at_tool_point(f.at_tool_point);
}

}  // namespace rfms
