// What a mailbox's values can be on this robot: a mail that says otherwise is not acted on. The
// checksum (runtime/mail_ring.hpp) catches memory that a stray write changed; this catches a
// mail its writer got wrong, or one forged whole — a setpoint of 1e62 rad, a NaN torque, a joint
// number in the wrong box. Every floating-point value must be finite; angles within the joint's
// range give or take a turn (an uncalibrated joint may read a turn off), speeds within ten times
// the joint's top speed, torques within twice what its amplifier gives, sines within [-1, 1].
// Loose on purpose: the bounds are what no working node sends, not what a good run stays in (the
// cores' own limits — following error, range faults — stay theirs).
//
// The mailbox port asks it of every mail it parses (MailPort::setLimits); a mail that fails is
// dropped and counted as impossible, as a mail that fails its check is counted as corrupt, so the
// node reads the period as one without that mail, and a writer that keeps sending such mail falls
// silent to its readers and is named by the supervisor's watchdog. Real-time safe: no allocation.
#pragma once

#include <array>
#include <cstddef>

#include "common/robot_model.hpp"
#include "proto/cluster.pb.h"
#include "runtime/mail_box.hpp"

namespace rfms {

class MailLimits {
 public:
  explicit MailLimits(const RobotModel& model);
  // Why mail `m` of box `b` cannot be right (a constant phrase naming the value), or nullptr.
  const char* impossible(Box b, const proto::Envelope& m) const;

 private:
  const char* jmail(Box b, const proto::JMail& j) const;
  const char* smail(const proto::SMail& s) const;
  const char* sensors(const proto::ArmSensors& a) const;
  const char* torque(Box b, const proto::TorqueCommand& t) const;
  const char* parcel(const proto::Parcel& p) const;
  const char* mmail(const proto::MMail& m) const;

  struct Joint {
    double q_lo, q_hi, qd, tau;
  };
  std::array<Joint, kJoints> joints_{};
};

// Whether a serialised mail is one box `b` ever holds, looked at before it is parsed: its body
// one the box carries (S_MAIL's box holds S_MAIL, the control box hellos, starts, stops,
// refusals and fault notices, ...), and every field in it one its type declares, in its
// declared wire form. So hostile mail never makes the parser build the large bodies no mailbox
// carries (task requests, status), nor keep unknown fields, which protobuf stores on the heap.
bool carriesItsOwnBody(Box b, const void* mail, std::size_t size);
// Makes carriesItsOwnBody real-time safe: protobuf builds its lookups on first use. Called by
// every MailPort as it is made; configuration time.
void prepareMailChecks();

}  // namespace rfms
