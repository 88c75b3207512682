// A joint server's shell in the cluster: for every S_MAIL it runs the core with the arm's sensor
// mail of the same period (lockstep, paced) or the newest (realtime), and sends its J_MAIL to the
// supervisor and its torque command to the arm. The period's order, the supervisor's stop and its
// silence are the node loop's (runtime/node_loop.hpp); this says what a joint waits for. Real-time
// safe: mail is read into preallocated slots and sent from reused envelopes through the node's
// mail port.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>

#include "joint_node/joint_core.hpp"
#include "proto/cluster.pb.h"
#include "runtime/clock_rules.hpp"
#include "runtime/mail_slot.hpp"
#include "runtime/node_loop.hpp"

namespace rfms {

// run() answers until the supervisor's stop, a stop signal, the supervisor's silence for the
// orphan timeout (no S_MAIL, so no torque command has been sent since), or (`periods` > 0) that
// many answers.
class JointShell : public NodeLoop<JointCore, JointShell> {
 public:
  // Joint `joint` (1..6). `orphan_timeout`: how long it goes on without any mail from the supervisor.
  JointShell(JointCore& core, int joint, ClockRules rules, std::chrono::milliseconds orphan_timeout, MailPort& port);

 private:
  friend class NodeLoop<JointCore, JointShell>;
  Gathered gather();
  std::uint64_t period() const { return smail_->mail().smail().header().period(); }
  JointInbox inbox() const { return {smail_->mail().smail(), sensors_->mail().sensors()}; }
  JointOutbox& outbox() { return out_; }
  void publish(const JointInbox& in, std::uint64_t k);
  void record(const JointInbox& in, std::uint64_t k);
  bool stepped(std::uint64_t k);
  void ended(LoopEnd) {}
  bool fromSupervisor();  // false on a stop

  const Box jmail_box_, torque_box_;
  const ClockRules rules_;
  // Mail is parsed into preallocated slots and kept by swapping pointers.
  std::array<MailSlot, 3> slots_;
  MailSlot *in_ = &slots_[0], *smail_ = &slots_[1], *sensors_ = &slots_[2];
  bool have_smail_ = false, have_sensors_ = false;
  JointOutbox out_;
  proto::Envelope jmail_, torque_;  // what out_ is sent in
};

}  // namespace rfms
