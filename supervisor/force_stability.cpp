#include "supervisor/force_stability.hpp"

#include <Eigen/LU>

#include "common/crba.hpp"
#include "common/kinematics.hpp"
#include "common/number_text.hpp"
#include "common/servo_gains.hpp"

namespace rfms {

namespace {

constexpr const char* kAxisNames[3] = {"x", "y", "z"};

// The rows of the velocity of a point held `lever` (base axes) from the flange, along `direction`,
// per joint speed.
Eigen::RowVectorXd speedAlong(const Mat6& flange, const Vec3& lever, const Vec3& direction) {
  Eigen::RowVectorXd row(kJoints);
  for (int c = 0; c < kJoints; ++c)
    row[c] = direction.dot(flange.block<3, 1>(0, c) + Vec3(flange.block<3, 1>(3, c)).cross(lever));
  return row;
}

}  // namespace

ForceStability::ForceStability(const RobotModel& model, const SupervisorConfig& config)
    : arm_(config.wrist ? withoutTool(model, config.tool) : model), joints_(model), config_(config) {
  for (int i = 0; i < kJoints; ++i) {
    const ServoGains g = designServoGains(model, i + 1, config.park, config.servo_bandwidth_hz);
    servo_damping_[i] = g.kd;
    servo_stiffness_[i] = g.kp;
  }
}

ForceLoopPlant ForceStability::plantAt(const JointVec& q, const Vec3& direction, const SurfaceModel& surface,
                                       double axis_damping) const {
  ForceLoopPlant p;
  p.dt = config_.dt;
  p.mass = massMatrix(arm_, q);
  const Mat6 flange = jacobianBase(arm_, q);
  const Mat3 r6 = forwardKinematics(arm_, q).linear();
  p.axis = speedAlong(flange, r6 * config_.tool.frame.translation(), direction);
  p.tool_axis = speedAlong(flange, r6 * config_.tool.com, direction);
  // Viscous friction only: Coulomb friction, steep near rest in the emulated arm, damps only motions
  // slower than its stiction speed, and an oscillation that grows soon outruns it.
  p.friction.resize(kJoints);
  for (int i = 0; i < kJoints; ++i) p.friction[i] = arm_.joints[i].viscous;
  p.axis_damping = axis_damping;
  p.velocity_filter_hz = kJointVelocityFilterHz;
  p.servo_damping = servo_damping_;
  p.feedforward_friction = p.friction;
  Vec6 along;
  along << direction, Vec3::Zero();
  const Eigen::FullPivLU<Mat6> lu(flange);
  p.setpoint_shift = lu.isInvertible() ? Eigen::VectorXd(lu.solve(along)) : Eigen::VectorXd::Zero(kJoints);
  p.yield_hz = ForceController::kYieldHz;
  p.surface_stiffness = surface.stiffness;
  p.surface_damping = surface.damping;
  p.wrist = config_.wrist.has_value();
  p.sensor_bandwidth_hz = config_.sensor_bandwidth_hz;
  p.tool_mass = config_.tool.inertia.mass;
  if (config_.wrist) {
    p.wrist_stiffness = config_.wrist->stiffness;
    p.wrist_damping = config_.wrist->damping;
  }
  return p;
}

ArmCompensatorPlant ForceStability::compensatorPlantAt(const JointVec& q, std::uint32_t compliance) const {
  ArmCompensatorPlant p;
  p.dt = config_.dt;
  p.mass = massMatrix(arm_, q);
  p.feedforward_mass = massMatrix(joints_, q);
  const Mat6 flange = jacobianBase(arm_, q);
  // The wrist's deflection is its hold on the tool's centre of mass.
  const Vec3 com = forwardKinematics(arm_, q).linear() * config_.tool.com;
  p.wrist_point.resize(3, kJoints);
  for (int d = 0; d < 3; ++d) p.wrist_point.row(d) = speedAlong(flange, com, Vec3::Unit(d));
  p.friction.resize(kJoints);
  for (int i = 0; i < kJoints; ++i) p.friction[i] = arm_.joints[i].viscous;
  p.servo_stiffness = servo_stiffness_;
  p.servo_damping = servo_damping_;
  p.feedforward_friction = p.friction;
  p.velocity_filter_hz = kJointVelocityFilterHz;
  // The compensator moves T6's origin along base axes, its turn held.
  const Eigen::FullPivLU<Mat6> lu(flange);
  p.setpoint_shift = Eigen::MatrixXd::Zero(kJoints, 3);
  if (lu.isInvertible()) p.setpoint_shift = lu.solve(Mat6::Identity()).leftCols(3);
  p.tool_mass = config_.tool.inertia.mass;
  if (config_.wrist) {
    p.wrist_stiffness = config_.wrist->stiffness;
    p.wrist_damping = config_.wrist->damping;
  }
  p.axes = ~compliance & 0x7u;
  return p;
}

std::string ForceStability::compensatorVerdict(const CompensatorGains& gains, std::uint32_t compliance,
                                               const JointVec& q) const {
  if (!config_.wrist || (~compliance & 0x7u) == 0) return "";
  return compensatorArmVerdict(compensatorPlantAt(q, compliance), gains, config_.gain_margin);
}

std::string ForceStability::verdict(const ForceSpec& spec, const JointVec& q) const {
  const Mat3 frame = spec.tool_frame ? Mat3(forwardKinematics(arm_, q).linear() * config_.tool.frame.linear())
                                     : Mat3(Mat3::Identity());
  for (int d = 0; d < 3; ++d) {
    if (((spec.force_axes >> d) & 1u) == 0) continue;
    for (const SurfaceModel& surface : config_.surfaces) {
      const ForceLoopPlant plant = plantAt(q, frame.col(d), surface, spec.damping[d]);
      if (std::string why = forceLawVerdict(plant, spec.gains, config_.gain_margin); !why.empty())
        return std::string("force ") + kAxisNames[d] + " against '" + surface.name + "' on the " +
               (config_.wrist ? "compliant wrist" : "force/torque sensor") + ": " + why;
    }
  }
  return "";
}

}  // namespace rfms
