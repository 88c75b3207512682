// How well a move held its force: the figures a force-controlled move completes with (per period
// of the move, the size of the force error across its force axes, and the force applied along
// the setpoint's direction). Real-time safe: the error distribution is a fixed histogram, so that
// a median and a 99th percentile come without storing the samples.
#pragma once

#include <array>
#include <cstdint>

#include "common/types.hpp"
#include "proto/task.pb.h"

namespace rfms {

struct ForceFigures {
  bool valid = false;
  double setpoint = 0.0;                                     // |F_d| over the force axes (N)
  double error_p50 = 0.0, error_p99 = 0.0, error_max = 0.0;  // |F_d - F| (N)
  double peak = 0.0;                                         // the most force applied along F_d (N)
  double settle_s = -1.0;  // from the move's start until the error stayed within the band; -1: it never did
  Transform end_pose = Transform::Identity();  // the tool frame where the move ended
};

void encode(const ForceFigures& f, proto::ForceFigures& out);
// Invalid when the message holds none (no setpoint).
ForceFigures decode(const proto::ForceFigures& f);

class ForceStats {
 public:
  static constexpr double kBinN = 0.005;  // histogram resolution (N)
  static constexpr int kBins = 20000;     // up to 100 N; larger errors count in the last bin

  // A new move under force control, with its setpoint; the band is 5 % of it, at least 0.2 N.
  void begin(double setpoint);
  // One period: the size of the force error, and the force applied along the setpoint's direction.
  void add(double error, double applied);
  ForceFigures figures(double dt) const;

 private:
  double quantile(double q) const;

  std::array<std::uint32_t, kBins> bins_{};
  std::uint64_t count_ = 0, last_outside_ = 0;
  bool ever_outside_ = false;
  double setpoint_ = 0.0, band_ = 0.0, max_ = 0.0, peak_ = 0.0;
};

}  // namespace rfms
