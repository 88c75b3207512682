// The contract every node's core keeps: its configuration and its state, and one step per sample
// period that reads only its inbox (this period's mail) and writes only its outbox (the mail it
// sends), without allocating, locking, waiting or throwing. A shell (or the in-process harness, or
// a replay) moves mail between the transports and these boxes; the core never sees a clock or a
// socket. What a core needs to allocate, it allocates when it is built (or its outbox does).
//
// The four cores and their boxes:
//   SupervisorCore  SupervisorInbox {period, arm sensors(k), J_MAILs(k-1), PARCEL(k-1)}
//                   SupervisorOutbox {S_MAIL, M_MAIL, events}
//   JointCore       JointInbox {S_MAIL(k), sensors}            JointOutbox {J_MAIL, torque command}
//   MathCore        MathInbox {M_MAIL(k)}                       MathOutbox {PARCEL}
//   ArmCore         ArmInbox {the joints' torque commands(k)}   ArmOutbox {sensors(k+1)}
#pragma once

#include <concepts>

namespace rfms {

template <class Core>
concept PeriodCore = requires(Core& core, const typename Core::Inbox& in, typename Core::Outbox& out) {
  { core.step(in, out) }
  noexcept->std::same_as<void>;
};

}  // namespace rfms
