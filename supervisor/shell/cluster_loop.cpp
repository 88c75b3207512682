#include "supervisor/shell/cluster_loop.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <numbers>
#include <sstream>
#include <thread>

#include "common/kinematics.hpp"

namespace rfms {

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

ClusterLoop::ClusterLoop(const ClusterSettings& s, SupervisorCore& core, zmq::socket_t& pub, zmq::socket_t& pull,
                         zmq::socket_t& arm, spdlog::logger& log)
    : s_(s), core_(core), pub_(pub), pull_(pull), arm_(arm), log_(log) {
  if (s.config.clock() == proto::CM_REALTIME)
    for (auto& v : lateness_) v.reserve(1u << 20);  // an hour at 1 kHz would outgrow it; that is fine
}

void ClusterLoop::record(proto::Node node, double ms) {
  period_late_[static_cast<std::size_t>(node)] = ms;
  auto& v = lateness_[static_cast<std::size_t>(node)];
  if (v.size() < v.capacity()) v.push_back(static_cast<float>(ms));
}

void ClusterLoop::gatherRealtime(std::uint64_t k, Clock_time_point deadline, Clock_time_point previous_tick,
                                 SupervisorInbox& in) {
  // Collect until the tick, timing each answer against the tick that asked for it. The wait ends
  // in short sleeps, then a spin: zmq_poll counts in milliseconds, the period may be 0.5 ms.
  bool have_sensors = false, have_parcel = false;
  std::array<bool, kJoints> have_joint{};
  auto since = [&] { return std::chrono::duration<double, std::milli>(Clock::now() - previous_tick).count(); };
  for (;;) {
    while (receive(arm_, in_, 0)) {
      if (in_.has_applied()) {
        bytes_ += in_.ByteSizeLong();  // the arm's report, sent only when the run is logged
        logApplied(*in_.mutable_applied());
      }
      if (!in_.has_sensors()) continue;
      bytes_ += static_cast<std::uint64_t>(in_.ByteSizeLong()) * (kJoints + 1);  // to 6 joints and here
      // Realtime logs hold every mail as it came, used or not: the joints read sensors the
      // supervisor skipped, and re-running each core needs exactly what it read.
      if (log_file_ != nullptr) log_file_->log(topic::kSensors, in_.sensors().header().period(), in_.sensors());
      sensors_.Swap(&in_);
      have_sensors = true;
    }
    while (receive(pull_, in_, 0)) {
      if (k == 0) continue;
      bytes_ += in_.ByteSizeLong();
      if (log_file_ != nullptr) {
        if (in_.has_jmail()) log_file_->log(topic::kJMail, in_.jmail().header().period(), in_.jmail());
        if (in_.has_parcel()) log_file_->log(topic::kParcel, in_.parcel().header().period(), in_.parcel());
      }
      if (in_.has_jmail() && in_.jmail().header().period() == k - 1) {
        const int j = static_cast<int>(in_.jmail().joint()) - 1;
        if (j < 0 || j >= kJoints) continue;
        jmail_[static_cast<std::size_t>(j)].Swap(&in_);
        have_joint[static_cast<std::size_t>(j)] = true;
        record(static_cast<proto::Node>(proto::NODE_JOINT1 + j), since());
        // The same joint also sent its torque to the arm: count it on the wire.
        bytes_ += 24;
      } else if (in_.has_parcel() && in_.parcel().header().period() == k - 1) {
        parcel_.Swap(&in_);
        have_parcel = true;
        record(proto::NODE_MATH, since());
      }
    }
    const auto left = deadline - Clock::now();
    if (left <= Clock::duration::zero()) break;
    // No spinning: on two cores with nine processes a spinning clock takes the CPU the joints need.
    if (left > std::chrono::microseconds(1500)) pollAny({&arm_, &pull_}, 1);
    else std::this_thread::sleep_for(std::min<Clock::duration>(left, std::chrono::microseconds(50)));
  }
  // The arm keeps its own clock, so its publications drift against the ticks: a window without
  // one is normal jitter; two in a row is a miss. The latest sensors are used either way.
  arm_quiet_ = have_sensors ? 0 : arm_quiet_ + 1;
  const bool arm_fresh = sensors_.has_sensors() && arm_quiet_ < 2;
  in.arm = arm_fresh ? &sensors_.sensors() : nullptr;
  if (!arm_fresh) ++misses_[proto::NODE_ARM];
  for (int j = 0; j < kJoints; ++j) {
    const auto i = static_cast<std::size_t>(j);
    in.joints[i] = have_joint[i] ? &jmail_[i].jmail() : nullptr;
    if (k > 0 && !have_joint[i]) ++misses_[proto::NODE_JOINT1 + i];
  }
  in.parcel = have_parcel ? &parcel_.parcel() : nullptr;
  if (k > 0 && !have_parcel) ++misses_[proto::NODE_MATH];
}

ClusterLoop::Lateness ClusterLoop::lateness(proto::Node node) const {
  std::vector<float> v = lateness_[static_cast<std::size_t>(node)];
  Lateness l;
  l.samples = v.size();
  if (v.empty()) return l;
  std::sort(v.begin(), v.end());
  auto at = [&](double q) { return static_cast<double>(v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))]); };
  l.p50 = at(0.5);
  l.p99 = at(0.99);
  l.p999 = at(0.999);
  l.max = static_cast<double>(v.back());
  return l;
}

