// The project's exceptions as the Python package's (rfms/errors.py): RequestRefused keeps the
// supervisor's reason, MoveFailed, LinkError and ConfigError keep their messages.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

namespace rfms::python {

void registerErrors();
// Throws the Python exception rfms.errors.<name>(message) from C++.
[[noreturn]] void raise(const char* name, const std::string& message);

}  // namespace rfms::python
