// One period loop for every node of the cluster. Each period a node gathers its inputs as the
// clock rules say (runtime/clock_rules.hpp), steps its core (a PeriodCore), publishes the core's
// outbox and records the period; the nodes that answer the supervisor (the joints, the math server,
// the arm) meanwhile listen to its control box — a stop, a fault notice, a stop signal — and end
// once it has been silent for the orphan timeout. That order, the stop and the silence live here
// once; what differs between nodes is declared by each node's shell, which derives from
// NodeLoop<Core, Shell> and gives it, privately (friend NodeLoop<Core, Shell>):
//
//   Gathered gather();                           waits for a period's inputs (calling listen() while
//                                                it waits, if it answers the supervisor)
//   std::uint64_t period() const;                the period gather() completed
//   inbox(), outbox()                            that period's Core::Inbox, and the Outbox it fills
//   void publish(const Core::Inbox&, std::uint64_t k);   sends the outbox
//   void record(const Core::Inbox&, std::uint64_t k);    keeps the period (fault record, run log)
//   bool stepped(std::uint64_t k);               after the period: false ends the run (kFinished),
//                                                as gather() returning Gathered::kFinished does
//   void ended(LoopEnd how);                     once, when the run ends by a stop or a silence
//
// The joints (joint_node/shell), the math server (math_node/shell), the arm (arm_sim/shell) and
// the supervisor (supervisor/shell/cluster_loop) are the four. The supervisor is the cluster's
// clock: it never listens, so neither the supervisor's stop nor its silence applies to it.
//
// Real-time safe: run() allocates nothing, and calls only the shell's hooks, the core's step and
// the port (tests/runtime/test_shell_allocation.cpp, test_every_path_shells.cpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>

#include "common/period_core.hpp"
#include "runtime/fault_record.hpp"
#include "runtime/mail_port.hpp"
#include "runtime/mail_slot.hpp"
#include "runtime/node_shell.hpp"
#include "runtime/supervisor_silence.hpp"

namespace rfms {

// Why run() returned: the supervisor's stop mail, a stop signal, the count of periods asked for,
// the supervisor's silence for the orphan timeout, or the shell's own end (stepped() said so).
enum class LoopEnd { kStopMail, kSignal, kPeriods, kSupervisorGone, kFinished };

// What a shell's gather() found: a period's inputs, not yet (look again), the end of the run
// (listen() or signalled() said why), or the shell's own end (kFinished).
enum class Gathered { kReady, kNotYet, kEnded, kFinished };

template <PeriodCore Core, class Shell>
class NodeLoop {
 public:
  // Runs periods until the run ends (see LoopEnd); `periods` > 0: at most that many.
  LoopEnd run(std::uint64_t periods = 0);

  // Keeps the last periods of the node's mail for a fault record (null: none).
  void setFaultRecorder(FaultRecorder* recorder) { recorder_ = recorder; }
  // Once run() has returned by the supervisor's stop: its reason.
  const std::string& stopReason() const { return stop_reason_; }
  std::uint64_t lastPeriod() const { return last_period_; }
  // Periods stepped, over every run() so far.
  std::uint64_t periodsRun() const { return periods_run_; }
  double orphanSeconds() const { return silence_.boundSeconds(); }

 protected:
  NodeLoop(Core& core, MailPort& port, std::chrono::milliseconds orphan_timeout)
      : core_(core), port_(port), silence_(orphan_timeout) {}

  // For gather(): the supervisor's control box since the last look, read through `slot`. False
  // when the run ends here: its stop came, a stop signal, or its silence outlasted the orphan
  // timeout.
  bool listen(MailSlot& slot);
  // For gather(): whether a stop signal came (then the run ends here).
  bool signalled() {
    if (!stopRequested()) return false;
    why_ = LoopEnd::kSignal;
    return true;
  }
  // For gather(): any other mail from the supervisor shows it is there.
  void heard() { silence_.heard(); }
  FaultRecorder* recorder() const { return recorder_; }
  void setStopReason(std::string reason) { stop_reason_ = std::move(reason); }

  Core& core_;
  MailPort& port_;

 private:
  Shell& self() { return static_cast<Shell&>(*this); }
  LoopEnd end(LoopEnd how);

  SupervisorSilence silence_;
  FaultRecorder* recorder_ = nullptr;
  LoopEnd why_ = LoopEnd::kSignal;  // why listen() said stop
  std::string stop_reason_;
  std::uint64_t last_period_ = 0, periods_run_ = 0;
};

template <PeriodCore Core, class Shell>
LoopEnd NodeLoop<Core, Shell>::run(std::uint64_t periods) {
  for (std::uint64_t done = 0;;) {
    const Gathered gathered = self().gather();
    if (gathered == Gathered::kEnded) return end(why_);
    if (gathered == Gathered::kFinished) return LoopEnd::kFinished;
    if (gathered == Gathered::kNotYet) continue;
    const std::uint64_t k = self().period();
    decltype(auto) in = self().inbox();
    core_.step(in, self().outbox());
    self().publish(in, k);
    self().record(in, k);
    last_period_ = k;
    ++periods_run_;
    if (!self().stepped(k)) return LoopEnd::kFinished;
    if (periods > 0 && ++done == periods) return LoopEnd::kPeriods;
  }
}

template <PeriodCore Core, class Shell>
bool NodeLoop<Core, Shell>::listen(MailSlot& slot) {
  if (signalled()) return false;
  while (port_.next(Box::kControl, slot)) {
    silence_.heard();
    takeFaultNotice(recorder_, slot.mail());
    if (slot.mail().has_stop()) {
      stop_reason_ = slot.mail().stop().reason();
      return why_ = LoopEnd::kStopMail, false;
    }
  }
  if (silence_.gone()) return why_ = LoopEnd::kSupervisorGone, false;
  return true;
}

template <PeriodCore Core, class Shell>
LoopEnd NodeLoop<Core, Shell>::end(LoopEnd how) {
  if (how == LoopEnd::kSupervisorGone && recorder_ != nullptr)
    recorder_->fault(last_period_, "silent for the orphan timeout", "supervisor");
  if (how != LoopEnd::kSignal) self().ended(how);
  why_ = LoopEnd::kSignal;
  return how;
}

}  // namespace rfms
