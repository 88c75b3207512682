// rfms-model: the robot model's mathematics from the command line.
//   rfms-model fk --q q1,..,q6                       -> {"T":[[4x4 rows]]}
//   rfms-model jacobian --q ..                       -> {"J":[[6 rows: vx vy vz wx wy wz]]}
//   rfms-model ik --T t11,..,t44 --config righty,down,noflip  -> {"q":[..]}
//   rfms-model dynamics --q .. --qd .. --qdd ..      -> {"tau","M","g","c","friction"}
//   rfms-model demo                                  -> the PUMA 260 at the report's home position
//   rfms-model urdf [ROBOT.textproto] [-o FILE]      -> the model as URDF (model_tool/urdf.hpp)
//   rfms-model import ARM.urdf [--tip tool0] [-o FILE] -> a URDF's chain as a model (urdf_import.hpp)
// Joint values in radians, lengths in metres. Errors go to stderr with exit code 2.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>

#include "common/command_line.hpp"
#include "common/crba.hpp"
#include "common/error.hpp"
#include "common/friction.hpp"
#include "common/ik_opw.hpp"
#include "common/kinematics.hpp"
#include "common/rne.hpp"
#include "common/robot_model_loader.hpp"
#include "common/text_file.hpp"
#include "common/transform.hpp"
#include "model_tool/demo.hpp"
#include "model_tool/json.hpp"
#include "model_tool/urdf.hpp"
#include "model_tool/urdf_import.hpp"

namespace {

using namespace rfms;

JointVec jointVector(const std::vector<double>& v, const char* flag) {
  if (v.size() != kJoints)
    throw ProtocolError(std::string(flag) + ": expected 6 comma-separated values, got " + std::to_string(v.size()));
  JointVec q;
  for (int i = 0; i < kJoints; ++i) q[i] = v[i];
  if (!q.allFinite()) throw ProtocolError(std::string(flag) + ": values must be finite numbers");
  return q;
}

void print(bool json, const std::string& key, const std::string& value, const std::string& text) {
  if (json)
    std::cout << "{\"" << key << "\":" << value << "}\n";
  else
    std::cout << text;
}

template <class Derived>
std::string table(const Eigen::MatrixBase<Derived>& m) {
  std::ostringstream s;
  s << m.format(Eigen::IOFormat(8, 0, "  ", "\n", "  ", "")) << '\n';
  return s.str();
}

// `text` to the file `path`, or to standard output when it is empty.
int writeOut(const std::string& text, const std::string& path, const std::string& what) {
  if (path.empty()) {
    std::cout << text;
    return 0;
  }
  std::ofstream out(path);
  out << text;
  if (!out.flush()) throw ConfigError(path + ": cannot write the " + what);
  return 0;
}

// The URDF to a file or standard output; what URDF could not hold, as warnings.
int writeUrdf(const RobotModel& model, const std::string& path, spdlog::logger& log) {
  const tool::Urdf u = tool::toUrdf(model);
  for (const std::string& w : u.warnings) log.warn("{}", w);
  return writeOut(u.text, path, "URDF");
}

int importModel(const std::string& urdf_path, const std::string& base, const std::string& tip, const std::string& name,
                const std::string& path, spdlog::logger& log) {
  const tool::ImportedModel m = tool::importUrdf(loadTextFile(urdf_path, "URDF"), urdf_path, base, tip, name);
  for (const std::string& note : m.notes) log.info("{}", note);
  const RobotModel check = parseRobotModel(m.text, path.empty() ? "the imported model" : path);
  log.info("imported {}: six revolute joints, an ortho-parallel arm with a spherical wrist", check.name);
  return writeOut(m.text, path, "robot model");
}

}  // namespace

