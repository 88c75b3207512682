#include "supervisor/remote_desk.hpp"

#include <algorithm>
#include <thread>

#include "common/kinematics.hpp"
#include "common/mail_codec.hpp"
#include "supervisor/event_log.hpp"

namespace rfms {

namespace {
// The kind and name a request defines or forgets, as the creators' table keys them; kind -1: none.
std::pair<int, std::string> nameOf(const proto::TaskRequest& r) {
  switch (r.body_case()) {
    case proto::TaskRequest::kTransform: return {proto::Forget::FK_TRANSFORM, r.transform().name()};
    case proto::TaskRequest::kPosition: return {proto::Forget::FK_POSITION, r.position().name()};
    case proto::TaskRequest::kMotion: return {proto::Forget::FK_MOTION, r.motion().name()};
    case proto::TaskRequest::kForget: return {r.forget().kind(), r.forget().name()};
    default: return {-1, ""};
  }
}

// Whether `r` defines a name the world model does not hold yet.
bool createsName(const proto::TaskRequest& r, const WorldModel& w) {
  switch (r.body_case()) {
    case proto::TaskRequest::kTransform: return w.findTransform(r.transform().name()) < 0;
    case proto::TaskRequest::kPosition: return w.findPosition(r.position().name()) < 0;
    case proto::TaskRequest::kMotion: return w.findMotion(r.motion().name()) < 0;
    default: return false;
  }
}
}  // namespace

Refusal RemoteDesk::quotaRefusal(const proto::TaskRequest& r, const WorldModel& world) const {
  if (r.key_id() == 0 || !createsName(r, world)) return {};
  const auto it = names_by_key_.find(r.key_id());
  if (it == names_by_key_.end())
    return names_by_key_.size() < kMaxSessions
               ? Refusal{}
               : Refusal{RefusalCode::kTableFull,
                         "names come from too many keys already (" + std::to_string(kMaxSessions) + ")"};
  if (it->second < config_.max_names_per_key) return {};
  return {RefusalCode::kTableFull, "this client's key has created " + std::to_string(it->second) +
                                       " names already (controller.max_names_per_key): update or reuse one"};
}

Refusal RemoteDesk::forgetRefusal(const proto::TaskRequest& r, const WorldModel& world) const {
  if (r.body_case() != proto::TaskRequest::kForget) return {};
  const proto::Forget& f = r.forget();
  const int place = f.kind() == proto::Forget::FK_TRANSFORM  ? world.findTransform(f.name())
                    : f.kind() == proto::Forget::FK_POSITION ? world.findPosition(f.name())
                                                             : world.findMotion(f.name());
  if (place < 0) return {};
  const auto it = creators_.find(nameOf(r));
  if (it == creators_.end() ? r.key_id() == 0 : it->second == r.key_id()) return {};
  return {RefusalCode::kNotPermitted, "forget: '" + r.forget().name().substr(0, 64) +
                                          "' was not created by this client's key; only the key that created a "
                                          "name may forget it"};
}

Refusal RemoteDesk::arbitrate(const proto::TaskRequest& r, std::uint64_t session) const {
  const bool other_holds = task_owner_ != 0 && task_owner_ != session;
  // A remote request carries its key's role (the bridge stamps it); a local script's has none.
  const bool remote = session != 0;
  const bool stops = r.body_case() == proto::TaskRequest::kControl &&
                     (r.control().command() == proto::CC_STOP || r.control().command() == proto::CC_EMERGENCY_STOP);
  if (r.oversize_bytes() > 0)
    return {RefusalCode::kInvalid, "a request of " + std::to_string(r.oversize_bytes()) +
                                       " bytes is larger than the bridge passes on (bridge_max_request)"};
  const bool watches = r.body_case() == proto::TaskRequest::kWatch;
  if (remote && r.role() != proto::CR_OPERATOR && !stops && !watches)
    return {RefusalCode::kNotPermitted,
            "this client's key is an observer's: it may ask for status, watch signals and stop the arm, nothing more"};
  const bool own_task = task_owner_ != 0 && task_owner_ == session;
  switch (r.body_case()) {
    case proto::TaskRequest::kBegin:
      if (r.begin().name().empty() || r.begin().name().size() > 64)
        return {RefusalCode::kInvalid, "a task needs a name of 1 .. 64 characters"};
      if (other_holds && taskBusy())
        return {RefusalCode::kArmTaken, "task '" + task_name_ + "' of another client holds the arm and is moving"};
      return {};
    case proto::TaskRequest::kEnd:
      if (task_owner_ == 0) return {RefusalCode::kNoTask, "no task is open"};
      if (other_holds) return {RefusalCode::kArmTaken, "task '" + task_name_ + "' belongs to another client"};
      return {};
    case proto::TaskRequest::kMove:
    case proto::TaskRequest::kControl:
      if (stops) return {};  // anyone may stop the arm
      if (other_holds) return {RefusalCode::kArmTaken, "task '" + task_name_ + "' of another client holds the arm"};
      if (remote && !own_task)
        return {RefusalCode::kNoTask, "moving the arm needs a task of this client's own: BeginTask first"};
      return {};
    default: return {};
  }
}

RemoteDesk::Session& RemoteDesk::sessionOf(std::uint64_t id, std::uint64_t k) {
  auto it = sessions_.find(id);
  if (it == sessions_.end()) {
    if (sessions_.size() >= kMaxSessions) {
      auto idle = sessions_.end();
      for (auto j = sessions_.begin(); j != sessions_.end(); ++j)
        if (j->first != task_owner_ && (idle == sessions_.end() || j->second.last_k < idle->second.last_k)) idle = j;
      if (idle != sessions_.end()) sessions_.erase(idle);
    }
    it = sessions_.emplace(id, Session{}).first;
  }
  it->second.last_k = k;
  return it->second;
}

// The bridge revoked the key of `request.session()`: if that session's task holds the arm, the
// task ends — its CC_STOP goes to the core (the running move stops, the queue is dropped) — and
// the arm is free for others. Otherwise nothing of the arm's changes.
proto::TaskReply RemoteDesk::revoke(const proto::TaskRequest& request, SupervisorBackground& supervisor,
                                    bool* reached_core) {
  proto::TaskReply reply;
  reply.set_session(request.session());
  if (request.session() == 0 || request.session() != task_owner_ ||
      request.body_case() != proto::TaskRequest::kControl || request.control().command() != proto::CC_STOP) {
    reply.set_accepted(true);
    reply.set_reason("the revoked key held no task");
    return reply;
  }
  reply = supervisor.handle(request);
  reply.set_session(request.session());
  if (reached_core != nullptr) *reached_core = true;
  task_owner_ = 0;
  task_name_.clear();
  return reply;
}

proto::TaskReply RemoteDesk::accept(const proto::TaskRequest& request, SupervisorBackground& supervisor,
                                    std::uint64_t k, bool* reached_core) {
  if (reached_core != nullptr) *reached_core = false;
  if (request.revoked()) return revoke(request, supervisor, reached_core);
  const std::uint64_t session = request.session();
  Session none;  // requests without a session (a local task script) are not tracked
  Session& s = session != 0 ? sessionOf(session, k) : none;
  // A client program started again under an earlier run's session counts from 1 again: the bridge
  // says so on its first request, or a 1 after later numbers shows it (no retransmission can be
  // that: the link drops old frames, and a client resends only its newest request). The earlier
  // run's numbers and answer are forgotten; its task, if open, stays the session's.
  if (session != 0 && request.number() == 1 && (request.restart() || s.handled >= 2)) {
    s.handled = 0;
    s.last.Clear();
  }
  if (session != 0 && request.number() != 0 && request.number() <= s.handled) {
    if (request.number() == s.handled) return s.last;  // a retransmission: the same answer
    proto::TaskReply stale;
    stale.set_id(request.id());
    stale.set_session(session);
    stale.set_number(request.number());
    stale.set_handled(s.handled);
    setRefusal(stale, {RefusalCode::kOutOfOrder, "request " + std::to_string(request.number()) +
                                                     " is older than the last one handled (" +
                                                     std::to_string(s.handled) + ")"});
    return stale;
  }
  proto::TaskReply reply;
  if (session != 0 && request.number() != s.handled + 1) {
    reply.set_id(request.id());
    setRefusal(reply,
               {RefusalCode::kOutOfOrder, "request " + std::to_string(request.number()) + " skips ahead of " +
                                              std::to_string(s.handled + 1) + ": the client must resend in order"});
  } else if (Refusal why = arbitrate(request, session)) {
    reply.set_id(request.id());
    setRefusal(reply, std::move(why));
  } else if (Refusal over = quotaRefusal(request, supervisor.world())) {
    reply.set_id(request.id());
    setRefusal(reply, std::move(over));
  } else if (Refusal owner = forgetRefusal(request, supervisor.world())) {
    reply.set_id(request.id());
    setRefusal(reply, std::move(owner));
  } else if (request.body_case() == proto::TaskRequest::kWatch) {
    reply.set_id(request.id());
    setRefusal(reply, watch(request.watch(), session, k));
  } else if (request.body_case() == proto::TaskRequest::kBegin) {
    reply.set_id(request.id());
    reply.set_accepted(true);
    task_owner_ = session;
    task_name_ = request.begin().name();
  } else if (request.body_case() == proto::TaskRequest::kEnd) {
    reply.set_id(request.id());
    reply.set_accepted(true);
    task_owner_ = 0;
    task_name_.clear();
  } else {
    const bool creates = createsName(request, supervisor.world());
    reply = supervisor.handle(request);
    if (reached_core != nullptr) *reached_core = true;
    if (reply.accepted() && creates) {
      creators_[nameOf(request)] = request.key_id();
      if (request.key_id() != 0) ++names_by_key_[request.key_id()];
    }
    if (reply.accepted() && request.body_case() == proto::TaskRequest::kForget) forgotten(request);
    if (reply.accepted() && reply.move_id() > 0) last_move_id_ = std::max(last_move_id_, reply.move_id());
  }
  reply.set_session(session);
  reply.set_number(request.number());
  reply.set_applied_period(k);
  if (session != 0 && request.number() == s.handled + 1) {
    s.handled = request.number();
    reply.set_handled(s.handled);
    s.last = reply;
  }
  return reply;
}

void RemoteDesk::forgotten(const proto::TaskRequest& r) {
  const auto it = creators_.find(nameOf(r));
  if (it == creators_.end()) return;
  if (auto n = names_by_key_.find(it->second); n != names_by_key_.end() && n->second > 0 && --n->second == 0)
    names_by_key_.erase(n);
  creators_.erase(it);
}

Refusal RemoteDesk::watch(const proto::Watch& w, std::uint64_t session, std::uint64_t k) {
  if (session == 0)
    return {RefusalCode::kWrongClient, "signals are watched by remote clients; a task script has the run log"};
  endIdleWatches(k);
  const auto mine = watches_.find(session);
  if (w.signals_size() == 0) {  // the end of this session's watch
    if (mine != watches_.end()) {
      endWatch(mine->second.place);
      watches_.erase(mine);
    }
    return {};
  }
  if (watches_.size() >= kMaxWatches && mine == watches_.end())
    return {RefusalCode::kTryAgain,
            std::to_string(kMaxWatches) + " clients are watching signals already: try again when one stops"};
  std::string why;
  std::optional<SignalWatch> made = SignalWatch::make(w, config_.dt, why);
  if (!made) return {RefusalCode::kInvalid, std::move(why)};
  if (mine != watches_.end()) {  // a new watch replaces the session's old one
    endWatch(mine->second.place);
    watches_.erase(mine);
  }
  std::size_t i = 0;
  while (places_[i].watch) ++i;  // a free place exists: fewer than kMaxWatches are live
  places_[i].watch = std::move(made);
  places_[i].live.store(true, std::memory_order_seq_cst);
  watches_.insert_or_assign(session, Watching{i, k});
  return {};
}

void RemoteDesk::endWatch(std::size_t i) {
  WatchPlace& p = places_[i];
  p.live.store(false, std::memory_order_seq_cst);
  while (p.sampling.load(std::memory_order_seq_cst)) std::this_thread::yield();
  p.watch.reset();
}

void RemoteDesk::endIdleWatches(std::uint64_t k) {
  const auto idle = static_cast<std::uint64_t>(kWatchIdle / config_.dt);
  std::erase_if(watches_, [&](const auto& w) {
    if (k <= w.second.drained_k + idle) return false;
    endWatch(w.second.place);
    return true;
  });
}

void RemoteDesk::watchStatus(std::uint64_t session, std::uint64_t k, proto::ArmStatus& s) {
  endIdleWatches(k);
  const auto it = watches_.find(session);
  if (it == watches_.end()) return;
  places_[it->second.place].watch->drain(s);
  it->second.drained_k = k;
}

void RemoteDesk::sample(std::uint64_t k, const SupervisorInbox& in, const SupervisorOutbox& out) {
  for (WatchPlace& p : places_) {
    if (!p.live.load(std::memory_order_acquire)) continue;
    // Marked before it looks again: a background ending the watch either sees the mark and
    // waits, or has cleared `live` first, which this second look then sees.
    p.sampling.store(true, std::memory_order_seq_cst);
    if (p.live.load(std::memory_order_seq_cst)) p.watch->sample(k, in, out);
    p.sampling.store(false, std::memory_order_release);
  }
}

void RemoteDesk::note(const SupervisorEvent& e) {
  if (e.kind != SupervisorEvent::kMoveCompleted && e.kind != SupervisorEvent::kMoveAborted) return;
  recent_[recent_next_] = e;
  recent_next_ = (recent_next_ + 1) % recent_.size();
  recent_count_ = std::min(recent_count_ + 1, recent_.size());
  // Moves end in the order they were accepted.
  ended_through_ = std::max(ended_through_, e.move_id);
  last_move_id_ = std::max(last_move_id_, e.move_id);
}

void RemoteDesk::observe(std::uint64_t k, const SupervisorInbox& in, const SupervisorOutbox& out) {
  sample(k, in, out);
  for (int i = 0; i < out.event_count; ++i) note(out.events[static_cast<std::size_t>(i)]);
}

void RemoteDesk::status(const SupervisorView& v, std::uint64_t k, proto::ArmStatus& s) const {
  s.set_period(k);
  s.set_rtstate(v.state);
  s.set_traj_state(v.traj_state);
  s.set_reason(v.reason);
  s.set_reason_node(v.reason_node);
  s.set_reason_axis(v.reason_axis);
  s.set_calibrated(v.allCalibrated());
  encode(forwardKinematics(model_, v.angles), *s.mutable_t6());
  encode(v.angles, s.mutable_angles());
  s.set_last_move_id(last_move_id_);
  s.set_ended_through(ended_through_);
  s.clear_recent_ended();
  for (std::size_t n = recent_count_; n > 0; --n) {
    const SupervisorEvent& e = recent_[(recent_next_ + recent_.size() - n) % recent_.size()];
    proto::MoveOutcome& o = *s.add_recent_ended();
    o.set_id(e.move_id);
    o.set_completed(e.kind == SupervisorEvent::kMoveCompleted);
    encodeMoveEnd(e, o);
  }
  s.set_moves_queued(last_move_id_ - ended_through_);
  s.set_task(task_name_);
  s.set_dt_ms(config_.dt * 1e3);
  s.set_update_periods(static_cast<std::uint32_t>(config_.update_periods));
  if (v.jog_stopped_why != nullptr) s.set_jog_stopped(v.jog_stopped_why);
  s.clear_wrench();
  s.clear_contact_wrench();
  if (v.senses_force) {
    for (int i = 0; i < 6; ++i) {
      s.add_wrench(v.wrench[i]);
      s.add_contact_wrench(v.contact[i]);
    }
    s.set_wrench_saturated(v.wrench_saturated);
  }
}

}  // namespace rfms
