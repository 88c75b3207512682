#include "common/compensator_verdict.hpp"

#include <algorithm>

#include "common/gain_bound.hpp"
#include "common/number_text.hpp"

namespace rfms {

namespace {

CompensatorGains scaled(CompensatorGains g, double by) {
  g.k1 *= by;
  g.k2 *= by;
  g.k3 *= by;
  return g;
}

// One of H's terms, by name, for bounding it with the others held.
struct Term {
  double CompensatorGains::*field;
  const char* name;
  const char* unit;
};
constexpr Term kTerms[] = {{&CompensatorGains::k2, "K_2 (rate)", " s"},
                           {&CompensatorGains::k3, "K_3 (acceleration)", " s^2"},
                           {&CompensatorGains::t_lead, "T_lead", " s"},
                           {&CompensatorGains::k1, "K_1", ""}};

}  // namespace

std::string compensatorVerdict(const CompensatorStable& stable, const CompensatorGains& gains, double margin,
                               const std::string& analysis) {
  if (stable(scaled(gains, margin))) return "";
  std::string why = (stable(gains) ? "is within the gain margin of instability " : "is unstable ") + analysis;
  if (margin > 1.0) why += " (with H times " + numberText(margin) + ", the gain margin)";
  // The first of its terms that a bound can name: the least value at which the loop, with H times
  // the margin, is unstable, the others held.
  for (const Term& term : kTerms) {
    const double now = gains.*term.field;
    if (now <= 0.0) continue;
    CompensatorGains tried = gains;
    const double bound = leastUnstable(
        [&](double value) {
          tried.*term.field = value;
          return stable(scaled(tried, margin));
        },
        std::max(10.0 * now, 1.0));
    // A bound near nothing says no value of this term would do: another term is at fault.
    if (bound <= now && bound > 1e-6 * now)
      return why + ": " + term.name + " must be below " + boundText(bound) + term.unit + " at the others' values";
  }
  // No one term will do: the whole of H must shrink (K_1, K_2 and K_3 together).
  double below = 0.0, above = 1.0;
  for (int i = 0; i < 40; ++i) {
    const double mid = 0.5 * (below + above);
    (stable(scaled(gains, mid * margin)) ? below : above) = mid;
  }
  return why + ": H must be below " + boundText(below) + " of itself";
}

}  // namespace rfms
