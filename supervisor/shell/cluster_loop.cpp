#include "supervisor/shell/cluster_loop.hpp"

#include <chrono>
#include <sstream>
#include <thread>

#include "runtime/node_shell.hpp"
#include "supervisor/shell/background_loop.hpp"
#include "supervisor/task_summary.hpp"

namespace rfms {

namespace {
using Clock = PeriodClock::Clock;

std::int64_t systemNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void addToDigest(MailDigest& digest, const SupervisorInbox& in, const SupervisorOutbox& out) {
  if (in.arm != nullptr) digest.add(*in.arm);
  for (const proto::JMail* j : in.joints)
    if (j != nullptr) digest.add(*j);
  if (in.parcel != nullptr) digest.add(*in.parcel);
  digest.add(out.smail);
  digest.add(out.mmail);
}
}  // namespace

ClusterLoop::ClusterLoop(const ClusterSettings& s, Supervisor& supervisor, MailPort& port, ClusterStats& stats,
                         LogTap& tap, spdlog::logger& log)
    : NodeLoop(supervisor.core(), port, std::chrono::milliseconds(s.config.orphan_timeout_ms())),
      s_(s),
      supervisor_(supervisor),
      stats_(stats),
      tap_(tap),
      log_(log),
      clock_(s.config.clock(), sampleSeconds(s.config.controller())),
      collector_(s, port, stats, tap),
      background_(s, supervisor.background(), tap, log) {
  notice_.mutable_fault();  // made now: the first emergency must not allocate it in the period
}

// Requests, the script, the events' followers and the stop run beside the period, below it
// (BackgroundLoop).
void ClusterLoop::run(TaskScript* script, MailDigest* digest) {
  digest_ = digest;
  background_.begin(remote_, script, k_);
  NodeLoop::run();
  background_.end();
  stats_.ran(k_, core_.rtstate());
}

Gathered ClusterLoop::gather() {
  const PeriodClock::Begin begin = clock_.begin(k_);
  // The ticks a stalled supervisor slept through are its own misses in realtime; paced mode has
  // no deadlines.
  if (begin.skipped > 0 && s_.config.clock() == proto::CM_REALTIME) {
    stats_.missed(proto::NODE_SUPERVISOR, begin.skipped);
    background_.lateTicks(k_, begin.skipped);  // the background writes the line
  }
  in_ = SupervisorInbox{};
  in_.period = k_;
  tick_ = begin.tick;
  collector_.collect(k_, begin.tick, in_);
  // Lockstep and paced: the background prepares step k first. Should the link fill meanwhile,
  // its commands are applied now, under k, as the step itself would first.
  while (!background_.prepared(k_)) {
    core_.takeCommands();
    tap_.requests(k_, core_);
    core_.releaseCommands();
    background_.roomMade();
  }
  // As the harness: the script's end comes before this period's step.
  return background_.scriptDone() || background_.failed() ? Gathered::kFinished : Gathered::kReady;
}

// The mail out first; the log after it: serialising it must not delay the joints.
void ClusterLoop::publish(const SupervisorInbox& in, std::uint64_t k) {
  if (remote_ != nullptr) remote_->sample(k, in, out_);
  if (digest_ != nullptr) addToDigest(*digest_, in, out_);
  timing_ = send(out_, tick_);
  noticeFaults(out_);
}

// The requests the step took are logged before their records go back to the background.
void ClusterLoop::record(const SupervisorInbox& in, std::uint64_t k) {
  tap_.requests(k, core_);
  core_.releaseCommands();
  tap_.period(k, in, out_, timing_);
}

bool ClusterLoop::stepped(std::uint64_t k) {
  stats_.ran(k + 1, core_.rtstate());
  background_.stepped(k, out_, timing_.tick_ns);
  const bool done = finished(background_.stopping());
  ++k_;
  return !done;
}

bool ClusterLoop::finished(bool stopping) {
  if (period_limit_ > 0 && k_ + 1 >= period_limit_) return true;
  // Stopped: powered off, whether by the stop or by an emergency on the way. A few more periods
  // let the brakes lock every joint before the nodes are told to exit.
  if (!stopping || (core_.rtstate() != proto::RT_IDLE && core_.rtstate() != proto::RT_EMGCY)) return false;
  if (powered_off_at_ == 0) powered_off_at_ = k_;
  return k_ >= powered_off_at_ + kBrakePeriods;
}

LogTap::Timing ClusterLoop::send(SupervisorOutbox& out, Clock::time_point tick) {
  LogTap::Timing timing;
  timing.lateness_ms = collector_.lateness();
  timing.missed = collector_.missed();
  const bool realtime = !waitsForMail(s_.config.clock());
  if (realtime) {
    out.smail.mutable_header()->set_send_time_ns(systemNs());
    out.mmail.mutable_header()->set_send_time_ns(out.smail.header().send_time_ns());
    const double late = std::chrono::duration<double, std::milli>(Clock::now() - tick).count();
    stats_.late(proto::NODE_SUPERVISOR, late);
    timing.lateness_ms[proto::NODE_SUPERVISOR] = late;
    // Sending after the period is over is the supervisor's own deadline miss.
    if (late > s_.config.controller().dt_ms()) {
      stats_.missed(proto::NODE_SUPERVISOR);
      timing.missed |= 1u << proto::NODE_SUPERVISOR;
    }
  }
  stats_.bytes(publishMail(port_, Box::kSMail, smail_, &proto::Envelope::mutable_smail, out.smail, k_) * kJoints);
  stats_.bytes(publishMail(port_, Box::kMMail, mmail_, &proto::Envelope::mutable_mmail, out.mmail, k_));
  if (realtime)
    timing.tick_ns = systemNs() - std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - tick).count();
  return timing;
}

