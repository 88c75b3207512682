#include "client/rfms_client.hpp"

#include <chrono>
#include <thread>

#include "client/arm_status_wire.hpp"
#include "client/task_link.hpp"
#include "common/number_text.hpp"

#include "client/motion_request.hpp"
#include "common/mail_codec.hpp"
#include "common/task_file.hpp"

namespace rfms {

namespace {

void control(TaskLink& wire, proto::ControlCommand command) {
  proto::TaskRequest r;
  r.mutable_control()->set_command(command);
  wire.require(r, commandName(command));
}

}  // namespace

RfmsClient::RfmsClient(const ClientOptions& options) : wire_(std::make_unique<TaskLink>(options)) {}
RfmsClient::~RfmsClient() = default;

std::uint64_t RfmsClient::session() const { return wire_->session(); }
std::uint64_t RfmsClient::requestsSent() const { return wire_->requestsSent(); }

void RfmsClient::beginTask(const std::string& name) {
  proto::TaskRequest r;
  r.mutable_begin()->set_name(name);
  wire_->require(r, "task '" + name + "'");
}

void RfmsClient::endTask() {
  proto::TaskRequest r;
  r.mutable_end();
  wire_->require(r, "end of task");
}

Applied RfmsClient::transform(const std::string& name, const Transform& value) {
  proto::TaskRequest r;
  r.mutable_transform()->set_name(name);
  encode(value, *r.mutable_transform()->mutable_value());
  const proto::TaskReply reply = wire_->require(r, "transform '" + name + "'");
  return {reply.applied_period(), reply.arrival_to_setpoint_ms()};
}

void RfmsClient::forget(NameKind kind, const std::string& name) {
  proto::TaskRequest r;
  r.mutable_forget()->set_kind(kind == kTransformName  ? proto::Forget::FK_TRANSFORM
                               : kind == kPositionName ? proto::Forget::FK_POSITION
                                                       : proto::Forget::FK_MOTION);
  r.mutable_forget()->set_name(name);
  wire_->require(r, "forget '" + name + "'");
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
  wire_->require(r, "position '" + name + "'");
}

void RfmsClient::motion(const std::string& name, const Motion& m) {
  proto::TaskRequest r;
  *r.mutable_motion() = motionRecordOf(name, m);
  wire_->require(r, "motion '" + name + "'");
}

std::uint64_t RfmsClient::move(const std::string& position, const std::string& motion) {
  proto::TaskRequest r;
  r.mutable_move()->set_position(position);
  r.mutable_move()->set_motion(motion);
  return wire_->require(r, "move to '" + position + "' by '" + motion + "'").move_id();
}

ArmStatus RfmsClient::status() { return statusOf(wire_->status()); }

void RfmsClient::onStatus(std::function<void(const ArmStatus&)> hook) {
  if (!hook) return wire_->onStatus({});
  wire_->onStatus([hook = std::move(hook)](const proto::ArmStatus& s) { hook(statusOf(s)); });
}

MoveOutcome RfmsClient::wait(std::uint64_t move, double timeout_s) { return outcomeOf(wire_->wait(move, timeout_s)); }

void RfmsClient::waitAll(double timeout_s) {
  if (wire_->lastMove() > 0) wire_->wait(wire_->lastMove(), timeout_s);
}

void RfmsClient::calibrate(double timeout_s) {
  if (wire_->status().calibrated()) return;
  control(*wire_, proto::CC_CALIBRATE);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    const proto::ArmStatus s = wire_->status();
    if (s.calibrated() && s.rtstate() == proto::RT_HOLD) return;
    if (s.rtstate() == proto::RT_EMGCY) throw MoveFailed("calibration ended in an emergency");
    if (std::chrono::steady_clock::now() > deadline)
      throw MoveFailed("calibration did not finish in " + numberText(timeout_s) + " s");
    std::this_thread::sleep_for(std::chrono::duration<double>(wire_->options().poll_s));
  }
}

void RfmsClient::hold() { control(*wire_, proto::CC_HOLD); }
void RfmsClient::free() { control(*wire_, proto::CC_FREE); }
void RfmsClient::jog(const Jog& j) {
  proto::TaskRequest r;
  *r.mutable_control() = jogControlOf(j);
  wire_->require(r, "jog");
}
void RfmsClient::watch(const std::vector<std::string>& signals, double rate_hz) {
  proto::TaskRequest r;
  for (const std::string& name : signals) r.mutable_watch()->add_signals(name);
  r.mutable_watch()->set_rate_hz(rate_hz);
  wire_->require(r, signals.empty() ? std::string("the end of the watch")
                                    : "a watch of " + std::to_string(signals.size()) + " signal(s) at " +
                                          std::to_string(rate_hz) + " Hz");
}

void RfmsClient::stop() { control(*wire_, proto::CC_STOP); }
void RfmsClient::reset() { control(*wire_, proto::CC_RESET); }
void RfmsClient::powerOff() { control(*wire_, proto::CC_POWER_OFF); }
void RfmsClient::emergencyStop() { control(*wire_, proto::CC_EMERGENCY_STOP); }

}  // namespace rfms
