#include "client/rfms_client.hpp"

#include <chrono>
#include <thread>

#include "client/motion_request.hpp"
#include "common/mail_codec.hpp"
#include "common/mail_names.hpp"
#include "common/number_text.hpp"
#include "common/task_file.hpp"

namespace rfms {

RfmsClient::RfmsClient(const ClientOptions& options)
    : options_(options),
      link_(options.bridge, loadLinkIdentity(options.key_file), options.link, options.faults, options.fault_seed) {}

proto::TaskReply RfmsClient::send(proto::TaskRequest request) {
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
    reply.set_reason("the bridge's answer does not parse");
  }
  if (reply.accepted() && reply.move_id() > 0) last_move_ = reply.move_id();
  return reply;
}

proto::TaskReply RfmsClient::require(proto::TaskRequest request, const std::string& what) {
  proto::TaskReply reply = send(std::move(request));
  if (!reply.accepted()) throw RequestRefused(what + " refused: " + reply.reason(), reply);
  return reply;
}

void RfmsClient::beginTask(const std::string& name) {
  proto::TaskRequest r;
  r.mutable_begin()->set_name(name);
  require(r, "task '" + name + "'");
}

void RfmsClient::endTask() {
  proto::TaskRequest r;
  r.mutable_end();
  require(r, "end of task");
}

void RfmsClient::transform(const std::string& name, const Transform& value) {
  proto::TaskRequest r;
  r.mutable_transform()->set_name(name);
  encode(value, *r.mutable_transform()->mutable_value());
  require(r, "transform '" + name + "'");
}

void RfmsClient::forget(NameKind kind, const std::string& name) {
  proto::TaskRequest r;
  r.mutable_forget()->set_kind(static_cast<proto::Forget::Kind>(kind));
  r.mutable_forget()->set_name(name);
  require(r, "forget '" + name + "'");
}

void RfmsClient::position(const std::string& name, const ArmConfig& config, const std::vector<std::string>& lhs,
                          const std::vector<std::string>& rhs, const std::string& tool) {
  proto::TaskRequest r;
  auto* p = r.mutable_position();
  p->set_name(name);
  for (const auto& s : lhs) p->add_lhs(s);
  for (const auto& s : rhs) p->add_rhs(s);
  p->set_tool(tool);
  encode(config, *p->mutable_config());
  require(r, "position '" + name + "'");
}

void RfmsClient::motion(const std::string& name, const Motion& m) {
  proto::TaskRequest r;
  *r.mutable_motion() = motionRecordOf(name, m);
  require(r, "motion '" + name + "'");
}

std::uint64_t RfmsClient::move(const std::string& position, const std::string& motion) {
  proto::TaskRequest r;
  r.mutable_move()->set_position(position);
  r.mutable_move()->set_motion(motion);
  return require(r, "move to '" + position + "' by '" + motion + "'").move_id();
}

proto::ArmStatus RfmsClient::status() {
  proto::ArmStatus s;
  if (!s.ParseFromString(link_.exchange(proto::FT_SENDREQ, proto::StatusRequest().SerializeAsString())))
    throw LinkError("the bridge's status does not parse");
  if (on_status_) on_status_(s);
  return s;
}

proto::MoveOutcome RfmsClient::wait(std::uint64_t move, double timeout_s) {
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
                         (s.rtstate() == proto::RT_EMGCY ? std::string(" (emergency: ") + describe(s.reason()) + ")"
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

void RfmsClient::waitAll(double timeout_s) {
  if (last_move_ > 0) wait(last_move_, timeout_s);
}

void RfmsClient::control(proto::ControlCommand command) {
  proto::TaskRequest r;
  r.mutable_control()->set_command(command);
  require(r, commandName(command));
}

void RfmsClient::calibrate() {
  if (status().calibrated()) return;
  control(proto::CC_CALIBRATE);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  for (;;) {
    const proto::ArmStatus s = status();
    if (s.calibrated() && s.rtstate() == proto::RT_HOLD) return;
    if (s.rtstate() == proto::RT_EMGCY) throw MoveFailed("calibration ended in an emergency");
    if (std::chrono::steady_clock::now() > deadline) throw MoveFailed("calibration did not finish in 120 s");
    std::this_thread::sleep_for(std::chrono::duration<double>(options_.poll_s));
  }
}

void RfmsClient::hold() { control(proto::CC_HOLD); }
void RfmsClient::free() { control(proto::CC_FREE); }
void RfmsClient::jog(const Jog& j) {
  proto::TaskRequest r;
  *r.mutable_control() = jogControlOf(j);
  require(r, "jog");
}
void RfmsClient::watch(const std::vector<std::string>& signals, double rate_hz) {
  proto::TaskRequest r;
  for (const std::string& name : signals) r.mutable_watch()->add_signals(name);
  r.mutable_watch()->set_rate_hz(rate_hz);
  require(r, signals.empty()
                 ? std::string("the end of the watch")
                 : "a watch of " + std::to_string(signals.size()) + " signal(s) at " + std::to_string(rate_hz) + " Hz");
}

void RfmsClient::stop() { control(proto::CC_STOP); }
void RfmsClient::reset() { control(proto::CC_RESET); }
void RfmsClient::powerOff() { control(proto::CC_POWER_OFF); }
void RfmsClient::emergencyStop() { control(proto::CC_EMERGENCY_STOP); }

}  // namespace rfms
