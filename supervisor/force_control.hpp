// Force and impedance control at the tool point: the supervisor's share of it (docs/force.md).
//
// RFMS split the work three ways, and so do we. The math server turns the motion's compliance
// bits into the compliance matrix 1 - P (the joint motions that move the tool only along the
// compliant axes are taken out of each servo error) and hands each joint its Jacobian column,
// round robin in the PARCELs. The supervisor, here, decides each period which wrench the arm is
// to apply at the tool point along those axes; each joint adds its column's share of it, J_i^T W,
// to its torque. The position servo keeps every other axis.
//
// Per compliant axis d of the compliance frame (base, or the tool frame where the path puts it):
//   force axis      W_d = law(F_d, F_d measured) - D_d v_d   the law is A.1's P, PD or PI on the
//                                                            force the tool applies (the sensor's
//                                                            contact estimate, negated); a PI law
//                                                            integrates only in contact (at least
//                                                            a tenth of F_d applied): in the air
//                                                            its integral would wind up and slam
//                                                            the tool onto the surface
//   impedance axis  W_d = K_d (x_path - x)_d - D_d v_d       a spring to the path and a damper;
//                                                            K = D = 0 leaves the axis free
// The command is bounded by the controller's force limits, so that no law, however tuned, asks the
// arm for more than the limit it would stop at; the integral of a PI law is bounded to match.
// Pure and real-time safe.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "common/force_law.hpp"
#include "common/robot_model.hpp"
#include "common/types.hpp"
#include "proto/task.pb.h"

namespace rfms {

// A motion's force control (proto ForceControl, checked and with its defaults filled in).
struct ForceSpec {
  bool tool_frame = false;        // the axes are the tool frame's, else the base's
  std::uint32_t force_axes = 0;   // bits 0..5, among the motion's compliance bits
  Vec6 force = Vec6::Zero();      // N, N m: what the tool applies, along the frame's axes
  Vec6 stiffness = Vec6::Zero();  // N/m, N m/rad
  Vec6 damping = Vec6::Zero();    // N s/m, N m s/rad
  ForceGains gains;               // kp, kv, ki as given; the integral bound is the controller's
};
bool operator==(const ForceSpec& a, const ForceSpec& b);

// The law's gains when a motion leaves them out: a PI law that holds a contact on the stiff
// force/torque sensor and the table of the default scene without ringing (docs/force.md).
inline constexpr double kDefaultForceKp = 1.0;
inline constexpr double kDefaultForceKi = 40.0;  // 1/s
// The damping of a force axis when a motion gives none: A.1's C_r, the arm's own damping in the
// paper's case. It bounds the speed at which a force setpoint drives the tool through the air onto
// a surface (10 N: 50 mm/s), and costs nothing once the tool rests on it.
inline constexpr double kDefaultForceDamping = 200.0;  // N s/m
inline constexpr double kDefaultMomentDamping = 2.0;   // N m s/rad

// Checks a motion's force control against its compliance bits and fills `out`, defaults in; ""
// when it is sound, else what is wrong ("force z: ...").
std::string forceSpecOf(const proto::ForceControl& f, std::uint32_t compliance, ForceSpec& out);

// What the controller reads each period, all in base axes.
struct ForceInputs {
  Transform tool = Transform::Identity();  // the tool frame where the encoders put it
  Transform path = Transform::Identity();  // the tool frame where the setpoint puts it
  Vec6 twist = Vec6::Zero();               // the tool point's velocity (m/s) and angular velocity (rad/s)
  Vec6 contact = Vec6::Zero();             // the wrench the world puts on the tool, about the tool point
};

// The inputs at joint angles q and speeds qd, with the setpoint's T6, the tool frame E and the
// contact estimate: the tool frame T6 E of both, and the tool point's twist J(q) qd moved there.
ForceInputs forceInputsAt(const RobotModel& model, const JointVec& q, const JointVec& qd, const Transform& path_t6,
                          const Transform& tool, const Vec6& contact);

// The compliance frame's axes in base axes: the base's own, or the tool frame's where the path puts
// it. Not where the encoders put it: a force along axes that turn with the arm's own turning is a
// follower force, which feeds the wrist's small turns under load back into the force's direction,
// and pressing 5 N along a probe leaning 30 degrees onto the table fluttered at 430 Hz until the
// watch stopped it (issue 57); along the path's axes it holds (docs/force.md).
inline Mat3 complianceAxes(const ForceSpec& spec, const ForceInputs& in) {
  return spec.tool_frame ? Mat3(in.path.linear()) : Mat3(Mat3::Identity());
}

class ForceController {
 public:
  ForceController(double dt, double max_force, double max_moment);

  // One period of a move under force control with compliance bits `compliance`: the wrench for the
  // arm to apply at the tool point, base axes. The laws restart when the spec or the bits differ
  // from the last period's, or after stop(). `move` names the move: a new one starts its path
  // afresh (where the last one came to rest), and the held frame does not follow that jump.
  Vec6 update(const ForceSpec& spec, std::uint32_t compliance, std::uint64_t move, const ForceInputs& in);
  // This period's setpoint for the position servo (the tool frame): the path along the axes the
  // servo keeps, and along (and about) the compliant ones where the arm's tool frame is. The servo
  // then leaves these to the force command, and a path that runs on into a surface (or away from
  // it) builds no servo error there: none to push with, and none to jump back from when the move
  // ends. Where the arm is gets low-passed (kYieldHz): taken raw, each encoder count would step
  // the setpoint, and the joints' feed-forward, differentiating it twice, would kick. The held
  // frame moves with the path and is drawn to the arm's, so a path running on into a surface at
  // speed v leaves it v / (2 pi kYieldHz) beyond the arm (0.8 mm at 25 mm/s).
  const Transform& setpoint() const { return setpoint_; }
  static constexpr double kYieldHz = 5.0;
  // No force control this period.
  void stop() { running_ = false; }

  // The last period's force error F_d - F along each force axis of the frame (0 elsewhere).
  const Vec6& forceError() const { return error_; }
  // The last period's applied force along each axis of the frame, as measured.
  const Vec6& appliedForce() const { return applied_; }

 private:
  double dt_, max_force_, max_moment_;
  std::array<ForceLaw, 6> laws_;
  ForceSpec spec_;
  std::uint32_t compliance_ = 0;
  bool running_ = false;
  Vec6 error_ = Vec6::Zero(), applied_ = Vec6::Zero();
  Transform held_ = Transform::Identity();  // the arm's tool frame, low-passed, moving with the path
  Transform last_path_ = Transform::Identity();
  std::uint64_t move_ = 0;
  double yield_alpha_;
  Transform setpoint_ = Transform::Identity();
};

}  // namespace rfms
