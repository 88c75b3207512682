#include "common/mail_signal.hpp"

#include <limits>
#include <sstream>

#include <google/protobuf/descriptor.h>

#include "common/error.hpp"
#include "common/types.hpp"
#include "proto/mailboxes.pb.h"

namespace rfms {

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using Step = MailSignal::Step;

std::vector<Step> parsePath(const std::string& signal, const std::string& path) {
  std::vector<Step> steps;
  std::stringstream in(path);
  std::string part;
  while (std::getline(in, part, '.')) {
    Step s;
    const auto open = part.find('[');
    if (open != std::string::npos) {
      if (part.back() != ']') throw ConfigError("signal '" + signal + "': '" + part + "' is not name[index]");
      try {
        s.index = std::stoi(part.substr(open + 1, part.size() - open - 2));
      } catch (const std::exception&) {
        throw ConfigError("signal '" + signal + "': '" + part + "' is not name[index]");
      }
      if (s.index < 0) throw ConfigError("signal '" + signal + "': '" + part + "' has a negative index");
      part = part.substr(0, open);
    }
    s.field = part;
    steps.push_back(s);
  }
  if (steps.empty()) throw ConfigError("signal '" + signal + "' names no field");
  return steps;
}

std::string fieldsOf(const google::protobuf::Descriptor* d) {
  std::string all;
  for (int i = 0; i < d->field_count(); ++i) all += (i ? ", " : "") + d->field(i)->name();
  return all;
}

// Checks the path against the message type, and keeps each step's field so that reading it is
// not a search by name.
void checkPath(const std::string& signal, const google::protobuf::Descriptor* d, std::vector<Step>& steps) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const FieldDescriptor* f = d->FindFieldByName(steps[i].field);
    steps[i].descriptor = f;
    if (f == nullptr)
      throw ConfigError("signal '" + signal + "': " + d->name() + " has no field '" + steps[i].field + "' (it has " +
                        fieldsOf(d) + ")");
    if (f->is_repeated() != (steps[i].index >= 0))
      throw ConfigError(
          "signal '" + signal + "': " + steps[i].field +
          (f->is_repeated() ? " is repeated: give an index, e.g. " + steps[i].field + "[0]" : " is not repeated"));
    const bool last = i + 1 == steps.size();
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (last)
        throw ConfigError("signal '" + signal + "': " + steps[i].field + " is a message; name one of its fields");
      d = f->message_type();
    } else if (!last) {
      throw ConfigError("signal '" + signal + "': " + steps[i].field + " has no fields");
    } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
      throw ConfigError("signal '" + signal + "': " + steps[i].field + " is text, not a number");
    }
  }
}

double valueAt(const Message& m, const std::vector<Step>& steps, std::size_t i) {
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  const auto* r = m.GetReflection();
  const FieldDescriptor* f = steps[i].descriptor;
  if (f == nullptr || f->containing_type() != m.GetDescriptor()) return kNone;  // a message of another type
  if (f->is_repeated() && steps[i].index >= r->FieldSize(m, f)) return kNone;
  const int k = steps[i].index;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return valueAt(f->is_repeated() ? r->GetRepeatedMessage(m, f, k) : r->GetMessage(m, f), steps, i + 1);
    case FieldDescriptor::CPPTYPE_DOUBLE: return f->is_repeated() ? r->GetRepeatedDouble(m, f, k) : r->GetDouble(m, f);
    case FieldDescriptor::CPPTYPE_FLOAT: return f->is_repeated() ? r->GetRepeatedFloat(m, f, k) : r->GetFloat(m, f);
    case FieldDescriptor::CPPTYPE_INT32: return f->is_repeated() ? r->GetRepeatedInt32(m, f, k) : r->GetInt32(m, f);
    case FieldDescriptor::CPPTYPE_INT64:
      return static_cast<double>(f->is_repeated() ? r->GetRepeatedInt64(m, f, k) : r->GetInt64(m, f));
    case FieldDescriptor::CPPTYPE_UINT32: return f->is_repeated() ? r->GetRepeatedUInt32(m, f, k) : r->GetUInt32(m, f);
    case FieldDescriptor::CPPTYPE_UINT64:
      return static_cast<double>(f->is_repeated() ? r->GetRepeatedUInt64(m, f, k) : r->GetUInt64(m, f));
    case FieldDescriptor::CPPTYPE_BOOL:
      return (f->is_repeated() ? r->GetRepeatedBool(m, f, k) : r->GetBool(m, f)) ? 1 : 0;
    case FieldDescriptor::CPPTYPE_ENUM:
      return f->is_repeated() ? r->GetRepeatedEnumValue(m, f, k) : r->GetEnumValue(m, f);
    default: return kNone;
  }
}

}  // namespace

const google::protobuf::Descriptor* mailboxType(Mailbox box) {
  switch (box) {
    case Mailbox::kSMail: return proto::SMail::descriptor();
    case Mailbox::kMMail: return proto::MMail::descriptor();
    case Mailbox::kParcel: return proto::Parcel::descriptor();
    case Mailbox::kSensors: return proto::ArmSensors::descriptor();
    case Mailbox::kJMail: return proto::JMail::descriptor();
    case Mailbox::kTorque: return proto::TorqueCommand::descriptor();
  }
  return nullptr;
}

MailSignal parseMailSignal(const std::string& signal) {
  MailSignal s;
  s.name = signal;
  const auto dot = signal.find('.');
  if (dot == std::string::npos) throw ConfigError("signal '" + signal + "': expected <mailbox>.<field>");
  const std::string box = signal.substr(0, dot);
  std::string rest = signal.substr(dot + 1);
  if (box == "jmail" || box == "torque") {
    const auto dot2 = rest.find('.');
    try {
      s.joint = std::stoi(rest.substr(0, dot2));
    } catch (const std::exception&) {
      s.joint = 0;
    }
    if (s.joint < 1 || s.joint > kJoints || dot2 == std::string::npos)
      throw ConfigError("signal '" + signal + "': expected " + box + ".<joint 1..6>.<field>");
    rest = rest.substr(dot2 + 1);
    s.box = box == "jmail" ? Mailbox::kJMail : Mailbox::kTorque;
  } else if (box == "smail") {
    s.box = Mailbox::kSMail;
  } else if (box == "mmail") {
    s.box = Mailbox::kMMail;
  } else if (box == "parcel") {
    s.box = Mailbox::kParcel;
  } else if (box == "sensors") {
    s.box = Mailbox::kSensors;
  } else {
    throw ConfigError("signal '" + signal + "': no mailbox '" + box +
                      "' (smail, mmail, parcel, sensors, jmail, torque)");
  }
  s.steps = parsePath(signal, rest);
  checkPath(signal, mailboxType(s.box), s.steps);
  return s;
}

double readSignal(const google::protobuf::Message& m, const MailSignal& s) { return valueAt(m, s.steps, 0); }

}  // namespace rfms