void ClusterLoop::noticeFaults(const SupervisorOutbox& out) {
  for (int n = 0; n < out.event_count; ++n) {
    const SupervisorEvent& e = out.events[static_cast<std::size_t>(n)];
    if (e.kind != SupervisorEvent::kEmergency) continue;
    proto::FaultNotice& f = *notice_.mutable_fault();
    f.set_period(e.period);
    f.set_reason(e.reason);
    f.set_node(e.node);
    port_.publish(Box::kControl, notice_, k_);
  }
}

void ClusterLoop::stopCluster(const std::string& reason) {
  proto::Envelope stop;
  stop.mutable_stop()->set_reason(reason);
  port_.publish(Box::kControl, stop, k_);
  port_.deliverBeforeClosing();
  log_.info("stopped the cluster after {} periods: {}", k_, reason);
}

std::string scriptSummaryText(const ScriptLog& l, const ClusterLoop& loop, const ClusterStats& stats,
                              const RobotModel& model) {
  std::ostringstream o;
  o << "periods: " << loop.periods() << (l.calibrated ? ", calibrated" : ", NOT calibrated")
    << (l.timed_out ? ", TIMED OUT" : "") << "\n";
  // The cluster has no true arm to look at: the final error is the encoders'.
  writeSummaryText(o, l, loop.dt(),
                   finalError(l, loop.supervisor().world(), loop.core().world(), model, loop.core().observedAngles()));
  o << "mail that missed its period:";
  for (proto::Node n : kAnsweringNodes) o << ' ' << nodeName(n) << '=' << stats.misses(n);
  o << "\n";
  return o.str();
}

std::string scriptSummaryJson(const ScriptLog& l, const ClusterLoop& loop, const ClusterStats& stats,
                              const RobotModel& model) {
  std::ostringstream o;
  o.precision(17);
  o << "{\"sim_time_s\":" << static_cast<double>(loop.periods()) * loop.dt() << ",\"periods\":" << loop.periods()
    << ",\"misses\":{";
  for (std::size_t i = 0; i < kAnsweringNodes.size(); ++i)
    o << (i ? "," : "") << '"' << nodeName(kAnsweringNodes[i]) << "\":" << stats.misses(kAnsweringNodes[i]);
  o << "},";
  writeSummaryJson(o, l, loop.dt(),
                   finalError(l, loop.supervisor().world(), loop.core().world(), model, loop.core().observedAngles()));
  o << "}";
  return o.str();
}

}  // namespace rfms
