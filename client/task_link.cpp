#include "client/task_link.hpp"

#include <chrono>
#include <thread>

#include "common/mail_names.hpp"
#include "common/number_text.hpp"
#include "common/refusal.hpp"

namespace rfms {

TaskLink::TaskLink(const ClientOptions& options)
    : options_(options),
      link_(options.bridge, loadLinkIdentity(options.key_file), options.link, options.faults, options.fault_seed) {}

proto::TaskReply TaskLink::send(proto::TaskRequest request) {
  request.set_session(link_.session());
  request.set_number(++number_);
  if (request.id() == 0) request.set_id(number_);
  std::string answer;
  try {
    answer = link_.exchange(proto::FT_REG, request.SerializeAsString());
  } catch (const LinkError&) {
    number_ = 0;  // the link goes on in a new session, numbered from 1
    throw;
  }
  proto::TaskReply reply;
  if (!reply.ParseFromString(answer)) {
    reply.set_id(request.id());
    reply.set_reason("the bridge's answer does not parse");  // refused, with no code: kUnspecified
  }
  if (reply.accepted() && reply.move_id() > 0) last_move_ = reply.move_id();
  return reply;
}

proto::TaskReply TaskLink::require(proto::TaskRequest request, const std::string& what) {
  proto::TaskReply reply = send(std::move(request));
  if (!reply.accepted())
    throw RequestRefused(what + " refused: " + refusalText(reply), reply.reason(), refusalCodeOf(reply));
  return reply;
}

proto::ArmStatus TaskLink::status() {
  proto::ArmStatus s;
  if (!s.ParseFromString(link_.exchange(proto::FT_SENDREQ, proto::StatusRequest().SerializeAsString())))
    throw LinkError("the bridge's status does not parse");
  if (on_status_) on_status_(s);
  return s;
}

proto::MoveOutcome TaskLink::wait(std::uint64_t move, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    const proto::ArmStatus s = status();
    if (s.ended_through() >= move) {
      // A move that ended long ago (more than the status's 64 recent ones) completed, or a later
      // wait would have thrown.
      proto::MoveOutcome outcome;
      outcome.set_id(move);
      outcome.set_completed(true);
      for (const auto& o : s.recent_ended())
        if (o.id() == move) outcome = o;
      const std::string name = "move " + std::to_string(move);
      if (!outcome.completed())
        throw MoveFailed(name + " was aborted" +
                         (s.rtstate() == proto::RT_EMGCY
                              ? std::string(" (emergency: ") + describe(s.reason()) +
                                    (s.reason_axis().empty() ? "" : ", along " + s.reason_axis()) + ")"
                              : std::string()));
      // Ran its course, but did not do what it was asked.
      if (outcome.guard_missed()) throw MoveFailed(name + " ran its path without meeting its guard's force");
      if (outcome.has_force() && !outcome.force().impedance() && !outcome.force().held())
        throw MoveFailed(name + " did not hold its force: it ended applying " + numberText(outcome.force().final_n()) +
                         " N, where its law settles to " + numberText(outcome.force().law_n()) + " N");
      return outcome;
    }
    if (std::chrono::steady_clock::now() > deadline)
      throw MoveFailed("move " + std::to_string(move) + " has not ended after " + std::to_string(timeout_s) + " s");
    std::this_thread::sleep_for(std::chrono::duration<double>(options_.poll_s));
  }
}

}  // namespace rfms
