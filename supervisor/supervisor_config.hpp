// The supervisor's settings, from the cluster file's controller section and the scene: what both
// of its sides, the background and the period, are built with.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "common/controller_settings.hpp"
#include "common/scene.hpp"
#include "supervisor/world_values.hpp"

namespace rfms {

struct SupervisorConfig {
  double dt = 1e-3;                     // sample period, s
  int update_periods = 1;               // setpoint update period, in sample periods
  int watchdog_periods = 10;            // N: a node silent this long is an emergency
  bool serial_ik = false;               // ask the joints for the exact serial IK instead of PIK
  int path_check_samples = 16;          // points of a Cartesian move checked for reach before accepting it
  bool log_required = false;            // controller.log.required: a run that cannot be logged must not move
  std::size_t max_names = 1024;         // controller.max_names: named objects of each kind
  std::size_t max_names_per_key = 256;  // controller.max_names_per_key: names one client key may create
  int jog_counts = 4;                   // encoder counts a jogged joint's setpoint moves per period in MANU (RFMS: 4)
  double jog_speed = 0.01;              // m/s: a Cartesian jog along an axis
  double jog_turn = 5.0 * 3.141592653589793 / 180.0;  // rad/s: a Cartesian jog about an axis
  proto::TrackingSettings tracking;                   // the setpoint filter's limits (with the model's joint speeds)
  FrameTracking frames;                               // how moving frames are carried on
  ToolModel tool;                   // the scene's tool: its weight is taken off the force sensor's reading
  bool force_sensor = false;        // the scene has one: guarded motions and force limits work
  std::optional<WristModel> wrist;  // the sensor is a compliant wrist: its deflection is read
  double max_force = 60.0;          // N: controller.force.max_force_n
  double max_moment = 4.0;          // N m: controller.force.max_moment_nm
  // What the force loop's stability check (supervisor/force_stability.hpp) needs beyond the above.
  std::vector<SurfaceModel> surfaces;  // what the tool can touch
  double sensor_bandwidth_hz = 0.0;    // the force/torque sensor's low pass
  double servo_bandwidth_hz = 8.0;     // the joints' servo design (their damping is in the loop)
  JointVec park = JointVec::Zero();    // ... at the park pose
  double gain_margin = 1.25;           // controller.force.gain_margin
  bool refuse_unstable_laws = true;    // controller.force.refuse_unstable_laws
};

SupervisorConfig supervisorConfigFor(const proto::ControllerSettings& s, const Scene& scene = {});

}  // namespace rfms
