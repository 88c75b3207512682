#include "python/src/arrays.hpp"

#include <cmath>
#include <cstring>

#include "common/number_text.hpp"
#include "common/transform.hpp"

namespace rfms::python {

double finite(double x, const std::string& what) {
  if (!std::isfinite(x)) throw py::value_error(what + ": " + numberText(x) + " is not a finite number");
  return x;
}

double finiteIn(double x, const std::string& what, double lo, double hi) {
  if (!(std::isfinite(x) && x >= lo && x <= hi))
    throw py::value_error(what + ": " + numberText(x) + " is not a number in " + numberText(lo) + " .. " +
                          numberText(hi));
  return x;
}

Array toArray(const Transform& t) {
  Array out({4, 4});
  // numpy is row-major, Eigen column-major: the transpose's storage is the matrix's rows.
  Eigen::Map<Eigen::Matrix<double, 4, 4, Eigen::RowMajor>>(out.mutable_data()) = t.matrix();
  return out;
}

Transform toTransform(const Array& a, const std::string& what) {
  if (a.ndim() != 2 || a.shape(1) != 4 || (a.shape(0) != 4 && a.shape(0) != 3))
    throw py::value_error(what + ": a transform is a 4x4 (or 3x4) array");
  if (a.shape(0) == 4) return toTransform(a.data(), what);
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  for (py::ssize_t r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) m(r, c) = a.at(r, c);
  return toTransform(Eigen::Matrix<double, 4, 4, Eigen::RowMajor>(m).data(), what);
}

Transform toTransform(const double* row_major_4x4, const std::string& what) {
  const Eigen::Matrix4d m = Eigen::Map<const Eigen::Matrix<double, 4, 4, Eigen::RowMajor>>(row_major_4x4);
  if (!m.allFinite() || !isHomogeneous(m))
    throw py::value_error(what + ": not a homogeneous transform (a rotation and a translation, last row 0 0 0 1)");
  Transform t;
  t.matrix() = m;
  return t;
}

Array toArray(const JointVec& v) { return toArray(v.data(), kJoints); }

JointVec toJoints(const Array& a, const std::string& what) {
  if (a.ndim() != 1 || a.shape(0) != kJoints) throw py::value_error(what + ": six joint values, shape (6,)");
  const JointVec q = Eigen::Map<const JointVec>(a.data());
  if (!q.allFinite()) throw py::value_error(what + ": a value that is not a finite number");
  return q;
}

Array toArray(const double* data, std::size_t n) {
  Array out(static_cast<py::ssize_t>(n));
  if (n > 0) std::memcpy(out.mutable_data(), data, n * sizeof(double));
  return out;
}

JointStack jointStack(const Array& a, const std::string& what) {
  if (a.ndim() < 1 || a.shape(a.ndim() - 1) != kJoints)
    throw py::value_error(what + ": joint values are arrays whose last axis has 6 entries, shape (6,) or (N, 6)");
  JointStack s;
  for (py::ssize_t d = 0; d + 1 < a.ndim(); ++d) {
    s.outer.push_back(a.shape(d));
    s.count *= static_cast<std::size_t>(a.shape(d));
  }
  return s;
}

}  // namespace rfms::python
