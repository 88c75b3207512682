#include "replay/signals.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include "common/error.hpp"
#include "common/types.hpp"

namespace rfms {

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

struct Step {
  std::string name;
  int index = -1;  // for repeated fields
};

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
      part = part.substr(0, open);
    }
    s.name = part;
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

// Checks the path against the message type once, so that a typo fails before any work.
void checkPath(const std::string& signal, const google::protobuf::Descriptor* d, const std::vector<Step>& steps) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const FieldDescriptor* f = d->FindFieldByName(steps[i].name);
    if (f == nullptr)
      throw ConfigError("signal '" + signal + "': " + d->name() + " has no field '" + steps[i].name + "' (it has " +
                        fieldsOf(d) + ")");
    if (f->is_repeated() != (steps[i].index >= 0))
      throw ConfigError(
          "signal '" + signal + "': " + steps[i].name +
          (f->is_repeated() ? " is repeated: give an index, e.g. " + steps[i].name + "[0]" : " is not repeated"));
    const bool last = i + 1 == steps.size();
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (last)
        throw ConfigError("signal '" + signal + "': " + steps[i].name + " is a message; name one of its fields");
      d = f->message_type();
    } else if (!last) {
      throw ConfigError("signal '" + signal + "': " + steps[i].name + " has no fields");
    } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
      throw ConfigError("signal '" + signal + "': " + steps[i].name + " is text, not a number");
    }
  }
}

double valueAt(const Message& m, const std::vector<Step>& steps, std::size_t i = 0) {
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  const auto* r = m.GetReflection();
  const FieldDescriptor* f = m.GetDescriptor()->FindFieldByName(steps[i].name);
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

// Messages of one mailbox by period (and joint, for the joints' mail).
template <class T>
std::map<std::uint64_t, const Message*> byPeriod(const std::vector<T>& v, int joint) {
  std::map<std::uint64_t, const Message*> m;
  for (const T& x : v) {
    if constexpr (std::is_same_v<T, proto::JMail> || std::is_same_v<T, proto::TorqueCommand>) {
      if (static_cast<int>(x.joint()) != joint) continue;
    }
    m[x.header().period()] = &x;
  }
  return m;
}

}  // namespace

std::vector<std::string> defaultSignals() {
  std::vector<std::string> s;
  for (int j = 1; j <= kJoints; ++j) {
    s.push_back("jmail." + std::to_string(j) + ".servo_setpoint");
    s.push_back("jmail." + std::to_string(j) + ".angle");
  }
  return s;
}

SignalTable extractSignals(const RunLog& log, const std::vector<std::string>& signals) {
  SignalTable t;
  const double dt = log.dtMs() * 1e-3;
  const std::uint64_t periods = log.periods();
  for (std::uint64_t k = 0; k < periods; ++k) t.time_s.push_back(static_cast<double>(k) * dt);
  for (const std::string& signal : signals) {
    const auto dot = signal.find('.');
    if (dot == std::string::npos) throw ConfigError("signal '" + signal + "': expected <mailbox>.<field>");
    const std::string box = signal.substr(0, dot);
    std::string rest = signal.substr(dot + 1);
    int joint = 0;
    std::map<std::uint64_t, const Message*> messages;
    const google::protobuf::Descriptor* type = nullptr;
    if (box == "jmail" || box == "torque") {
      const auto dot2 = rest.find('.');
      try {
        joint = std::stoi(rest.substr(0, dot2));
      } catch (const std::exception&) {
        joint = 0;
      }
      if (joint < 1 || joint > kJoints || dot2 == std::string::npos)
        throw ConfigError("signal '" + signal + "': expected " + box + ".<joint 1..6>.<field>");
      rest = rest.substr(dot2 + 1);
      if (box == "jmail")
        messages = byPeriod(log.jmail, joint), type = proto::JMail::descriptor();
      else
        messages = byPeriod(log.torque, joint), type = proto::TorqueCommand::descriptor();
    } else if (box == "smail") {
      messages = byPeriod(log.smail, 0), type = proto::SMail::descriptor();
    } else if (box == "mmail") {
      messages = byPeriod(log.mmail, 0), type = proto::MMail::descriptor();
    } else if (box == "parcel") {
      messages = byPeriod(log.parcel, 0), type = proto::Parcel::descriptor();
    } else if (box == "sensors") {
      messages = byPeriod(log.sensors, 0), type = proto::ArmSensors::descriptor();
    } else {
      throw ConfigError("signal '" + signal + "': no mailbox '" + box +
                        "' (smail, mmail, parcel, sensors, jmail, torque)");
    }
    const auto steps = parsePath(signal, rest);
    checkPath(signal, type, steps);
    std::vector<double> column(periods, std::numeric_limits<double>::quiet_NaN());
    for (const auto& [k, m] : messages)
      if (k < periods) column[k] = valueAt(*m, steps);
    t.names.push_back(signal);
    t.columns.push_back(std::move(column));
  }
  return t;
}

std::string toCsv(const SignalTable& t) {
  std::ostringstream o;
  o << "time_s";
  for (const auto& n : t.names) o << "," << n;
  o << "\n";
  o.precision(10);
  for (std::size_t r = 0; r < t.time_s.size(); ++r) {
    o << t.time_s[r];
    for (const auto& c : t.columns) {
      o << ",";
      if (!std::isnan(c[r])) o << c[r];
    }
    o << "\n";
  }
  return o.str();
}

}  // namespace rfms
