// The supervisor's background (RFMS manual §4.1; the 002 report: "a background process on the
// supervisor"): it takes a task's requests, checks each in full against the world model and what
// the period last published (names, the state machine, reach, the straight line's IK, limits),
// edits its world model, and hands the period the outcome as one small command (PeriodCommand).
// A refused request changes nothing and says why.
//
// It never touches the period's state. Between the view it reads and the step that applies its
// commands the period may move on; so its own picture is the view with its pending commands
// applied (a move it queued, a state it asked for), until the period has taken them all. Driven
// between two steps, as the harness and a paced cluster drive it, it answers exactly as a
// supervisor that handled requests inside its period would.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "common/ik_opw.hpp"
#include "common/refusal.hpp"
#include "proto/task.pb.h"
#include "supervisor/force_stability.hpp"
#include "supervisor/period_command.hpp"
#include "supervisor/supervisor_config.hpp"
#include "supervisor/world_model.hpp"

namespace rfms {

// A reply's verdict: accepted without a refusal, else refused with its code and its reason (cut to
// a bound, for a reason may quote what the client sent).
void setRefusal(proto::TaskReply& reply, Refusal refusal);

class SupervisorBackground {
 public:
  SupervisorBackground(const RobotModel& model, const SupervisorConfig& config, SupervisorLink& link);

  // One request of a task: checked, and what the period must do about it made ready.
  proto::TaskReply handle(const proto::TaskRequest& request);
  // Hands the period what the last request made ready, with the request's run-log record
  // (`record`, empty without a log), or — for a request the remote desk answered alone — the
  // record by itself. Every request handled is committed before the next one is handled.
  void commit(std::string_view record = {});
  // The run log stopped writing (`why`). Where the run requires a log, the arm comes to rest and
  // holds (as on a stop), and moves and jogs are refused from then on with the reason; otherwise
  // nothing changes.
  void logStopped(const std::string& why);

  // What the period published last.
  const SupervisorView& view();
  // Called when the period has not taken the commands that fill the link yet: one thread driving
  // both sides applies them now (Supervisor); a background of its own waits a while for the
  // period. Without it, or when the link stays full, the request is refused.
  // Returns the one it replaces.
  std::function<void()> whenFull(std::function<void()> wait) { return std::exchange(when_full_, std::move(wait)); }
  const WorldModel& world() const { return world_; }
  // The period has not yet taken as many commands as the link holds.
  bool linkFull() const;
  // Records of requests answered by the desk alone that found the link full: the log lacks them.
  std::uint64_t lostRecords() const { return lost_records_; }

 private:
  // The picture requests are checked against: the newest view once the period has taken every
  // command, else the last picture with the commands since applied.
  void refresh();
  void stage(const PeriodCommand& c);  // what commit() will push
  proto::RtState plannedState() const { return state_request_ ? requested_ : plan_.state; }
  Refusal defineMotion(const proto::DefineMotion& d);
  Refusal acceptMove(const proto::Move& move, std::uint64_t& id);
  Refusal forget(const proto::Forget& f);
  Refusal control(const proto::Control& c);
  Refusal jointJog(const proto::Control& c, proto::RtState s);
  Refusal axisJog(const proto::Control& c, proto::RtState s);
  Refusal forceRefusal(const proto::DefineMotion& d) const;
  // A moment setpoint no contact of the scene can give the tool, or no refusal.
  Refusal momentOutOfReach(const proto::ForceControl& f) const;
  // A predicted instability: refused, or, with controller.force.refuse_unstable_laws off, let
  // through with `why` as the reply's warning (before any warning already set).
  Refusal refuseOrWarn(const std::string& why);
  // A move's force law judged where the move starts and ends: no refusal when it may run (with
  // warning_ set when it runs only because the check is overridden).
  Refusal unstableLaw(const std::string& motion_name, const MotionRecord& motion, const JointVec& start,
                      const JointVec& end);
  // A motion's position compensator judged by A.1's analysis of a link that follows its setpoints
  // late, through the wrist (common/compensator_loop.hpp), which needs no pose: no refusal when it
  // may be defined (warning_ set as for a law). Necessary only: the move's check below is the arm's.
  Refusal unstableCompensator(const std::string& motion_name, const CompensatorGains& g);
  // A move's compensator judged on the whole arm's sampled loop where the move starts and ends
  // (common/compensator_arm_loop.hpp), as a law is.
  Refusal compensatorRings(const std::string& motion_name, const MotionRecord& motion, const JointVec& start,
                           const JointVec& end);
  bool restingInSetp(proto::RtState s) const;  // SETP, nothing queued or running, the setpoint settled
  Refusal requestState(proto::RtState to);
  // The place a definition filled (kTransform, kPosition or kMotion), to the period.
  void sendPlace(PeriodCommand::Kind kind, int index);

  const RobotModel& model_;
  SupervisorConfig config_;
  SupervisorLink& link_;
  OpwIk ik_;
  ForceStability stability_;
  std::string warning_;  // the caution of the request being handled, for its reply
  WorldModel world_;
  SupervisorView plan_;
  bool state_request_ = false;  // asked for in a command the period has not taken yet
  proto::RtState requested_ = proto::RT_IDLE;
  std::uint64_t next_move_id_ = 1;
  std::function<void()> when_full_;
  PeriodCommand staged_;
  bool staged_present_ = false;
  std::uint64_t checked_after_ = 0;  // the period of the view the last request was checked against
  std::uint64_t lost_records_ = 0;
  std::uint64_t last_change_pushed_ = 0;  // commands pushed up to the last that changes the picture
  std::string halted_;                    // why moves are refused for the rest of the run ("" when they are not)
};

}  // namespace rfms
