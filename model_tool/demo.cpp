#include "model_tool/demo.hpp"

#include <cmath>
#include <iomanip>
#include <numbers>
#include <ostream>

#include "common/crba.hpp"
#include "common/ik_opw.hpp"
#include "common/kinematics.hpp"
#include "common/rne.hpp"
#include "common/transform.hpp"

namespace rfms::tool {

namespace {
constexpr double kDeg = 180.0 / std::numbers::pi;

void row(std::ostream& out, const char* label, const JointVec& v, double scale, int precision) {
  out << "  " << std::left << std::setw(22) << label << std::right << std::fixed << std::setprecision(precision);
  for (int i = 0; i < kJoints; ++i) out << std::setw(11) << v[i] * scale;
  out << '\n';
}
}  // namespace

int runDemo(const RobotModel& model, const Vec3& target_mm, std::ostream& out) {
  // RFMS manual (A.5), the example task: t2 = gentr_trsl("t2", 203.2, -126.23, 203.2), the home
  // position, reached RIGHT, DOWN, FLIP.
  const Vec3 p = target_mm / 1000.0;
  const Transform home = trans(p.x(), p.y(), p.z());
  const ArmConfig config{.righty = true, .up = false, .flip = true};

  out << "robot  " << model.name << " — " << model.description << "\n       (" << model.source << ")\n";
  out << "target home = trans(" << target_mm.x() << ", " << target_mm.y() << ", " << target_mm.z()
      << ") mm, configuration " << config.toString() << "\n\n";

  const OpwIk ik(model);
  const IkSolution sol = ik.solveSerial(home, config, JointVec::Zero());
  if (!usable(sol.status)) {
    out << "inverse kinematics failed at joint " << sol.joint << ": " << describe(sol.status)
        << "\n(choose another target with --at X,Y,Z in mm)\n";
    return 1;
  }
  out << "inverse kinematics (serial Lambda_1..Lambda_6)\n";
  row(out, "joint", JointVec::LinSpaced(1, 6), 1.0, 0);
  row(out, "q [deg]", sol.q, kDeg, 4);
  if (sol.status != IkStatus::kOk) out << "  note: joint " << sol.joint << ": " << describe(sol.status) << '\n';

  const Transform t6 = forwardKinematics(model, sol.q);
  const double pos_err = (t6.translation() - home.translation()).norm();
  const double rot_err = (t6.linear() - home.linear()).norm();
  out << "\nforward kinematics of that solution: T6 =\n" << std::setprecision(5);
  for (int r = 0; r < 4; ++r) {
    out << "  ";
    for (int c = 0; c < 4; ++c) out << std::setw(12) << t6.matrix()(r, c) * (c == 3 && r < 3 ? 1000.0 : 1.0);
    out << (r < 3 ? "   (position in mm)\n" : "\n");
  }
  out << std::scientific << std::setprecision(2) << "  |p - p_home| = " << pos_err << " m, |R - R_home| = " << rot_err
      << std::fixed << "\n";

  const JointVec qd = JointVec::Constant(0.5);  // a moderate speed on every joint, rad/s
  const JointVec qdd = JointVec::Constant(1.0);
  JointMat m;
  JointVec g;
  massMatrixAndGravity(model, sol.q, m, g);
  out << "\ndynamics at home (qd = 0.5 rad/s, qdd = 1 rad/s^2 on every joint)\n";
  row(out, "gravity g(q) [N m]", g, 1.0, 4);
  row(out, "C(q,qd) qd [N m]", velocityTorques(model, sol.q, qd), 1.0, 4);
  row(out, "tau (no friction)", inverseDynamics(model, sol.q, qd, qdd), 1.0, 4);
  row(out, "diag M(q) [kg m^2]", m.diagonal(), 1.0, 4);
  if (model.name == "puma260" && sol.q.cwiseAbs().maxCoeff() < 1e-3)
    out << "  report (A.4 §7.1): gravity coefficient cl2 = 5.51792 N m; computed g2 = " << std::setprecision(5) << g[1]
        << " N m\n";

  const bool ok = pos_err < 1e-9 && rot_err < 1e-9;
  out << "\nself-check: FK(IK(home)) " << (ok ? "matches" : "DOES NOT match") << " home\n";
  return ok ? 0 : 1;
}

}  // namespace rfms::tool
