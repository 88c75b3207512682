#include "common/ik_opw.hpp"

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

OpwIk::OpwIk(const RobotModel& model, double wrist_singular_sin) : wrist_singular_sin_(wrist_singular_sin) {
  // The PUMA form's twists. Joints 1, 3, 4 and 5 may have either sign in the model, joints 2 and 6
  // 0 or 180 deg: each difference of pi is a DH z axis pointing the other way along its joint.
  static constexpr std::array<double, kJoints> kAlpha{kPi / 2, 0, -kPi / 2, kPi / 2, -kPi / 2, 0};
  static constexpr std::array<const char*, kJoints> kAllowed{"+-90", "0 or 180", "+-90", "+-90", "+-90", "0 or 180"};
  bool z_before_turned = false;  // the PUMA form's z_{i-1} is the model's, reversed
  for (int i = 0; i < kJoints; ++i) {
    const DhParams& dh = model.joints[i].dh;
    double alpha = dh.alpha(), d = dh.d, theta_offset = dh.theta_offset;
    if (z_before_turned) {
      // A_i seen from the reversed frame: Rx(pi) Rz(theta) Tz(d) Tx(a) Rx(alpha)
      //   = Rz(-theta) Tz(-d) Tx(a) Rx(alpha - pi).
      alpha -= kPi, d = -d, theta_offset = -theta_offset, sign_[i] = -1.0;
    }
    const double gap = std::abs(wrapToPi(alpha - kAlpha[i]));
    z_before_turned = false;
    if (gap > 1e-9) {
      if (std::abs(gap - kPi) > 1e-9)
        throw ConfigError(model.source + ": joint " + std::to_string(i + 1) + ": alpha = " +
                          std::to_string(dh.alpha() * 180 / kPi) + " deg; an ortho-parallel arm with a " +
                          "spherical wrist has alpha" + std::to_string(i + 1) + " = " + kAllowed[i] + " deg");
      if (i + 1 < kJoints)
        z_before_turned = true;  // reverse z_i
      else
        flange_turned_ = true;  // T6 itself is the model's: the form's is turned about x_6
    }
    dh_[i] = DhParams(kAlpha[i], dh.a, d, theta_offset);
    shape_.joints[i].dh = dh_[i];
    offset_[i] = theta_offset;
    const JointModel& j = model.joints[i];
    q_min_[i] = sign_[i] > 0 ? j.q_min : -j.q_max;
    q_max_[i] = sign_[i] > 0 ? j.q_max : -j.q_min;
  }
  for (int i : {3, 4, 5})
    if (dh_[i].a != 0)
      throw ConfigError(model.source + ": joint " + std::to_string(i + 1) + ": a" + std::to_string(i + 1) +
                        " must be 0 for a spherical wrist (axes 4, 5 and 6 meeting at one point)");
  if (dh_[4].d != 0)
    throw ConfigError(model.source +
                      ": joint 5: d5 must be 0 for a spherical wrist (axes 4, 5 and 6 meeting at one point)");
  if (!(dh_[1].a > 0)) throw ConfigError(model.source + ": joint 2: the closed-form IK needs an upper arm a2 > 0");
  d1_ = dh_[0].d;
  a1_ = dh_[0].a;
  offset_d_ = dh_[1].d + dh_[2].d;  // z_1 and z_2 are parallel: both offsets add
  a2_ = dh_[1].a;
  a3_ = dh_[2].a;
  d4_ = dh_[3].d;
  d6_ = dh_[5].d;
  forearm_sq_ = a3_ * a3_ + d4_ * d4_;
  forearm_angle_ = std::atan2(d4_, a3_);
}

Transform OpwIk::toForm(const Transform& t6) const {
  if (!flange_turned_) return t6;
  Transform t = t6;
  t.linear().col(1) = -t6.linear().col(1);  // T6 Rx(pi)
  t.linear().col(2) = -t6.linear().col(2);
  return t;
}

IkSolution OpwIk::fromForm(IkSolution s) const {
  s.q = s.q.cwiseProduct(sign_);
  return s;
}

Vec3 OpwIk::wristCentre(const Transform& t6) const { return t6.translation() - d6_ * t6.linear().col(2); }

void OpwIk::armPlane(const Vec3& w, double theta1, double& x, double& y) const {
  x = std::cos(theta1) * w.x() + std::sin(theta1) * w.y() - a1_;
  y = w.z() - d1_;
}

Mat3 OpwIk::rotationTo(int frame, const JointVec& q) const {
  Mat3 r = Mat3::Identity();
  for (int i = 0; i < frame; ++i) r = r * dhRotation(dh_[i], theta(i, q));
  return r;
}

