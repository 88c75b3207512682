#include "math_node/math_core.hpp"

#include "common/kinematics.hpp"
#include "common/mail_codec.hpp"
#include "common/servo_gains.hpp"

namespace rfms {

MathConfig mathConfigFor(const RobotModel& model, const proto::ControllerSettings& s, const Transform& tool) {
  MathConfig m;
  m.tool = tool;
  for (int i = 0; i < kJoints; ++i)
    m.stiffness[i] = designServoGains(model, i + 1, parkPose(s), s.servo().bandwidth_hz()).kp;
  return m;
}

Mat6 jacobianAtPoint(const Mat6& j6, const Vec3& p6, const Vec3& p) {
  Mat6 j = j6;
  const Vec3 lever = p - p6;
  for (int c = 0; c < 6; ++c) j.block<3, 1>(0, c) += Vec3(j6.block<3, 1>(3, c)).cross(lever);
  return j;
}

namespace {

// The projector's core: `directions` holds, per Cartesian direction d, the joint motion that moves
// the compliance point along it (a column of the inverse Jacobian there).
Mat6 complianceFrom(const Mat6& directions, std::uint32_t bits, const JointVec& stiffness) {
  // Fixed capacity, dynamic size: no heap allocation.
  using Basis = Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6>;
  using Small = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;
  Basis n(6, 0);
  for (int d = 0; d < 6; ++d) {
    if (!((bits >> d) & 1u)) continue;
    n.conservativeResize(Eigen::NoChange, n.cols() + 1);
    n.col(n.cols() - 1) = directions.col(d);
  }
  const Basis kn = stiffness.asDiagonal() * n;
  const Small gram = n.transpose() * kn;
  const Mat6 projector = n * gram.ldlt().solve(kn.transpose());
  return Mat6::Identity() - projector;
}

}  // namespace

Mat6 complianceMatrix(const DynamicsSnapshot& s, std::uint32_t bits, const JointVec& stiffness) {
  if ((bits & 0x3f) == 0 || s.singular) return Mat6::Identity();
  return complianceFrom(s.jacobian_inverse, bits, stiffness);
}

Mat6 complianceMatrix(const DynamicsSnapshot& s, std::uint32_t bits, const JointVec& stiffness, const Transform& t6,
                      const Transform& frame) {
  if ((bits & 0x3f) == 0 || s.singular) return Mat6::Identity();
  // A twist at the frame's origin along its axes, (v_f, w_f), is (R v_f - w x lever, R w_f) at
  // T6's origin in base axes, lever = frame origin - T6 origin; J^-1 of that is the joint motion.
  const Mat3 r = frame.linear();
  const Vec3 lever = frame.translation() - t6.translation();
  Mat6 to_t6 = Mat6::Zero();
  to_t6.topLeftCorner<3, 3>() = r;
  to_t6.bottomRightCorner<3, 3>() = r;
  Mat3 cross;  // w -> -(w x lever) = lever x w
  cross << 0.0, -lever.z(), lever.y(), lever.z(), 0.0, -lever.x(), -lever.y(), lever.x(), 0.0;
  to_t6.topRightCorner<3, 3>() = cross * r;
  return complianceFrom(s.jacobian_inverse * to_t6, bits, stiffness);
}

MathCore::MathCore(const RobotModel& model, const MathConfig& config) : model_(model), config_(config) {}

void MathCore::backgroundUpdate() {
  if (!have_angles_) return;
  const int back = 1 - front_;
  updateDynamics(model_, latest_q_, latest_qd_, buffers_[back]);
  const DynamicsSnapshot& d = buffers_[back];
  if (at_tool_point_) {
    const Transform t6 = forwardKinematics(model_, latest_q_);
    Transform frame = t6 * config_.tool;
    if (!compliance_in_tool_) frame.linear() = Mat3::Identity();
    compliance_[back] = complianceMatrix(d, compliance_bits_, config_.stiffness, t6, frame);
    jacobian_[back] = jacobianAtPoint(d.jacobian, t6.translation(), frame.translation());
  } else {
    compliance_[back] = complianceMatrix(d, compliance_bits_, config_.stiffness);
    jacobian_[back] = d.jacobian;
  }
  angles_period_[back] = latest_period_;
  front_ = back;  // publish: the real-time side reads only the front copy
  have_results_ = true;
}

void MathCore::step(const MathInbox& box, MathOutbox& outbox) noexcept {
  const proto::MMail& in = box.mmail;
  proto::Parcel& out = outbox.parcel;
  const std::uint64_t k = in.header().period();
  if (in.angles_size() == kJoints) {
    latest_q_ = decodeJoints(in.angles());
    latest_qd_ = decodeJoints(in.velocities());
    latest_period_ = in.angles_period();
    compliance_bits_ = in.compliance();
    compliance_in_tool_ = in.compliance_in_tool();
    at_tool_point_ = in.at_tool_point();
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
  encode(JointVec(jacobian_[front_].col(i)), out.mutable_jacobian_column());
}

}  // namespace rfms
