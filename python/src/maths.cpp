// rfms.Robot: a robot model file's arm and the project's own kinematics and dynamics on it,
// each function taking one state (arrays of shape (6,)) or a stack of them ((N, 6), ...).
#include <pybind11/stl.h>

#include <optional>

#include "common/crba.hpp"
#include "common/forward_dynamics.hpp"
#include "common/ik_opw.hpp"
#include "common/kinematics.hpp"
#include "common/rne.hpp"
#include "common/robot_model_loader.hpp"
#include "common/transform.hpp"
#include "python/src/arrays.hpp"
#include "python/src/errors.hpp"
#include "python/src/module.hpp"
#include "python/src/timing.hpp"

namespace rfms::python {

namespace {

using Rows1 = std::array<JointVec, 1>;
using Rows3 = std::array<JointVec, 3>;

// Writes a column-major Eigen matrix into row-major numpy storage.
template <typename M>
void store(const M& m, double* out) {
  using RowMajor = Eigen::Matrix<double, M::RowsAtCompileTime, M::ColsAtCompileTime,
                                 M::ColsAtCompileTime == 1 ? Eigen::ColMajor : Eigen::RowMajor>;
  Eigen::Map<RowMajor> target(out);
  target = m;
}

class Robot {
 public:
  explicit Robot(RobotModel model) : model_(std::move(model)) {}
  static Robot load(const std::string& path) { return Robot(loadRobotModel(path)); }

  const RobotModel& model() const { return model_; }

  Array fk(const Array& q) const {
    return mapStates(
        {4, 4}, {"q"}, [&](const Rows1& r, double* o) { store(forwardKinematics(model_, r[0]).matrix(), o); }, q);
  }
  Array jacobian(const Array& q, const std::string& frame) const {
    if (frame != "base" && frame != "tool")
      throw py::value_error("jacobian: frame is 'base' or 'tool', not '" + frame + "'");
    const bool base = frame == "base";
    return mapStates(
        {6, 6}, {"q"},
        [&](const Rows1& r, double* o) { store(base ? jacobianBase(model_, r[0]) : jacobianTool(model_, r[0]), o); },
        q);
  }
  Array inverseDynamics(const Array& q, const Array& qd, const Array& qdd, double gravity) const {
    finite(gravity, "gravity");
    return mapStates(
        {6}, {"q", "qd", "qdd"},
        [&](const Rows3& r, double* o) { store(rfms::inverseDynamics(model_, r[0], r[1], r[2], gravity), o); }, q, qd,
        qdd);
  }
  Array massMatrix(const Array& q) const {
    return mapStates(
        {6, 6}, {"q"}, [&](const Rows1& r, double* o) { store(rfms::massMatrix(model_, r[0]), o); }, q);
  }
  Array gravity(const Array& q) const {
    return mapStates(
        {6}, {"q"}, [&](const Rows1& r, double* o) { store(gravityTorques(model_, r[0]), o); }, q);
  }
  Array forwardDynamics(const Array& q, const Array& qd, const Array& tau, double gravity) const {
    finite(gravity, "gravity");
    return mapStates(
        {6}, {"q", "qd", "tau"},
        [&](const Rows3& r, double* o) { store(rfms::forwardDynamics(model_, r[0], r[1], r[2], gravity), o); }, q, qd,
        tau);
  }

