#include "replay/verify.hpp"

#include <map>
#include <memory>
#include <tuple>

#include "common/error.hpp"
#include "common/robot_model_loader.hpp"
#include "runlog/run_logger.hpp"
#include "replay/mail_compare.hpp"
#include "sim/run_recording.hpp"

namespace rfms {

namespace {

// Where a message belongs: its mailbox, its period, and its joint (or, for events, its place
// among the period's events). The supervisor of a cluster logs J_MAIL and PARCEL of k-1 in its
// period k and the arm's torques when the arm reports them; the harness logs everything of period
// k together. Matching by key compares the two whatever the order, and whatever a log lacks.
struct Key {
  std::string topic;
  std::uint64_t period = 0;
  std::uint32_t joint = 0;
  bool operator<(const Key& o) const { return std::tie(topic, period, joint) < std::tie(o.topic, o.period, o.joint); }
};

bool keyOf(const std::string& topic, const std::string& bytes, std::map<std::uint64_t, std::uint32_t>& events, Key& key) {
  auto m = emptyOf(topic);
  if (!m || !m->ParseFromString(bytes)) return false;
  key.topic = topic;
  if (topic == topic::kEvent) {
    const auto& e = static_cast<const proto::LogEvent&>(*m);
    key.period = e.period();
    key.joint = events[e.period()]++;
    return true;
  }
  const auto* d = m->GetDescriptor();
  const auto* r = m->GetReflection();
  if (const auto* h = d->FindFieldByName("header")) {
    const auto& header = static_cast<const proto::Header&>(r->GetMessage(*m, h));
    key.period = header.period();
  }
  if (const auto* j = d->FindFieldByName("joint")) key.joint = r->GetUInt32(*m, j);
  return true;
}

}  // namespace

VerifyResult verifyLog(const RunLog& log, const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  VerifyResult r;
  const auto model_text = log.header.find("robot_model");
  if (model_text == log.header.end() || model_text->second.empty())
    throw ConfigError("the log does not carry its robot model: it cannot be re-run");
  if (log.header.find("harness.dt_s") == log.header.end())
    throw ConfigError("the log does not carry the controller's settings (harness.*): it cannot be re-run");
  const RobotModel model = parseRobotModel(model_text->second, "the log's robot model");
  const auto clock = log.header.find("clock");
  if (clock != log.header.end() && clock->second == "realtime")
    return verifyEachCore(log, model, harnessConfigFrom(log.header), progress);
  r.method = "the whole controller re-run in lockstep";
  Harness h(model, harnessConfigFrom(log.header));

  std::map<Key, const std::string*> logged;
  {
    std::map<std::uint64_t, std::uint32_t> events;
    for (const auto& [topic, bytes] : log.sequence) {
      Key k;
      if (keyOf(topic, bytes, events, k)) logged[k] = &bytes;
    }
  }
  std::multimap<std::uint64_t, const proto::LogRequest*> requests;
  for (const auto& q : log.requests) requests.emplace(q.period(), &q);
  std::uint64_t periods = 0;
  for (const auto& s : log.smail) periods = std::max(periods, s.header().period() + 1);

  std::string failure;
  std::map<std::uint64_t, std::uint32_t> events;
  auto compare = [&](const char* topic, const google::protobuf::Message& m) {
    if (!failure.empty()) return;
    const std::string bytes = m.SerializeAsString();
    Key k;
    if (!keyOf(topic, bytes, events, k)) return;
    const auto it = logged.find(k);
    if (it == logged.end()) return;  // not in this log (the arm's last report came after the end)
    if (*it->second != bytes) {
      failure = "period " + std::to_string(k.period) + ", " + topic +
                (k.joint > 0 && std::string(topic) != topic::kEvent ? " joint " + std::to_string(k.joint) : std::string()) +
                ": " + firstDifference(topic, *it->second, bytes);
      return;
    }
    ++r.compared;
  };
  h.on_period = [&](const PeriodMail& m) {
    if (m.sensors) compare(topic::kSensors, *m.sensors);
    if (m.smail) compare(topic::kSMail, *m.smail);
    if (m.mmail) compare(topic::kMMail, *m.mmail);
    if (m.parcel) compare(topic::kParcel, *m.parcel);
    for (const auto* j : m.jmail)
      if (j) compare(topic::kJMail, *j);
    for (const auto* t : m.torque)
      if (t) compare(topic::kTorque, *t);
    if (m.supervisor)
      for (const auto& e : eventsOf(m.k, *m.supervisor)) compare(topic::kEvent, e);
  };
  for (std::uint64_t k = 0; k < periods && failure.empty(); ++k) {
    const auto [from, to] = requests.equal_range(k);
    for (auto it = from; it != to && failure.empty(); ++it) {
      if (it->second->desk_only()) continue;  // the remote desk answered; the core never saw it
      failure = replyDivergence(k, *it->second, h.request(it->second->request()));
    }
    if (!failure.empty()) break;
    h.step();
    ++r.periods;
    if (progress && k % 1000 == 0) progress(k, periods);
  }
  if (failure.empty() && r.compared != logged.size())
    failure = std::to_string(logged.size() - r.compared) + " logged messages were not produced again (of " +
              std::to_string(logged.size()) + ")";
  r.ok = failure.empty();
  r.divergence = failure;
  return r;
}

}  // namespace rfms
