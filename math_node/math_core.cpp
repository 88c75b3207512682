#include "math_node/math_core.hpp"

#include "common/mail_codec.hpp"
#include "common/servo_gains.hpp"

namespace rfms {

MathConfig mathConfigFor(const RobotModel& model, const proto::ControllerSettings& s) {
  MathConfig m;
  for (int i = 0; i < kJoints; ++i)
    m.stiffness[i] = designServoGains(model, i + 1, parkPose(s), s.servo().bandwidth_hz()).kp;
  return m;
}

Mat6 complianceMatrix(const DynamicsSnapshot& s, std::uint32_t bits, const JointVec& stiffness) {
  if ((bits & 0x3f) == 0 || s.singular) return Mat6::Identity();
  // Fixed capacity, dynamic size: no heap allocation.
  using Basis = Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6>;
  using Small = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;
  Basis n(6, 0);
  for (int d = 0; d < 6; ++d) {
    if (!((bits >> d) & 1u)) continue;
    n.conservativeResize(Eigen::NoChange, n.cols() + 1);
    n.col(n.cols() - 1) = s.jacobian_inverse.col(d);
  }
  const Basis kn = stiffness.asDiagonal() * n;
  const Small gram = n.transpose() * kn;
  const Mat6 projector = n * gram.ldlt().solve(kn.transpose());
  return Mat6::Identity() - projector;
}

MathCore::MathCore(const RobotModel& model, const MathConfig& config) : model_(model), config_(config) {}

void MathCore::backgroundUpdate() {
  if (!have_angles_) return;
  const int back = 1 - front_;
  updateDynamics(model_, latest_q_, latest_qd_, buffers_[back]);
  compliance_[back] = complianceMatrix(buffers_[back], compliance_bits_, config_.stiffness);
  angles_period_[back] = latest_period_;
  front_ = back;  // publish: the real-time side reads only the front copy
  have_results_ = true;
}

void MathCore::step(const proto::MMail& in, proto::Parcel& out) {
  const std::uint64_t k = in.header().period();
  if (in.angles_size() == kJoints) {
    latest_q_ = decodeJoints(in.angles());
    latest_qd_ = decodeJoints(in.velocities());
    latest_period_ = in.angles_period();
    compliance_bits_ = in.compliance();
    have_angles_ = true;
  }
  if (config_.background_in_step && (!have_results_ || k % static_cast<std::uint64_t>(config_.background_periods) == 0))
    backgroundUpdate();

  out.mutable_header()->set_period(k);
  out.mutable_header()->set_sequence(++sequence_);
  const std::uint32_t joint = in.parcel_joint() >= 1 && in.parcel_joint() <= kJoints ? in.parcel_joint() : 1;
  out.set_joint(joint);
  const int i = static_cast<int>(joint) - 1;
  const DynamicsSnapshot& s = buffers_[front_];
  out.set_angles_period(angles_period_[front_]);
  encode(JointVec(s.inertia.row(i).transpose()), out.mutable_inertia_row());
  out.set_velocity_torque(s.velocity[i]);
  out.set_gravity_torque(s.gravity[i]);
  encode(JointVec(compliance_[front_].row(i).transpose()), out.mutable_compliance_row());
  out.set_jacobian_singular(s.singular);
}

}  // namespace rfms
