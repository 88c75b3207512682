#include "replay/signals.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include <google/protobuf/message.h>

#include "common/error.hpp"
#include "common/mail_signal.hpp"
#include "common/types.hpp"

namespace rfms {

namespace {

using google::protobuf::Message;

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
    const MailSignal sig = parseMailSignal(signal);
    std::map<std::uint64_t, const Message*> messages;
    switch (sig.box) {
      case Mailbox::kJMail: messages = byPeriod(log.jmail, sig.joint); break;
      case Mailbox::kTorque: messages = byPeriod(log.torque, sig.joint); break;
      case Mailbox::kSMail: messages = byPeriod(log.smail, 0); break;
      case Mailbox::kMMail: messages = byPeriod(log.mmail, 0); break;
      case Mailbox::kParcel: messages = byPeriod(log.parcel, 0); break;
      case Mailbox::kSensors: messages = byPeriod(log.sensors, 0); break;
    }
    std::vector<double> column(periods, std::numeric_limits<double>::quiet_NaN());
    bool any = false;
    for (const auto& [k, m] : messages) {
      if (k >= periods) continue;
      column[k] = readSignal(*m, sig);
      any = any || !std::isnan(column[k]);
    }
    // An empty column would read as a run in which the signal never had a value.
    if (!any)
      throw ConfigError("signal '" + signal + "' has no value in any of the log's " + std::to_string(messages.size()) +
                        " mailboxes of its kind" + (messages.empty() ? "" : " (an index beyond the field's length?)"));
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
