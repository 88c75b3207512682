// A signal: one number of the controller's mailboxes, named as run-log exports and `rfms-client
// watch` name it: `<mailbox>.<field>` for the supervisor's and the arm's mail (smail, mmail,
// parcel, sensors), `<mailbox>.<joint>.<field>` for the joints' (jmail, torque); nested fields
// with dots, repeated ones with [i]:
//   jmail.3.angle   jmail.3.servo_setpoint   torque.2.torque   smail.rtstate   sensors.encoder[0]
//   smail.t6.m[3]   smail.desired_acceleration[1]
// Parsing checks the path against the mailbox's message type once, so that a typo fails before
// any work; reading is then real-time safe (reflection, no allocation).
#pragma once

#include <string>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

namespace rfms {

enum class Mailbox { kSMail, kMMail, kParcel, kSensors, kJMail, kTorque };

struct MailSignal {
  struct Step {
    std::string field;
    int index = -1;                                                 // for a repeated field
    const google::protobuf::FieldDescriptor* descriptor = nullptr;  // found once, when parsed
  };
  std::string name;  // as written
  Mailbox box = Mailbox::kSMail;
  int joint = 0;  // 1..6 for jmail and torque, else 0
  std::vector<Step> steps;
};

// Throws ConfigError naming the signal and what is wrong (with the fields there are).
MailSignal parseMailSignal(const std::string& signal);
const google::protobuf::Descriptor* mailboxType(Mailbox box);
// The signal's value in `m`, a message of its mailbox's type; NaN where a repeated field is
// shorter than the index.
double readSignal(const google::protobuf::Message& m, const MailSignal& s);

}  // namespace rfms
