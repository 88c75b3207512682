#include "supervisor/signal_watch.hpp"

#include <cmath>
#include <limits>

#include "common/error.hpp"

namespace rfms {

std::optional<SignalWatch> SignalWatch::make(const proto::Watch& w, double dt, std::string& why) {
  if (w.signals_size() == 0 || static_cast<std::size_t>(w.signals_size()) > kMaxSignals) {
    why = "a watch names 1 .. " + std::to_string(kMaxSignals) + " signals, got " + std::to_string(w.signals_size());
    return std::nullopt;
  }
  const double sample_rate = 1.0 / dt;
  if (!(w.rate_hz() > 0.0 && w.rate_hz() <= sample_rate * (1.0 + 1e-9))) {
    why = "watch rate must be within 0 .. " + std::to_string(static_cast<int>(std::lround(sample_rate))) +
          " Hz (the sample rate; 0 excluded)";
    return std::nullopt;
  }
  SignalWatch s;
  for (const std::string& name : w.signals()) {
    if (name.size() > kMaxNameLength) {
      why = "a signal's name is at most " + std::to_string(kMaxNameLength) + " characters, got " +
            std::to_string(name.size());
      return std::nullopt;
    }
    try {
      s.signals_.push_back(parseMailSignal(name));
    } catch (const ConfigError& e) {
      why = e.what();
      return std::nullopt;
    }
    if (s.signals_.back().box == Mailbox::kTorque) {
      why = "signal '" + name + "': the supervisor does not see the joints' torque commands (the run log has them)";
      return std::nullopt;
    }
  }
  s.every_ = std::max(1, static_cast<int>(std::lround(sample_rate / w.rate_hz())));
  s.rate_hz_ = sample_rate / s.every_;
  s.periods_.assign(kCapacity, 0);
  s.values_.assign(kCapacity * s.signals_.size(), 0.0);
  return s;
}

void SignalWatch::sample(std::uint64_t k, const SupervisorInbox& in, const SupervisorOutbox& out) {
  if (k % static_cast<std::uint64_t>(every_) != 0) return;
  if (count_ == kCapacity) {  // the oldest goes
    head_ = (head_ + 1) % kCapacity;
    --count_;
    ++dropped_;
  }
  const std::size_t slot = (head_ + count_) % kCapacity;
  periods_[slot] = k;
  double* v = &values_[slot * signals_.size()];
  for (const MailSignal& s : signals_) {
    const google::protobuf::Message* m = nullptr;
    switch (s.box) {
      case Mailbox::kSMail: m = &out.smail; break;
      case Mailbox::kMMail: m = &out.mmail; break;
      case Mailbox::kParcel: m = in.parcel; break;
      case Mailbox::kSensors: m = in.arm; break;
      case Mailbox::kJMail: m = in.joints[static_cast<std::size_t>(s.joint - 1)]; break;
      case Mailbox::kTorque: break;
    }
    *v++ = m != nullptr ? readSignal(*m, s) : std::numeric_limits<double>::quiet_NaN();
  }
  ++count_;
}

void SignalWatch::drain(proto::ArmStatus& s) {
  s.clear_watched();
  for (const MailSignal& m : signals_) s.add_watched(m.name);
  s.set_watch_rate_hz(rate_hz_);
  s.set_samples_dropped(dropped_);
  s.clear_samples();
  const std::size_t n = std::min(count_, kMaxValuesPerAnswer / signals_.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t slot = (head_ + i) % kCapacity;
    proto::SignalSample* out = s.add_samples();
    out->set_period(periods_[slot]);
    for (std::size_t j = 0; j < signals_.size(); ++j) out->add_values(values_[slot * signals_.size() + j]);
  }
  head_ = (head_ + n) % kCapacity;
  count_ -= n;
}

}  // namespace rfms
