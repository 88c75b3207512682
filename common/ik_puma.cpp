#include "common/ik_puma.hpp"

#include <cctype>
#include <cmath>
#include <numbers>

#include "common/error.hpp"
#include "common/kinematics.hpp"
#include "common/transform.hpp"

namespace rfms {

namespace {

constexpr double kPi = std::numbers::pi;

// A wrist centre a kilometre away (or not a number) is beyond any arm this solver serves; its
// sums of squares would overflow to inf, and inf - inf would come back as NaN angles.
bool beyondAnyReach(const Vec3& w) { return !(w.cwiseAbs().maxCoeff() < 1e3); }
// Relative slack for poses exactly on the workspace boundary, lost to rounding otherwise.
constexpr double kReachSlack = 1e-12;

Mat3 dhRotation(const DhParams& dh, double theta) {
  const double ct = std::cos(theta), st = std::sin(theta);
  const double ca = dh.cosAlpha(), sa = dh.sinAlpha();
  Mat3 r;
  r << ct, -st * ca, st * sa, st, ct * ca, -ct * sa, 0.0, sa, ca;
  return r;
}

// sqrt of a quantity that must not be negative, allowing rounding slack relative to `scale`.
bool boundedSqrt(double value, double scale, double& root) {
  if (value < -kReachSlack * scale) return false;
  root = std::sqrt(std::max(value, 0.0));
  return true;
}

}  // namespace

std::optional<ArmConfig> ArmConfig::parse(std::string_view text) {
  ArmConfig c;
  bool seen[3] = {false, false, false};
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    std::string word;
    for (char ch : text.substr(start, end - start))
      if (!std::isspace(static_cast<unsigned char>(ch)))
        word += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    int slot = -1;
    if (word == "righty" || word == "right")
      c.righty = true, slot = 0;
    else if (word == "lefty" || word == "left")
      c.righty = false, slot = 0;
    else if (word == "up")
      c.up = true, slot = 1;
    else if (word == "down")
      c.up = false, slot = 1;
    else if (word == "flip")
      c.flip = true, slot = 2;
    else if (word == "noflip")
      c.flip = false, slot = 2;
    if (slot < 0 || seen[slot]) return std::nullopt;
    seen[slot] = true;
    start = end + 1;
  }
  if (!seen[0] || !seen[1] || !seen[2]) return std::nullopt;  // all three flags, explicitly
  return c;
}

std::string ArmConfig::toString() const {
  return std::string(righty ? "righty" : "lefty") + "," + (up ? "up" : "down") + "," + (flip ? "flip" : "noflip");
}

const char* describe(IkStatus s) {
  switch (s) {
    case IkStatus::kOk: return "ok";
    case IkStatus::kWristSingular: return "wrist singular (theta5 = 0): joint 4 held at its current angle";
    case IkStatus::kOutOfReachShoulder: return "out of reach: the wrist centre is inside the shoulder offset";
    case IkStatus::kOutOfReachElbow:
      return "out of reach: the wrist centre is beyond what the upper arm and forearm can span";
    case IkStatus::kJointLimit: return "the solution lies outside the joint limits";
    case IkStatus::kInvalidJoint: return "joint number outside 1..6";
  }
  return "unknown";
}

std::optional<PikScheme> parsePikScheme(std::string_view name) {
  for (PikScheme s :
       {PikScheme::kPaper, PikScheme::kPaperExtrapolated, PikScheme::kDecoupled, PikScheme::kDecoupledExtrapolated})
    if (name == toString(s)) return s;
  return std::nullopt;
}

const char* toString(PikScheme scheme) {
  switch (scheme) {
    case PikScheme::kPaper: return "paper";
    case PikScheme::kPaperExtrapolated: return "paper-extrapolated";
    case PikScheme::kDecoupled: return "decoupled";
    case PikScheme::kDecoupledExtrapolated: return "decoupled-extrapolated";
  }
  return "unknown";
}

