// The supervisor's desk for remote clients (rfms-bridge): it applies their task requests once each,
// in each client's order, arbitrates which client's task holds the arm, and answers status
// requests. Pure: the cluster loop moves requests, answers and status between it and its socket.
//
// Exactly once: a request from a client carries its session and number (1, 2, ...). A number the
// desk has handled already is answered again with the first answer and not applied again, which is
// what makes a retransmission across a bridge restart safe. Numbers must come in order; one that
// skips ahead is refused (the client's link is broken, and applying it could reorder the task).
//
// Tasks: BeginTask claims the arm for its client, and a remote client moves the arm (moves and
// controls) only inside a task of its own. While another client's task has moves queued or
// running, that client's moves and controls are refused; anyone may still define and update
// transforms (a camera tracking an object), ask for status, stop or hit the emergency stop. An
// idle task can be taken over by a new BeginTask (its client may have died).
//
// Roles: an observer's key (the bridge stamps each request with its key's role) may only ask for
// status, watch signals and stop the arm; an operator's may do everything above. A key revoked
// while it holds the arm (the bridge's `revoked` CC_STOP) loses its task: its moves stop.
//
// Watches (debug()): a client's Watch request makes a SignalWatch that the period samples and its
// status answers drain; at most kMaxWatches clients watch at once, and a watch no status request
// has drained for kWatchIdle seconds ends. The watches live in fixed places, so that the period's
// thread can sample them while the background's makes, drains and ends them: a place the period
// samples is marked, and one being ended waits out the sample under way (the background waits,
// never the period).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include "proto/task.pb.h"
#include "supervisor/signal_watch.hpp"
#include "supervisor/supervisor_background.hpp"
#include "supervisor/supervisor_core.hpp"

namespace rfms {

class RemoteDesk {
 public:
  RemoteDesk(const RobotModel& model, const SupervisorConfig& config) : model_(model), config_(config) {}

  // One request, before the supervisor's step k (whose setpoints then see it). `reached_core`,
  // when given, says whether the core handled it or the desk answered alone (what a run log
  // must know to re-run the core with exactly the requests it saw).
  proto::TaskReply accept(const proto::TaskRequest& request, SupervisorBackground& supervisor, std::uint64_t k,
                          bool* reached_core = nullptr);
  // After step k, on the period's thread: the watched signals' samples. Real-time safe.
  void sample(std::uint64_t k, const SupervisorInbox& in, const SupervisorOutbox& out);
  // An event of the period, on the background's thread: which moves ended.
  void note(const SupervisorEvent& e);
  // Both, for one thread that drives the period and the desk.
  void observe(std::uint64_t k, const SupervisorInbox& in, const SupervisorOutbox& out);
  // The arm's status as the period last published it (`view`).
  void status(const SupervisorView& view, std::uint64_t k, proto::ArmStatus& s) const;
  // A status answer for `session`: its watch's signals and the samples since the last one.
  void watchStatus(std::uint64_t session, std::uint64_t k, proto::ArmStatus& s);
  std::size_t watches() const { return watches_.size(); }
  RemoteDesk(const RemoteDesk&) = delete;
  RemoteDesk& operator=(const RemoteDesk&) = delete;

  std::uint64_t sessions() const { return sessions_.size(); }
  // Clients remembered at once. Beyond it the longest idle one (not the task's owner) is
  // forgotten: if it ever comes back, its next request is refused as skipping ahead, and its
  // library starts a new session.
  static constexpr std::size_t kMaxSessions = 4096;
  static constexpr std::size_t kMaxWatches = 16;
  static constexpr double kWatchIdle = 10.0;  // s

 private:
  struct Session {
    std::uint64_t handled = 0;
    proto::TaskReply last;
    std::uint64_t last_k = 0;  // when it last sent a request: the longest idle one goes first
  };
  // The session of `id`, made (and room made for it) when new.
  Session& sessionOf(std::uint64_t id, std::uint64_t k);
  Refusal arbitrate(const proto::TaskRequest& request, std::uint64_t session) const;
  proto::TaskReply revoke(const proto::TaskRequest& request, SupervisorBackground& supervisor, bool* reached_core);
  // Why `request` may not create the name it defines (its key's quota is spent), or no refusal.
  Refusal quotaRefusal(const proto::TaskRequest& request, const WorldModel& world) const;
  bool taskBusy() const { return last_move_id_ > ended_through_; }
  Refusal watch(const proto::Watch& w, std::uint64_t session, std::uint64_t k);
  void endIdleWatches(std::uint64_t k);

  const RobotModel& model_;
  SupervisorConfig config_;
  std::unordered_map<std::uint64_t, Session> sessions_;
  // Names each client key has created (TaskRequest.key_id): at most max_names_per_key each, for
  // at most kMaxSessions keys; a name forgotten counts down again.
  std::unordered_map<std::uint64_t, std::size_t> names_by_key_;
  // Which key created each name the desk has seen defined, by kind and name (0: a local script):
  // only that key may forget it. As many as the world model holds, at most.
  std::map<std::pair<int, std::string>, std::uint64_t> creators_;
  // Why `request`, a Forget, may not forget its name (another key created it), or no refusal (a
  // name not defined is the world model's to refuse: it is unknown, whoever asks).
  Refusal forgetRefusal(const proto::TaskRequest& request, const WorldModel& world) const;
  // A Forget the core took: the name's creator may create one more.
  void forgotten(const proto::TaskRequest& request);
  std::uint64_t task_owner_ = 0;  // session; 0: no task open
  std::string task_name_;
  std::uint64_t last_move_id_ = 0, ended_through_ = 0;
  // The moves that ended last, newest last: the period's events kept as they are (observe() must
  // not allocate), turned into MoveOutcomes when a status is asked for.
  std::array<SupervisorEvent, 64> recent_{};
  std::size_t recent_next_ = 0, recent_count_ = 0;
  struct WatchPlace {
    std::atomic<bool> live{false};      // the period may sample it
    std::atomic<bool> sampling{false};  // the period is sampling it now
    std::optional<SignalWatch> watch;
  };
  struct Watching {
    std::size_t place = 0;
    std::uint64_t drained_k = 0;  // the period of its last status answer
  };
  // Ends the watch in place `i`, once the period is not sampling it.
  void endWatch(std::size_t i);
  std::array<WatchPlace, kMaxWatches> places_;
  std::unordered_map<std::uint64_t, Watching> watches_;  // by session
};

}  // namespace rfms
