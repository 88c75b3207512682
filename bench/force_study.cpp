// rfms-force-study: appendix A.1 of the RFMS report (Xu & Paul's compliant wrist) on its one-axis
// plants, with the controller's discrete force laws and compensator at 1 kHz, each figure printed
// beside the paper's. Deterministic: the same figures on any machine (docs/force.md quotes them).
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <regex>
#include <string>

#include "common/command_line.hpp"
#include "common/ik_opw.hpp"
#include "common/robot_model_loader.hpp"
#include "common/text_file.hpp"
#include "common/transform.hpp"
#include "harness/task_runner.hpp"
#include "harness/wrist_study.hpp"
#include "supervisor/force_stability.hpp"

namespace rfms {
namespace {

// examples/press.task with the push's law replaced, on the whole controller, the stability check
// let through: the median force error of the push, or NaN when it did not complete.
// The press with force law `law`: its force error (p50, N), NaN when the press did not hold, or
// why the controller refused the law (a gain out of its range is refused whatever the stability
// check says: such a row is no divergence).
struct Press {
  double error_p50 = NAN;
  std::string refused;
};
Press press(const RobotModel& robot, const Scene& scene, const std::string& law) {
  const std::string task =
      std::regex_replace(readTextFile(RFMS_PRESS_TASK), std::regex("force z -10 "), "force z -10 law " + law + " ");
  proto::ControllerSettings settings;
  settings.mutable_force()->set_refuse_unstable_laws(false);
  Harness h(robot, settings, scene);
  const RunSummary r = runTask(h, parseTaskFile(task, "press"), RunOptions{});
  Press p;
  if (!r.script.refused.empty()) p.refused = r.script.refused.front();
  for (const MoveRecord& m : r.script.moves)
    if (m.motion == "push" && m.completed && m.force) p.error_p50 = m.force->error_p50_n;
  return p;
}

// The force loop's bounds on A.1's one-axis plant (m = 2 kg, C_r = 200 N s/m, K_w = 4000 N/m), as
// the paper finds them in continuous time and as the loop sampled at 1 kHz has them
// (common/force_loop.hpp): the PI law's K_I, and the P law's K_p against environments of each
// stiffness (Eq. 37; the end effector 1 kg).
void oneAxisBounds() {
  ForceLoopPlant plant = ForceLoopPlant::onOneAxis(2.0, 200.0);
  plant.wrist = true;
  plant.wrist_stiffness = 4000.0;
  plant.surface_stiffness = std::numeric_limits<double>::infinity();
  ForceGains pi;
  pi.law = ForceLawKind::kPI;
  pi.kp = 30.0;
  std::printf("\nStability bounds of the force loop, A.1's one-axis plant (common/force_loop.hpp)\n");
  std::printf("PI law, K_p = 30, rigid environment: K_I < %.1f /s continuous (Routh, Eq. 30: %.1f), %.1f /s at 1 kHz\n",
              forceGainBound(plant, pi, ForceGain::kKi, 1e4, ForceLoopTime::kContinuous), 200.0 * 31.0 / (2.0 * 30.0),
              forceGainBound(plant, pi, ForceGain::kKi, 1e4));
  ForceGains p;
  p.law = ForceLawKind::kP;
  std::printf("P law against an environment of stiffness K_e (end effector 1 kg, C_e = 0): K_p <\n");
  std::printf("  %-6s %-10s %-12s %-16s %s\n", "C_w", "K_e (N/m)", "at 1 kHz", "continuous", "Routh on Eq. 39");
  auto text = [](double v) { return std::isinf(v) ? std::string("any") : std::to_string(v); };
  for (const double cw : {0.0, 50.0}) {
    for (const double ke : {std::numeric_limits<double>::infinity(), 1e5, 4e4, 1e4, 4e3, 1e3}) {
      plant.surface_stiffness = ke;
      plant.tool_mass = 1.0;
      plant.wrist_damping = cw;
      const bool rigid = std::isinf(ke);
      ForceAxisParams axis;
      axis.rigid = rigid;
      axis.k_e = ke;
      axis.c_w = cw;
      std::printf("  %-6.0f %-10s %-12.2f %-16s %s\n", cw,
                  rigid ? "rigid" : std::to_string(static_cast<int>(ke)).c_str(),
                  forceGainBound(plant, p, ForceGain::kKp, 1e4),
                  text(forceGainBound(plant, p, ForceGain::kKp, 1e4, ForceLoopTime::kContinuous)).c_str(),
                  rigid ? "-" : text(eq39RouthBound(axis)).c_str());
    }
  }
}

// The sweep the stability check is judged by: P gains, and PI integral gains at K_p = 1, on the
// whole controller pressing 10 N on the table; each with the model's bound at the press's target.
void wholeArmSweep() {
  const RobotModel robot = loadRobotModel(RFMS_ROBOT);
  for (const char* name : {"table", "wrist_table"}) {
    const Scene scene = loadScene(std::string(RFMS_SCENES_DIR) + "/" + name + ".textproto");
    const RobotModel model = withTool(robot, scene.tool);
    const SupervisorConfig config = supervisorConfigFor(proto::ControllerSettings{}, scene);
    const ForceStability stability(model, config);
    // Where the press aims (examples/press.task: T6 = rpy 220 -126.24 -170 mm, 0 150 0 deg).
    const double deg = std::numbers::pi / 180.0;
    const Transform t6 = trans(0.220, -0.12624, -0.170) * rpy(0.0, 150.0 * deg, 0.0);
    const JointVec q = OpwIk(model).solveSerial(t6, *ArmConfig::parse("righty,down,flip"), JointVec::Zero()).q;
    const ForceLoopPlant plant = stability.plantAt(q, Vec3::UnitZ(), scene.surfaces.front(), kDefaultForceDamping);
    ForceGains p;
    p.law = ForceLawKind::kP;
    ForceGains pi = p;
    pi.law = ForceLawKind::kPI;
    pi.kp = 1.0;
    std::printf("\n%s: P law, K_p swept (predicted bound %.2f)\n", name, forceGainBound(plant, p, ForceGain::kKp, 1e3));
    for (double kp = 1.0; kp <= 100.0; kp *= std::pow(10.0, 1.0 / 16.0)) {
      const Press r = press(robot, scene, "p " + std::to_string(kp));
      if (!r.refused.empty()) {
        std::printf("  K_p %7.2f: refused (%s)\n", kp, r.refused.c_str());
        break;
      }
      const double e = r.error_p50;
      const bool held = std::isfinite(e) && std::abs(e - 10.0 / (1.0 + kp)) < 0.3;
      ForceGains at = p;
      at.kp = kp;
      std::printf("  K_p %7.2f: error p50 %6.3f N (A.1: %5.3f)  %-8s  model: least damping ratio %.3f\n", kp, e,
                  10.0 / (1.0 + kp), held ? "holds" : "DIVERGES", forceLoopDamping(plant, at));
      if (!held) break;
    }
    std::printf("%s: PI law at K_p = 1, K_I swept (predicted bound %.0f /s)\n", name,
                forceGainBound(plant, pi, ForceGain::kKi, 1e5));
    for (double ki = 40.0; ki <= 1e5; ki *= std::pow(10.0, 1.0 / 8.0)) {
      const Press r = press(robot, scene, "pi 1 " + std::to_string(ki));
      if (!r.refused.empty()) {
        std::printf("  K_I %8.1f /s: refused (%s)\n", ki, r.refused.c_str());
        break;
      }
      const double e = r.error_p50;
      const bool held = std::isfinite(e) && e < 0.3;
      ForceGains at = pi;
      at.ki = ki;
      std::printf("  K_I %8.1f /s: error p50 %6.3f N  %-8s  model: least damping ratio %.3f\n", ki, e,
                  held ? "holds" : "DIVERGES", forceLoopDamping(plant, at));
      if (!held) break;
    }
  }
}

}  // namespace
}  // namespace rfms