PumaIk::PumaIk(const RobotModel& model, double wrist_singular_sin) : wrist_singular_sin_(wrist_singular_sin) {
  static constexpr std::array<double, kJoints> kAlpha{kPi / 2, 0, -kPi / 2, kPi / 2, -kPi / 2, 0};
  for (int i = 0; i < kJoints; ++i) {
    const JointModel& j = model.joints[i];
    if (std::abs(j.dh.alpha() - kAlpha[i]) > 1e-9)
      throw ConfigError(model.source + ": joint " + std::to_string(i + 1) +
                        ": the PUMA closed-form IK needs alpha = 90, 0, -90, 90, -90, 0 deg");
    dh_[i] = j.dh;
    shape_.joints[i].dh = j.dh;
    offset_[i] = j.dh.theta_offset;
    q_min_[i] = j.q_min;
    q_max_[i] = j.q_max;
  }
  const auto& jt = model.joints;
  if (jt[0].dh.a != 0 || jt[3].dh.a != 0 || jt[4].dh.a != 0 || jt[5].dh.a != 0 || jt[4].dh.d != 0)
    throw ConfigError(model.source +
                      ": the PUMA closed-form IK needs a1 = a4 = a5 = a6 = 0 and d5 = 0 "
                      "(a spherical wrist)");
  if (jt[1].dh.a <= 0) throw ConfigError(model.source + ": the PUMA closed-form IK needs an upper arm a2 > 0");
  d1_ = jt[0].dh.d;
  offset_d_ = jt[1].dh.d + jt[2].dh.d;  // z_1 and z_2 are parallel: both offsets add
  a2_ = jt[1].dh.a;
  a3_ = jt[2].dh.a;
  d4_ = jt[3].dh.d;
  d6_ = jt[5].dh.d;
  forearm_sq_ = a3_ * a3_ + d4_ * d4_;
  forearm_angle_ = std::atan2(d4_, a3_);
}

Vec3 PumaIk::wristCentre(const Transform& t6) const { return t6.translation() - d6_ * t6.linear().col(2); }

void PumaIk::armPlane(const Vec3& w, double theta1, double& x, double& y) const {
  x = std::cos(theta1) * w.x() + std::sin(theta1) * w.y();
  y = w.z() - d1_;
}

Mat3 PumaIk::rotationTo(int frame, const JointVec& q) const {
  Mat3 r = Mat3::Identity();
  for (int i = 0; i < frame; ++i) r = r * dhRotation(dh_[i], theta(i, q));
  return r;
}

bool PumaIk::armPlaneFromT6(const Vec3& w, const ArmConfig& config, double& x, double& y) const {
  const double r_sq = w.x() * w.x() + w.y() * w.y();
  double reach = 0.0;
  if (!boundedSqrt(r_sq - offset_d_ * offset_d_, r_sq + offset_d_ * offset_d_, reach)) return false;
  x = config.righty ? reach : -reach;
  y = w.z() - d1_;
  return true;
}

JointSolution PumaIk::shoulderAngle(double x, double y, const ArmConfig& config, const JointVec& q_near) const {
  // In the arm plane the elbow lies at a2 (cos theta2, sin theta2) and at distance
  // sqrt(a3^2 + d4^2) from the wrist centre: x cos(theta2) + y sin(theta2) = h.
  const double r_sq = x * x + y * y;
  const double h = (r_sq + a2_ * a2_ - forearm_sq_) / (2.0 * a2_);
  double s = 0.0;
  if (!boundedSqrt(r_sq - h * h, r_sq, s)) return {q_near[1], IkStatus::kOutOfReachElbow};
  // The elbow is anticlockwise of the wrist (seen with x_1 to the right and z_0 up) when it is
  // above the shoulder–wrist line of a righty arm, or below it for a lefty arm.
  const bool anticlockwise = config.up == config.righty;
  return finish(2, std::atan2(y, x) + std::atan2(anticlockwise ? s : -s, h), q_near, IkStatus::kOk);
}

