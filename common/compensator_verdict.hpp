// A position compensator judged on a model of its loop, whatever the model: "" when the loop holds
// with H multiplied by the gain margin, else why not, with a bound on one of H's terms at the
// others' values ("... : K_1 must be below 0.374 at the others' values"), or on the whole of H
// when no one term will do. The continuous model of A.1's link (common/compensator_loop.hpp) and
// the sampled model of the whole arm (common/compensator_arm_loop.hpp) both answer through it.
// Pure; not for the period thread.
#pragma once

#include <functional>
#include <string>

#include "common/force_law.hpp"

namespace rfms {

// Whether the model's loop is stable with these gains.
using CompensatorStable = std::function<bool(const CompensatorGains&)>;

// `analysis` names the model, after "is unstable" ("by A.1's analysis of the link's loop through
// the wrist").
std::string compensatorVerdict(const CompensatorStable& stable, const CompensatorGains& gains, double margin,
                               const std::string& analysis);

}  // namespace rfms