int main(int argc, char** argv) {
  using namespace rfms;
  CLI::App app{"rfms-force-study: A.1's force laws and deflection compensation, reproduced and printed"};
  bool whole_arm = false;
  app.add_flag("--whole-arm", whole_arm,
               "then sweep force gains on the whole controller pressing the table, beside the stability "
               "check's predicted bound (about a minute)");
  if (const auto code = parseCommandLine(app, argc, argv)) return *code;

  std::printf("Force control against a rigid environment: m = 2 kg, K_w = 4000 N/m, C_r = 200 N s/m, step of 10 N\n");
  std::printf("%-34s %-12s %-14s %s\n", "law", "error at 2 s", "overshoot", "A.1 says");
  const struct {
    const char* name;
    ForceGains gains;
    double c_w;
    const char* paper;
  } laws[] = {
      {"P, K_p = 30, C_w = 0", {ForceLawKind::kP, 30, 0, 0}, 0.0, "1/(1+K_p) = 3.23 % (Eq. 27)"},
      {"P, K_p = 30, C_w = 200", {ForceLawKind::kP, 30, 0, 0}, 200.0, "3.23 %, better damped (Fig. 8)"},
      {"PD, K_p = 30, K_v = 0.01 s", {ForceLawKind::kPD, 30, 0.01, 0}, 0.0, "as P, more damping (Eq. 29)"},
      {"PI, K_p = 30, K_I = 20 /s", {ForceLawKind::kPI, 30, 0, 20}, 0.0, "0 (Eq. 30)"},
  };
  for (const auto& l : laws) {
    ForceAxisParams p;
    p.c_w = l.c_w;
    const ForceStep r = forceStep(l.gains, 2.0, p);
    std::printf("%-34s %9.3f %%  %9.1f %%    %s\n", l.name, 100 * r.final_error, 100 * r.overshoot, l.paper);
  }
  // Ramp and parabola inputs: what stays of the error by the loop's type (A.1, Eq. 27).
  std::printf("\nRamp (10 N/s) and parabola (10 N/s^2) inputs: the error F_d - F at 2 s and at 4 s\n");
  const struct {
    const char* name;
    ForceGains gains;
    const char* ramp;
    const char* parabola;
  } typed[] = {
      {"P, K_p = 30 (type 0)", {ForceLawKind::kP, 30, 0, 0}, "grows: r t / (1 + K_p)", "grows"},
      {"PD, K_p = 30, K_v = 0.01 s (type 0)", {ForceLawKind::kPD, 30, 0.01, 0}, "grows", "grows"},
      {"PI, K_p = 30, K_I = 20 /s (type 1)", {ForceLawKind::kPI, 30, 0, 20}, "r / (K_p K_I) = 0.0167 N", "grows"},
  };
  for (const auto& l : typed) {
    const ForceInputError ramp = forceInput(l.gains, 1, 10.0, 4.0), parabola = forceInput(l.gains, 2, 10.0, 4.0);
    std::printf("%-38s ramp %7.4f, %7.4f N (A.1: %s); parabola %7.3f, %7.3f N (%s)\n", l.name, ramp.early, ramp.late,
                l.ramp, parabola.early, parabola.late, l.parabola);
  }
  // The P law's loop in continuous time is m s^2 + C_r s + K_w (1 + K_p): its overshoot to a step.
  const double zeta = 200.0 / (2.0 * std::sqrt(2.0 * 4000.0 * 31.0));
  std::printf(
      "P, K_p = 30, C_w = 0 in continuous time: zeta %.3f, overshoot %.1f %% (sampled, the drive is held a "
      "period: on average half a period late)\n",
      zeta, 100.0 * std::exp(-std::numbers::pi * zeta / std::sqrt(1.0 - zeta * zeta)));

  std::printf(
      "\nPosition compensation: m = 2 kg, K = 4000 N/m, C = 200 N s/m, joint loop K_p = 1, K_v = 0.01 s, 20 N load\n");
  const PositionAxisParams p;
  for (double k1 : {0.0, 0.5, 1.0}) {
    const LoadHold h = holdUnderLoad(k1, 0.004, 3.0, 20.0, p);
    std::printf("K_1 = %.1f, K_2 = 0.004 s: end effector off by %8.4f mm   A.1: (1 - K_1) F / K = %.4f mm (Eq. 15)\n",
                k1, 1e3 * h.offset, 1e3 * (1 - k1) * 20.0 / 4000.0);
  }
  // A.1 §2.3: the lead-lag network. Its lag lets the lead go past the PD compensator's K_v / K_p.
  std::printf("\nThe lead-lag network H = K_pi (1 + T_lead s) / (1 + T_lag s) (A.1 2.3), K_pi = 1, 20 N load:\n");
  for (const double k : {1.0, 0.5}) {
    const LoadHold h = holdUnderLoadByLeadLag(k, 0.01, 0.01, 3.0, 20.0, p, 1e-3);
    std::printf(
        "  K_pi = %.1f, T_lead = T_lag = 0.01 s: end effector off by %.4f mm at 3 s   A.1: (1 - K_pi) F / K = "
        "%.4f mm (Eq. 9)\n",
        k, 1e3 * h.offset, 1e3 * (1 - k) * 20.0 / 4000.0);
  }
  for (const double lag : {0.0, 0.005, 0.01, 0.02}) {
    std::printf(
        "  T_lag = %.3f s: T_lead < %.4f s at 10 kHz, %.4f s at 1 kHz   Routh on the quartic (Eq. 21): %.4f s\n", lag,
        stableLeadBound(lag, p, 1e-4), stableLeadBound(lag, p, 1e-3), eq21LeadBound(lag, p));
  }
  // A.1 §2.4: H = 1/G_c, which in continuous time keeps the end effector at 0 at every instant.
  std::printf("\nThe compensator as the inverse of the link's loop, H = 1/G_c (A.1 2.4), 20 N load from t = 0:\n");
  for (const double dt : {1e-3, 1e-4}) {
    const LoadHold h = holdUnderLoadByInverse(0.0, 3.0, 20.0, p, dt);
    std::printf(
        "  J = 0 (G_c a lag), at %5.0f Hz: end effector off by at most %.4f mm, %.4f mm at 3 s%s   "
        "A.1: 0 at every instant\n",
        1.0 / dt, 1e3 * h.worst, 1e3 * h.offset, h.settles ? "" : " (does not settle)");
  }
  PositionAxisParams with_inertia = p;
  with_inertia.j = 1e-4;  // s^2: the link loop's own resonance near 16 Hz
  for (const double dt : {1e-3, 1e-4}) {
    for (const double estimate : {1.0, 0.9, 1.1, 0.5, 1.5, 0.0}) {
      const LoadHold h = holdUnderLoadByInverse(estimate * with_inertia.j, 3.0, 20.0, with_inertia, dt);
      std::printf("  J = 1e-4 s^2 estimated as %.1f J, at %5.0f Hz: at most %9.4f mm, %9.4f mm at 3 s%s\n", estimate,
                  1.0 / dt, 1e3 * h.worst, 1e3 * h.offset, h.settles ? "" : " (does not settle)");
    }
  }
  std::printf("\nStability boundary of K_1 (bisection on the simulated loop)\n");
  for (const auto& [k2, dt] : {std::pair{0.0, 1e-3}, std::pair{0.004, 1e-4}, std::pair{0.004, 1e-3}}) {
    std::printf("K_2 = %.3f s at %5.0f Hz: K_1 < %.3f   Eq. 18: %.3f   Eq. 17: %.3f\n", k2, 1.0 / dt,
                stableK1Bound(k2, p, dt), eq18Bound(p, k2), eq17Bound(p));
  }
  oneAxisBounds();
  if (whole_arm) wholeArmSweep();
  return 0;
}