std::string ClusterLoop::statusText() const {
  std::ostringstream o;
  char buf[200];
  std::snprintf(buf, sizeof buf, "period %llu, state %s, %.0f bytes/period\n", static_cast<unsigned long long>(k_),
                proto::RtState_Name(core_.rtstate()).substr(3).c_str(), bytesPerPeriod());
  o << buf;
  for (proto::Node n : {proto::NODE_SUPERVISOR, proto::NODE_ARM, proto::NODE_MATH, proto::NODE_JOINT1, proto::NODE_JOINT2,
                        proto::NODE_JOINT3, proto::NODE_JOINT4, proto::NODE_JOINT5, proto::NODE_JOINT6}) {
    const Lateness l = lateness(n);
    std::snprintf(buf, sizeof buf, "  %-10s misses %8llu  lateness ms p50 %.3f p99 %.3f max %.3f\n", nodeName(n),
                  static_cast<unsigned long long>(misses_[static_cast<std::size_t>(n)]), l.p50, l.p99, l.max);
    o << buf;
  }
  if (log_file_ != nullptr) {
    // Never silent: what the run log had to drop shows here as it happens.
    std::snprintf(buf, sizeof buf, "  run log    %llu messages written, %llu dropped\n",
                  static_cast<unsigned long long>(log_file_->written()), static_cast<unsigned long long>(log_file_->dropped()));
    o << buf;
  }
  return o.str();
}

std::string ClusterLoop::statsJson() const {
  std::ostringstream o;
  o << "{\"periods\":" << k_ << ",\"bytes_per_period\":" << bytesPerPeriod() << ",\"nodes\":{";
  bool first = true;
  for (proto::Node n : {proto::NODE_SUPERVISOR, proto::NODE_ARM, proto::NODE_MATH, proto::NODE_JOINT1, proto::NODE_JOINT2,
                        proto::NODE_JOINT3, proto::NODE_JOINT4, proto::NODE_JOINT5, proto::NODE_JOINT6}) {
    const Lateness l = lateness(n);
    o << (first ? "" : ",") << '"' << nodeName(n) << "\":{\"misses\":" << misses_[static_cast<std::size_t>(n)]
      << ",\"p50_ms\":" << l.p50 << ",\"p99_ms\":" << l.p99 << ",\"p999_ms\":" << l.p999 << ",\"max_ms\":" << l.max << "}";
    first = false;
  }
  o << "}}";
  return o.str();
}

