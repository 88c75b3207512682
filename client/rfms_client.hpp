// The client library, in the spirit of the RFMS/RCCL user interface (RFMS manual A.5 §2): build
// transforms with trans / rot / eul / rpy, name them, write position equations, motion records,
// and request moves, from a program on any machine that reaches the bridge over UDP.
//
//   rfms::RfmsClient arm({.bridge = "127.0.0.1:47031"});
//   arm.beginTask("demo");
//   arm.transform("t2", rfms::trans(0.2032, -0.12623, 0.2032));
//   arm.position("home", rfms::ArmConfig{.righty = true, .up = false, .flip = true}, {"T6"}, {"t2"});
//   arm.motion("mjnt", 2.0, 0.2, rfms::RfmsClient::kJoint);
//   arm.wait(arm.move("home", "mjnt"));
//
// Every request gets the supervisor's answer; a refused one throws RequestRefused carrying its
// reason (send() returns the answer instead), and changes nothing. The link retransmits on its own;
// LinkError means the bridge did not answer at all (or refused this client's key): the request
// may or may not have been applied, and the next one goes out in a new session, so nothing after
// it is refused for the lost one. Units are SI: metres, radians, seconds.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/ik_puma.hpp"
#include "common/transform.hpp"
#include "net_bridge/udp_link_client.hpp"
#include "proto/task.pb.h"

namespace rfms {

class RequestRefused : public Error {
 public:
  RequestRefused(const std::string& what, proto::TaskReply reply) : Error(what), reply_(std::move(reply)) {}
  const proto::TaskReply& reply() const { return reply_; }

 private:
  proto::TaskReply reply_;
};

// A move ended without completing (a stop, an emergency), or did not end in time.
class MoveFailed : public Error {
 public:
  using Error::Error;
};

struct ClientOptions {
  std::string bridge = "127.0.0.1:47031";  // host:port
  // This client's key file (rfms-keys client); empty: a fresh key, for a bridge started with
  // --insecure only.
  std::string key_file;
  LinkOptions link;
  FaultRates faults;  // injected on the datagrams this client sends (tests, studies)
  std::uint64_t fault_seed = 1;
  double poll_s = 0.01;  // how often wait() asks for status
};

class RfmsClient {
 public:
  enum Mode { kJoint = proto::MM_JOINT, kCartesian = proto::MM_CARTESIAN };
  // Compliance bits for motion(): translations along, and rotations about, the x y z axes of the
  // base frame (the math server projects them through the Jacobian; docs/controller.md).
  enum Compliance : std::uint32_t { kX = 1, kY = 2, kZ = 4, kRx = 8, kRy = 16, kRz = 32 };

  explicit RfmsClient(const ClientOptions& options);

  void beginTask(const std::string& name);
  void endTask();
  // Defines a named transform, or updates it: positions using it follow, also during a move.
  void transform(const std::string& name, const Transform& value);
  // "T6" stands once on either side; the tool, if any, is written right after it and named in
  // `tool`, e.g. {"Z", "T6", "TOOL"} = {"CONV", "OBJ"}, "TOOL".
  void position(const std::string& name, const ArmConfig& config, const std::vector<std::string>& lhs,
                const std::vector<std::string>& rhs, const std::string& tool = "");
  void motion(const std::string& name, double segment_s, double accel_s, Mode mode, std::uint32_t compliance = 0);
  // Forgets a name this client's key defined, so that it and the room it took (max_names,
  // max_names_per_key) can be used again: a transform no position uses, a position or motion no
  // queued or running move uses. Throws RequestRefused saying why otherwise.
  enum NameKind {
    kTransformName = proto::Forget::FK_TRANSFORM,
    kPositionName = proto::Forget::FK_POSITION,
    kMotionName = proto::Forget::FK_MOTION
  };
  void forget(NameKind kind, const std::string& name);
  // A tracking motion: a move with it reaches its position as any move does, then keeps following
  // it as its transforms are updated (a conveyor, a camera) until stop() or the next move, and
  // only then completes.
  void trackingMotion(const std::string& name, double segment_s, double accel_s, Mode mode,
                      std::uint32_t compliance = 0);
  // A guarded motion: a move with it ends where the contact force (the force sensor's, less the
  // tool's weight) first reaches guard_n newtons, and the arm stops there; wait() then returns the
  // contact pose and force (MoveOutcome.guard_tripped). A move that reaches its position without
  // meeting the force completes as any move does. Needs a force sensor in the cluster's scene.
  void guardedMotion(const std::string& name, double segment_s, double accel_s, double guard_n, Mode mode = kCartesian);
  // A position-controlled motion that takes back k1 (0 .. 1) of a compliant wrist's measured
  // deflection (A.1, Eq. 15), so that the tool, not the flange, holds the path under a load.
  // Needs a compliant wrist in the cluster's scene.
  void compensatedMotion(const std::string& name, double segment_s, double accel_s, double k1, Mode mode = kCartesian,
                         std::uint32_t compliance = 0);
  // Force and impedance control along axes of the base or the tool frame (docs/force.md), e.g.
  //   arm.forceMotion("push", 3.0, 0.5, RfmsClient::Force().press(RfmsClient::kZ, -10.0));
  // press(): the tool applies this force (N) or moment (N m) along the axis, by the force law;
  // spring(): a stiffness to the path and a damper. A move with it completes with its force
  // figures (MoveOutcome.force). Force axes need a force sensor in the cluster's scene.
  class Force {
   public:
    Force& press(Compliance axis, double setpoint);
    Force& spring(Compliance axis, double stiffness, double damping = 0.0);
    Force& damp(Compliance axis, double damping);
    Force& inToolFrame();
    Force& law(proto::ForceLaw law, double kp, double kv_or_ki = 0.0);  // kv for PD, ki for PI
    const proto::ForceControl& message() const { return f_; }
    std::uint32_t compliance() const { return compliance_; }

