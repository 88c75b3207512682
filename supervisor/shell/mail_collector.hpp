// The supervisor's inbox in the cluster: for period k, the arm's sensors of k and the joints'
// J_MAILs and the math server's PARCEL of k-1, read from the node's mail port under the clock's
// rules and counted. Lockstep and paced: until every node still alive has answered, or the
// lockstep timeout. Realtime: whatever came before the tick, each answer's lateness timed from the
// tick that asked for it to when it came; the arm keeps its own clock, so one window without its
// sensors is jitter and two in a row a miss. Real-time safe: mail is parsed into preallocated slots.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>

#include "common/mail_names.hpp"
#include "runtime/clock_rules.hpp"
#include "runtime/cluster_config.hpp"
#include "runtime/mail_port.hpp"
#include "runtime/mail_slot.hpp"
#include "supervisor/shell/cluster_stats.hpp"
#include "supervisor/shell/log_tap.hpp"
#include "supervisor/supervisor_core.hpp"

namespace rfms {

class MailCollector {
 public:
  using Clock = std::chrono::steady_clock;
  MailCollector(const ClusterSettings& s, MailPort& port, ClusterStats& stats, LogTap& tap);

  // Fills `in` with period k's mail (pointers into this collector, valid until the next call).
  // `tick` is period k's tick; lockstep passes the period's start.
  void collect(std::uint64_t k, Clock::time_point tick, SupervisorInbox& in);

  // This period's figures, for the run log's timing record.
  const std::array<double, kNodeSlots>& lateness() const { return late_; }
  std::uint32_t missed() const { return missed_; }

 private:
  void readArm(std::uint64_t k);
  void countLost(std::uint64_t k);
  void readAnswers(std::uint64_t k, Clock::time_point asked);
  void takeAnswer(std::uint64_t k, Clock::time_point asked, Box b);
  bool gone(proto::Node node) const;
  static bool jointHoldsArm(BoxSet still);  // the sensors and some J_MAIL are both missing
  BoxSet missing(std::uint64_t k) const;    // the boxes whose mail this period still waits for
  void tally(std::uint64_t k, SupervisorInbox& in);
  void count(proto::Node node, bool arrived);

  MailPort& port_;
  ClusterStats& stats_;
  LogTap& tap_;
  const ClockRules rules_;
  const Clock::duration timeout_;   // lockstep's wait for a period's mail
  const Clock::duration patience_;  // ... and for a joint that holds the arm
  const Clock::duration period_;
  const std::uint64_t watchdog_;  // a node silent this long is not waited for any more
  // Mail is parsed into `in_` and kept by swapping slot pointers: nothing is copied or allocated.
  std::array<MailSlot, kJoints + 3> slots_;
  MailSlot *in_, *sensors_, *parcel_;
  std::array<MailSlot*, kJoints> jmail_;
  bool have_sensors_ = false, have_parcel_ = false;
  std::array<bool, kJoints> have_joint_{};
  std::array<std::uint64_t, kNodeSlots> silent_{};  // consecutive periods without mail, by node
  int arm_quiet_ = 0;                               // realtime: windows since the arm's last sensors
  std::array<double, kNodeSlots> late_{};
  std::array<std::uint64_t, kBoxCount> lost_{};  // mail unused from each box, as last counted
  static constexpr std::uint64_t kDamageEvery = 1000;
  std::array<std::uint64_t, kBoxCount> damage_logged_{}, damage_at_{};  // the last damage event of each box
  std::uint32_t missed_ = 0;
};

}  // namespace rfms
