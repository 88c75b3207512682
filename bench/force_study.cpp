// rfms-force-study: appendix A.1 of the RFMS report (Xu & Paul's compliant wrist) on its one-axis
// plants, with the controller's discrete force laws and compensator at 1 kHz, each figure printed
// beside the paper's. Deterministic: the same figures on any machine (docs/force.md quotes them).
#include <CLI/CLI.hpp>

#include <cstdio>

#include "common/command_line.hpp"
#include "sim/wrist_study.hpp"

int main(int argc, char** argv) {
  using namespace rfms;
  CLI::App app{"rfms-force-study: A.1's force laws and deflection compensation, reproduced and printed"};
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

  std::printf(
      "\nPosition compensation: m = 2 kg, K = 4000 N/m, C = 200 N s/m, joint loop K_p = 1, K_v = 0.01 s, 20 N load\n");
  const PositionAxisParams p;
  for (double k1 : {0.0, 0.5, 1.0}) {
    const LoadHold h = holdUnderLoad(k1, 0.004, 3.0, 20.0, p);
    std::printf("K_1 = %.1f, K_2 = 0.004 s: end effector off by %8.4f mm   A.1: (1 - K_1) F / K = %.4f mm (Eq. 15)\n",
                k1, 1e3 * h.offset, 1e3 * (1 - k1) * 20.0 / 4000.0);
  }
  std::printf("\nStability boundary of K_1 (bisection on the simulated loop)\n");
  for (const auto& [k2, dt] : {std::pair{0.0, 1e-3}, std::pair{0.004, 1e-4}, std::pair{0.004, 1e-3}}) {
    std::printf("K_2 = %.3f s at %5.0f Hz: K_1 < %.3f   Eq. 18: %.3f   Eq. 17: %.3f\n", k2, 1.0 / dt,
                stableK1Bound(k2, p, dt), eq18Bound(p, k2), eq17Bound(p));
  }
  return 0;
}
