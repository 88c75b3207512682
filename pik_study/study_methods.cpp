#include "pik_study/study_methods.hpp"

#include <cmath>
#include <memory>

#include "common/kinematics.hpp"
#include "common/mail_codec.hpp"
#include "joint_node/joint_core.hpp"

namespace rfms::study {

namespace {

int periodsOf(double period_s, double servo_s) { return static_cast<int>(std::lround(period_s / servo_s)); }

// Updates at t_k = k period until `settle` periods after the motion's end.
int updateCount(double period_s, const Timing& timing) {
  return static_cast<int>(std::ceil(timing.segment_s / period_s - 1e-9)) + timing.settle_updates + 1;
}

// Six joint cores driven update by update, exactly as the supervisor would: each S_MAIL carries
// this update's T6 and the joints' previous setpoints as sines and cosine signs.
std::vector<JointVec> coreUpdates(const RobotModel& model, const StudySegment& segment, const Timing& timing,
                                  PikScheme scheme, bool serial) {
  std::vector<std::unique_ptr<JointCore>> cores;
  for (int i = 1; i <= kJoints; ++i) {
    JointServoConfig c = defaultServoConfig(model, i, segment.q_start, timing.update_s);
    c.pik = scheme;
    cores.push_back(std::make_unique<JointCore>(model, c));
  }
  proto::ArmSensors sensors;  // encoders at zero counts: each joint reads its park angle, q_start
  for (int i = 0; i < kJoints; ++i) sensors.add_encoder(0);
  proto::SMail s;
  std::array<JointOutbox, kJoints> jmail;
  JointVec setpoint = segment.q_start;
  auto send = [&](std::uint64_t k, proto::RtState state, const Transform& t6) {
    s.mutable_header()->set_period(k);
    s.set_rtstate(state);
    encode(t6, *s.mutable_t6());
    encode(segment.config, *s.mutable_config());
    s.set_new_setpoint(state == proto::RT_SETP);
    s.set_update_periods(1);
    s.set_serial_ik(serial);
    encodeSetpoints(setpoint, s);
    for (int i = 0; i < kJoints; ++i) {
      cores[static_cast<std::size_t>(i)]->step({s, sensors}, jmail[static_cast<std::size_t>(i)]);
      setpoint[i] = jmail[static_cast<std::size_t>(i)].jmail.setpoint();
    }
  };
  send(0, proto::RT_HOLD, segment.start);  // at rest on the start pose
  const int n = updateCount(timing.update_s, timing);
  std::vector<JointVec> out;
  out.reserve(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) {
    send(static_cast<std::uint64_t>(k + 1), proto::RT_SETP, segment.at(k * timing.update_s / timing.segment_s));
    out.push_back(setpoint);
  }
  return out;
}

// Whitney's RMRC as the paper states it (Eqs. 37-39): a constant Cartesian rate, integrated
// through the inverse Jacobian, which is refreshed only every few updates; open loop.
std::vector<JointVec> rmrcUpdates(const RobotModel& model, const StudySegment& segment, const Timing& timing) {
  Vec6 xdot;
  xdot.head<3>() = (segment.end.translation() - segment.start.translation()) / timing.segment_s;
  xdot.tail<3>() = segment.axis * segment.angle / timing.segment_s;
  const int n = updateCount(timing.update_s, timing);
  std::vector<JointVec> out;
  out.reserve(static_cast<std::size_t>(n));
  JointVec q = segment.q_start, qdot = JointVec::Zero();
  for (int k = 0; k < n; ++k) {
    out.push_back(q);
    if (k % timing.rmrc_jacobian_updates == 0) qdot = jacobianBase(model, q).partialPivLu().solve(xdot);
    const double t = k * timing.update_s;
    const double span = std::clamp(timing.segment_s - t, 0.0, timing.update_s);
    q += qdot * span;
  }
  return out;
}

// The exact serial IK at every update, each solution nearest the previous one.
std::vector<JointVec> exactUpdates(const RobotModel& model, const StudySegment& segment, const Timing& timing,
                                   double period_s) {
  const OpwIk ik(model);
  const int n = updateCount(period_s, timing);
  std::vector<JointVec> out;
  out.reserve(static_cast<std::size_t>(n));
  JointVec q = segment.q_start;
  for (int k = 0; k < n; ++k) {
    q = ik.solveSerial(segment.at(k * period_s / timing.segment_s), segment.config, q).q;
    out.push_back(q);
  }
  return out;
}

}  // namespace

const char* toString(Method m) {
  switch (m) {
    case Method::kPaper: return "paper";
    case Method::kPaperExtrapolated: return "paper-extrapolated";
    case Method::kDecoupled: return "decoupled";
    case Method::kDecoupledExtrapolated: return "decoupled-extrapolated";
    case Method::kSerial: return "serial";
    case Method::kRmrc: return "rmrc";
    case Method::kVal: return "val";
  }
  return "unknown";
}

bool parseMethod(std::string_view name, Method& out) {
  for (Method m : kAllMethods)
    if (name == toString(m)) {
      out = m;
      return true;
    }
  return false;
}

double updatePeriod(Method m, const Timing& timing) {
  return m == Method::kVal ? timing.val_update_s : timing.update_s;
}

std::vector<JointVec> servoSetpoints(const RobotModel& open_model, const StudySegment& segment, const Timing& timing,
                                     Method method) {
  std::vector<JointVec> updates;
  switch (method) {
    case Method::kPaper: updates = coreUpdates(open_model, segment, timing, PikScheme::kPaper, false); break;
    case Method::kPaperExtrapolated:
      updates = coreUpdates(open_model, segment, timing, PikScheme::kPaperExtrapolated, false);
      break;
    case Method::kDecoupled: updates = coreUpdates(open_model, segment, timing, PikScheme::kDecoupled, false); break;
    case Method::kDecoupledExtrapolated:
      updates = coreUpdates(open_model, segment, timing, PikScheme::kDecoupledExtrapolated, false);
      break;
    case Method::kSerial: updates = coreUpdates(open_model, segment, timing, kDefaultPikScheme, true); break;
    case Method::kRmrc: updates = rmrcUpdates(open_model, segment, timing); break;
    case Method::kVal: updates = exactUpdates(open_model, segment, timing, timing.val_update_s); break;
  }
  const int per = periodsOf(updatePeriod(method, timing), timing.servo_s);
  std::vector<JointVec> servo;
  servo.reserve(updates.size() * static_cast<std::size_t>(per));
  for (std::size_t k = 0; k + 1 < updates.size(); ++k)
    for (int j = 0; j < per; ++j)
      servo.push_back(updates[k] + (updates[k + 1] - updates[k]) * (static_cast<double>(j) / per));
  servo.push_back(updates.back());
  return servo;
}

}  // namespace rfms::study
