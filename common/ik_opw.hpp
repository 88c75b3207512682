// Closed-form inverse kinematics of the ortho-parallel arms with a spherical wrist ("OPW":
// Brandstoetter, Angerer & Hofbaur 2014): joint 1 vertical, joints 2 and 3 parallel to each other
// and square to joint 1, joints 4..6 meeting at one point. The PUMA is one of them; so are KUKA's KR,
// ABB's IRB, Fanuc's LR Mate and R-2000 and Yaskawa's GP arms, whose shoulder sits a1 ahead of the
// waist axis (the PUMA's a1 is 0).
//
// In Paul's DH such an arm has alpha = +-90, 0 or 180, +-90, +-90, +-90, 0 or 180 deg, a4 = a5 = a6 = 0
// and d5 = 0. Pointing a DH frame's z the other way along its joint axis changes the signs of that
// alpha, the next joint's angle and its d, and nothing else; so every such arm is, joint by joint up
// to a sign, an arm of the PUMA's form (alpha = 90, 0, -90, 90, -90, 0), which this solver holds and
// solves. Angles in and out are always the model's own.
//
// The solution is written as six per-joint functions
//   theta_i = Lambda_i(T6, theta_1 .. theta_{i-1})
// so that each joint server can solve its own joint from the others' previous values (parallel
// inverse kinematics, Zhang & Paul, A.6 of the RFMS report), and the serial solution is the same
// six functions called in order. All solve functions are real-time safe: no allocation, no throw.
//
// Configuration flags, defined by geometry (tests check these definitions):
//  - righty: the wrist centre lies ahead of the shoulder along x_1 (the arm at q = 0 is righty);
//    lefty: behind it.
//  - up: the elbow lies above the straight line from the shoulder to the wrist centre; down: below.
//  - noflip: theta_5 >= 0 in the PUMA form; flip: theta_5 <= 0 (for the PUMAs, their own theta_5).
// The report's home position trans(203.2, -126.23, 203.2) mm is q = 0, RIGHT, DOWN (and the wrist
// is singular there, theta_5 = 0).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/robot_model.hpp"

namespace rfms {

struct ArmConfig {
  bool righty = true;
  bool up = false;
  bool flip = false;

  // "righty,down,noflip" and the like (any order, case-insensitive; "left"/"right" accepted).
  static std::optional<ArmConfig> parse(std::string_view text);
  std::string toString() const;
  bool operator==(const ArmConfig&) const = default;
};

enum class IkStatus {
  kOk,
  kWristSingular,       // theta_5 = 0: theta_4 + theta_6 alone is defined; theta_4 was held at q_near
  kOutOfReachShoulder,  // the wrist centre is inside the cylinder swept by the shoulder offset
  kOutOfReachElbow,     // the wrist centre is farther than (or nearer than) the arm can fold
  kJointLimit,          // no angle equivalent to the solution lies within the joint's limits
  kInvalidJoint,        // solveJoint was asked for a joint outside 1..6
};
// True when the angle returned is usable (a singular wrist still gives a valid solution).
constexpr bool usable(IkStatus s) { return s == IkStatus::kOk || s == IkStatus::kWristSingular; }
const char* describe(IkStatus s);

struct JointSolution {
  double q = 0.0;  // joint angle (model coordinates, i.e. DH theta minus theta_offset), rad
  IkStatus status = IkStatus::kOk;
};

struct IkSolution {
  JointVec q = JointVec::Zero();
  IkStatus status = IkStatus::kOk;  // the first joint's status that is not kOk, or kOk
  int joint = 0;                    // 1-based joint that set `status`, 0 if kOk
};

// The eight branches of an arm of this family, in a fixed order: bit 0 righty, bit 1 up, bit 2 flip.
inline constexpr int kIkBranches = 8;
constexpr ArmConfig branchConfig(int k) { return ArmConfig{(k & 1) != 0, (k & 2) != 0, (k & 4) != 0}; }
constexpr int branchIndex(const ArmConfig& c) { return (c.righty ? 1 : 0) | (c.up ? 2 : 0) | (c.flip ? 4 : 0); }
using IkBranches = std::array<IkSolution, kIkBranches>;

class OpwIk {
 public:
  // Throws ConfigError, naming the joint, if the model's geometry is not of this family. Below
  // `wrist_singular_sin` of |sin(theta5)| the wrist counts as singular and Lambda_4 holds joint 4:
  // exact (serial) solutions can use a tiny bound; parallel solutions, whose inner angles are a
  // period old, need one well above that error, or theta4 follows noise near theta5 = 0.
  explicit OpwIk(const RobotModel& model, double wrist_singular_sin = 1e-9);

  // Lambda_i for joint i (1..6): solved from T6 and the angles of joints 1..i-1 in `known`
  // (entries from i on are ignored). Of the angles equivalent modulo 2 pi, returns the one within
  // the joint limits nearest to q_near[i-1].
  JointSolution solveJoint(int i, const Transform& t6, const JointVec& known, const ArmConfig& config,
                           const JointVec& q_near) const;