void ClusterLoop::gather(std::uint64_t k, SupervisorInbox& in) {
  const bool lockstep = waitsForMail(s_.config.clock());
  bool have_sensors = false, have_parcel = false;
  std::array<bool, kJoints> have_joint{};
  // A node silent for the watchdog's N periods is not waited for any more: the watchdog has
  // already named it, and waiting would only slow the emergency stop.
  const std::uint64_t n = s_.config.controller().watchdog_periods();
  auto gone = [&](proto::Node node) { return silent_[static_cast<std::size_t>(node)] >= n; };
  auto complete = [&] {
    if (!have_sensors && !gone(proto::NODE_ARM)) return false;
    if (k == 0) return true;
    for (int j = 0; j < kJoints; ++j)
      if (!have_joint[static_cast<std::size_t>(j)] && !gone(static_cast<proto::Node>(proto::NODE_JOINT1 + j)))
        return false;
    return have_parcel || gone(proto::NODE_MATH);
  };
  const auto deadline = Clock::now() + std::chrono::milliseconds(lockstep ? s_.config.lockstep_timeout_ms() : 0);
  for (;;) {
    while (receive(arm_, in_, 0)) {
      if (in_.has_applied()) logApplied(*in_.mutable_applied());
      // Lockstep: the sensors of this period; realtime: the latest.
      if (in_.has_sensors() && (!lockstep || in_.sensors().header().period() == k)) {
        sensors_.Swap(&in_);
        have_sensors = true;
      }
    }
    while (receive(pull_, in_, 0)) {
      if (k == 0) continue;
      if (in_.has_jmail() && in_.jmail().header().period() == k - 1) {
        const int j = static_cast<int>(in_.jmail().joint()) - 1;
        if (j >= 0 && j < kJoints) {
          jmail_[static_cast<std::size_t>(j)].Swap(&in_);
          have_joint[static_cast<std::size_t>(j)] = true;
        }
      } else if (in_.has_parcel() && in_.parcel().header().period() == k - 1) {
        parcel_.Swap(&in_);
        have_parcel = true;
      }
    }
    // A stop signal does not cut the wait short: the stop is a sequence of ordinary periods.
    if (complete() || !lockstep) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) break;
    pollAny({&arm_, &pull_}, static_cast<int>(std::min<long>(left, 50)));
  }
  auto count = [&](proto::Node node, bool arrived) {
    const auto i = static_cast<std::size_t>(node);
    if (arrived) {
      silent_[i] = 0;
    } else {
      ++misses_[i];
      ++silent_[i];
    }
  };
  in.arm = have_sensors ? &sensors_.sensors() : nullptr;
  count(proto::NODE_ARM, have_sensors);
  for (int j = 0; j < kJoints; ++j) {
    const auto i = static_cast<std::size_t>(j);
    in.joints[i] = have_joint[i] ? &jmail_[i].jmail() : nullptr;
    if (k > 0) count(static_cast<proto::Node>(proto::NODE_JOINT1 + j), have_joint[i]);
  }
  in.parcel = have_parcel ? &parcel_.parcel() : nullptr;
  if (k > 0) count(proto::NODE_MATH, have_parcel);
}

void ClusterLoop::logEvents(const SupervisorOutbox& out) {
  for (int n = 0; n < out.event_count; ++n) {
    const SupervisorEvent& e = out.events[static_cast<std::size_t>(n)];
    switch (e.kind) {
      case SupervisorEvent::kStateChanged:
        log_.info("period {}: state {}", e.period, proto::RtState_Name(e.state).substr(3));
        break;
      case SupervisorEvent::kEmergency:
        log_.error("period {}: EMGCY: {} ({})", e.period, describe(e.reason), nodeName(e.node));
        break;
      case SupervisorEvent::kMoveStarted: log_.info("period {}: move #{} started", e.period, e.move_id); break;
      case SupervisorEvent::kMoveCompleted: log_.info("period {}: move #{} completed", e.period, e.move_id); break;
      case SupervisorEvent::kMoveAborted: log_.warn("period {}: move #{} aborted", e.period, e.move_id); break;
    }
  }
}

void ClusterLoop::logRequest(const proto::TaskRequest& request, const proto::TaskReply& reply, bool desk_only) {
  if (log_file_ != nullptr) rfms::logRequest(*log_file_, k_, request, reply, desk_only);
}

void ClusterLoop::logApplied(proto::AppliedTorques& a) {
  if (log_file_ == nullptr) return;
  // The commands on the torque channel, each at its own period as the harness logs them; the
  // report itself keeps only which command drove each joint.
  for (const proto::TorqueCommand& t : a.received()) log_file_->log(topic::kTorque, t.header().period(), t);
  a.clear_received();
  log_file_->log(topic::kApplied, a.header().period(), a);
}

