#include "common/force_figures.hpp"

#include <algorithm>

namespace rfms {

double heldTolerance(double setpoint_n) { return std::max(0.5, 0.1 * setpoint_n); }

}  // namespace rfms
