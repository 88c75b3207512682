// What a client program asks the arm to do, as plain values that compose: a motion record (joint
// or Cartesian, its times, compliance, force axes, tracking, a guard, compensation) and a jog. They
// say in C++ what a task file's `motion` and `jog` statements say (docs/task-format.md), with the
// same words, in SI: metres, radians, seconds, newtons.
//
//   rfms::Motion::cartesian(20.0, 0.5).complying(rfms::kZ)             // the manual's mcartcz
//   rfms::Motion::cartesian(3.0, 0.5).withForce(rfms::Force().press(rfms::kZ, -10.0))
//   rfms::Motion::cartesian(0.5, 0.1).tracking().complying(rfms::kZ)
//   rfms::Jog::ofJoint(2, +1).counts(400)      rfms::Jog::along(rfms::kZ, -1).distance(0.003)
//
// RfmsClient::motion and RfmsClient::jog send them; the supervisor refuses combinations it cannot
// run (force axes with compensation), saying which.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

namespace rfms {

// The axes of a compliance frame: translations along, and rotations about, x y z. As bits they
// are the manual's compliance bits (the base frame's axes unless a force says the tool's).
enum CartesianAxis : std::uint32_t { kX = 1, kY = 2, kZ = 4, kRx = 8, kRy = 16, kRz = 32 };

// A.1's force laws, written on the force the tool applies (docs/force.md).
enum class ForceLaw { kP, kPD, kPI };

// Force and impedance control along axes of the base or the tool frame (docs/force.md):
//   Force().press(kZ, -10.0).law(ForceLaw::kPI, 1.0, 40.0)
class Force {
 public:
  // The tool applies this force (N) or moment (N m) along the axis, by the force law.
  Force& press(CartesianAxis axis, double setpoint);
  // A stiffness (N/m, N m/rad) to the path along the axis, and a damper (N s/m, N m s/rad).
  Force& spring(CartesianAxis axis, double stiffness, double damping = 0.0);
  Force& damp(CartesianAxis axis, double damping);
  Force& inToolFrame();
  // kv (s) for PD, ki (1/s) for PI; unused for P. Without a call: PI, kp 1, ki 40 /s.
  Force& law(ForceLaw law, double kp, double kv_or_ki = 0.0);

  // Each axis's value by index 0..5 (x y z rx ry rz); 0 where none was given.
  std::array<double, 6> setpoint{}, stiffness{}, damping{};
  std::uint32_t force_axes = 0;   // CartesianAxis bits under force control
  std::uint32_t spring_axes = 0;  // CartesianAxis bits given a stiffness
  std::uint32_t damped_axes = 0;  // CartesianAxis bits given a damping
  bool tool_frame = false;
  std::optional<ForceLaw> chosen_law;  // none: the controller's default
  double kp = 0.0, kv = 0.0, ki = 0.0;
};

// A.1's position compensator beyond K1 (docs/force.md): H(s) = K1 (1 + lead s) / (1 + lag s) +
// rate s + acceleration s^2 on the wrist's measured deflection. The lag left out is the
// controller's default, a 5 Hz low pass.
struct Compensator {
  double rate_s = 0.0;           // K2
  double acceleration_s2 = 0.0;  // K3
  double lead_s = 0.0;
  std::optional<double> lag_s{};
};

// A motion record: a move with it takes segment_s seconds, accelerating over accel_s at each end.
struct Motion {
  enum Mode { kJoint, kCartesian };

  Mode mode = kJoint;
  double segment_s = 1.0;
  double accel_s = 0.2;
  std::uint32_t compliance = 0;  // CartesianAxis bits; a force's own axes are added to them
  bool track = false;
  double guard_n = 0.0;       // 0: not guarded
  double compensation = 0.0;  // k1 of a compliant wrist, 0 .. 1
  Compensator compensator{};  // its other terms
  std::optional<Force> force{};

  static Motion joint(double segment_s, double accel_s) {
    return {.mode = kJoint, .segment_s = segment_s, .accel_s = accel_s};
  }
  static Motion cartesian(double segment_s, double accel_s) {
    return {.mode = kCartesian, .segment_s = segment_s, .accel_s = accel_s};
  }
  // The servo leaves these axes (CartesianAxis bits) to the arm; the move comes to rest where it yielded.
  Motion& complying(std::uint32_t axes) {
    compliance |= axes;
    return *this;
  }
  // Once at its target the arm keeps following it as its transforms change, until a stop or the
  // next move; the move completes only then.
  Motion& tracking() {
    track = true;
    return *this;
  }
  // The move ends where the contact force first reaches `newtons`, and the arm stops there.
  Motion& guarded(double newtons) {
    guard_n = newtons;
    return *this;
  }
  // On a compliant wrist, the servo takes back k1 (0 .. 1) of the wrist's measured deflection.
  Motion& compensating(double k1, const Compensator& terms = {}) {
    compensation = k1;
    compensator = terms;
    return *this;
  }
  Motion& withForce(const Force& f) {
    force = f;
    return *this;
  }
};

// A jog of one joint (MANU; encoder counts before calibration) or of the wrist along or about an
// axis of the base frame, or of T6's own: without a size on until hold or stop, with one a step.
struct Jog {
  int joint = 0;           // 1..6; 0 for an axis
  std::uint32_t axis = 0;  // one CartesianAxis bit when joint is 0
  int direction = 1;       // +1 or -1
  bool tool_frame = false;
  int step_counts = 0;         // a step of a joint, in encoder counts
  double step_angle = 0.0;     // a step of a joint or about rx ry rz, radians
  double step_distance = 0.0;  // a step along x y z, metres

  static Jog ofJoint(int joint, int direction) { return {.joint = joint, .direction = direction}; }
  static Jog along(CartesianAxis axis, int direction) { return {.axis = axis, .direction = direction}; }
  Jog& counts(int n) {
    step_counts = n;
    return *this;
  }
  Jog& angle(double radians) {
    step_angle = radians;
    return *this;
  }
  Jog& distance(double metres) {
    step_distance = metres;
    return *this;
  }
  Jog& inToolFrame() {
    tool_frame = true;
    return *this;
  }
};

}  // namespace rfms