  // The same angles with the fewest dependencies ("decoupled" PIK). Lambda_1..3 need T6 alone: the
  // wrist centre's projection on the arm plane is the signed reach of Lambda_1, and the elbow angle
  // follows from the shoulder-wrist distance. Lambda_4..6 need T6 and R_03 alone, i.e. theta_1 and
  // theta_2 + theta_3 of `known` (theta_5 from the approach vector's z_3 component, theta_6 from the
  // z_3 components of n and o, signs from the flip flag). At a singular wrist Lambda_6 falls back
  // to solveJoint's form, which uses theta_4 and theta_5 of `known`.
  JointSolution solveJointDecoupled(int i, const Transform& t6, const JointVec& known, const ArmConfig& config,
                                    const JointVec& q_near) const;

  // The exact solution: Lambda_1 .. Lambda_6 in order, each using the ones before it.
  IkSolution solveSerial(const Transform& t6, const ArmConfig& config, const JointVec& q_near) const;

  // PIK: every joint solved at once from the previous period's angles q_prev, which also serve as
  // the wrap-around reference.
  IkSolution solveParallel(const Transform& t6, const ArmConfig& config, const JointVec& q_prev) const;

  // Every branch at once (the eight solutions of the OPW paper), sharing what the branches have in
  // common: out[branchIndex(c)] is solveSerial(t6, c, q_near) to rounding. Returns how many are
  // usable. Real-time safe.
  int solveAll(const Transform& t6, const JointVec& q_near, IkBranches& out) const;

  // The configuration flags a joint vector is in (for reporting, and to pick flags from a pose).
  // Real-time safe.
  ArmConfig configOf(const JointVec& q) const;

 private:
  // The PUMA form: angles and T6 of the model in, of the form out, and back.
  JointVec toForm(const JointVec& q) const { return q.cwiseProduct(sign_); }
  Transform toForm(const Transform& t6) const;
  JointSolution fromForm(int i, JointSolution s) const { return {s.q * sign_[i - 1], s.status}; }
  IkSolution fromForm(IkSolution s) const;
  // The same functions in the PUMA form.
  JointSolution joint(int i, const Transform& t6, const JointVec& known, const ArmConfig& config,
                      const JointVec& q_near) const;
  JointSolution jointDecoupled(int i, const Transform& t6, const JointVec& known, const ArmConfig& config,
                               const JointVec& q_near) const;
  IkSolution serial(const Transform& t6, const ArmConfig& config, const JointVec& q_near) const;
  // The wrist's three angles for one branch from R_03 (PUMA form) into `s`.
  void wrist(const Mat3& r03, const Transform& t6, bool flip, const JointVec& q_near, IkSolution& s) const;

  double theta(int i, const JointVec& q) const { return q[i] + offset_[i]; }
  // Wrist centre in the base frame.
  Vec3 wristCentre(const Transform& t6) const;
  // Wrist centre in the plane of the arm: (x along x_1, y along z_0 above the shoulder).
  void armPlane(const Vec3& w, double theta1, double& x, double& y) const;
  // The same from T6 alone: x is the signed reach of Lambda_1. False inside the shoulder cylinder.
  bool armPlaneFromT6(const Vec3& w, const ArmConfig& config, double& x, double& y) const;
  // theta_2 from the wrist centre in the arm plane (shared by both forms of Lambda_2).
  JointSolution shoulderAngle(double x, double y, const ArmConfig& config, const JointVec& q_near) const;
  Mat3 rotationTo(int frame, const JointVec& q) const;  // R_0,frame from joints 1..frame
  // theta_i as the model's angle nearest q_near, within the limits (a turn on, if need be).
  JointSolution finish(int i, double theta, const JointVec& q_near, IkStatus status) const;
  JointSolution finishQuick(int i, double theta, const JointVec& q_near, IkStatus status) const;
  JointSolution inRange(int i, double q, const JointVec& q_near, IkStatus status) const;

  RobotModel shape_;                  // the PUMA form's geometry alone, for configOf's link frames
  std::array<DhParams, kJoints> dh_;  // the PUMA form
  std::array<double, kJoints> offset_{}, q_min_{}, q_max_{};  // the PUMA form
  JointVec sign_ = JointVec::Ones();                          // PUMA form angle = sign * model angle
  bool flange_turned_ = false;                                // the form's T6 is the model's turned pi about x_6
  double d1_, a1_, offset_d_, a2_, a3_, d4_, d6_;
  double forearm_sq_;     // a3^2 + d4^2
  double forearm_angle_;  // atan2(d4, a3)
  double wrist_singular_sin_;
};

// How a joint server solves its own angle at each setpoint update (ACCURACY.md measures them).
// The exact serial solution stays available to every scheme through S_MAIL's serial_ik.
enum class PikScheme {
  // Zhang & Paul's Eq. 6: Lambda_i from this update's T6 and joints 1..i-1 of the previous update.
  kPaper,
  // Eq. 6 with joints 1..i-1 extrapolated linearly from the last two updates.
  kPaperExtrapolated,
  // Joints 1-3 from T6 alone (exact); joints 4-6 from T6 and R_03 of the previous update, that is
  // theta_1 and theta_2 + theta_3 one update old (OpwIk::solveJointDecoupled).
  kDecoupled,
  // The same with theta_1 .. theta_3 extrapolated from the last two updates.
  kDecoupledExtrapolated,
};
// "paper", "paper-extrapolated", "decoupled", "decoupled-extrapolated".
std::optional<PikScheme> parsePikScheme(std::string_view name);
const char* toString(PikScheme scheme);
inline constexpr PikScheme kDefaultPikScheme = PikScheme::kDecoupledExtrapolated;

}  // namespace rfms