void ClusterLoop::serveRemote() {
  // Requests that arrived since the last period, a bounded number of them so that a flood cannot
  // hold up the period (the bridge's queue holds the rest, and its clients wait for answers).
  for (int n = 0; n < 64; ++n) {
    zmq::message_t identity, payload;
    if (!tasks_->recv(identity, zmq::recv_flags::dontwait)) return;
    if (!identity.more() || !tasks_->recv(payload, zmq::recv_flags::dontwait)) continue;
    if (!remote_in_.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
      log_.warn("task endpoint: a message that does not parse; dropped");
      continue;
    }
    remote_out_.Clear();
    if (remote_in_.has_task_request()) {
      proto::TaskReply& r = *remote_out_.mutable_task_reply();
      bool reached_core = false;
      r = desk_->accept(remote_in_.task_request(), core_, k_, &reached_core);
      // This period's step computes the first setpoints that see it (at an update instant).
      if (remote_in_.task_request().arrived_ns() > 0) {
        const auto now = std::chrono::system_clock::now().time_since_epoch();
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now).count();
        r.set_arrival_to_setpoint_ms(static_cast<double>(ns - remote_in_.task_request().arrived_ns()) * 1e-6);
      }
      if (!r.accepted())
        log_.info("remote request {} of session {:x} refused: {}", r.number(), r.session(), r.reason());
      logRequest(remote_in_.task_request(), r, !reached_core);
    } else if (remote_in_.has_status_request()) {
      desk_->status(core_, k_, *remote_out_.mutable_status());
      remote_out_.mutable_status()->set_session(remote_in_.status_request().session());
    } else {
      continue;
    }
    remote_out_.SerializeToString(&buffer_);
    tasks_->send(identity, zmq::send_flags::sndmore);
    tasks_->send(zmq::buffer(buffer_), zmq::send_flags::dontwait);
  }
}

