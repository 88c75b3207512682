// The client's side of the task protocol, in the wire's own messages (proto/task.proto): numbers
// each request of its link session, sends it and returns the supervisor's answer, asks for
// status, and waits on a move's outcome. RfmsClient is built on it for programs; the tools whose
// input is already a request — the task-file runner, rfms-client, the operator's shell, the
// desk, the Python module — use it directly.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "client/client_options.hpp"
#include "net_bridge/udp_link_client.hpp"
#include "proto/task.pb.h"

namespace rfms {

class TaskLink {
 public:
  explicit TaskLink(const ClientOptions& options);

  // Any request: numbered, sent, answered; no exception on refusal. LinkError: no answer at all
  // (the request may or may not have been applied; the next goes out in a new session).
  proto::TaskReply send(proto::TaskRequest request);
  // The same, throwing RequestRefused("<what> refused: <reason> [<code>]") on refusal.
  proto::TaskReply require(proto::TaskRequest request, const std::string& what);
  proto::ArmStatus status();
  // Until the move has ended; throws MoveFailed when it did not do what it was asked (aborted, a
  // guard never met, a force not held) or did not end within timeout_s.
  proto::MoveOutcome wait(std::uint64_t move, double timeout_s);
  // Called with every status answer this link receives, the waits' included (each answer drains
  // the watch's samples, so this is where all of them are seen). Empty: none.
  void onStatus(std::function<void(const proto::ArmStatus&)> hook) { on_status_ = std::move(hook); }

  std::uint64_t lastMove() const { return last_move_; }  // the newest move accepted, 0: none
  std::uint64_t session() const { return link_.session(); }
  std::uint64_t requestsSent() const { return number_; }
  const UdpLinkClient& link() const { return link_; }
  const ClientOptions& options() const { return options_; }

 private:
  ClientOptions options_;
  UdpLinkClient link_;
  std::function<void(const proto::ArmStatus&)> on_status_;
  std::uint64_t number_ = 0, last_move_ = 0;
};

}  // namespace rfms
