#include "replay/verify.hpp"

#include "common/error.hpp"
#include "common/mail_names.hpp"
#include "common/robot_model_loader.hpp"
#include "harness/run_recording.hpp"
#include "replay/log_index.hpp"
#include "replay/mail_compare.hpp"
#include "runlog/run_logger.hpp"

namespace rfms {

namespace {

// The lockstep re-run of the whole controller in one process. Messages are matched by mailbox,
// period and joint (events by their place among the period's): a cluster's supervisor logs the
// J_MAILs and PARCEL of k-1 in its period k and the arm's torques when the arm reports them, the
// harness logs everything of period k together; matching by key compares the two whatever the
// order, and whatever a log lacks.
class LockstepCheck {
 public:
  explicit LockstepCheck(const LogIndex& log) : log_(log) {}

  void period(const PeriodMail& m) {
    if (m.sensors) compare(topic::kSensors, log_.sensors, m.sensors->header().period(), *m.sensors);
    if (m.smail) compare(topic::kSMail, log_.smail, m.k, *m.smail);
    if (m.mmail) compare(topic::kMMail, log_.mmail, m.k, *m.mmail);
    if (m.parcel) compare(topic::kParcel, log_.parcel, m.k, *m.parcel);
    for (const proto::JMail* j : m.jmail)
      if (j) compare(topic::kJMail, log_.jmail, JointKey{m.k, j->joint()}, *j);
    for (const proto::TorqueCommand* t : m.torque)
      if (t) compare(topic::kTorque, log_.torque, JointKey{m.k, t->joint()}, *t);
    if (!m.supervisor) return;
    const auto logged = log_.events.find(m.k);
    const std::vector<proto::LogEvent> events = eventsOf(m.k, *m.supervisor);
    for (std::size_t i = 0; i < events.size() && logged != log_.events.end() && i < logged->second.size(); ++i)
      same(topic::kEvent, m.k, 0, *logged->second[i], events[i]);
  }
  void fail(std::string why) {
    if (failure_.empty()) failure_ = std::move(why);
  }
  const std::string& failure() const { return failure_; }
  std::uint64_t compared() const { return compared_; }

 private:
  template <class Key, class M>
  void compare(const char* topic, const std::map<Key, const M*>& logged, const Key& key, const M& rerun) {
    const auto it = logged.find(key);
    if (it == logged.end()) return;  // not in this log (the arm's last report came after the end)
    std::uint32_t joint = 0;
    std::uint64_t k = 0;
    if constexpr (std::is_same_v<Key, JointKey>)
      k = key.first, joint = key.second;
    else
      k = key;
    same(topic, k, joint, *it->second, rerun);
  }
  void same(const char* topic, std::uint64_t k, std::uint32_t joint, const google::protobuf::Message& logged,
            const google::protobuf::Message& rerun) {
    if (!failure_.empty()) return;
    // A parsed message serialises to the bytes it was parsed from: comparing the serialisations
    // is comparing the bytes in the log, every bit of every double.
    const std::string a = logged.SerializeAsString(), b = rerun.SerializeAsString();
    if (a == b) {
      ++compared_;
      return;
    }
    fail("period " + std::to_string(k) + ", " + topic + (joint > 0 ? " joint " + std::to_string(joint) : "") + ": " +
         firstDifference(topic, a, b));
  }

