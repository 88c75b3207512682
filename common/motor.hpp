// DC motor and amplifier models for the emulated arm (Swartz, "ARM Dynamics Simulation", CMU 1982,
// "Motor Dynamics"): with negligible inductance, V = R i + Kt w_m and tau_m = Kt i. The gearbox
// multiplies torque and divides speed by the gear ratio G: w_m = G qd, tau = G tau_m.
// Real-time safe: no allocation, no throw.
#pragma once

#include "common/robot_model.hpp"

namespace rfms {

// Voltage mode: the joint torque for terminal voltage V (volts) at joint speed qd (rad/s), back-EMF
// included: tau = G Kt (V - Kt G qd) / R. The current is limited to the motor's max_current.
double torqueFromVoltage(const JointModel& joint, double volts, double qd);
// Current mode (a current amplifier): tau = G Kt i, i limited to max_current.
double torqueFromCurrent(const JointModel& joint, double amps);
// The inverse: the voltage that gives joint torque tau at speed qd (Swartz's "Inverse Arm", step 6).
double voltageForTorque(const JointModel& joint, double tau, double qd);
// The current that gives joint torque tau.
double currentForTorque(const JointModel& joint, double tau);
// Clamps a commanded joint torque to the joint's torque limit.
double saturateTorque(const JointModel& joint, double tau);

}  // namespace rfms
