// ForceFigures (common/force_figures.hpp) to and from the wire's proto::ForceFigures.
#pragma once

#include <optional>

#include "common/force_figures.hpp"
#include "proto/task.pb.h"

namespace rfms {

void encode(const ForceFigures& f, proto::ForceFigures& out);
// None when the message holds none (no setpoint, and not an impedance's).
std::optional<ForceFigures> decode(const proto::ForceFigures& f);

}  // namespace rfms
