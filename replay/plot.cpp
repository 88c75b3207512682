#include "replay/plot.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <unistd.h>

#include "common/error.hpp"
#include "common/kinematics.hpp"
#include "common/mail_codec.hpp"
#include "common/robot_model_loader.hpp"
#include "common/sensed_wrench.hpp"

namespace rfms {

void plotLog(const RunLog& log, const std::string& output) {
  namespace fs = std::filesystem;
  const std::string ext = fs::path(output).extension().string();
  if (ext != ".png" && ext != ".svg")
    throw ConfigError("plot: the output must end in .png or .svg, not '" + output + "'");
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    throw ConfigError(
        "plot: gnuplot is not installed (apt-get install gnuplot-nox, or deploy/install-deps --for-tests)");
  if (log.header.find("robot_model") == log.header.end())
    throw ConfigError("plot: the log does not carry its robot model");
  const LoggedArm arm = loggedArm(log);
  const RobotModel& model = arm.model;

  // One row per period (thinned to at most 4000 rows): setpoints and angles in degrees, the path
  // deviation in mm (NaN outside SETP), torques, and the contact force from the force sensor (N,
  // base axes; NaN without one).
  std::map<std::uint64_t, std::array<const proto::JMail*, 6>> joints;
  for (const auto& j : log.jmail)
    if (j.joint() >= 1 && j.joint() <= 6) joints[j.header().period()][j.joint() - 1] = &j;
  std::map<std::uint64_t, const proto::ArmSensors*> sensed;
  for (const auto& s : log.sensors)
    if (s.wrench_size() == 6 || s.wrist_angle_size() == 6 || s.deflection_size() == 6) sensed[s.header().period()] = &s;
  bool any_force = false;
  const double dt = log.dtMs() * 1e-3, deg = 180.0 / M_PI;
  const std::size_t every = std::max<std::size_t>(1, log.smail.size() / 4000);
  const fs::path dir = fs::temp_directory_path() / ("rfms-plot-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path data = dir / "run.dat";
  std::ofstream d(data);
  bool any_deviation = false;
  for (std::size_t i = 0; i < log.smail.size(); i += every) {
    const proto::SMail& s = log.smail[i];
    const auto j = joints.find(s.header().period());
    if (j == joints.end() || std::find(j->second.begin(), j->second.end(), nullptr) != j->second.end()) continue;
    d << static_cast<double>(s.header().period()) * dt;
    JointVec q;
    for (int k = 0; k < 6; ++k) d << " " << j->second[static_cast<std::size_t>(k)]->servo_setpoint() * deg;
    for (int k = 0; k < 6; ++k) {
      q[k] = j->second[static_cast<std::size_t>(k)]->angle();
      d << " " << q[k] * deg;
    }
    Transform commanded;
    if (s.rtstate() == proto::RT_SETP && decode(s.t6(), commanded)) {
      d << " " << (forwardKinematics(model, q).translation() - commanded.translation()).norm() * 1e3;
      any_deviation = true;
    } else
      d << " NaN";
    for (int k = 0; k < 6; ++k) d << " " << j->second[static_cast<std::size_t>(k)]->torque();
    if (const auto f = sensed.find(s.header().period()); f != sensed.end()) {
      Vec6 reading = Vec6::Zero();
      const WristModel* wrist = arm.scene.sensor == SensorKind::kCompliantWrist ? &arm.scene.wrist : nullptr;
      sensedFlangeWrench(*f->second, wrist, arm.scene.tool, reading);
      const Vec6 c = contactFromReading(arm.scene.tool, model.gravity, forwardKinematics(model, q), reading);
      d << " " << c[0] << " " << c[1] << " " << c[2] << " " << c.head<3>().norm();
      any_force = true;
    } else {
      d << " NaN NaN NaN NaN";
    }
    d << "\n";
  }
  d.close();
  const fs::path script = dir / "run.gp";
  std::ofstream g(script);
  g << (ext == ".png" ? "set terminal png size 1600,1100 font ',11'\n" : "set terminal svg size 1600,1100 dynamic\n");
  g << "set output '" << output
    << "'\nset termoption noenhanced\nset grid\nset key outside right\nset xlabel 'time (s)'\n";
  g << "set multiplot layout " << (any_force ? 3 : 2)
    << ",2 title 'rfms run: " << (log.header.count("robot") ? log.header.at("robot") : "?") << ", " << log.smail.size()
    << " periods of " << log.dtMs() << " ms'\n";
  g << "set title 'joint setpoints (dashed) and measured angles (solid)'\nset ylabel 'deg'\nplot ";
  for (int k = 0; k < 6; ++k)
    g << (k ? ", " : "") << "'" << data.string() << "' using 1:" << 2 + k << " with lines dt 2 lc " << k + 1
      << " notitle, '' using 1:" << 8 + k << " with lines lc " << k + 1 << " title 'joint " << k + 1 << "'";
  g << "\nset title 'Cartesian path deviation: |FK(measured angles) - commanded T6| in SETP'\nset ylabel 'mm'\n";
  if (any_deviation)
    g << "plot '" << data.string() << "' using 1:14 with lines lc 7 notitle\n";
  else  // gnuplot refuses a plot with no defined point
    g << "set label 2 'no trajectory was followed (no SETP period)' at graph 0.5,0.5 center\n"
      << "set xrange [0:1]\nset yrange [0:1]\nplot NaN notitle\nunset label 2\nset autoscale\n";
  g << "set title 'servo torque'\nset ylabel 'N m'\nplot ";
  for (int k = 0; k < 6; ++k)
    g << (k ? ", " : "") << "'" << data.string() << "' using 1:" << 15 + k << " with lines lc " << k + 1
      << " title 'joint " << k + 1 << "'";
  if (any_force) {
    g << "\nset title 'contact force on the tool (the force sensor or wrist less the tool weight, base axes)'\nset "
         "ylabel 'N'\nplot ";
    const char* names[] = {"x", "y", "z", "|F|"};
    for (int k = 0; k < 4; ++k)
      g << (k ? ", " : "") << "'" << data.string() << "' using 1:" << 21 + k << " with lines lc " << k + 1
        << (k == 3 ? " lw 2" : "") << " title '" << names[k] << "'";
  }
  const std::string clock = log.header.count("clock") ? log.header.at("clock") : std::string("lockstep");
  // Lockstep and paced logs hold timing only for periods that went on without some mail; those
  // have no lateness to draw.
  if (!log.timing.empty() && clock == "realtime") {
    // Every answer of the joints and the math server, by how long after its tick it came.
    const fs::path late = dir / "lateness.dat";
    std::ofstream l(late);
    for (const proto::PeriodTiming& t : log.timing)
      for (int n = proto::NODE_JOINT1; n <= proto::NODE_MATH && n < t.lateness_ms_size(); ++n)
        if (t.lateness_ms(n) >= 0.0) l << t.lateness_ms(n) << "\n";
    l.close();
    g << "\nset title 'lateness of the joints and the math server after the tick (period " << log.dtMs()
      << " ms)'\nset xlabel 'ms'\nset ylabel 'answers'\nset logscale y\nunset key\nset style fill solid 0.6\n"
      << "bin(x) = 0.02 * floor(x / 0.02)\nplot '" << late.string()
      << "' using (bin($1)):(1.0) smooth frequency with boxes lc 3\nunset multiplot\n";
  } else {
    g << "\nset title 'period lateness'\nunset xlabel\nunset ylabel\nunset key\nunset border\nunset tics\nunset grid\n"
      << "set xrange [0:1]\nset yrange [0:1]\n"
      << "set label 1 'periods wait for their mail in a " << clock << " run: "
      << (log.timing.empty() ? std::string("none is late")
                             : std::to_string(log.timing.size()) + " went on without some of it")
      << "' at 0.5,0.5 center\nplot NaN notitle\nunset multiplot\n";
  }
  g.close();
  const std::string command = "gnuplot '" + script.string() + "' 2>'" + (dir / "gnuplot.err").string() + "'";
  const int rc = std::system(command.c_str());
  std::string err;  // gnuplot's last word is its error; warnings come before it
  {
    std::ifstream e(dir / "gnuplot.err");
    for (std::string line; std::getline(e, line);)
      if (!line.empty() && line.find_first_not_of(" ^") != std::string::npos) err = line;
  }
  fs::remove_all(dir);
  if (rc != 0) throw ConfigError("plot: gnuplot failed: " + err);
}

}  // namespace rfms
