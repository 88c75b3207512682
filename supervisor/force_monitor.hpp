// The force loop watched while it runs: what ends a move under force control before anything else
// fails (a joint's IK, a following error), each with its own reason (docs/force.md):
//
//   oscillation   the force error swings back and forth: SwingCounter's 8 half-swings within
//                 0.5 s, each reaching max(0.5 N, 10 % of |F_d|) past the error's own slow mean
//                 (a contact's step and its settling never do this; an unstable loop, at any
//                 frequency, does within a few of its periods)
//   wrong sign    the tool applies more than max(1 N, 20 % of |F_d|) the other way for kWrongSignS
//   lost contact  out of contact (less than a tenth of F_d applied), kLostM back from where it
//                 last touched, against the setpoint
//   runaway       out of contact, kRunawayM on along the setpoint from where it last touched (or
//                 began): there is no surface there
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

  explicit ForceMonitor(double dt);

  // A new move under force control, with the setpoint along each axis of its frame (0: not a
  // force axis), and the tool point along those axes now.
  void begin(const Vec3& setpoint, const Vec3& position);
  // One period: the force applied along each axis and the tool point. ER_NONE, or why the move
  // must stop (the first reason found, and the same from then on).
  proto::EmergencyReason update(const Vec3& applied, const Vec3& position);
  proto::EmergencyReason fault() const { return fault_; }

 private:
  struct Axis {
    explicit Axis(double dt) : swings(dt) {}
    double setpoint = 0.0;          // N, along the axis
    SwingCounter swings;            // of the force error
    std::uint64_t wrong_since = 0;  // period the wrong sign began (0: not now)
    double touched_at = 0.0;        // the tool point along the setpoint where it last touched
  };
  proto::EmergencyReason watch(Axis& a, double applied, double position);

  double dt_;
  std::array<Axis, 3> axes_;
  std::uint64_t k_ = 0;
  proto::EmergencyReason fault_ = proto::ER_NONE;
};

}  // namespace rfms