void ClusterLoop::run(TaskScript* script, MailDigest* digest) {
  const bool lockstep = waitsForMail(s_.config.clock());
  const bool paced = s_.config.clock() == proto::CM_PACED;
  const auto period = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(sampleSeconds(s_.config.controller())));
  auto t0 = Clock::now();
  SupervisorOutbox out;
  bool stopping = false, power_off_sent = false;
  Clock::time_point stop_deadline;
  auto last_status = Clock::now();
  for (;; ++k_) {
    SupervisorInbox in;
    auto tick = t0 + static_cast<Clock::rep>(k_) * period;
    if ((!lockstep || paced) && Clock::now() > tick + period) {
      // The supervisor fell behind (the machine stalled it, or in paced mode anyone). Catching up
      // in a burst would give every node no time to answer (realtime) or run the arm faster
      // than life (paced), so the clock moves on from now instead. In realtime the ticks slept
      // through are the supervisor's own misses; paced mode has no deadlines.
      const auto behind = (Clock::now() - tick) / period;
      t0 += behind * period;
      tick += behind * period;
      if (!paced) {
        misses_[proto::NODE_SUPERVISOR] += static_cast<std::uint64_t>(behind);
        log_.warn("period {}: {} tick(s) late; skipped", k_, behind);
      }
    }
    if (paced) std::this_thread::sleep_until(tick);
    period_late_.fill(-1.0);
    misses_before_ = misses_;
    if (lockstep) gather(k_, in);
    else gatherRealtime(k_, tick, tick - period, in);

    if (stopRequested() && !stopping) {
      // Bring the arm to rest before leaving: stop the motion, then switch the power off.
      stopping = true;
      stop_deadline = Clock::now() + std::chrono::seconds(5);
      log_.info("stop requested: bringing the arm to rest");
      proto::TaskRequest stop;
      stop.mutable_control()->set_command(proto::CC_STOP);
      logRequest(stop, core_.handle(stop), false);
    }
    if (stopping && !power_off_sent) {
      // At rest, or 5 s gone (a stop that cannot finish must not hold the power on).
      const bool at_rest = core_.rtstate() != proto::RT_SETP && core_.rtstate() != proto::RT_STOP;
      if (at_rest || Clock::now() > stop_deadline) {
        proto::TaskRequest off;
        off.mutable_control()->set_command(proto::CC_POWER_OFF);
        logRequest(off, core_.handle(off), false);
        power_off_sent = true;
      }
    }
    if (tasks_ != nullptr && !stopping) serveRemote();
    if (script != nullptr && !stopping) {
      script->beforeStep(k_, core_);
      if (script->done()) return;  // as the harness: the script ends before this period's step
    }
    core_.step(k_, in, out);
    if (script != nullptr) script->afterStep(k_, core_, out);
    logEvents(out);
    if (desk_ != nullptr) desk_->observe(out);

    if (digest != nullptr) {
      if (in.arm != nullptr) digest->add(*in.arm);
      for (const proto::JMail* j : in.joints)
        if (j != nullptr) digest->add(*j);
      if (in.parcel != nullptr) digest->add(*in.parcel);
      digest->add(out.smail);
      digest->add(out.mmail);
    }
    if (!lockstep) {
      const auto now = std::chrono::system_clock::now().time_since_epoch();
      out.smail.mutable_header()->set_send_time_ns(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count());
      out.mmail.mutable_header()->set_send_time_ns(out.smail.header().send_time_ns());
      const double late = std::chrono::duration<double, std::milli>(Clock::now() - tick).count();
      record(proto::NODE_SUPERVISOR, late);
      // Sending after the period is over is the supervisor's own deadline miss.
      if (late > s_.config.controller().dt_ms()) ++misses_[proto::NODE_SUPERVISOR];
    }
    smail_.mutable_smail()->Swap(&out.smail);
    send(pub_, kTopicSMail, smail_, buffer_);
    bytes_ += buffer_.size() * kJoints;
    smail_.mutable_smail()->Swap(&out.smail);
    mmail_.mutable_mmail()->Swap(&out.mmail);
    send(pub_, kTopicMMail, mmail_, buffer_);
    bytes_ += buffer_.size();
    mmail_.mutable_mmail()->Swap(&out.mmail);
    // The log after the mail is out: serialising it must not delay the joints.
    if (log_file_ != nullptr) {
      // Lockstep: what this period used (the arm's sensors of k, the joints' mail and the PARCEL
      // of k-1, at their own periods); realtime logged every mail as it came. Then what it sent.
      if (lockstep) {
        if (in.arm != nullptr) log_file_->log(topic::kSensors, k_, *in.arm);
        for (const proto::JMail* j : in.joints)
          if (j != nullptr) log_file_->log(topic::kJMail, j->header().period(), *j);
        if (in.parcel != nullptr) log_file_->log(topic::kParcel, in.parcel->header().period(), *in.parcel);
      }
      log_file_->log(topic::kSMail, k_, out.smail);
      log_file_->log(topic::kMMail, k_, out.mmail);
      proto::LogEvent event;
      for (int i = 0; i < out.event_count; ++i) {
        toLogEvent(k_, out.events[static_cast<std::size_t>(i)], event);
        log_file_->log(topic::kEvent, k_, event);
      }
      if (!lockstep) {
        timing_.set_period(k_);
        timing_.set_tick_ns(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::system_clock::now().time_since_epoch() - (Clock::now() - tick))
                                .count());
        timing_.clear_lateness_ms();
        std::uint32_t missed = 0;
        for (std::size_t n = 0; n < period_late_.size(); ++n) {
          timing_.add_lateness_ms(period_late_[n]);
          if (misses_[n] > misses_before_[n]) missed |= 1u << n;
        }
        timing_.set_missed(missed);
        std::uint32_t used = 0;
        if (in.arm != nullptr) used |= 1u << proto::NODE_ARM;
        for (int j = 0; j < kJoints; ++j)
          if (in.joints[static_cast<std::size_t>(j)] != nullptr) used |= 1u << (proto::NODE_JOINT1 + j);
        if (in.parcel != nullptr) used |= 1u << proto::NODE_MATH;
        timing_.set_used(used);
        timing_.set_sensors_period(in.arm != nullptr ? static_cast<std::int64_t>(in.arm->header().period()) : -1);
        log_file_->log(topic::kTiming, k_, timing_);
      }
    }
    if (Clock::now() - last_status > std::chrono::seconds(1)) {
      last_status = Clock::now();
      writeStatus();
    }

    if (period_limit_ > 0 && k_ + 1 >= period_limit_) {
      ++k_;
      return;
    }
    // Stopped: powered off, whether by the stop or by an emergency on the way. A few more periods
    // let the brakes lock every joint before the nodes are told to exit.
    if (stopping && (core_.rtstate() == proto::RT_IDLE || core_.rtstate() == proto::RT_EMGCY)) {
      if (powered_off_at_ == 0) powered_off_at_ = k_;
      if (k_ >= powered_off_at_ + kBrakePeriods) {
        ++k_;
        return;
      }
    }
  }
}

