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
  s.ring_ = std::make_unique<Ring>(s.signals_.size());
  return s;
}

SignalWatch::Ring::Ring(std::size_t signals) : stamp(kCapacity), period(kCapacity), values(kCapacity * signals) {}

std::size_t SignalWatch::held() const {
  return static_cast<std::size_t>(std::min<std::uint64_t>(ring_->written.load() - read_, kCapacity));
}

std::uint64_t SignalWatch::dropped() const {
  const std::uint64_t behind = ring_->written.load() - read_;
  return dropped_ + (behind > kCapacity ? behind - kCapacity : 0);
}

void SignalWatch::sample(std::uint64_t k, const SupervisorInbox& in, const SupervisorOutbox& out) {
  if (k % static_cast<std::uint64_t>(every_) != 0) return;
  Ring& r = *ring_;
  const std::uint64_t n = r.written.load(std::memory_order_relaxed);
  const std::size_t slot = n % kCapacity;
  // The place is marked empty before its values change and stamped after: a drain reading it
  // meanwhile sees the stamp change. (The oldest sample goes when the ring is full.)
  r.stamp[slot].store(0, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  r.period[slot].store(k, std::memory_order_relaxed);
  std::atomic<double>* v = &r.values[slot * signals_.size()];
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
    (v++)->store(m != nullptr ? readSignal(*m, s) : std::numeric_limits<double>::quiet_NaN(),
                 std::memory_order_relaxed);
  }
  r.stamp[slot].store(n + 1, std::memory_order_release);
  r.written.store(n + 1, std::memory_order_release);
}

void SignalWatch::drain(proto::ArmStatus& s) {
  s.clear_watched();
  for (const MailSignal& m : signals_) s.add_watched(m.name);
  s.set_watch_rate_hz(rate_hz_);
  s.clear_samples();
  Ring& r = *ring_;
  const std::uint64_t written = r.written.load(std::memory_order_acquire);
  if (written - read_ > kCapacity) {  // overwritten before this drain came
    dropped_ += written - read_ - kCapacity;
    read_ = written - kCapacity;
  }
  const std::size_t most = kMaxValuesPerAnswer / signals_.size();
  std::vector<double> values(signals_.size());
  for (std::size_t taken = 0; read_ < written && taken < most; ++read_) {
    const std::size_t slot = read_ % kCapacity;
    if (r.stamp[slot].load(std::memory_order_acquire) != read_ + 1) {
      ++dropped_;
      continue;
    }
    const std::uint64_t period = r.period[slot].load(std::memory_order_relaxed);
    for (std::size_t j = 0; j < signals_.size(); ++j)
      values[j] = r.values[slot * signals_.size() + j].load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (r.stamp[slot].load(std::memory_order_relaxed) != read_ + 1) {  // overwritten while read
      ++dropped_;
      continue;
    }
    proto::SignalSample* out = s.add_samples();
    out->set_period(period);
    for (double x : values) out->add_values(x);
    ++taken;
  }
  s.set_samples_dropped(dropped_);
}

}  // namespace rfms