bool OpwIk::armPlaneFromT6(const Vec3& w, const ArmConfig& config, double& x, double& y) const {
  const double r_sq = w.x() * w.x() + w.y() * w.y();
  double reach = 0.0;
  if (!boundedSqrt(r_sq - offset_d_ * offset_d_, r_sq + offset_d_ * offset_d_, reach)) return false;
  x = (config.righty ? reach : -reach) - a1_;
  y = w.z() - d1_;
  return true;
}

JointSolution OpwIk::shoulderAngle(double x, double y, const ArmConfig& config, const JointVec& q_near) const {
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

JointSolution OpwIk::finish(int i, double th, const JointVec& q_near, IkStatus status) const {
  return inRange(i, nearestEquivalent(th - offset_[i - 1], q_near[i - 1]), q_near, status);
}

JointSolution OpwIk::finishQuick(int i, double th, const JointVec& q_near, IkStatus status) const {
  // nearestEquivalent without std::remainder, which is most of solveAll's time otherwise: the
  // difference is a few turns at most, so rounding its turn count is exact enough (1e-15 rad).
  constexpr double kTurn = 2 * kPi;
  const double gap = th - offset_[i - 1] - q_near[i - 1];
  return inRange(i, q_near[i - 1] + (gap - kTurn * std::nearbyint(gap / kTurn)), q_near, status);
}

JointSolution OpwIk::inRange(int i, double q, const JointVec& q_near, IkStatus status) const {
  const int k = i - 1;
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

JointSolution OpwIk::solveJoint(int i, const Transform& t6, const JointVec& known, const ArmConfig& config,
                                const JointVec& q_near) const {
  if (i < 1 || i > kJoints) return {0.0, IkStatus::kInvalidJoint};
  return fromForm(i, joint(i, toForm(t6), toForm(known), config, toForm(q_near)));
}

JointSolution OpwIk::solveJointDecoupled(int i, const Transform& t6, const JointVec& known, const ArmConfig& config,
                                         const JointVec& q_near) const {
  if (i < 1 || i > kJoints) return {0.0, IkStatus::kInvalidJoint};
  return fromForm(i, jointDecoupled(i, toForm(t6), toForm(known), config, toForm(q_near)));
}

IkSolution OpwIk::solveSerial(const Transform& t6, const ArmConfig& config, const JointVec& q_near) const {
  return fromForm(serial(toForm(t6), config, toForm(q_near)));
}

JointSolution OpwIk::joint(int i, const Transform& t6, const JointVec& known, const ArmConfig& config,
                           const JointVec& q_near) const {
  const Vec3 w = wristCentre(t6);
  if (beyondAnyReach(w)) return {q_near[i - 1], IkStatus::kOutOfReachElbow};
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
    default: {
      // n and o in frame 5 are (c6, s6, 0) and (-s6, c6, 0); both are used for accuracy.
      const Mat3 r = rotationTo(5, known).transpose() * t6.linear();
      return finish(6, std::atan2(r(1, 0) - r(0, 1), r(0, 0) + r(1, 1)), q_near, IkStatus::kOk);
    }
  }
}

JointSolution OpwIk::jointDecoupled(int i, const Transform& t6, const JointVec& known, const ArmConfig& config,
                                    const JointVec& q_near) const {
  if (i == 1) return joint(1, t6, known, config, q_near);  // T6 alone already
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
      if (s5 < wrist_singular_sin_) return joint(6, t6, known, config, q_near);
      const Vec3 z3 = r03.col(2);
      const double n = z3.dot(t6.linear().col(0)), o = z3.dot(t6.linear().col(1));
      return finish(6, std::atan2(-sign * o, sign * n), q_near, IkStatus::kOk);
    }
  }
}

IkSolution OpwIk::serial(const Transform& t6, const ArmConfig& config, const JointVec& q_near) const {
  IkSolution out;
  out.q = q_near;
  for (int i = 1; i <= kJoints; ++i) {
    const JointSolution s = joint(i, t6, out.q, config, q_near);
    out.q[i - 1] = s.q;
    if (s.status != IkStatus::kOk && out.status == IkStatus::kOk) {
      out.status = s.status;
      out.joint = i;
    }
    if (!usable(s.status)) break;
  }
  return out;
}

IkSolution OpwIk::solveParallel(const Transform& t6, const ArmConfig& config, const JointVec& q_prev) const {
  const Transform t = toForm(t6);
  const JointVec prev = toForm(q_prev);
  IkSolution out;
  for (int i = 1; i <= kJoints; ++i) {
    const JointSolution s = joint(i, t, prev, config, prev);
    out.q[i - 1] = s.q;
    if (s.status != IkStatus::kOk && out.status == IkStatus::kOk) {
      out.status = s.status;
      out.joint = i;
    }
  }
  return fromForm(out);
}

