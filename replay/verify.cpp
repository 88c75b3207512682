#include "replay/verify.hpp"

#include <google/protobuf/util/message_differencer.h>

#include <map>
#include <memory>

#include "common/error.hpp"
#include "common/robot_model_loader.hpp"
#include "runlog/run_logger.hpp"
#include "sim/run_recording.hpp"

namespace rfms {

namespace {

std::unique_ptr<google::protobuf::Message> emptyOf(const std::string& t) {
  if (t == topic::kSMail) return std::make_unique<proto::SMail>();
  if (t == topic::kJMail) return std::make_unique<proto::JMail>();
  if (t == topic::kMMail) return std::make_unique<proto::MMail>();
  if (t == topic::kParcel) return std::make_unique<proto::Parcel>();
  if (t == topic::kSensors) return std::make_unique<proto::ArmSensors>();
  if (t == topic::kTorque) return std::make_unique<proto::TorqueCommand>();
  if (t == topic::kEvent) return std::make_unique<proto::LogEvent>();
  return nullptr;
}

// The first field in which two serialised messages of `topic` differ, for a person.
std::string firstDifference(const std::string& topic, const std::string& logged, const std::string& rerun) {
  auto a = emptyOf(topic), b = emptyOf(topic);
  if (!a || !a->ParseFromString(logged) || !b->ParseFromString(rerun)) return "the messages differ";
  std::string report;
  google::protobuf::util::MessageDifferencer d;
  d.ReportDifferencesToString(&report);
  if (d.Compare(*a, *b)) return "the same fields, serialised differently";
  const auto end = report.find('\n');
  return "logged vs re-run: " + report.substr(0, end);
}

// Records into memory what recordPeriod would write into a log.
class Collector {
 public:
  void add(const char* topic, const google::protobuf::Message& m) { items.emplace_back(topic, m.SerializeAsString()); }
  std::vector<std::pair<std::string, std::string>> items;
};

}  // namespace

VerifyResult verifyLog(const RunLog& log, const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  VerifyResult r;
  const auto model_text = log.header.find("robot_model");
  if (model_text == log.header.end() || model_text->second.empty())
    throw ConfigError("the log does not carry its robot model: it cannot be re-run");
  if (log.header.find("harness.dt_s") == log.header.end())
    throw ConfigError("the log does not carry the controller's settings (harness.*): it cannot be re-run");
  const RobotModel model = parseRobotModel(model_text->second, "the log's robot model");
  Harness h(model, harnessConfigFrom(log.header));

  std::multimap<std::uint64_t, const proto::LogRequest*> requests;
  for (const auto& q : log.requests) requests.emplace(q.period(), &q);
  const std::uint64_t periods = log.smail.size();

  std::size_t next = 0;  // the next logged message to compare
  std::string failure;
  // Compare what a period produced with the log, message by message, in logged order.
  auto compare = [&](const std::vector<std::pair<std::string, std::string>>& produced, std::uint64_t k) {
    for (const auto& [topic, bytes] : produced) {
      if (!failure.empty()) return;
      if (next >= log.sequence.size()) {
        failure = "period " + std::to_string(k) + ": the re-run produced " + topic + " beyond the end of the log";
        return;
      }
      const auto& [logged_topic, logged] = log.sequence[next];
      if (logged_topic != topic) {
        failure = "period " + std::to_string(k) + ": the log has " + logged_topic + " where the re-run has " + topic;
        return;
      }
      if (logged != bytes) {
        failure = "period " + std::to_string(k) + ", " + topic + ": " + firstDifference(topic, logged, bytes);
        return;
      }
      ++next;
      ++r.compared;
    }
  };
  h.on_period = [&](const PeriodMail& m) {
    Collector c;
    if (m.sensors) c.add(topic::kSensors, *m.sensors);
    if (m.smail) c.add(topic::kSMail, *m.smail);
    if (m.mmail) c.add(topic::kMMail, *m.mmail);
    if (m.parcel) c.add(topic::kParcel, *m.parcel);
    for (const auto* j : m.jmail)
      if (j) c.add(topic::kJMail, *j);
    for (const auto* t : m.torque)
      if (t) c.add(topic::kTorque, *t);
    if (m.supervisor)
      for (const auto& e : eventsOf(m.k, *m.supervisor)) c.add(topic::kEvent, e);
    compare(c.items, m.k);
  };
  for (std::uint64_t k = 0; k < periods && failure.empty(); ++k) {
    const auto [from, to] = requests.equal_range(k);
    for (auto it = from; it != to && failure.empty(); ++it) {
      const proto::TaskReply reply = h.request(it->second->request());
      if (reply.SerializeAsString() != it->second->reply().SerializeAsString())
        failure = "period " + std::to_string(k) + ", the answer to request " + std::to_string(it->second->request().id()) +
                  ": " + (reply.accepted() == it->second->reply().accepted()
                              ? "differs (" + reply.reason() + " vs " + it->second->reply().reason() + ")"
                              : std::string(it->second->reply().accepted() ? "accepted then, refused now: " + reply.reason()
                                                                          : "refused then, accepted now"));
    }
    if (!failure.empty()) break;
    h.step();
    ++r.periods;
    if (progress && k % 1000 == 0) progress(k, periods);
  }
  if (failure.empty() && next != log.sequence.size())
    failure = "the log holds " + std::to_string(log.sequence.size() - next) + " more messages than the re-run produced";
  r.ok = failure.empty();
  r.divergence = failure;
  return r;
}

}  // namespace rfms
