// Verifying a realtime log. Its mail was timed by wall clocks: a J_MAIL that missed its period
// was not read, a joint read whichever sensors were latest. A lockstep re-run of the whole
// controller cannot reproduce that, but each core is a pure function of the mail it read, and
// the log says what that was: the supervisor's inbox each period (/rfms/timing), the sensors
// each J_MAIL was computed from (sensors_period), the torques each arm period integrated with
// (/rfms/applied). So each core runs again alone on exactly its logged inputs, and every mailbox
// it wrote must come out the same but for the send times the wall clock stamped.
//
// A lockstep or paced log whose run went on without some mail (a node paused, stalled or killed)
// is re-run the same way: such periods have a timing record saying what the supervisor read, and
// every other period read all its mail, of its own period.
#include <algorithm>
#include <map>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "arm_sim/arm_core.hpp"
#include "common/error.hpp"
#include "joint_node/joint_core.hpp"
#include "math_node/math_core.hpp"
#include "replay/log_index.hpp"
#include "replay/mail_compare.hpp"
#include "replay/verify.hpp"
#include "runlog/run_logger.hpp"
#include "supervisor/event_log.hpp"
#include "supervisor/supervisor.hpp"

namespace rfms {

namespace {

using Progress = std::function<void(std::uint64_t, std::uint64_t)>;
// A mailbox without its send time: the one field a re-run cannot reproduce.
template <class M>
std::string timeless(const M& m) {
  M copy = m;
  if constexpr (!std::is_same_v<M, proto::LogEvent>) copy.mutable_header()->clear_send_time_ns();
  if constexpr (std::is_same_v<M, proto::SMail>)
    if (copy.has_parcel()) copy.mutable_parcel()->mutable_header()->clear_send_time_ns();
  return copy.SerializeAsString();
}

struct Divergence {
  std::uint64_t period = 0;
  std::string what;
};

// One core's re-run: its first divergence, and how many messages matched. In a log the logger
// dropped messages from, an input that is not there ends the core's re-run without a verdict
// (`stopped`): its state past that point cannot be known.
struct Pass {
  explicit Pass(bool lossy = false) : lossy_(lossy) {}
  std::optional<Divergence> divergence, stopped;
  std::uint64_t compared = 0;

  Pass& fail(std::uint64_t k, std::string what) {
    divergence = Divergence{k, std::move(what)};
    return *this;
  }
  bool lossy() const { return lossy_; }
  Pass& missing(std::uint64_t k, std::string what) {
    if (!lossy_) return fail(k, std::move(what));
    stopped = Divergence{k, std::move(what)};
    return *this;
  }
  // An input the log cannot hold whatever the logger did: the re-run ends without a verdict.
  Pass& unknowable(std::uint64_t k, std::string what) {
    stopped = Divergence{k, std::move(what)};
    return *this;
  }
  template <class M>
  bool same(const char* topic, std::uint64_t k, std::uint32_t joint, const M& logged, const M& rerun) {
    const std::string a = timeless(logged), b = timeless(rerun);
    if (a == b) {
      ++compared;
      return true;
    }
    fail(k, "period " + std::to_string(k) + ", " + topic + (joint > 0 ? " joint " + std::to_string(joint) : "") + ": " +
                firstDifference(topic, a, b));
    return false;
  }

 private:
  bool lossy_;
};

std::string at(std::uint64_t k) { return "period " + std::to_string(k) + ": "; }

// What a lockstep period without a timing record read: the sensors of k, and the J_MAILs and
// PARCEL of k-1 (none at k = 0).
const proto::PeriodTiming& readEverything(std::uint64_t k, proto::PeriodTiming& t) {
  std::uint32_t used = 1u << proto::NODE_ARM;
  if (k > 0) {
    used |= 1u << proto::NODE_MATH;
    for (int j = 0; j < kJoints; ++j) used |= 1u << (proto::NODE_JOINT1 + j);
  }
  t.set_period(k);
  t.set_used(used);
  t.set_sensors_period(static_cast<std::int64_t>(k));
  return t;
}

// The supervisor's two sides as the cluster ran them: the background handled each logged request
// against the view of the period before `period - checked_lag`, and the period applied it at
// `period`. Between the two, the requests wait in a link of their own until their period.
class SupervisorRerun {
 public:
  SupervisorRerun(const RobotModel& model, const SupervisorConfig& config)
      : core_(model, config, link_), background_(model, config, ahead_) {}

