#include "client/rfms_client.hpp"

#include <chrono>
#include <thread>

#include "common/mail_codec.hpp"
#include "common/mail_names.hpp"
#include "common/number_text.hpp"

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
  proto::DefineMotion& record = *r.mutable_motion();
  record.set_name(name);
  record.set_segment_s(m.segment_s);
  record.set_accel_s(m.accel_s);
  record.set_mode(static_cast<proto::MotionMode>(m.mode));
  record.set_compliance(m.compliance | (m.force ? m.force->compliance() : 0u));
  record.set_track(m.track);
  record.set_guard_n(m.guard_n);
  record.set_compensation(m.compensation);
  if (m.force) *record.mutable_force() = m.force->message();
  require(r, "motion '" + name + "'");
}

void RfmsClient::motion(const std::string& name, double segment_s, double accel_s, Mode mode,
                        std::uint32_t compliance) {
  motion(name, Motion{.segment_s = segment_s, .accel_s = accel_s, .mode = mode, .compliance = compliance});
}

void RfmsClient::trackingMotion(const std::string& name, double segment_s, double accel_s, Mode mode,
                                std::uint32_t compliance) {
  motion(name,
         Motion{.segment_s = segment_s, .accel_s = accel_s, .mode = mode, .compliance = compliance, .track = true});
}

namespace {
// The index 0..5 of a single compliance bit; anything else is a programming error.
int axisOf(RfmsClient::Compliance axis) {
  for (int d = 0; d < 6; ++d)
    if (static_cast<std::uint32_t>(axis) == 1u << d) return d;
  throw std::invalid_argument("RfmsClient::Force: an axis is one of kX kY kZ kRx kRy kRz");
}

void setAxis(google::protobuf::RepeatedField<double>* v, int d, double value) {
  if (v->empty()) v->Resize(6, 0.0);
  v->Set(d, value);
}
}  // namespace

RfmsClient::Force& RfmsClient::Force::press(Compliance axis, double setpoint) {
  const int d = axisOf(axis);
  setAxis(f_.mutable_force(), d, setpoint);
  f_.set_force_axes(f_.force_axes() | axis);
  compliance_ |= axis;
  return *this;
}

RfmsClient::Force& RfmsClient::Force::spring(Compliance axis, double stiffness, double damping) {
  const int d = axisOf(axis);
  setAxis(f_.mutable_stiffness(), d, stiffness);
  if (damping != 0.0) setAxis(f_.mutable_damping(), d, damping);
  compliance_ |= axis;
  return *this;
}

RfmsClient::Force& RfmsClient::Force::damp(Compliance axis, double damping) {
  setAxis(f_.mutable_damping(), axisOf(axis), damping);
  return *this;
}

RfmsClient::Force& RfmsClient::Force::inToolFrame() {
  f_.set_frame(proto::CF_TOOL);
  return *this;
}

RfmsClient::Force& RfmsClient::Force::law(proto::ForceLaw law, double kp, double kv_or_ki) {
  f_.set_law(law);
  f_.set_kp(kp);
  f_.set_kv(law == proto::FL_PD ? kv_or_ki : 0.0);
  f_.set_ki(law == proto::FL_PI ? kv_or_ki : 0.0);
  return *this;
}

void RfmsClient::forceMotion(const std::string& name, double segment_s, double accel_s, const Force& force, Mode mode) {
  motion(name, Motion{.segment_s = segment_s, .accel_s = accel_s, .mode = mode, .force = force});
}

void RfmsClient::guardedMotion(const std::string& name, double segment_s, double accel_s, double guard_n, Mode mode) {
  motion(name, Motion{.segment_s = segment_s, .accel_s = accel_s, .mode = mode, .guard_n = guard_n});
}

void RfmsClient::compensatedMotion(const std::string& name, double segment_s, double accel_s, double k1, Mode mode,
                                   std::uint32_t compliance) {
  motion(
      name,
      Motion{.segment_s = segment_s, .accel_s = accel_s, .mode = mode, .compliance = compliance, .compensation = k1});
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

void RfmsClient::control(proto::ControlCommand command, int joint, int direction, int counts, double angle) {
  proto::TaskRequest r;
  r.mutable_control()->set_command(command);
  r.mutable_control()->set_joint(joint);
  r.mutable_control()->set_direction(direction);
  r.mutable_control()->set_counts(counts);
  r.mutable_control()->set_angle(angle);
  require(r, std::string("control ") + proto::ControlCommand_Name(command));
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
void RfmsClient::jog(int joint, int direction) { control(proto::CC_JOG, joint, direction); }
void RfmsClient::jogCounts(int joint, int direction, int counts) { control(proto::CC_JOG, joint, direction, counts); }
void RfmsClient::jogAngle(int joint, int direction, double angle) {
  control(proto::CC_JOG, joint, direction, 0, angle);
}
void RfmsClient::jogAxis(proto::JogAxis axis, int direction, bool tool_frame, double size) {
  proto::TaskRequest r;
  proto::Control& c = *r.mutable_control();
  c.set_command(proto::CC_JOG);
  c.set_axis(axis);
  c.set_direction(direction);
  c.set_tool_frame(tool_frame);
  if (axis >= proto::JA_RX)
    c.set_angle(size);
  else
    c.set_distance(size);
  require(r, std::string("jog along ") + proto::JogAxis_Name(axis));
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
