// The math server's shell in the cluster: for every M_MAIL, in order, it answers with the PARCEL
// of the joint the mail names, from its background results. Every one, whatever the clock: the
// core's background update and its PARCELs' sequence follow the M_MAILs it has seen, and a run
// log re-runs it on all of them. The period's order, the supervisor's stop and its silence are the
// node loop's (runtime/node_loop.hpp). Real-time safe: mail is read into a slot and the PARCEL sent
// from a reused envelope.
#pragma once

#include <chrono>
#include <cstdint>

#include "math_node/math_core.hpp"
#include "proto/cluster.pb.h"
#include "runtime/mail_slot.hpp"
#include "runtime/node_loop.hpp"

namespace rfms {

// run() answers until the supervisor's stop, a stop signal, the supervisor's silence for the
// orphan timeout, or (`periods` > 0) that many answers.
class MathShell : public NodeLoop<MathCore, MathShell> {
 public:
  // `orphan_timeout`: how long it goes on without any mail from the supervisor.
  MathShell(MathCore& core, std::chrono::milliseconds orphan_timeout, MailPort& port)
      : NodeLoop(core, port, orphan_timeout) {}

 private:
  friend class NodeLoop<MathCore, MathShell>;
  Gathered gather();
  std::uint64_t period() const { return mmail_.mail().mmail().header().period(); }
  MathInbox inbox() const { return {mmail_.mail().mmail()}; }
  MathOutbox& outbox() { return out_; }
  void publish(const MathInbox& in, std::uint64_t k);
  void record(const MathInbox& in, std::uint64_t k);
  bool stepped(std::uint64_t) { return true; }
  void ended(LoopEnd) {}

  MailSlot control_, mmail_;
  MathOutbox out_;
  proto::Envelope parcel_;  // what out_ is sent in
};

}  // namespace rfms
