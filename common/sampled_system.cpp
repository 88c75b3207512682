#include "common/sampled_system.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <complex>
#include <unsupported/Eigen/MatrixFunctions>

namespace rfms {

void zeroOrderHold(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double dt, Eigen::MatrixXd& phi,
                   Eigen::MatrixXd& gamma) {
  // exp([[a, b], [0, 0]] dt) holds both: the plant's own motion and what a held input adds to it.
  const Eigen::Index size = a.rows(), inputs = b.cols();
  Eigen::MatrixXd both = Eigen::MatrixXd::Zero(size + inputs, size + inputs);
  both.topLeftCorner(size, size) = a * dt;
  both.topRightCorner(size, inputs) = b * dt;
  const Eigen::MatrixXd e = both.exp();
  phi = e.topLeftCorner(size, size);
  gamma = e.topRightCorner(size, inputs);
}

double spectralRadius(const Eigen::MatrixXd& a, double drift) {
  double largest = 0.0;
  for (const std::complex<double>& z : a.eigenvalues())
    if (drift <= 0.0 || std::abs(z - 1.0) > drift) largest = std::max(largest, std::abs(z));
  return largest;
}

}  // namespace rfms