  // A request, as the background took it; every logged request becomes one command.
  std::optional<proto::TaskReply> take(const proto::LogRequest& r) {
    std::optional<proto::TaskReply> reply;
    if (!r.desk_only()) reply = background_.handle(r.request());
    background_.commit("logged");
    return reply;
  }
  // Period in.period, applying the `due` oldest requests taken.
  void step(std::size_t due, const SupervisorInbox& in, SupervisorOutbox& out) {
    for (std::size_t n = 0; n < due && ahead_.commands.front() != nullptr; ++n) {
      link_.commands.push(*ahead_.commands.front());
      ahead_.commands.pop();
    }
    core_.step(in, out);
    core_.releaseCommands();
    ahead_.view.back() = link_.view.latest();
    ahead_.view.publish();
  }

 private:
  SupervisorLink link_, ahead_;
  SupervisorCore core_;
  SupervisorBackground background_;
};

Pass rerunSupervisor(const LogIndex& log, bool lossy, bool lockstep, const RobotModel& model, const Scene& scene,
                     const proto::ControllerSettings& c, std::uint64_t periods,
                     const std::function<void(std::uint64_t)>& tick) {
  Pass pass(lossy);
  SupervisorRerun core(model, supervisorConfigFor(c, scene));
  // Each request by the period before whose step the background took it, in the order taken.
  std::multimap<std::uint64_t, const proto::LogRequest*> taken;
  for (const auto& [period, r] : log.requests)
    taken.emplace(period >= r->checked_lag() ? period - r->checked_lag() : 0, r);
  SupervisorOutbox out;
  proto::PeriodTiming implied;
  for (std::uint64_t k = 0; k < periods; ++k) {
    tick(k);
    const auto [from, to] = taken.equal_range(k);
    for (auto it = from; it != to; ++it) {
      const std::optional<proto::TaskReply> reply = core.take(*it->second);
      if (!reply) continue;
      if (std::string why = replyDivergence(it->second->period(), *it->second, *reply); !why.empty())
        return pass.fail(k, why);
    }
    const auto timing = log.timing.find(k);
    if (timing == log.timing.end() && !lockstep)
      return pass.missing(k, at(k) + "no /rfms/timing record, which says what the supervisor read");
    const proto::PeriodTiming& t = timing != log.timing.end() ? *timing->second : readEverything(k, implied);
    auto read = [&](proto::Node n) { return ((t.used() >> n) & 1u) != 0; };
    SupervisorInbox in;
    in.period = k;
    if (read(proto::NODE_ARM)) {
      const auto s = log.sensors.find(static_cast<std::uint64_t>(t.sensors_period()));
      if (t.sensors_period() < 0 || s == log.sensors.end())
        return pass.missing(k, at(k) + "the supervisor read the arm's sensors of its period " +
                                   std::to_string(t.sensors_period()) + ", which are not in the log");
      in.arm = s->second;
    }
    for (std::uint32_t j = 1; j <= kJoints && k > 0; ++j) {
      if (!read(static_cast<proto::Node>(proto::NODE_JOINT1 + j - 1))) continue;
      const auto m = log.jmail.find({k - 1, j});
      if (m == log.jmail.end())
        return pass.missing(k, at(k) + "the supervisor read joint " + std::to_string(j) + "'s J_MAIL of period " +
                                   std::to_string(k - 1) + ", which is not in the log");
      in.joints[j - 1] = m->second;
    }
    if (k > 0 && read(proto::NODE_MATH)) {
      const auto p = log.parcel.find(k - 1);
      if (p == log.parcel.end())
        return pass.missing(k, at(k) + "the supervisor read the PARCEL of period " + std::to_string(k - 1) +
                                   ", which is not in the log");
      in.parcel = p->second;
    }
    core.step(log.requests.count(k), in, out);
    const auto smail = log.smail.find(k);
    const auto mmail = log.mmail.find(k);
    if (smail == log.smail.end() || mmail == log.mmail.end())
      return pass.missing(k, at(k) + "the log lacks the S_MAIL or M_MAIL the supervisor sent");
    if (!pass.same(topic::kSMail, k, 0, *smail->second, out.smail)) return pass;
    if (!pass.same(topic::kMMail, k, 0, *mmail->second, out.mmail)) return pass;
    const std::vector<proto::LogEvent> events = eventsOf(k, out);
    const auto logged = log.events.find(k);
    const std::size_t n = logged == log.events.end() ? 0 : logged->second.size();
    if (n != events.size())
      return pass.fail(k, at(k) + topic::kEvent + ": " + std::to_string(n) + " logged, " +
                              std::to_string(events.size()) + " re-run");
    for (std::size_t i = 0; i < n; ++i)
      if (!pass.same(topic::kEvent, k, 0, *logged->second[i], events[i])) return pass;
  }
  return pass;
}

Pass rerunMath(const LogIndex& log, bool lossy, const RobotModel& model, const Scene& scene,
               const proto::ControllerSettings& c) {
  Pass pass(lossy);
  MathCore math(model, mathConfigFor(model, c, scene.tool.frame));
  MathOutbox out;
  const proto::Parcel& parcel = out.parcel;
  // The math server answers every M_MAIL it gets, in order.
  std::optional<std::uint64_t> previous;
  for (const auto& [k, mmail] : log.mmail) {
    if (previous && k != *previous + 1)
      return pass.missing(*previous + 1, at(*previous + 1) + "the M_MAIL the math server read is not in the log");
    previous = k;
    math.step({*mmail}, out);
    const auto logged = log.parcel.find(k);
    if (logged != log.parcel.end() && !pass.same(topic::kParcel, k, 0, *logged->second, parcel)) return pass;
  }
  return pass;
}

Pass rerunJoint(const LogIndex& log, bool lossy, bool lockstep, const RobotModel& model, const JointServoConfig& servo,
                std::uint32_t j) {
  Pass pass(lossy);
  JointCore core(model, servo);
  JointOutbox out;
  const proto::JMail& jmail = out.jmail;
  const proto::TorqueCommand& torque = out.torque;
  std::uint64_t unanswered = 0, first_unanswered = 0;
  for (const auto& [k, smail] : log.smail) {
    const auto logged = log.jmail.find({k, j});
    const auto command = log.torque.find({k, j});
    if (logged == log.jmail.end() && command != log.torque.end() && lockstep) {
      // The arm had the joint's torque, the supervisor never read its J_MAIL (the run ended, or
      // the supervisor had gone on): in lockstep the joint answered from the sensors of the same
      // period, so its step is known and its torque checked.
      const auto sensors = log.sensors.find(k);
      if (sensors == log.sensors.end())
        return pass.missing(k, at(k) + "the arm's sensors of this period are not in the log");
      core.step({*smail, *sensors->second}, out);
      if (!pass.same(topic::kTorque, k, j, *command->second, torque)) return pass;
      continue;
    }
    if (logged == log.jmail.end()) {
      // The answer never reached the supervisor (the run ended, or it was lost), or the logger
      // dropped it: which, only a later answer's sequence number can tell.
      if (unanswered++ == 0) first_unanswered = k;
      continue;
    }
    // In a log the logger dropped mail from, a missing answer followed by a later one may be a
    // drop: the joint's state cannot be followed past it.
    if (unanswered > 0 && pass.lossy())
      return pass.missing(first_unanswered,
                          at(first_unanswered) + "joint " + std::to_string(j) + "'s J_MAIL is not in the log");
    const std::uint64_t read = logged->second->sensors_period();
    const auto sensors = log.sensors.find(read);
    if (sensors == log.sensors.end() && (log.sensors.empty() || read > log.sensors.rbegin()->first))
      // The arm was killed or paused while its sensors were on their way: the joint had them, the
      // supervisor (which logs them) never did, and the arm sent nothing after. What the joint
      // computed from them cannot be known from the log.
      return pass.unknowable(k, at(k) + "joint " + std::to_string(j) + " read the arm's sensors of its period " +
                                    std::to_string(read) + ", sent after the last the supervisor logged");
    if (sensors == log.sensors.end())
      return pass.missing(k, at(k) + "joint " + std::to_string(j) + " read the arm's sensors of its period " +
                                 std::to_string(logged->second->sensors_period()) + ", which are not in the log");
    core.step({*smail, *sensors->second}, out);
    if (!pass.same(topic::kJMail, k, j, *logged->second, jmail)) {
      if (unanswered > 0)
        pass.divergence->what += " (the log lacks this joint's answers to " + std::to_string(unanswered) +
                                 " earlier S_MAILs; if it answered them, its state moved on without the log)";
      return pass;
    }
    if (command != log.torque.end() && !pass.same(topic::kTorque, k, j, *command->second, torque)) return pass;
  }
  return pass;
}

Pass rerunArm(const LogIndex& log, bool lossy, bool lockstep, const RobotModel& model, const Scene& scene,
              const proto::ControllerSettings& c) {
  Pass pass(lossy);
  ArmCore arm(model, armConfigFor(model, c, scene));
  ArmOutbox sensed;
  const proto::ArmSensors& sensors = sensed.sensors;
  arm.sense(sensed.sensors);  // its power-up period's; each step senses the next
  for (std::uint64_t p = 0;; ++p) {
    const auto logged = log.sensors.find(p);
    if (logged != log.sensors.end() && !pass.same(topic::kSensors, p, 0, *logged->second, sensors)) return pass;
    const auto applied = log.applied.find(p);
    if (applied == log.applied.end() && lockstep && log.applied.empty()) {
      // An in-process log has no arm reports: its arm integrated each period with that period's
      // six commands, all of them there.
      std::array<const proto::TorqueCommand*, kJoints> commands{};
      for (std::uint32_t j = 1; j <= kJoints; ++j) {
        const auto command = log.torque.find({p, j});
        if (command == log.torque.end()) return pass;  // the log's last period
        commands[j - 1] = command->second;
      }
      arm.step({commands}, sensed);
      continue;
    }
    if (applied == log.applied.end()) break;  // the arm's last report in the log
    const proto::AppliedTorques& a = *applied->second;
    if (a.applied_period_size() != kJoints)
      return pass.fail(p, "arm period " + std::to_string(p) + ": its report names " +
                              std::to_string(a.applied_period_size()) + " joints' commands, not 6");
    std::array<const proto::TorqueCommand*, kJoints> commands{};
    for (std::uint32_t j = 1; j <= kJoints; ++j) {
      const std::int64_t q = a.applied_period(static_cast<int>(j - 1));
      if (q < 0) continue;
      const auto command = log.torque.find({static_cast<std::uint64_t>(q), j});
      if (command == log.torque.end())
        return pass.missing(p, "arm period " + std::to_string(p) + " applied joint " + std::to_string(j) +
                                   "'s command of period " + std::to_string(q) + ", which is not in the log");
      commands[j - 1] = command->second;
    }
    arm.step({commands}, sensed);
  }
  return pass;
}

}  // namespace

VerifyResult verifyEachCore(const RunLog& log, const RobotModel& model, const Scene& scene,
                            const proto::ControllerSettings& c, bool lockstep, const Progress& progress) {
  VerifyResult r;
  r.method = "each core re-run alone on the mail it read; send times not compared";
  const LogIndex index(log);
  if (index.timing.empty() && !lockstep)
    throw ConfigError("the log has no /rfms/timing records: it is not a realtime cluster log this tool can re-run");
  const std::uint64_t periods = log.periods();
  const std::uint64_t work = 2 * periods;
  std::vector<Pass> passes;
  // Mail the logger dropped, or that a log cut short never held, ends a core's re-run without a
  // verdict rather than counting as a divergence.
  const bool lossy = log.drops.dropped() > 0 || log.cut_short;
  const char* names[] = {"supervisor", "math", "joint 1", "joint 2", "joint 3", "joint 4", "joint 5", "joint 6", "arm"};
  passes.push_back(rerunSupervisor(index, lossy, lockstep, model, scene, c, periods, [&](std::uint64_t k) {
    if (progress && k % 1000 == 0) progress(k, work);
  }));
  passes.push_back(rerunMath(index, lossy, model, scene, c));
  for (std::uint32_t j = 1; j <= kJoints; ++j) {
    passes.push_back(rerunJoint(index, lossy, lockstep, model, jointConfigFor(model, c, static_cast<int>(j)), j));
    if (progress) progress(periods + j * periods / (kJoints + 1), work);
  }
  passes.push_back(rerunArm(index, lossy, lockstep, model, scene, c));
  if (progress) progress(work, work);

  // The earliest divergence of any core is where the run and its log first part ways.
  const Divergence* first = nullptr;
  if (log.drops.dropped() > 0) r.unchecked.push_back("dropped by the logger: " + dropsText(log.drops));
  for (std::size_t i = 0; i < passes.size(); ++i) {
    const Pass& p = passes[i];
    if (p.stopped && !p.divergence)
      r.unchecked.push_back(std::string(names[i]) + " checked up to period " + std::to_string(p.stopped->period) +
                            " only: " + p.stopped->what);
    r.compared += p.compared;
    if (p.divergence && (first == nullptr || p.divergence->period < first->period)) first = &*p.divergence;
  }
  r.periods = first != nullptr ? first->period : periods;
  const bool all_followed =
      std::none_of(passes.begin(), passes.end(), [](const Pass& p) { return p.stopped.has_value(); });
  if (first != nullptr) {
    r.divergence = first->what;
  } else if (!lossy && all_followed && r.compared != index.mailboxes()) {
    r.divergence = std::to_string(index.mailboxes() - r.compared) + " logged messages were not produced again (of " +
                   std::to_string(index.mailboxes()) + ")";
  }
  r.ok = r.divergence.empty();
  return r;
}

}  // namespace rfms