  const LogIndex& log_;
  std::string failure_;
  std::uint64_t compared_ = 0;
};

}  // namespace

std::string dropsText(const proto::LogDrops& drops) {
  std::string text = std::to_string(drops.dropped()) + " messages";
  for (int i = 0; i < drops.per_topic_size(); ++i)
    text += (i == 0 ? " (" : ", ") + drops.per_topic(i).topic() + " " + std::to_string(drops.per_topic(i).dropped());
  return text + (drops.per_topic_size() > 0 ? ")" : "");
}

namespace {

VerifyResult rerunAndCompare(const RunLog& log, const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  if (log.first_file > 0)
    throw ConfigError("the run's first " + std::to_string(log.first_file) +
                      " log files were removed (log.keep_files): a re-run needs the run from its start");
  VerifyResult r;
  const LoggedArm arm = loggedArm(log);
  const proto::ControllerSettings& settings = log.requireSettings();
  const RobotModel model = withTool(arm.model, arm.scene.tool);
  std::uint64_t periods = 0;
  try {
    periods = log.periods();
  } catch (const ConfigError& e) {
    r.divergence = e.what();
    return r;
  }
  if (periods == 0) {
    r.divergence = "the log holds no S_MAIL: there is nothing to re-run and compare";
    return r;
  }
  const auto clock = log.header.find("clock");
  if (clock != log.header.end() && clock->second == "realtime")
    return verifyEachCore(log, model, arm.scene, settings, false, progress);
  // A lockstep or paced period whose mail did not all come in time (a node paused, stalled or
  // dead) went on without it; a lockstep re-run of the whole controller would have all of it. Each
  // core re-run on what it read checks such a run to its end.
  for (const proto::PeriodTiming& t : log.timing)
    if (t.missed() != 0 && t.period() < periods) {
      std::string nodes;
      for (int n = 0; n < 32; ++n)
        if ((t.missed() >> n) & 1u)
          nodes += (nodes.empty() ? "" : ", ") + std::string(nodeName(static_cast<proto::Node>(n)));
      VerifyResult each = verifyEachCore(log, model, arm.scene, settings, true, progress);
      each.method += " (from period " + std::to_string(t.period()) + " the run went on without the mail of " + nodes +
                     ", which a lockstep re-run of the whole controller cannot repeat)";
      return each;
    }
  // Likewise an arm that stepped without a joint's command of its period (a torque that came after
  // the arm's wait, its J_MAIL in time): the arm's report in the log says which.
  for (const proto::AppliedTorques& a : log.applied)
    for (int j = 0; j < a.applied_period_size(); ++j)
      if (a.applied_period(j) != static_cast<std::int64_t>(a.header().period()) && a.header().period() < periods) {
        VerifyResult each = verifyEachCore(log, model, arm.scene, settings, true, progress);
        each.method += " (at period " + std::to_string(a.header().period()) + " the arm stepped without joint " +
                       std::to_string(j + 1) + "'s command of that period, which a lockstep re-run of the " +
                       "whole controller cannot repeat)";
        return each;
      }
  r.method = "the whole controller re-run in lockstep";
  Harness h(arm.model, settings, arm.scene);
  const LogIndex index(log);
  LockstepCheck check(index);
  h.on_period = [&](const PeriodMail& m) { check.period(m); };
  for (std::uint64_t k = 0; k < periods && check.failure().empty(); ++k) {
    const auto [from, to] = index.requests.equal_range(k);
    for (auto it = from; it != to; ++it) {
      if (it->second->desk_only()) continue;  // the remote desk answered; the core never saw it
      check.fail(replyDivergence(k, *it->second, h.request(it->second->request())));
    }
    if (!check.failure().empty()) break;
    h.step();
    ++r.periods;
    if (progress && k % 1000 == 0) progress(k, periods);
  }
  r.compared = check.compared();
  r.divergence = check.failure();
  // The lockstep re-run needs only the requests; what else was dropped is simply not compared.
  if (log.drops.dropped() > 0) r.unchecked.push_back("dropped by the logger, so not compared: " + dropsText(log.drops));
  if (r.divergence.empty() && r.unchecked.empty() && !log.cut_short && r.compared != index.mailboxes())
    r.divergence = std::to_string(index.mailboxes() - r.compared) + " logged messages were not produced again (of " +
                   std::to_string(index.mailboxes()) + ")";
  r.ok = r.divergence.empty();
  return r;
}

}  // namespace

VerifyResult verifyLog(const RunLog& log, const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  VerifyResult r = rerunAndCompare(log, progress);
  // A log cut short holds the run up to its cut: checked that far, and said so.
  if (log.cut_short)
    r.unchecked.push_back("the run after the log's end: its writer stopped before closing the file (" + log.error +
                          ")");
  return r;
}

}  // namespace rfms
