// `rfms-replay verify`: runs the logged requests through the same cores again, in lockstep, with
// the settings the log records, and checks every mailbox and event against the log.
#pragma once

#include <functional>
#include <string>

#include "replay/run_log_reader.hpp"

namespace rfms {

struct VerifyResult {
  bool ok = false;
  std::uint64_t periods = 0;       // re-run
  std::uint64_t compared = 0;      // messages compared
  std::string divergence;          // the first difference: period, topic, field, both values
};

VerifyResult verifyLog(const RunLog& log, const std::function<void(std::uint64_t, std::uint64_t)>& progress = {});

}  // namespace rfms
