// The stiff six-axis force/torque sensor between flange and tool (common/scene.hpp,
// ForceTorqueModel), sampled once per period: the true wrench through a first-order low pass (the
// gauges' and the electronics' bandwidth), then a constant bias and Gaussian noise drawn from the
// scene's seed, then each channel clipped at its range. Deterministic for a seed; no allocation
// after construction.
#pragma once

#include <cstdint>
#include <random>

#include "common/scene.hpp"

namespace rfms {

class ForceTorqueSensor {
 public:
  ForceTorqueSensor(const ForceTorqueModel& model, double dt);

  // The period's sample of `truth` (fx fy fz mx my mz, the sensor's axes).
  void sample(const Vec6& truth);

  const Vec6& reading() const { return reading_; }
  // Bit i: channel i read at its range this period.
  std::uint32_t saturated() const { return saturated_; }

 private:
  ForceTorqueModel model_;
  double alpha_;  // the low pass's step: 1 - exp(-2 pi f_c dt)
  Vec6 filtered_ = Vec6::Zero(), reading_ = Vec6::Zero();
  std::uint32_t saturated_ = 0;
  bool primed_ = false;
  std::mt19937_64 rng_;
  std::normal_distribution<double> unit_{0.0, 1.0};
};

}  // namespace rfms