void ClusterLoop::writeStatus() const {
  if (status_path_.empty()) return;
  {
    std::ofstream tmp(status_path_ + ".tmp");
    tmp << statusText();
  }
  std::rename((status_path_ + ".tmp").c_str(), status_path_.c_str());
}

void ClusterLoop::stopCluster(const std::string& reason) {
  writeStatus();
  proto::Envelope stop;
  stop.mutable_stop()->set_reason(reason);
  send(pub_, kTopicControl, stop, buffer_);
  // Give the subscribers a moment to take it before the socket closes.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  log_.info("stopped the cluster after {} periods: {}", k_, reason);
}

namespace {
struct FinalError {
  double mm = -1.0, deg = -1.0;
};
FinalError finalError(const ScriptLog& l, const ClusterLoop& loop, const RobotModel& model) {
  FinalError f;
  for (auto it = l.moves.rbegin(); it != l.moves.rend(); ++it) {
    if (!it->completed) continue;
    const WorldModel& w = loop.core().world();
    const Transform target = w.solve(w.findPosition(it->position));
    const Transform actual = forwardKinematics(model, loop.core().observedAngles());
    f.mm = 1e3 * (actual.translation() - target.translation()).norm();
    f.deg = 180.0 / std::numbers::pi * Eigen::AngleAxisd(target.linear().transpose() * actual.linear()).angle();
    break;
  }
  return f;
}
}  // namespace

std::string scriptSummaryText(const ScriptLog& l, const ClusterLoop& loop, const RobotModel& model) {
  std::ostringstream o;
  o << "periods: " << loop.periods() << (l.calibrated ? ", calibrated" : ", NOT calibrated")
    << (l.timed_out ? ", TIMED OUT" : "") << "\nstates:";
  for (proto::RtState s : l.states) o << ' ' << proto::RtState_Name(s).substr(3);
  o << "\nmoves (" << l.moves.size() << "):\n";
  char buf[256];
  for (const MoveRecord& m : l.moves) {
    std::snprintf(buf, sizeof buf, "  #%llu %-10s %-10s periods %llu..%llu  %s\n",
                  static_cast<unsigned long long>(m.id), m.position.c_str(), m.motion.c_str(),
                  static_cast<unsigned long long>(m.started), static_cast<unsigned long long>(m.ended),
                  m.completed ? "completed" : (m.aborted ? "ABORTED" : "NOT DONE"));
    o << buf;
  }
  for (const std::string& r : l.refused) o << "refused: " << r << "\n";
  const FinalError f = finalError(l, loop, model);
  std::snprintf(buf, sizeof buf, "final T6 error (from the encoders): %.4f mm, %.4f deg\n", f.mm, f.deg);
  o << buf << "mail that missed its period:";
  for (proto::Node n : kAnsweringNodes) o << ' ' << nodeName(n) << '=' << loop.misses()[static_cast<std::size_t>(n)];
  o << "\n";
  if (l.emergency) o << "EMGCY: " << describe(l.reason) << " (" << nodeName(l.node) << ")\n";
  return o.str();
}

std::string scriptSummaryJson(const ScriptLog& l, const ClusterLoop& loop, const RobotModel& model) {
  std::ostringstream o;
  o.precision(17);
  const FinalError f = finalError(l, loop, model);
  o << "{\"periods\":" << loop.periods() << ",\"calibrated\":" << (l.calibrated ? "true" : "false")
    << ",\"moves\":" << l.moves.size() << ",\"completed\":" << (l.allMovesCompleted() ? "true" : "false")
    << ",\"refused\":" << l.refused.size() << ",\"final_position_error_mm\":" << f.mm
    << ",\"emergency\":" << (l.emergency ? "true" : "false") << ",\"misses\":{";
  bool first = true;
  for (proto::Node n : kAnsweringNodes) {
    o << (first ? "" : ",") << '"' << nodeName(n) << "\":" << loop.misses()[static_cast<std::size_t>(n)];
    first = false;
  }
  o << "}}";
  return o.str();
}

}  // namespace rfms
