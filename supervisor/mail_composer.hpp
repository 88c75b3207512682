// The supervisor's outgoing mail of one period, composed from what its step decided: S_MAIL to
// the six joints (the rtstate, the path's T6 and configuration with the update's flags, the
// joints' own reports echoed for PIK's extrapolation, compliance, a jog's counts, the PARCEL to
// route) and M_MAIL to the math server (the angles to recompute from, the PARCEL's joint in turn,
// where the compliance and Jacobian are wanted). A pure function of its facts: no state, no
// allocation once the mail's repeated fields have their sizes. The force command, which has state
// of its own, is the force side's (supervisor/period_force.hpp) to write.
#pragma once

#include <cstdint>

#include "common/ik_opw.hpp"
#include "common/kinematics.hpp"
#include "proto/mailboxes.pb.h"

namespace rfms {

struct MailFacts {
  std::uint64_t period = 0, sequence = 0;
  proto::RtState state = proto::RT_IDLE;
  proto::TrajState traj_state = proto::TS_S0;  // S0 unless following a path
  bool power = false;
  Transform t6 = Transform::Identity();  // the setpoint the joints solve for
  ArmConfig config;
  bool new_setpoint = false, setpoint_restart = false;
  int update_periods = 1;
  bool serial_ik = false;
  // The joints' last reports, echoed.
  const JointVec* setpoints = nullptr;
  const JointVec* desired_acceleration = nullptr;
  const JointVec* servo_error = nullptr;
  // The angles the math server recomputes from, and the period they were measured in.
  const JointVec* angles = nullptr;
  const JointVec* velocities = nullptr;
  std::uint64_t angles_period = 0;
  std::uint32_t compliance = 0;  // the move's compliance bits (0 unless following a path)
  bool compliance_in_tool = false, at_tool_point = false;
  int jog_joint = 0, jog_direction = 0, jog_counts = 0;  // counts 0: no jog this period
  const proto::Parcel* parcel = nullptr;                 // this period's PARCEL to route, or none
};

// The joint whose PARCEL the math server sends for period k (round robin, 1..6).
inline std::uint32_t parcelJointFor(std::uint64_t k) { return static_cast<std::uint32_t>(k % kJoints) + 1; }

void composeMail(const MailFacts& f, proto::SMail& s, proto::MMail& m);

}  // namespace rfms
