// Linear loops sampled at the controller's period, as the models of the whole arm's loops build
// them (common/force_loop.hpp, common/compensator_arm_loop.hpp): the continuous plant held over a
// period, the loop's one-period map as a matrix, and its poles' largest magnitude. Pure; not for
// the period thread (it allocates and takes eigenvalues).
#pragma once

#include <Eigen/Core>

namespace rfms {

// y' = a y + b u with u held over dt (a zero-order hold): y+ = phi y + gamma u, exactly.
void zeroOrderHold(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double dt, Eigen::MatrixXd& phi,
                   Eigen::MatrixXd& gamma);

// The matrix of a linear one-period map `step` (state -> next state) on states of `size`: its
// response to each unit state, column by column.
template <class Step>
Eigen::MatrixXd periodMatrix(Eigen::Index size, const Step& step) {
  Eigen::MatrixXd a(size, size);
  for (Eigen::Index i = 0; i < size; ++i) a.col(i) = step(Eigen::VectorXd::Unit(size, i));
  return a;
}

// The largest magnitude among the eigenvalues of `a` (below 1: the loop is stable), passing over
// those within `drift` of 1: coordinates the loop leaves free, which say nothing of it.
double spectralRadius(const Eigen::MatrixXd& a, double drift = 0.0);

}  // namespace rfms