  // The serial closed-form solution in one configuration; Unreachable (a ValueError) when the pose
  // has none there, saying why.
  // A stack of poses (..., 4, 4) is solved as a path is: each pose near the one before it, the
  // first near q_near.
  Array ik(const Array& t6, const std::string& config, const Array& q_near) const {
    const ArmConfig flags = parseConfig(config);
    JointVec near = toJoints(q_near, "ik: q_near");
    if (t6.ndim() <= 2) return toArray(solve(toTransform(t6, "ik: T6"), flags, near, config, ""));
    std::vector<py::ssize_t> shape(t6.shape(), t6.shape() + t6.ndim() - 2);
    const py::ssize_t n = static_cast<py::ssize_t>(t6.size() / 16);
    if (t6.shape(t6.ndim() - 1) != 4 || t6.shape(t6.ndim() - 2) != 4)
      throw py::value_error("ik: T6 is a 4x4 array, or a stack of them (..., 4, 4)");
    shape.push_back(kJoints);
    Array out(shape);
    for (py::ssize_t i = 0; i < n; ++i) {
      near = solve(toTransform(t6.data() + 16 * i, "ik: T6[" + std::to_string(i) + "]"), flags, near, config,
                   " at pose " + std::to_string(i));
      store(near, out.mutable_data() + kJoints * i);
    }
    return out;
  }
  // Every configuration that reaches the pose: [(flags, q), ...] in a fixed order.
  std::vector<std::pair<std::string, Array>> ikAll(const Array& t6, const Array& q_near) const {
    const Transform t = toTransform(t6, "ik_all: T6");
    const JointVec near = toJoints(q_near, "ik_all: q_near");
    IkBranches all;
    armIk().solveAll(t, near, all);
    std::vector<std::pair<std::string, Array>> out;
    for (bool righty : {true, false})
      for (bool up : {false, true})
        for (bool flip : {false, true}) {
          const ArmConfig c{righty, up, flip};
          const IkSolution& s = all[static_cast<std::size_t>(branchIndex(c))];
          if (usable(s.status)) out.emplace_back(c.toString(), toArray(s.q));
        }
    return out;
  }
  std::string configOf(const Array& q) const { return armIk().configOf(toJoints(q, "config_of: q")).toString(); }

 private:
  const OpwIk& armIk() const {
    if (!ik_) ik_.emplace(model_);  // ConfigError for an arm outside the ortho-parallel family
    return *ik_;
  }
  JointVec solve(const Transform& t6, const ArmConfig& flags, const JointVec& near, const std::string& config,
                 const std::string& where) const {
    const IkSolution s = armIk().solveSerial(t6, flags, near);
    if (!usable(s.status))
      raise("Unreachable", "ik: no solution " + config + where + " (joint " + std::to_string(s.joint) + ": " +
                               describe(s.status) + ")");
    return s.q;
  }
  static ArmConfig parseConfig(const std::string& text) {
    const std::optional<ArmConfig> c = ArmConfig::parse(text);
    if (!c) throw py::value_error("'" + text + "' is not an arm configuration: e.g. 'righty,down,noflip'");
    return *c;
  }

