// The client library, in the spirit of the RFMS/RCCL user interface (RFMS manual A.5 §2): build
// transforms with trans / rot / eul / rpy, name them, write position equations, motion records,
// and request moves, from a program on any machine that reaches the bridge over UDP.
//
//   rfms::RfmsClient arm({.bridge = "127.0.0.1:47031"});
//   arm.beginTask("demo");
//   arm.transform("t2", rfms::trans(0.2032, -0.12623, 0.2032));
//   arm.position("home", rfms::ArmConfig{.righty = true, .up = false, .flip = true}, {"T6"}, {"t2"});
//   arm.motion("mjnt", rfms::Motion::joint(2.0, 0.2));
//   arm.wait(arm.move("home", "mjnt"));
//
// Every request gets the supervisor's answer; a refused one throws RequestRefused carrying its
// reason, and changes nothing. The link retransmits on its own;
// LinkError means the bridge did not answer at all (or refused this client's key): the request
// may or may not have been applied, and the next one goes out in a new session, so nothing after
// it is refused for the lost one. Units are SI: metres, radians, seconds. What comes back is plain
// values (client/arm_status.hpp); the wire's messages stay inside (client/task_link.hpp, for tools
// whose input is already a request).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "client/arm_status.hpp"
#include "client/client_options.hpp"
#include "client/motion.hpp"
#include "common/ik_opw.hpp"
#include "common/transform.hpp"

namespace rfms {

class TaskLink;

// When an accepted update takes effect: the period whose setpoints first see it, and the time
// from its arrival at the bridge to that period's start (ms; 0 when not measured).
struct Applied {
  std::uint64_t period = 0;
  double arrival_to_setpoint_ms = 0;
};

class RfmsClient {
 public:
  explicit RfmsClient(const ClientOptions& options);
  ~RfmsClient();
  RfmsClient(const RfmsClient&) = delete;
  RfmsClient& operator=(const RfmsClient&) = delete;

  void beginTask(const std::string& name);
  void endTask();
  // Defines a named transform, or updates it: positions using it follow, also during a move.
  Applied transform(const std::string& name, const Transform& value);
  // "T6" stands once on either side; the tool, if any, is written right after it and named in
  // `tool`, e.g. {"Z", "T6", "TOOL"} = {"CONV", "OBJ"}, "TOOL".
  void position(const std::string& name, const ArmConfig& config, const std::vector<std::string>& lhs,
                const std::vector<std::string>& rhs, const std::string& tool = "");
  // A motion record (client/motion.hpp), e.g. motion("mcartcz", Motion::cartesian(20, 0.5).complying(kZ)).
  // A move with a guard ends where the contact force first reaches it (wait() then returns the
  // contact pose and force); a move under force control completes with its force figures
  // (MoveOutcome::force). Guards and force axes need a force sensor in the cluster's scene,
  // compensation a compliant wrist. The supervisor refuses combinations it cannot run, saying which.
  void motion(const std::string& name, const Motion& m);
  // Forgets a name this client's key defined, so that it and the room it took (max_names,
  // max_names_per_key) can be used again: a transform no position uses, a position or motion no
  // queued or running move uses. Throws RequestRefused saying why otherwise.
  enum NameKind { kTransformName, kPositionName, kMotionName };
  void forget(NameKind kind, const std::string& name);
  // Queues a move; returns its handle.
  std::uint64_t move(const std::string& position, const std::string& motion);
  // Until the move has ended, and how (a guarded move: where it met its force); throws MoveFailed
  // if it was aborted (with the emergency's reason), if it ran its course without doing what it
  // was asked (a guard never met, a force not held), or if timeout_s passed.
  MoveOutcome wait(std::uint64_t move, double timeout_s = 600.0);
  // Until every move accepted so far has ended.
  void waitAll(double timeout_s = 600.0);
  ArmStatus status();
  // Called with every status answer this client receives, wait()'s and calibrate()'s included:
  // the only way to see all of a watch's samples while also waiting on a move (each answer drains
  // them). Empty: none.
  void onStatus(std::function<void(const ArmStatus&)> hook);
  // debug(): from now on the controller samples these signals (docs/run-logs.md names them:
  // "jmail.3.angle", "smail.t6.m[3]", ...) at rate_hz and sends the samples with this session's
  // status answers (ArmStatus::samples), which status() then drains. No signals: stop watching.
  // SignalWatcher (signal_watcher.hpp) does this on a session of its own and calls back.
  void watch(const std::vector<std::string>& signals, double rate_hz);

  // Calibrates and waits until every joint has found its index (MoveFailed: an emergency, or not
  // done within timeout_s); an arm already calibrated returns at once.
  void calibrate(double timeout_s = 120.0);
  void hold();
  void free();
  // A jog (client/motion.hpp): a joint by encoder counts (MANU, before calibration too) or by an
  // angle (a calibrated joint); the wrist along or about an axis of the base frame, or of T6's own,
  // at 10 mm/s or 5 deg/s (a calibrated arm, from HOLD). Without a step's size it goes on until
  // hold(), stop() or another jog; with one it is one step, after which the arm holds.
  void jog(const Jog& j);
  void stop();
  void reset();
  void powerOff();
  void emergencyStop();

  std::uint64_t session() const;
  std::uint64_t requestsSent() const;
  // The wire under this client, for a tool whose input is already a request (a parsed task line).
  TaskLink& wire() { return *wire_; }

 private:
  std::unique_ptr<TaskLink> wire_;
};

}  // namespace rfms
