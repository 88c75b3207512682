// The supervisor's events as run logs record them (proto/runlog.proto).
#pragma once

#include <cstdint>
#include <vector>

#include "proto/runlog.pb.h"
#include "supervisor/supervisor_core.hpp"

namespace rfms {

// The events of period k's outbox, in order.
std::vector<proto::LogEvent> eventsOf(std::uint64_t k, const SupervisorOutbox& out);

}  // namespace rfms
