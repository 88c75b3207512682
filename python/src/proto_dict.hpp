// Answers and log records as plain Python values, through protobuf reflection so that a field
// added to a message needs no change here: a dict per message, repeated doubles as numpy arrays,
// a Transform3x4 as a 4x4 array, an enum by its value's name less the type's prefix (RT_HOLD ->
// "HOLD", ER_FORCE_RUNAWAY -> "FORCE_RUNAWAY").
#pragma once

#include <google/protobuf/message.h>
#include <pybind11/pybind11.h>

#include <string>

namespace rfms::python {

pybind11::dict toDict(const google::protobuf::Message& m);
std::string enumName(const google::protobuf::EnumValueDescriptor* v);

}  // namespace rfms::python
