// Minimal JSON output for numbers, vectors and matrices: full double precision, so that a value
// printed and read back is the same double.
#pragma once

#include <Eigen/Core>
#include <cstdio>
#include <string>

namespace rfms::tool {

inline std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

template <class Derived>
std::string vector(const Eigen::MatrixBase<Derived>& v) {
  std::string s = "[";
  for (Eigen::Index i = 0; i < v.size(); ++i) s += (i ? "," : "") + number(v(i));
  return s + "]";
}

template <class Derived>
std::string matrix(const Eigen::MatrixBase<Derived>& m) {
  std::string s = "[";
  for (Eigen::Index r = 0; r < m.rows(); ++r) s += (r ? "," : "") + vector(m.row(r));
  return s + "]";
}

}  // namespace rfms::tool
