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
#include "common/robot_model.hpp"
#include "proto/mailboxes.pb.h"

namespace rfms {

struct MathConfig {
  int background_periods = 6;      // recompute every this many periods (RFMS: every joint once per round)
  bool background_in_step = true;  // false: the caller runs backgroundUpdate() itself (same thread)
  // The joints' position gains (N m/rad): the metric in which the compliant part of a servo error
  // is removed, so that the resulting joint stiffness stays symmetric and stable.
  JointVec stiffness = JointVec::Ones();
};

// The math server's configuration from the controller's settings: the joints' position gains as
// the joint servers design them.
MathConfig mathConfigFor(const RobotModel& model, const proto::ControllerSettings& s);

class MathCore {
 public:
  MathCore(const RobotModel& model, const MathConfig& config);

  // Period k: take the angles in M_MAIL(k), emit the PARCEL for mmail.parcel_joint().
  void step(const proto::MMail& in, proto::Parcel& out);

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
  int front_ = 0;
  bool have_angles_ = false, have_results_ = false;
  JointVec latest_q_ = JointVec::Zero(), latest_qd_ = JointVec::Zero();
  std::uint64_t latest_period_ = 0, sequence_ = 0;
  std::uint32_t compliance_bits_ = 0;
};

// The compliance matrix 1 - P: P projects a joint-space servo error onto the joint motions that
// move the tool only in the compliant Cartesian directions (bits 0..5: base-frame x y z rx ry rz),
// N = J^-1 S, orthogonally in the metric of the servo stiffness K:
//   P = N (N^T K N)^-1 N^T K,   so that the servo's stiffness K (1 - P) is symmetric and positive
// semi-definite (a plain J^-1 (1 - S) J is not, and near a wrist singularity its entries grow
// without bound). The identity when no bit is set or the Jacobian is singular.
Mat6 complianceMatrix(const DynamicsSnapshot& s, std::uint32_t bits, const JointVec& stiffness);

}  // namespace rfms
