// What the cluster's supervisor writes into the run log. A realtime log holds every mail as it
// came, read or late (the joints read sensors the supervisor skipped, and re-running each core
// needs exactly what it read), and each period's timing; a lockstep or paced log holds what each
// period used. Both hold what the supervisor sent, its events, the task requests and the torques
// the arm applied. Real-time safe: messages go into the logger's ring through reused messages.
#pragma once

#include <array>
#include <cstdint>

#include "common/mail_names.hpp"
#include "proto/cluster.pb.h"
#include "proto/runlog.pb.h"
#include "runtime/mail_box.hpp"
#include "supervisor/event_log.hpp"
#include "supervisor/supervisor_core.hpp"
#include "supervisor/world_model.hpp"

namespace rfms {

class RunLogger;
class FaultRecorder;

class LogTap {
 public:
  // `log` may be null: then nothing is written.
  LogTap(RunLogger* log, proto::ClockMode clock);

  bool on() const { return log_ != nullptr; }
  // Keeps the last periods of the supervisor's mail, with or without a log, and writes them out
  // when the core declares an emergency (null: none).
  void setFaultRecorder(FaultRecorder* recorder) { recorder_ = recorder; }
  // Why the log stopped writing, or "" while it writes (or there is none). Real-time safe while
  // it writes: one atomic load.
  std::string stoppedWriting() const;
  // Realtime: a mail as it arrived, before the supervisor decides whether it is in time.
  void arrived(const proto::Envelope& mail);
  // Lockstep and paced: a mail that came after its period went on without it. The node computed
  // it, so a core-by-core check of the log needs it (a joint's state moved on with it).
  void late(const proto::Envelope& mail);
  // The arm's report of the torques it received (logged on the torque channel, each at its own
  // period, as the harness logs them) and which one of each joint it integrated with.
  void applied(proto::AppliedTorques& report);
  // `n` mails of box `b` lost before the supervisor read them (a ring it fell behind on): the log
  // counts them as dropped.
  void lost(Box b, std::uint64_t n);
  // `damaged` mails of box `b` so far were damaged or impossible and dropped (the port's count),
  // seen at period k: a MAIL_DAMAGED event. Real-time safe.
  void damaged(std::uint64_t k, Box b, std::uint64_t damaged);
  // A task request's record, for the background to hand the period with it ("" without a log).
  // With what `world` holds after it (supervisor/world_status.hpp: worldRecord), for the log's
  // pictures of the arm.
  std::string record(const proto::TaskRequest& request, const proto::TaskReply& reply, bool desk_only,
                     const WorldModel& world) const;
  // The records of the requests period k applied, under k. Real-time safe.
  void requests(std::uint64_t k, const SupervisorCore& core);

  // The supervisor's timing of period k (realtime): its tick on the system clock, each node's
  // lateness (-1: no answer), which nodes missed it (bit 1 << Node).
  struct Timing {
    std::int64_t tick_ns = 0;
    std::array<double, kNodeSlots> lateness_ms{};
    std::uint32_t missed = 0;
  };
  // After period k's mail is out: what it used (lockstep), what it sent, its events, its timing.
  void period(std::uint64_t k, const SupervisorInbox& in, const SupervisorOutbox& out, const Timing& timing);

 private:
  // Period k's mail and events into the fault recorder; its emergency starts the record's writing.
  void recordForFaults(std::uint64_t k, const SupervisorInbox& in, const SupervisorOutbox& out);

  RunLogger* log_;
  FaultRecorder* recorder_ = nullptr;
  bool every_mail_;  // realtime: mail is logged as it arrives
  proto::PeriodTiming timing_;
  ReusedLogEvent event_;
  proto::LogEvent damage_;  // its box's name has room for any box's: setting it allocates nothing
};

}  // namespace rfms
