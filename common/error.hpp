// The project's exception types. Exceptions are for configuration time only (loading files,
// parsing command lines); inside the period loop, faults are status codes carried as data.
#pragma once

#include <stdexcept>
#include <string>

namespace rfms {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A configuration or model file that cannot be used; the message names the file, line and field.
class ConfigError : public Error {
 public:
  using Error::Error;
};

// Input that breaks a protocol or a function's contract (e.g. a malformed matrix).
class ProtocolError : public Error {
 public:
  using Error::Error;
};

}  // namespace rfms
