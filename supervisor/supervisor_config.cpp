#include "supervisor/supervisor_config.hpp"

namespace rfms {

SupervisorConfig supervisorConfigFor(const proto::ControllerSettings& s, const Scene& scene) {
  SupervisorConfig c;
  c.tool = scene.tool;
  c.force_sensor = scene.sensor != SensorKind::kNone;
  if (scene.sensor == SensorKind::kCompliantWrist) c.wrist = scene.wrist;
  c.max_force = s.force().max_force_n();
  c.max_moment = s.force().max_moment_nm();
  c.surfaces = scene.surfaces;
  if (scene.sensor == SensorKind::kForceTorque) c.sensor_bandwidth_hz = scene.force_torque.bandwidth_hz;
  c.servo_bandwidth_hz = s.servo().bandwidth_hz();
  c.park = parkPose(s);
  c.gain_margin = s.force().gain_margin();
  c.refuse_unstable_laws = s.force().refuse_unstable_laws();
  c.dt = sampleSeconds(s);
  c.update_periods = static_cast<int>(s.update_periods());
  c.watchdog_periods = static_cast<int>(s.watchdog_periods());
  c.serial_ik = s.serial_ik();
  c.log_required = s.log().required();
  c.max_names = s.max_names();
  c.max_names_per_key = s.max_names_per_key();
  c.tracking = s.tracking();
  c.frames.history = s.tracking().history_ms() * 1e-3;
  c.frames.max_lead = s.tracking().max_lead_ms() * 1e-3;
  // A setpoint computed now is used by the joints one update later, and the arm's sensors report a
  // period after that: a moving frame is carried on by as much.
  c.frames.delay = (c.update_periods + 1) * c.dt;
  return c;
}

}  // namespace rfms