JointSolution PumaIk::finish(int i, double th, const JointVec& q_near, IkStatus status) const {
  const int k = i - 1;
  double q = nearestEquivalent(th - offset_[k], q_near[k]);
  if (q < q_min_[k] || q > q_max_[k]) {
    // The nearest equivalent is outside the range; a joint with more than one turn of range may
    // still reach the pose one turn further on.
    double best = q;
    bool found = false;
    for (double shifted : {q - 2 * kPi, q + 2 * kPi, q - 4 * kPi, q + 4 * kPi}) {
      if (shifted >= q_min_[k] && shifted <= q_max_[k] &&
          (!found || std::abs(shifted - q_near[k]) < std::abs(best - q_near[k]))) {
        best = shifted;
        found = true;
      }
    }
    if (!found) return {q, IkStatus::kJointLimit};
    q = best;
  }
  return {q, status};
}

JointSolution PumaIk::solveJoint(int i, const Transform& t6, const JointVec& known, const ArmConfig& config,
                                 const JointVec& q_near) const {
  const Vec3 w = wristCentre(t6);
  if (i >= 1 && i <= kJoints && beyondAnyReach(w)) return {q_near[i - 1], IkStatus::kOutOfReachElbow};
  switch (i) {
    case 1: {
      // The wrist centre's offset along z_1 must equal the shoulder offset:
      //   px sin(theta1) - py cos(theta1) = d2 + d3.
      const double r_sq = w.x() * w.x() + w.y() * w.y();
      double reach = 0.0;
      if (!boundedSqrt(r_sq - offset_d_ * offset_d_, r_sq + offset_d_ * offset_d_, reach))
        return {q_near[0], IkStatus::kOutOfReachShoulder};
      const double side = config.righty ? reach : -reach;
      return finish(1, std::atan2(w.y(), w.x()) + std::atan2(offset_d_, side), q_near, IkStatus::kOk);
    }
    case 2: {
      double x, y;
      armPlane(w, theta(0, known), x, y);
      return shoulderAngle(x, y, config, q_near);
    }
    case 3: {
      // The wrist centre seen from the elbow, in frame 2: Rz(theta3) (a3, d4).
      double x, y;
      armPlane(w, theta(0, known), x, y);
      const double t2 = theta(1, known);
      const double u = std::cos(t2) * x + std::sin(t2) * y - a2_;
      const double v = -std::sin(t2) * x + std::cos(t2) * y;
      return finish(3, std::atan2(v, u) - forearm_angle_, q_near, IkStatus::kOk);
    }
    case 4: {
      // The approach vector in frame 3 is (-c4 s5, -s4 s5, c5).
      const Vec3 a = rotationTo(3, known).transpose() * t6.linear().col(2);
      if (std::hypot(a.x(), a.y()) < wrist_singular_sin_)
        return finish(4, q_near[3] + offset_[3], q_near, IkStatus::kWristSingular);
      const double sign = config.flip ? -1.0 : 1.0;  // the sign of sin(theta5)
      return finish(4, std::atan2(-sign * a.y(), -sign * a.x()), q_near, IkStatus::kOk);
    }
    case 5: {
      // The approach vector in frame 4 is (-s5, c5, 0).
      const Vec3 a = rotationTo(4, known).transpose() * t6.linear().col(2);
      return finish(5, std::atan2(-a.x(), a.y()), q_near, IkStatus::kOk);
    }
    case 6: {
      // n and o in frame 5 are (c6, s6, 0) and (-s6, c6, 0); both are used for accuracy.
      const Mat3 r = rotationTo(5, known).transpose() * t6.linear();
      return finish(6, std::atan2(r(1, 0) - r(0, 1), r(0, 0) + r(1, 1)), q_near, IkStatus::kOk);
    }
    default: return {0.0, IkStatus::kInvalidJoint};
  }
}

