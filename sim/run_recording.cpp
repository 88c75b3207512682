#include "sim/run_recording.hpp"

#include <cstdio>

#include "common/error.hpp"

namespace rfms {

namespace {
// Doubles at full precision, so that a re-run is bit-identical.
std::string exact(double x) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}
}  // namespace

mcap::KeyValues settingsOf(const HarnessConfig& c) {
  mcap::KeyValues kv{{"harness.dt_s", exact(c.dt)},
                     {"harness.update_periods", std::to_string(c.update_periods)},
                     {"harness.watchdog_periods", std::to_string(c.watchdog_periods)},
                     {"harness.serial_ik", c.serial_ik ? "1" : "0"},
                     {"harness.pik", toString(c.pik)},
                     {"harness.amplifier", c.amplifier == Amplifier::kVoltage ? "voltage" : "current"},
                     {"harness.power_up_error_rad", exact(c.power_up_error)},
                     {"harness.seed", std::to_string(c.seed)},
                     {"harness.servo_bandwidth_hz", exact(c.servo_bandwidth_hz)}};
  for (int i = 0; i < kJoints; ++i) kv["harness.park." + std::to_string(i + 1)] = exact(c.park[i]);
  return kv;
}

HarnessConfig harnessConfigFrom(const mcap::KeyValues& kv) {
  HarnessConfig c;
  auto get = [&](const std::string& key, auto apply) {
    const auto it = kv.find("harness." + key);
    if (it == kv.end()) return;
    try {
      apply(it->second);
    } catch (const std::exception&) {
      throw ConfigError("the log's setting harness." + key + " = '" + it->second + "' does not read");
    }
  };
  get("dt_s", [&](const std::string& v) { c.dt = std::stod(v); });
  get("update_periods", [&](const std::string& v) { c.update_periods = std::stoi(v); });
  get("watchdog_periods", [&](const std::string& v) { c.watchdog_periods = std::stoi(v); });
  get("serial_ik", [&](const std::string& v) { c.serial_ik = v == "1"; });
  get("pik", [&](const std::string& v) {
    const auto s = parsePikScheme(v);
    if (!s) throw ConfigError("unknown PIK scheme");
    c.pik = *s;
  });
  get("amplifier", [&](const std::string& v) { c.amplifier = v == "voltage" ? Amplifier::kVoltage : Amplifier::kCurrent; });
  get("power_up_error_rad", [&](const std::string& v) { c.power_up_error = std::stod(v); });
  get("seed", [&](const std::string& v) { c.seed = std::stoull(v); });
  get("servo_bandwidth_hz", [&](const std::string& v) { c.servo_bandwidth_hz = std::stod(v); });
  for (int i = 0; i < kJoints; ++i)
    get("park." + std::to_string(i + 1), [&](const std::string& v) { c.park[i] = std::stod(v); });
  return c;
}

void recordEvents(RunLogger& log, std::uint64_t k, const SupervisorOutbox& out) {
  for (const proto::LogEvent& e : eventsOf(k, out)) log.log(topic::kEvent, k, e);
}

void recordPeriod(RunLogger& log, const PeriodMail& m) {
  if (m.sensors != nullptr) log.log(topic::kSensors, m.k, *m.sensors);
  if (m.smail != nullptr) log.log(topic::kSMail, m.k, *m.smail);
  if (m.mmail != nullptr) log.log(topic::kMMail, m.k, *m.mmail);
  if (m.parcel != nullptr) log.log(topic::kParcel, m.k, *m.parcel);
  for (const proto::JMail* j : m.jmail)
    if (j != nullptr) log.log(topic::kJMail, m.k, *j);
  for (const proto::TorqueCommand* t : m.torque)
    if (t != nullptr) log.log(topic::kTorque, m.k, *t);
  if (m.supervisor != nullptr) recordEvents(log, m.k, *m.supervisor);
}

void recordRequest(RunLogger& log, std::uint64_t k, const proto::TaskRequest& request, const proto::TaskReply& reply) {
  proto::LogRequest r;
  r.set_period(k);
  *r.mutable_request() = request;
  *r.mutable_reply() = reply;
  log.log(topic::kRequest, k, r);
}

}  // namespace rfms
