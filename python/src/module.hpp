// The parts of the extension module _rfms, each bound in its own file.
#pragma once

#include <pybind11/pybind11.h>

namespace rfms::python {

void bindMaths(pybind11::module_& m);   // maths.cpp: transforms and rfms.Robot
void bindClient(pybind11::module_& m);  // client.cpp: the link client
void bindRunLog(pybind11::module_& m);  // run_log.cpp: run logs' signals

}  // namespace rfms::python
