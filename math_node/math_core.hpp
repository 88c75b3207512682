// The math server's core (RFMS manual §4.3; A.4's background/foreground split). The background
// part recomputes D(q), g(q), C(q, qd) qd, the Jacobian, its inverse and the compliance matrix
// from the latest joint angles; the real-time part hands out one joint's PARCEL per period, round
// robin, from the last *complete* set of results (a double buffer: the background writes the back
// copy and publishes it by swapping, so a half-updated copy is never read).
//
// step() runs the background update itself every `background_periods` periods, which keeps runs
// deterministic in the harness and the cluster alike. Both are real-time safe (no allocation once
// the PARCEL's repeated fields exist) and must be called from one thread: the front index is a
// plain int. Moving the background update to a thread of its own would need a real hand-over
// (a triple buffer with an atomic index), which nothing needs today.
#pragma once

#include <array>
#include <cstdint>

#include "common/controller_settings.hpp"
#include "common/dynamics_snapshot.hpp"
#include "common/period_core.hpp"
#include "common/robot_model.hpp"
#include "proto/mailboxes.pb.h"

namespace rfms {

struct MathConfig {
  int background_periods = 6;      // recompute every this many periods (RFMS: every joint once per round)
  bool background_in_step = true;  // false: the caller runs backgroundUpdate() itself (same thread)
  // The joints' position gains (N m/rad): the metric in which the compliant part of a servo error
  // is removed, so that the resulting joint stiffness stays symmetric and stable.
  JointVec stiffness = JointVec::Ones();
  // The scene's tool frame E (T6 E): the tool point, and the axes of a tool-frame compliance.
  Transform tool = Transform::Identity();
};

// The math server's configuration from the controller's settings: the joints' position gains as
// the joint servers design them, and the tool frame of the scene.
MathConfig mathConfigFor(const RobotModel& model, const proto::ControllerSettings& s, const Transform& tool);

struct MathInbox {
  const proto::MMail& mmail;
};

struct MathOutbox {
  proto::Parcel parcel;
};

class MathCore {
 public:
  using Inbox = MathInbox;
  using Outbox = MathOutbox;
  MathCore(const RobotModel& model, const MathConfig& config);

  // Period k: take the angles in M_MAIL(k), emit the PARCEL for mmail.parcel_joint().
  void step(const MathInbox& in, MathOutbox& out) noexcept;

  // Recompute from the latest angles into the back buffer, then publish it.
  void backgroundUpdate();

  // The results in use (for tests and logs).
  const DynamicsSnapshot& published() const { return buffers_[front_]; }
  std::uint64_t publishedAnglesPeriod() const { return angles_period_[front_]; }

 private:
  const RobotModel& model_;
  MathConfig config_;
  std::array<DynamicsSnapshot, 2> buffers_;
  std::array<std::uint64_t, 2> angles_period_{};
  std::array<Mat6, 2> compliance_{Mat6::Identity(), Mat6::Identity()};
  std::array<Mat6, 2> jacobian_{Mat6::Zero(), Mat6::Zero()};  // at the point M_MAIL asked for
  int front_ = 0;
  bool have_angles_ = false, have_results_ = false;
  JointVec latest_q_ = JointVec::Zero(), latest_qd_ = JointVec::Zero();
  std::uint64_t latest_period_ = 0, sequence_ = 0;
  std::uint32_t compliance_bits_ = 0;
  bool compliance_in_tool_ = false, at_tool_point_ = false;
};

// The compliance matrix 1 - P: P projects a joint-space servo error onto the joint motions that
// move the tool only in the compliant Cartesian directions (bits 0..5: x y z rx ry rz),
// N = J^-1 S, orthogonally in the metric of the servo stiffness K:
//   P = N (N^T K N)^-1 N^T K,   so that the servo's stiffness K (1 - P) is symmetric and positive
// semi-definite (a plain J^-1 (1 - S) J is not, and near a wrist singularity its entries grow
// without bound). The identity when no bit is set or the Jacobian is singular.
// The directions are the base frame's axes at T6's origin (the manual's compliance); `frame`, when
// given, puts them at its origin and along its axes instead (the tool point, base or tool axes).
Mat6 complianceMatrix(const DynamicsSnapshot& s, std::uint32_t bits, const JointVec& stiffness);
Mat6 complianceMatrix(const DynamicsSnapshot& s, std::uint32_t bits, const JointVec& stiffness, const Transform& t6,
                      const Transform& frame);

// A Jacobian of T6's origin (base axes) moved to the point p (base coordinates): v_p = v + w x (p - p6).
Mat6 jacobianAtPoint(const Mat6& j6, const Vec3& p6, const Vec3& p);

static_assert(PeriodCore<MathCore>);

}  // namespace rfms
