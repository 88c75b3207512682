// The force loop watched while it runs: what ends a move under force control before anything else
// fails (a joint's IK, a following error), each with its own reason (docs/force.md):
//
//   oscillation   the force error swings back and forth: SwingCounter's 8 half-swings within
//                 0.5 s, each reaching max(0.5 N, 10 % of |F_d|) past the error's own slow mean
//                 (a contact's step and its settling never do this; an unstable loop, at any
//                 frequency, does within a few of its periods); or the drive keeps doing it,
//                 kDriveHalfSwings half-swings within kDriveWindowS, each reaching
//                 max(2 |F_d|, a quarter of the force limit): a limit cycle the contact filters
//                 out of the force it reads (issue 57: on the compliant wrist a PD law past its
//                 bound swung the drive +-60 N at 265 Hz while the force read held 9.4 N; stable
//                 laws' drives stay within 10.5 N of their mean, PD's noise included). The drive
//                 is the error times the gain, so a high-gain law's settling rings in it too: a
//                 ring of damping ratio zeta makes about ln(A0 / L) / (pi zeta) large half-swings
//                 (7 for zeta = 0.05), so only a sustained cycle makes kDriveHalfSwings
//   wrong sign    the tool applies more than max(1 N, 20 % of |F_d|) the other way for kWrongSignS
//   lost contact  out of contact (less than a tenth of F_d applied), kLostM back from where it
//                 last touched, against the setpoint
//   runaway       kRunawayM on along the setpoint from where the force last came to what the law
//                 settles to (or from where the move began), never having come to it since:
//                 nothing there stops the tool — no surface, or friction alone (a force along a
//                 table that the tool slides on: issue 57's tilted table, 162 mm in 1.1 s)
//
// Per translational force axis of the compliance frame. Pure and real-time safe.
#pragma once

#include <array>
#include <cstdint>

#include "common/types.hpp"
#include "proto/mailboxes.pb.h"
#include "supervisor/swing_counter.hpp"

namespace rfms {

class ForceMonitor {
 public:
  static constexpr double kWrongSignS = 0.02;
  static constexpr double kLostM = 0.01;
  static constexpr double kRunawayM = 0.05;
  static constexpr int kDriveHalfSwings = 48;
  static constexpr double kDriveWindowS = 1.0;

  // `max_force`: the force limit (N), which scales what counts as a large swing of the drive.
  ForceMonitor(double dt, double max_force);

  // A new move under force control, with the setpoint along each axis of its frame (0: not a
  // force axis), the tool point along those axes now, and the fraction of the setpoint its law
  // settles to (A.1: 1 with an integral, K_p / (1 + K_p) without).
  void begin(const Vec3& setpoint, const Vec3& position, double settles);
  // One period: the force applied along each axis, the tool point, and the drive (the force the
  // law commands along each axis, N). ER_NONE, or why the move must stop (the first reason
  // found, and the same from then on).
  proto::EmergencyReason update(const Vec3& applied, const Vec3& position, const Vec3& drive);
  proto::EmergencyReason fault() const { return fault_; }
  // The axis of the frame the fault was found along: 0 .. 2 for x y z; -1 without a fault.
  int faultAxis() const { return fault_axis_; }

 private:
  struct Axis {
    explicit Axis(double dt) : swings(dt), drive_swings(dt, kDriveHalfSwings, kDriveWindowS) {}
    double setpoint = 0.0;          // N, along the axis
    SwingCounter swings;            // of the force error
    SwingCounter drive_swings;      // of the force the law commands
    std::uint64_t wrong_since = 0;  // period the wrong sign began (0: not now)
    double touched_at = 0.0;        // the tool point along the setpoint where it last touched
    double settles = 0.0;           // N: what the law settles to
    double held_at = 0.0;           // the tool point along the setpoint where the force last came to it
  };
  proto::EmergencyReason watch(Axis& a, double applied, double position, double drive);

  double dt_, max_force_;
  std::array<Axis, 3> axes_;
  std::uint64_t k_ = 0;
  proto::EmergencyReason fault_ = proto::ER_NONE;
  int fault_axis_ = -1;
};

}  // namespace rfms
