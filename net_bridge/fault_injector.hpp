// Seeded faults on outgoing datagrams, for testing the link the way a bad network would: loss,
// duplication, reordering (a datagram held back and sent after the next one) and corruption (one
// byte flipped). Each fault is drawn independently per datagram; the counts say what was done.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace rfms {

struct FaultRates {
  double loss = 0.0, duplicate = 0.0, reorder = 0.0, corrupt = 0.0;
  bool any() const { return loss > 0 || duplicate > 0 || reorder > 0 || corrupt > 0; }
};

struct FaultCounts {
  std::uint64_t datagrams = 0, lost = 0, duplicated = 0, reordered = 0, corrupted = 0;
};

class FaultInjector {
 public:
  FaultInjector(const FaultRates& rates, std::uint64_t seed) : rates_(rates), rng_(seed) {}

  // The datagrams to put on the wire now in place of `datagram`, in order (none when it is lost
  // or held back for reordering).
  void apply(const std::string& datagram, std::vector<std::string>& wire);
  // A datagram still held back (to be sent if nothing follows it for a while).
  std::optional<std::string> release();
  const FaultCounts& counts() const { return counts_; }

 private:
  bool draw(double p) { return p > 0.0 && std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < p; }

  FaultRates rates_;
  std::mt19937_64 rng_;
  FaultCounts counts_;
  std::optional<std::string> held_;
};

}  // namespace rfms