void OpwIk::wrist(const Mat3& r03, const Transform& t6, bool flip, const JointVec& q_near, IkSolution& s) const {
  const Vec3 a = r03.transpose() * t6.linear().col(2);
  const double s5 = std::hypot(a.x(), a.y());
  const double sign = flip ? -1.0 : 1.0;  // the sign of sin(theta5)
  const bool singular = s5 < wrist_singular_sin_;
  const JointSolution j4 = singular ? finish(4, q_near[3] + offset_[3], q_near, IkStatus::kWristSingular)
                                    : finish(4, std::atan2(-sign * a.y(), -sign * a.x()), q_near, IkStatus::kOk);
  const JointSolution j5 = finish(5, std::atan2(sign * s5, a.z()), q_near, IkStatus::kOk);
  s.q[3] = j4.q, s.q[4] = j5.q;
  JointSolution j6;
  if (singular) {
    j6 = joint(6, t6, s.q, branchConfig(flip ? 4 : 0), q_near);  // theta4 + theta6 alone is defined
  } else {
    const Vec3 z3 = r03.col(2);
    const double n = z3.dot(t6.linear().col(0)), o = z3.dot(t6.linear().col(1));
    j6 = finish(6, std::atan2(-sign * o, sign * n), q_near, IkStatus::kOk);
  }
  s.q[5] = j6.q;
  for (int i = 4; i <= 6 && s.status == IkStatus::kOk; ++i) {
    const IkStatus st = (i == 4 ? j4 : i == 5 ? j5 : j6).status;
    if (st != IkStatus::kOk) s.status = st, s.joint = i;
  }
}

