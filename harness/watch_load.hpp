// The heaviest watch the supervisor's desk admits (debug(), supervisor/signal_watch.hpp): for the
// benchmark of what sampling costs the period and the test that it allocates nothing.
#pragma once

#include <cstdint>

#include "harness/harness.hpp"
#include "supervisor/remote_desk.hpp"

namespace rfms {

// Session `session`'s request to watch sixteen signals of every mailbox the supervisor sees, at
// `rate_hz` (the sample rate at most), as an observer.
inline proto::TaskRequest watchEverythingRequest(std::uint64_t session, double rate_hz) {
  proto::TaskRequest r;
  r.set_session(session);
  r.set_number(1);
  r.set_role(proto::CR_OBSERVER);
  for (const char* signal :
       {"jmail.1.angle", "jmail.2.servo_error", "jmail.3.setpoint", "jmail.4.velocity", "jmail.5.angle",
        "jmail.6.servo_setpoint", "smail.t6.m[3]", "smail.rtstate", "smail.desired_acceleration[2]", "mmail.angles[0]",
        "mmail.parcel_joint", "sensors.encoder[5]", "sensors.powered", "parcel.joint", "smail.t6.m[11]",
        "smail.traj_state"})
    r.mutable_watch()->add_signals(signal);
  r.mutable_watch()->set_rate_hz(rate_hz);
  return r;
}

// Sessions 1 .. `clients` (at most RemoteDesk::kMaxWatches) each watch that much. False if the
// desk refused one.
inline bool watchEverything(RemoteDesk& desk, SupervisorBackground& supervisor, std::uint64_t clients, double rate_hz,
                            std::uint64_t k) {
  for (std::uint64_t session = 1; session <= clients; ++session)
    if (!desk.accept(watchEverythingRequest(session, rate_hz), supervisor, k).accepted()) return false;
  return true;
}

// What the supervisor read in a recorded period, as the desk's observe() takes it.
inline SupervisorInbox supervisorInbox(const PeriodMail& m) {
  SupervisorInbox in;
  in.arm = m.sensors;
  in.parcel = m.parcel;
  for (std::size_t j = 0; j < kJoints; ++j) in.joints[j] = m.jmail[j];
  return in;
}

}  // namespace rfms
