// The project's exceptions as the Python package's (rfms/errors.py): RequestRefused keeps the
// supervisor's reason and its code's name, MoveFailed, LinkError and ConfigError keep their messages.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

namespace rfms::python {

void registerErrors();
// _rfms.refusal_names(): every refusal code's name in the C++ library's order (a test holds
// rfms.Refusal to it).
void bindRefusalNames(pybind11::module_& m);
// Throws the Python exception rfms.errors.<name>(message) from C++.
[[noreturn]] void raise(const char* name, const std::string& message);

}  // namespace rfms::python