   private:
    proto::ForceControl f_;
    std::uint32_t compliance_ = 0;
  };
  void forceMotion(const std::string& name, double segment_s, double accel_s, const Force& force,
                   Mode mode = kCartesian);
  // Any motion record, its options composed (the calls above are its common cases): e.g. a
  // tracking motion that complies along z, or a guarded one with compensation. The supervisor
  // refuses combinations it cannot run (force axes with compensation), saying which.
  struct Motion {
    double segment_s = 1.0;
    double accel_s = 0.2;
    Mode mode = kJoint;
    std::uint32_t compliance = 0;  // Compliance bits; a force's own axes are added to them
    bool track = false;
    double guard_n = 0.0;       // 0: not guarded
    double compensation = 0.0;  // k1 of a compliant wrist, 0 .. 1
    std::optional<Force> force{};
  };
  void motion(const std::string& name, const Motion& m);
  // Queues a move; returns its handle.
  std::uint64_t move(const std::string& position, const std::string& motion);
  // Until the move has ended, and how (a guarded move: where it met its force); throws MoveFailed
  // if it was aborted (with the emergency's reason), if it ran its course without doing what it
  // was asked (a guard never met, a force not held), or if timeout_s passed.
  proto::MoveOutcome wait(std::uint64_t move, double timeout_s = 600.0);
  // Until every move accepted so far has ended.
  void waitAll(double timeout_s = 600.0);
  proto::ArmStatus status();
  // Called with every status answer this client receives, wait()'s and calibrate()'s included:
  // the only way to see all of a watch's samples while also waiting on a move (each answer drains
  // them). Empty: none.
  void onStatus(std::function<void(const proto::ArmStatus&)> hook) { on_status_ = std::move(hook); }
  // debug(): from now on the controller samples these signals (docs/run-logs.md names them:
  // "jmail.3.angle", "smail.t6.m[3]", ...) at rate_hz and sends the samples with this session's
  // status answers (ArmStatus.samples), which status() then drains. No signals: stop watching.
  // SignalWatcher (signal_watcher.hpp) does this on a session of its own and calls back.
  void watch(const std::vector<std::string>& signals, double rate_hz);

  void calibrate();  // and wait until every joint has found its index
  void hold();
  void free();
  // Jogs joint 1..6 (direction +1 or -1) on, 4 encoder counts a period, until hold(), stop() or
  // another jog (MANU; before calibration too).
  void jog(int joint, int direction);
  // One step of `counts` encoder counts (before calibration too), after which the joint holds.
  void jogCounts(int joint, int direction, int counts);
  // One step of `angle` radians (a calibrated joint only), after which the joint holds.
  void jogAngle(int joint, int direction, double angle);
  // Moves the wrist along (JA_X, JA_Y, JA_Z) or turns it about (JA_RX ..) an axis of the base
  // frame, or of T6's own frame with `tool_frame`, at 10 mm/s or 5 deg/s, until stop() or another
  // jog (a calibrated arm, from HOLD). `size` > 0: one step of that many metres or radians.
  void jogAxis(proto::JogAxis axis, int direction, bool tool_frame = false, double size = 0.0);
  void stop();
  void reset();
  void powerOff();
  void emergencyStop();

  // Any request: numbered, sent, answered; no exception on refusal.
  proto::TaskReply send(proto::TaskRequest request);

  std::uint64_t session() const { return link_.session(); }
  std::uint64_t requestsSent() const { return number_; }
  const UdpLinkClient& link() const { return link_; }

 private:
  proto::TaskReply require(proto::TaskRequest request, const std::string& what);
  void control(proto::ControlCommand command, int joint = 0, int direction = 0, int counts = 0, double angle = 0.0);

  ClientOptions options_;
  UdpLinkClient link_;
  std::function<void(const proto::ArmStatus&)> on_status_;
  std::uint64_t number_ = 0, last_move_ = 0;
};

}  // namespace rfms