JointSolution PumaIk::solveJointDecoupled(int i, const Transform& t6, const JointVec& known, const ArmConfig& config,
                                          const JointVec& q_near) const {
  if (i < 1 || i > kJoints) return {0.0, IkStatus::kInvalidJoint};
  if (i == 1) return solveJoint(1, t6, known, config, q_near);  // T6 alone already
  const Vec3 w = wristCentre(t6);
  if (beyondAnyReach(w)) return {q_near[i - 1], IkStatus::kOutOfReachElbow};
  if (i <= 3) {
    double x, y;
    if (!armPlaneFromT6(w, config, x, y)) return {q_near[i - 1], IkStatus::kOutOfReachShoulder};
    if (i == 2) return shoulderAngle(x, y, config, q_near);
    // The wrist centre seen from the elbow, in frame 2, is (u, v) = Rz(theta3) (a3, d4); its
    // distance from the shoulder gives u, and the elbow's side gives the sign of v: the wrist
    // turns clockwise from the upper arm exactly when the elbow is anticlockwise of the wrist.
    const double u = (x * x + y * y - a2_ * a2_ - forearm_sq_) / (2.0 * a2_);
    double v = 0.0;
    if (!boundedSqrt(forearm_sq_ - u * u, forearm_sq_, v)) return {q_near[2], IkStatus::kOutOfReachElbow};
    const bool anticlockwise = config.up == config.righty;
    return finish(3, std::atan2(anticlockwise ? -v : v, u) - forearm_angle_, q_near, IkStatus::kOk);
  }
  // The wrist: R_36 = R_03^T R, whose third row is (s5 c6, -s5 s6, c5) and whose approach column
  // is (-c4 s5, -s4 s5, c5).
  const Mat3 r03 = rotationTo(3, known);
  const double sign = config.flip ? -1.0 : 1.0;  // the sign of sin(theta5)
  const Vec3 a = r03.transpose() * t6.linear().col(2);
  const double s5 = std::hypot(a.x(), a.y());
  switch (i) {
    case 4:
      if (s5 < wrist_singular_sin_) return finish(4, q_near[3] + offset_[3], q_near, IkStatus::kWristSingular);
      return finish(4, std::atan2(-sign * a.y(), -sign * a.x()), q_near, IkStatus::kOk);
    case 5: return finish(5, std::atan2(sign * s5, a.z()), q_near, IkStatus::kOk);
    default: {
      if (s5 < wrist_singular_sin_) return solveJoint(6, t6, known, config, q_near);
      const Vec3 z3 = r03.col(2);
      const double n = z3.dot(t6.linear().col(0)), o = z3.dot(t6.linear().col(1));
      return finish(6, std::atan2(-sign * o, sign * n), q_near, IkStatus::kOk);
    }
  }
}

IkSolution PumaIk::solveSerial(const Transform& t6, const ArmConfig& config, const JointVec& q_near) const {
  IkSolution out;
  out.q = q_near;
  for (int i = 1; i <= kJoints; ++i) {
    const JointSolution s = solveJoint(i, t6, out.q, config, q_near);
    out.q[i - 1] = s.q;
    if (s.status != IkStatus::kOk && out.status == IkStatus::kOk) {
      out.status = s.status;
      out.joint = i;
    }
    if (!usable(s.status)) break;
  }
  return out;
}

IkSolution PumaIk::solveParallel(const Transform& t6, const ArmConfig& config, const JointVec& q_prev) const {
  IkSolution out;
  for (int i = 1; i <= kJoints; ++i) {
    const JointSolution s = solveJoint(i, t6, q_prev, config, q_prev);
    out.q[i - 1] = s.q;
    if (s.status != IkStatus::kOk && out.status == IkStatus::kOk) {
      out.status = s.status;
      out.joint = i;
    }
  }
  return out;
}

ArmConfig PumaIk::configOf(const JointVec& q) const {
  ArmConfig c;
  LinkFrames f;
  linkFrames(shape_, q, f);
  const Vec3 shoulder = f[1].translation();
  const Vec3 elbow = f[2].translation() - shoulder;
  const Vec3 wrist = f[4].translation() - shoulder;
  const Vec3 x1 = f[1].linear().col(0);
  const double xw = x1.dot(wrist), yw = wrist.z();
  const double xe = x1.dot(elbow), ye = elbow.z();
  c.righty = xw >= 0.0;
  // Elbow above the shoulder–wrist line: ye > yw xe / xw, i.e. (wrist x elbow) > 0 when xw > 0 and
  // < 0 when xw < 0.
  const double cross = xw * ye - yw * xe;
  c.up = c.righty ? cross > 0.0 : cross < 0.0;
  c.flip = theta(4, q) < 0.0;
  return c;
}

}  // namespace rfms