int OpwIk::solveAll(const Transform& t6_model, const JointVec& q_near_model, IkBranches& out) const {
  // The serial functions' algebra, each piece computed once for the branches that share it: the
  // wrist centre and its reach for all eight, theta1 and the arm plane for four, theta2, theta3 and
  // R_03 for two, and the flip branch's wrist from the noflip one's (theta4 + pi, -theta5,
  // theta6 + pi). Cosines and sines of sums come from the vectors that made the angles, not from
  // trigonometric calls.
  const Transform t6 = toForm(t6_model);
  const JointVec q_near = toForm(q_near_model);
  for (IkSolution& s : out) s = IkSolution{q_near, IkStatus::kOk, 0};
  const auto fail = [&](bool righty, int up_mask, int joint, IkStatus status) {
    for (int k = 0; k < kIkBranches; ++k) {
      const ArmConfig c = branchConfig(k);
      if (c.righty == righty && (up_mask & (c.up ? 2 : 1)) && out[k].status == IkStatus::kOk)
        out[k].status = status, out[k].joint = joint;
    }
  };
  const Vec3 w = wristCentre(t6);
  const double r_sq = w.x() * w.x() + w.y() * w.y();
  double reach = 0.0;
  if (beyondAnyReach(w) || !boundedSqrt(r_sq - offset_d_ * offset_d_, r_sq + offset_d_ * offset_d_, reach)) {
    const IkStatus why = beyondAnyReach(w) ? IkStatus::kOutOfReachElbow : IkStatus::kOutOfReachShoulder;
    for (bool side : {true, false}) fail(side, 3, 1, why);
    return 0;
  }
  const double azimuth = std::atan2(w.y(), w.x());
  const Vec3 n = t6.linear().col(0), o = t6.linear().col(1), z = t6.linear().col(2);
  const double forearm = std::sqrt(forearm_sq_);
  const double cos_fa = a3_ / forearm, sin_fa = d4_ / forearm;  // of forearm_angle_
  for (const bool righty : {true, false}) {
    const double th1 = azimuth + std::atan2(offset_d_, righty ? reach : -reach);
    const JointSolution j1 = finishQuick(1, th1, q_near, IkStatus::kOk);
    if (!usable(j1.status)) {
      fail(righty, 3, 1, j1.status);
      continue;
    }
    const double c1 = std::cos(th1), s1 = std::sin(th1);
    const double x = c1 * w.x() + s1 * w.y() - a1_, y = w.z() - d1_;
    const double rr = x * x + y * y;
    const double h = (rr + a2_ * a2_ - forearm_sq_) / (2.0 * a2_);
    double s = 0.0;
    if (!boundedSqrt(rr - h * h, rr, s)) {
      fail(righty, 3, 2, IkStatus::kOutOfReachElbow);
      continue;
    }
    const double toward_wrist = std::atan2(y, x);
    for (const bool up : {false, true}) {
      const int mask = up ? 2 : 1;
      const double ss = (up == righty) ? s : -s;  // the elbow anticlockwise of the wrist, or not
      const double th2 = toward_wrist + std::atan2(ss, h);
      const double c2 = (x * h - y * ss) / rr, s2 = (y * h + x * ss) / rr;  // of th2, as (x, y) + (h, ss)
      const double u = c2 * x + s2 * y - a2_, v = -s2 * x + c2 * y;         // the wrist seen from the elbow
      const double th3 = std::atan2(v, u) - forearm_angle_;
      const double uv = std::sqrt(u * u + v * v);
      const double c3 = (u * cos_fa + v * sin_fa) / uv, s3 = (v * cos_fa - u * sin_fa) / uv;
      const double c23 = c2 * c3 - s2 * s3, s23 = s2 * c3 + c2 * s3;
      const JointSolution j2 = finishQuick(2, th2, q_near, IkStatus::kOk);
      const JointSolution j3 = finishQuick(3, th3, q_near, IkStatus::kOk);
      if (!usable(j2.status) || !usable(j3.status)) {
        fail(righty, mask, usable(j2.status) ? 3 : 2, usable(j2.status) ? j3.status : j2.status);
        continue;
      }
      if (j2.status != IkStatus::kOk) fail(righty, mask, 2, j2.status);
      if (j3.status != IkStatus::kOk) fail(righty, mask, 3, j3.status);
      // R_03 = Rz(th1) Rx(90) Rz(th2 + th3) Rx(-90) in the PUMA form.
      Mat3 r03;
      r03 << c1 * c23, -s1, -c1 * s23, s1 * c23, c1, -s1 * s23, s23, 0.0, c23;
      IkSolution& noflip = out[branchIndex(ArmConfig{righty, up, false})];
      IkSolution& flip = out[branchIndex(ArmConfig{righty, up, true})];
      for (IkSolution* b : {&noflip, &flip}) b->q[0] = j1.q, b->q[1] = j2.q, b->q[2] = j3.q;
      const Vec3 a = r03.transpose() * z;
      const double s5 = std::sqrt(a.x() * a.x() + a.y() * a.y());
      if (s5 < wrist_singular_sin_) {  // theta4 held, theta6 from it: the serial functions' way
        wrist(r03, t6, false, q_near, noflip);
        wrist(r03, t6, true, q_near, flip);
        continue;
      }
      const Vec3 z3 = r03.col(2);
      const double th4 = std::atan2(-a.y(), -a.x()), th5 = std::atan2(s5, a.z());
      const double th6 = std::atan2(-z3.dot(o), z3.dot(n));
      const std::array<JointSolution, 6> wrists{
          finishQuick(4, th4, q_near, IkStatus::kOk),  finishQuick(5, th5, q_near, IkStatus::kOk),
          finishQuick(6, th6, q_near, IkStatus::kOk),  finishQuick(4, th4 + kPi, q_near, IkStatus::kOk),
          finishQuick(5, -th5, q_near, IkStatus::kOk), finishQuick(6, th6 + kPi, q_near, IkStatus::kOk)};
      for (int f = 0; f < 2; ++f) {
        IkSolution& b = f == 0 ? noflip : flip;
        for (int i = 0; i < 3; ++i) {
          const JointSolution& j = wrists[static_cast<std::size_t>(3 * f + i)];
          b.q[3 + i] = j.q;
          if (j.status != IkStatus::kOk && b.status == IkStatus::kOk) b.status = j.status, b.joint = 4 + i;
        }
      }
    }
  }
  int usable_count = 0;
  for (IkSolution& s : out) {
    s = fromForm(s);
    usable_count += usable(s.status) ? 1 : 0;
  }
  return usable_count;
}

ArmConfig OpwIk::configOf(const JointVec& q_model) const {
  const JointVec q = toForm(q_model);
  ArmConfig c;
  LinkFrames f;
  linkFrames(shape_, q, f);
  const Vec3 shoulder = f[1].translation();
  const Vec3 elbow = f[2].translation() - shoulder;
  const Vec3 wrist = f[4].translation() - shoulder;
  const Vec3 x1 = f[1].linear().col(0);  // horizontal: z_0 is vertical and alpha1 = 90 deg
  // Righty: the wrist centre ahead of the waist axis (the sign of Lambda_1's reach); with a
  // shoulder offset a1 the wrist can be ahead of the waist and still behind the shoulder.
  c.righty = x1.dot(f[4].translation() - f[0].translation()) >= 0.0;
  // Up: for a righty arm, the elbow anticlockwise of the wrist about the shoulder in the arm's
  // plane (x_1 to the right, z_0 up), i.e. above the shoulder–wrist line when the wrist is ahead
  // of the shoulder; for a lefty arm, clockwise (the same arm seen from behind).
  const double xw = x1.dot(wrist), yw = wrist.z();
  const double xe = x1.dot(elbow), ye = elbow.z();
  const double cross = xw * ye - yw * xe;
  c.up = c.righty ? cross > 0.0 : cross < 0.0;
  c.flip = std::sin(theta(4, q)) < 0.0;
  return c;
}

}  // namespace rfms