  RobotModel model_;
  mutable std::optional<OpwIk> ik_;
};

py::dict jointInfo(const JointModel& j) {
  py::dict d;
  d["name"] = j.name;
  d["q_min"] = j.q_min;
  d["q_max"] = j.q_max;
  d["qd_max"] = j.qd_max;
  d["tau_max"] = j.tau_max;
  d["mass"] = j.link.mass;
  d["dh"] = py::make_tuple(j.dh.alpha(), j.dh.a, j.dh.d, j.dh.theta_offset);
  return d;
}

void bindTransforms(py::module_& m) {
  m.def(
      "trans",
      [](double x, double y, double z) {
        return toArray(trans(finite(x, "trans: x"), finite(y, "trans: y"), finite(z, "trans: z")));
      },
      py::arg("x"), py::arg("y"), py::arg("z"), "A translation by (x, y, z) metres, as a 4x4 array (RCCL's trans).");
  m.def(
      "rot",
      [](const std::string& axis, double angle) {
        if (axis != "x" && axis != "y" && axis != "z") throw py::value_error("rot: axis is 'x', 'y' or 'z'");
        return toArray(rot(axis == "x" ? Axis::kX : axis == "y" ? Axis::kY : Axis::kZ, finite(angle, "rot: angle")));
      },
      py::arg("axis"), py::arg("angle"), "A rotation by `angle` radians about 'x', 'y' or 'z' (RCCL's rot).");
  m.def(
      "eul",
      [](double phi, double theta, double psi) {
        return toArray(eul(finite(phi, "eul: phi"), finite(theta, "eul: theta"), finite(psi, "eul: psi")));
      },
      py::arg("phi"), py::arg("theta"), py::arg("psi"),
      "Euler angles Rz(phi) Ry(theta) Rz(psi), radians (RCCL's eul).");
  m.def(
      "rpy",
      [](double phi, double theta, double psi) {
        return toArray(rpy(finite(phi, "rpy: phi"), finite(theta, "rpy: theta"), finite(psi, "rpy: psi")));
      },
      py::arg("phi"), py::arg("theta"), py::arg("psi"),
      "Roll, pitch, yaw Rz(phi) Ry(theta) Rx(psi), radians (RCCL's rpy).");
}

}  // namespace

void bindMaths(py::module_& m) {
  bindTransforms(m);
  py::class_<Robot>(m, "Robot", "An arm's model (a robot model file) and its kinematics and dynamics.")
      .def_static("load", &Robot::load, py::arg("path"),
                  "Loads and checks a robot model file (e.g. deploy/robots/puma260.textproto); ConfigError names "
                  "the line and field at fault.")
      .def_property_readonly("name", [](const Robot& r) { return r.model().name; })
      .def_property_readonly(
          "joints",
          [](const Robot& r) {
            py::list l;
            for (const JointModel& j : r.model().joints) l.append(jointInfo(j));
            return l;
          },
          "Per joint: name, limits (rad, rad/s, N m), link mass, DH (alpha, a, d, theta offset).")
      .def_property_readonly("gravity_vector", [](const Robot& r) { return toArray(r.model().gravity.data(), 3); })
      .def("fk", &Robot::fk, py::arg("q"), "T6 of joint angles q (6,) or (N, 6): (4, 4) or (N, 4, 4).")
      .def("jacobian", &Robot::jacobian, py::arg("q"), py::arg("frame") = "base",
           "The geometric Jacobian of T6's origin, rows vx vy vz wx wy wz, in the base frame or T6's ('tool').")
      .def("inverse_dynamics", &Robot::inverseDynamics, py::arg("q"), py::arg("qd"), py::arg("qdd"),
           py::arg("gravity") = 1.0,
           "Joint torques M(q) qdd + C(q, qd) qd + g(q) by recursive Newton-Euler, rotor inertias included, "
           "friction excluded; `gravity` scales the model's gravity.")
      .def("mass_matrix", &Robot::massMatrix, py::arg("q"), "The joint-space inertia M(q), (6, 6) per state.")
      .def("gravity", &Robot::gravity, py::arg("q"), "g(q): the torques that hold the arm still against gravity.")
      .def("forward_dynamics", &Robot::forwardDynamics, py::arg("q"), py::arg("qd"), py::arg("tau"),
           py::arg("gravity") = 1.0, "Joint accelerations for torques tau (net of friction).")
      .def("ik", &Robot::ik, py::arg("t6"), py::arg("config") = "righty,down,noflip",
           py::arg("q_near") = toArray(JointVec::Zero()),
           "The closed-form (serial) solution for T6 in one configuration; of the equivalent angles, the "
           "ones nearest q_near within the limits. A stack of poses (..., 4, 4) is solved as a path: each near the "
           "one before. Raises Unreachable saying which pose and joint fail, and why.")
      .def("ik_all", &Robot::ikAll, py::arg("t6"), py::arg("q_near") = toArray(JointVec::Zero()),
           "Every configuration that reaches T6: a list of (flags, q).")
      .def("config_of", &Robot::configOf, py::arg("q"), "The configuration flags joint angles q are in.")
      .def(
          "_cpp_fk_seconds",
          [](const Robot& r, const Array& q, int n) {
            // The benchmark's peer (bench/rfms-bench-python): the same call n times from C++.
            const JointVec x = toJoints(q, "q");
            py::gil_scoped_release release;
            return secondsPerCall(n, [&] { return forwardKinematics(r.model(), x).translation().x(); });
          },
          py::arg("q"), py::arg("n"))
      .def("__repr__", [](const Robot& r) { return "<rfms.Robot " + r.model().name + ">"; });
}

}  // namespace rfms::python
