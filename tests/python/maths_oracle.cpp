// The C++ side of tests/python/test_maths.py: reads states (q, qd, qdd, tau: 24 numbers a line,
// as C hex floats), and writes for each, as hex floats on one line, what the project's C++ gives:
// T6 (16, row by row), the base Jacobian (36, row by row), M (36), g (6), inverse dynamics of
// (q, qd, qdd) (6), forward dynamics of (q, qd, tau) (6), and the serial IK of T6 in q's own
// configuration from q_near = 0 (6, or nothing when it does not solve). The test compares bits.
#include <cstdio>
#include <iostream>
#include <string>

#include "common/crba.hpp"
#include "common/forward_dynamics.hpp"
#include "common/ik_opw.hpp"
#include "common/kinematics.hpp"
#include "common/rne.hpp"
#include "common/robot_model_loader.hpp"

namespace {

void put(double x) { std::printf("%a ", x); }

template <typename M>
void putRows(const M& m) {
  for (int r = 0; r < m.rows(); ++r)
    for (int c = 0; c < m.cols(); ++c) put(m(r, c));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: maths_oracle ROBOT.textproto < states\n";
    return 2;
  }
  const rfms::RobotModel model = rfms::loadRobotModel(argv[1]);
  const rfms::OpwIk ik(model);
  std::string a;
  for (;;) {
    rfms::JointVec v[4];
    for (auto& x : v)
      for (int j = 0; j < rfms::kJoints; ++j) {
        if (!(std::cin >> a)) return 0;
        x[j] = std::stod(a);  // hex floats are exact
      }
    const rfms::Transform t6 = rfms::forwardKinematics(model, v[0]);
    putRows(t6.matrix());
    putRows(rfms::jacobianBase(model, v[0]));
    putRows(rfms::massMatrix(model, v[0]));
    putRows(rfms::gravityTorques(model, v[0]));
    putRows(rfms::inverseDynamics(model, v[0], v[1], v[2]));
    putRows(rfms::forwardDynamics(model, v[0], v[1], v[3]));
    const rfms::IkSolution s = ik.solveSerial(t6, ik.configOf(v[0]), rfms::JointVec::Zero());
    if (rfms::usable(s.status)) putRows(s.q);
    std::printf("\n");
  }
}
