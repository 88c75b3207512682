// `rfms-replay verify`: runs the logged requests through the same cores again, with the settings
// the log records, and checks every mailbox and event against the log. Lockstep and in-process
// logs re-run the whole controller in lockstep; realtime logs re-run each core alone on the mail
// the log says it read (verify_realtime.cpp), and compare all but the send times.
#pragma once

#include <functional>
#include <string>

#include "replay/run_log_reader.hpp"
#include "sim/harness.hpp"

namespace rfms {

struct VerifyResult {
  bool ok = false;
  std::uint64_t periods = 0;   // re-run
  std::uint64_t compared = 0;  // messages compared
  std::string divergence;      // the first difference: period, topic, field, both values
  std::string method;          // how the log was re-run, for the report
};

// The realtime form, for logs whose clock was realtime.
VerifyResult verifyEachCore(const RunLog& log, const RobotModel& model, const proto::ControllerSettings& c,
                            const std::function<void(std::uint64_t, std::uint64_t)>& progress = {});

VerifyResult verifyLog(const RunLog& log, const std::function<void(std::uint64_t, std::uint64_t)>& progress = {});

}  // namespace rfms
