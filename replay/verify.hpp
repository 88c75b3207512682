// `rfms-replay verify`: runs the logged requests through the same cores again, with the settings
// the log records, and checks every mailbox and event against the log. Lockstep and in-process
// logs re-run the whole controller in lockstep; realtime logs, and lockstep or paced logs of runs
// that went on without some node's mail, re-run each core alone on the mail the log says it read
// (verify_realtime.cpp), and compare all but the send times.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "harness/harness.hpp"
#include "replay/run_log_reader.hpp"

namespace rfms {

struct VerifyResult {
  bool ok = false;
  std::uint64_t periods = 0;   // re-run
  std::uint64_t compared = 0;  // messages compared
  std::string divergence;      // the first difference: period, topic, field, both values
  std::string method;          // how the log was re-run, for the report
  // What the log did not let it check (messages the logger dropped, a core whose input was
  // dropped): `ok` then says only that everything checked was identical.
  std::vector<std::string> unchecked;
};

// What the logger dropped, for a report: "12 messages (/rfms/jmail 10, /rfms/smail 2)".
std::string dropsText(const proto::LogDrops& drops);

// Each core alone on the mail it read: for logs whose clock was realtime, and for lockstep or
// paced logs (`lockstep`) of runs that went on without some mail, which a lockstep re-run of the
// whole controller cannot repeat. `model` carries the scene's tool.
VerifyResult verifyEachCore(const RunLog& log, const RobotModel& model, const Scene& scene,
                            const proto::ControllerSettings& c, bool lockstep,
                            const std::function<void(std::uint64_t, std::uint64_t)>& progress = {});

VerifyResult verifyLog(const RunLog& log, const std::function<void(std::uint64_t, std::uint64_t)>& progress = {});

}  // namespace rfms
