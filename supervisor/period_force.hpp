// The force side of the supervisor's period (docs/force.md; A.1 of the GRASP report): what the
// arm's force/torque sensor or compliant wrist says, the wrench of the world on the tool estimated
// from it, the force limits and a move's guard judged on that, each period's force command of a
// move under force control with the figures of how well it held its force, and the compliant
// wrist's compensation of the path (Eq. 15). The rtstate machine decides what follows from a
// verdict (an emergency, a move that ends); this only measures and commands. Real-time safe.
#pragma once

#include <array>
#include <cstdint>

#include "common/robot_model.hpp"
#include "proto/mailboxes.pb.h"
#include "supervisor/force_control.hpp"
#include "supervisor/force_monitor.hpp"
#include "supervisor/force_stats.hpp"
#include "supervisor/supervisor_config.hpp"
#include "supervisor/swing_counter.hpp"
#include "supervisor/world_values.hpp"

namespace rfms {

class PeriodForce {
 public:
  PeriodForce(const RobotModel& model, const SupervisorConfig& config);

  // This period's sensor mail (null: none came): the reading, and the wrist's deflection.
  void read(const proto::ArmSensors* arm);
  // The contact from the last reading at the joints' angles as collected this period.
  void estimateContact(const JointVec& angles);

  bool sensesForce() const { return has_wrench_; }
  // The reading as the flange feels it (T6's axes, about its origin), and its saturated channels.
  const Vec6& sensedWrench() const { return wrench_; }
  std::uint32_t saturated() const { return saturated_; }
  // The world's wrench on the tool: base axes, the moment about the tool point. Zero without a sensor.
  const Vec6& contact() const { return contact_; }

  // A saturated channel, or a contact beyond the controller's force or moment limit.
  bool overLimits() const;
  // A guard of `newtons` (0: none) met by the contact force.
  bool guardMet(double newtons) const { return newtons > 0.0 && contact_.head<3>().norm() >= newtons; }

  // The force command of `move`'s period under its motion `forced` into S_MAIL, following the
  // path's `pose`; without a forced motion the law stops and the command is cleared.
  void command(const MotionRecord* forced, std::uint64_t move, const Transform& pose, const JointVec& angles,
               const JointVec& velocities, proto::SMail& s);
  // Where T6 is to be while the force law holds the tool (its setpoint, less the tool).
  Transform forcedT6() const;
  // The figures of `move`, ended with the joints at `angles`, when it was under force control.
  std::optional<ForceFigures> figures(std::uint64_t move, const JointVec& angles) const;
  // Why the move running must stop (ER_NONE: it need not): its force loop (force_monitor.hpp), or
  // its compensator's offset ringing (ER_COMPENSATION_OSCILLATION: compensated()).
  proto::EmergencyReason loopFault() const {
    return monitor_.fault() != proto::ER_NONE ? monitor_.fault() : compensation_fault_;
  }
  // The axis that fault was found along: 0 .. 2 for x y z (-1: no fault), of the tool frame when
  // `in_tool` (the force move's own frame), else the base's.
  int loopFaultAxis(bool& in_tool) const {
    in_tool = monitor_.fault() != proto::ER_NONE && monitor_in_tool_;
    return monitor_.fault() != proto::ER_NONE ? monitor_.faultAxis() : compensation_axis_;
  }
  // The tool frame at joint angles `angles`: T6 E, and on the compliant wrist moved as its
  // springs are measured to be deflected.
  Transform toolFrame(const JointVec& angles) const;

  // The path's T6 moved back against the compliant wrist's measured deflection d by H d, `gains`
  // A.1's compensator (Eq. 15 and §2.3-2.4; common/force_law.hpp), along the base axes
  // `compliance` leaves to the path. Once a period while following a path; reset when not. A new
  // `move` starts its compensator where the offset stands, so that the setpoint does not jump
  // between moves; a move without compensation lets an offset left to it decay through its lag.
  Transform compensated(const Transform& t6, const CompensatorGains& gains, std::uint64_t move,
                        std::uint32_t compliance, const JointVec& angles);
  void resetCompensation() {
    compensation_.setZero();
    compensator_move_ = 0;
    compensation_fault_ = proto::ER_NONE;
    compensation_axis_ = -1;
  }
  // A half-swing of the offset this far past its slow mean (m) counts towards ringing: well above
  // what a move's accelerations swing a tool on the wrist by, well below what a ringing loop does.
  static constexpr double kCompensationSwingM = 0.0003;
  // A loop just past its bound may not grow that far: the arm's nonlinearities hold it in a limit
  // cycle of tens of micrometres (the damper sweep of docs/force.md: 35 to 60 um rms at 55 to
  // 85 Hz just past the bound, under 8 um within it). kCompensationCycleHalfSwings half-swings of
  // kCompensationCycleM within kCompensationCycleWindowS: only a cycle above 24 Hz that lasts
  // makes them, not a tool swinging on its springs at the wrist's resonance.
  static constexpr double kCompensationCycleM = 2e-5;
  static constexpr int kCompensationCycleHalfSwings = 48;
  static constexpr double kCompensationCycleWindowS = 1.0;

 private:
  const RobotModel& model_;
  const SupervisorConfig& config_;
  ForceController law_;
  ForceStats stats_;
  ForceMonitor monitor_;
  std::uint64_t stats_move_ = 0;  // the move stats_ are of (0: none)
  Vec6 wrench_ = Vec6::Zero();
  bool has_wrench_ = false;
  std::uint32_t saturated_ = 0;
  Vec6 deflection_ = Vec6::Zero();                   // the compliant wrist's, as last read (T6 axes)
  Vec3 compensation_ = Vec3::Zero();                 // m, base axes: how far the flange is moved back now
  std::array<PositionCompensator, 3> compensator_;   // per base axis, of compensator_move_
  std::array<SwingCounter, 3> compensation_swings_;  // of compensation_, per base axis
  std::array<SwingCounter, 3> compensation_cycles_;  // the same, for a sustained small cycle
  std::uint64_t compensator_move_ = 0;
  proto::EmergencyReason compensation_fault_ = proto::ER_NONE;
  int compensation_axis_ = -1;    // the base axis compensation_fault_ was found along
  bool monitor_in_tool_ = false;  // the watched move's axes are the tool frame's
  Vec6 contact_ = Vec6::Zero();
};

}  // namespace rfms