int main(int argc, char** argv) {
  auto log = spdlog::stderr_color_mt("rfms-model");
  log->set_pattern("%n: %^%l%$: %v");

  CLI::App app{"rfms-model: forward and inverse kinematics, Jacobian and dynamics of a robot model"};
  app.require_subcommand(1);
  app.fallthrough();  // --robot and --json may follow the subcommand
  std::string robot = RFMS_DEFAULT_ROBOT;
  bool json = false;
  app.add_option("--robot", robot, "robot model file (protobuf text format), or a shipped model's name")
      ->capture_default_str();
  app.add_flag("--json", json, "print JSON instead of text");

  std::vector<double> q_in, qd_in, qdd_in, t_in, near_in;
  std::string config_text = "righty,down,noflip";

  auto* fk = app.add_subcommand("fk", "T6 for joint angles q (rad)");
  fk->add_option("--q", q_in, "q1,..,q6 in rad")->required()->delimiter(',');
  auto* jac = app.add_subcommand("jacobian", "base-frame Jacobian of the origin of frame 6");
  jac->add_option("--q", q_in, "q1,..,q6 in rad")->required()->delimiter(',');
  auto* ik = app.add_subcommand("ik", "joint angles for T6 in a given configuration");
  ik->add_option("--T", t_in, "t11,t12,..,t44: the 4x4 transform, row-major, metres")->required()->delimiter(',');
  ik->add_option("--config", config_text, "lefty|righty,up|down,flip|noflip")->capture_default_str();
  ik->add_option("--near", near_in, "q1,..,q6: pick each angle modulo 2 pi nearest these (default 0)")->delimiter(',');
  auto* dyn = app.add_subcommand("dynamics", "inverse dynamics, M, g, C qd and friction");
  dyn->add_option("--q", q_in, "q1,..,q6 in rad")->required()->delimiter(',');
  dyn->add_option("--qd", qd_in, "joint speeds in rad/s")->required()->delimiter(',');
  dyn->add_option("--qdd", qdd_in, "joint accelerations in rad/s^2")->required()->delimiter(',');
  auto* demo = app.add_subcommand("demo", "FK, IK and dynamics at the RFMS report's home position");
  std::vector<double> at_in{tool::kReportHomeMm.x(), tool::kReportHomeMm.y(), tool::kReportHomeMm.z()};
  demo->add_option("--at", at_in, "X,Y,Z of the target in mm (default: the report's home)")
      ->delimiter(',')
      ->expected(3);

  auto* urdf = app.add_subcommand("urdf", "the model as URDF: joints, limits, inertias, simple link geometry");
  std::string urdf_robot, urdf_out;
  urdf->add_option("ROBOT", urdf_robot, "robot model file (default: --robot's)");
  urdf->add_option("-o,--output", urdf_out, "file to write (default: standard output)");

  auto* import = app.add_subcommand("import", "a URDF's six-revolute-joint chain as a robot model file");
  std::string import_urdf, import_base, import_tip = "tool0", import_name, import_out;
  import->add_option("URDF", import_urdf, "the URDF file (xacro expanded)")->required();
  import->add_option("--base", import_base, "the chain's base link (default: the URDF's root)");
  import->add_option("--tip", import_tip, "the link whose frame is T6")->capture_default_str();
  import->add_option("--name", import_name, "the model's name (default: the URDF's robot name)");
  import->add_option("-o,--output", import_out, "file to write (default: standard output)");

  if (const auto code = parseCommandLine(app, argc, argv)) return *code;

  return guardedMain(
      [&] {
        if (*import) return importModel(import_urdf, import_base, import_tip, import_name, import_out, *log);
        if (*urdf) return writeUrdf(loadRobotModel(urdf_robot.empty() ? robot : urdf_robot), urdf_out, *log);
        const RobotModel model = loadRobotModel(robot);
        if (*demo) {
          if (at_in.size() != 3) throw ProtocolError("--at: expected X,Y,Z in mm");
          if (!Vec3(at_in[0], at_in[1], at_in[2]).allFinite())
            throw ProtocolError("--at: X, Y and Z must be finite numbers of mm");
          return tool::runDemo(model, Vec3(at_in[0], at_in[1], at_in[2]), std::cout);
        }
        if (*fk) {
          const Transform t = forwardKinematics(model, jointVector(q_in, "--q"));
          print(json, "T", tool::matrix(t.matrix()), table(t.matrix()));
        } else if (*jac) {
          const Mat6 j = jacobianBase(model, jointVector(q_in, "--q"));
          print(json, "J", tool::matrix(j), table(j));
        } else if (*ik) {
          if (t_in.size() != 16)
            throw ProtocolError("--T: expected 16 comma-separated values (row-major 4x4), got " +
                                std::to_string(t_in.size()));
          Eigen::Matrix4d m;
          for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 4; ++c) m(r, c) = t_in[static_cast<std::size_t>(4 * r + c)];
          if (!isHomogeneous(m))
            throw ProtocolError(
                "--T: not a homogeneous transform (the rotation must be orthonormal "
                "with determinant 1 and the last row 0 0 0 1)");
          const auto config = ArmConfig::parse(config_text);
          if (!config)
            throw ProtocolError("--config: '" + config_text +
                                "' is not one of each: lefty|righty, up|down, flip|noflip");
          const JointVec near = near_in.empty() ? JointVec::Zero() : jointVector(near_in, "--near");
          Transform t;
          t.matrix() = m;
          const IkSolution sol = OpwIk(model).solveSerial(t, *config, near);
          if (!usable(sol.status))
            throw ProtocolError("no solution: joint " + std::to_string(sol.joint) + ": " + describe(sol.status));
          if (sol.status != IkStatus::kOk) log->warn("joint {}: {}", sol.joint, describe(sol.status));
          print(json, "q", tool::vector(sol.q), table(sol.q.transpose()));
        } else if (*dyn) {
          const JointVec q = jointVector(q_in, "--q"), qd = jointVector(qd_in, "--qd"),
                         qdd = jointVector(qdd_in, "--qdd");
          JointMat m;
          JointVec g;
          massMatrixAndGravity(model, q, m, g);
          const JointVec tau = inverseDynamics(model, q, qd, qdd);
          const JointVec c = velocityTorques(model, q, qd);
          const JointVec f = frictionTorques(model, qd);
          if (!(tau.allFinite() && c.allFinite() && f.allFinite()))
            throw ProtocolError(
                "--qd, --qdd: the torques they give are not finite numbers (speeds or accelerations "
                "far beyond any arm's)");
          for (int i = 0; i < kJoints; ++i) {
            const double limit = model.joints[static_cast<std::size_t>(i)].qd_max;
            if (limit > 0.0 && std::abs(qd[i]) > limit)
              log->warn(
                  "--qd: joint {} at {} rad/s is beyond the model's {} rad/s: the torques are the model's, "
                  "not an arm's",
                  i + 1, qd[i], limit);
          }
          if (json) {
            std::cout << "{\"tau\":" << tool::vector(tau) << ",\"M\":" << tool::matrix(m)
                      << ",\"g\":" << tool::vector(g) << ",\"c\":" << tool::vector(c)
                      << ",\"friction\":" << tool::vector(f) << "}\n";
          } else {
            std::cout << "tau (N m, friction excluded)\n"
                      << table(tau.transpose()) << "M (kg m^2)\n"
                      << table(m) << "g (N m)\n"
                      << table(g.transpose()) << "C(q,qd) qd (N m)\n"
                      << table(c.transpose()) << "friction (N m)\n"
                      << table(f.transpose());
          }
        }
        return 0;
      },
      [&](const std::string& message) { log->error("{}", message); });
}
