// Conversions between the project's fixed-size Eigen types and numpy arrays, and the one loop
// that runs a function over every row of a stack of joint vectors (the "vectorised" forms). The
// values are copied, never rounded: a function called here gives the same bits as from C++.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <array>
#include <string>
#include <vector>

#include "common/types.hpp"

namespace rfms::python {

namespace py = pybind11;
using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

// A number from Python as it is (NaN and infinities refused, ValueError naming `what`), or within
// [lo, hi]: the one rule for every number the module takes.
double finite(double x, const std::string& what);
double finiteIn(double x, const std::string& what, double lo, double hi);

// A 4x4 array of T; a 4x4 (or 3x4: the last row implied) homogeneous array as T, else ValueError
// naming `what`.
Array toArray(const Transform& t);
Transform toTransform(const Array& a, const std::string& what);
Transform toTransform(const double* row_major_4x4, const std::string& what);
// A 6-vector as an array of shape (6,), and back (ValueError naming `what` for any other shape, or
// a value that is not a finite number).
Array toArray(const JointVec& v);
JointVec toJoints(const Array& a, const std::string& what);
// A vector of doubles (a repeated proto field) as a 1-D array.
Array toArray(const double* data, std::size_t n);

// A stack of joint vectors: shape (6,) is one state, (N, 6) is N of them, (A, B, 6) A·B, ...
struct JointStack {
  std::vector<py::ssize_t> outer;  // the shape before the last axis (empty for one state)
  std::size_t count = 1;
};
JointStack jointStack(const Array& a, const std::string& what);

// fn(rows, out) over every state: the inputs, named in `names` for messages, are stacks of one
// shape; the result has that shape's outer part followed by `inner` (e.g. {4, 4}, {6}, {6, 6}).
template <typename Fn, typename... Stacks>
Array mapStates(const std::vector<py::ssize_t>& inner, const std::array<const char*, sizeof...(Stacks)>& names, Fn fn,
                const Stacks&... inputs) {
  const std::array<const Array*, sizeof...(Stacks)> in{&inputs...};
  const JointStack stack = jointStack(*in[0], names[0]);
  for (std::size_t k = 1; k < in.size(); ++k) {
    const JointStack other = jointStack(*in[k], names[k]);
    if (other.outer != stack.outer)
      throw py::value_error(std::string(names[k]) + " has another shape than " + names[0] + ": they need the same");
  }
  std::vector<py::ssize_t> shape = stack.outer;
  shape.insert(shape.end(), inner.begin(), inner.end());
  Array out(shape);
  std::size_t inner_size = 1;
  for (py::ssize_t n : inner) inner_size *= static_cast<std::size_t>(n);
  double* o = out.mutable_data();
  for (std::size_t i = 0; i < stack.count; ++i) {
    std::array<JointVec, sizeof...(Stacks)> rows;
    for (std::size_t k = 0; k < in.size(); ++k) {
      rows[k] = Eigen::Map<const JointVec>(in[k]->data() + 6 * i);
      if (!rows[k].allFinite()) throw py::value_error(std::string(names[k]) + ": a value that is not a finite number");
    }
    fn(rows, o + inner_size * i);
  }
  return out;
}

}  // namespace rfms::python
