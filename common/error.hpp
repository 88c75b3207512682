// The project's exception types, all under rfms::Error. Exceptions are for configuration time and
// for the tools (loading files, parsing command lines, a client's link); inside the period loop,
// faults are status codes carried as data.
#pragma once

#include <csignal>
#include <exception>
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

// The operating system refused something the program needs (a socket, a file); the message names
// the call and the system's reason.
class SystemError : public Error {
 public:
  using Error::Error;
};

// Every program's main ends in this: `body` runs, and whatever it throws becomes one line through
// `report` and exit code 2 (a refused configuration or input, or a failure the program cannot go
// on from). `report` takes the message. A write past the file-size limit (ulimit -f) fails as a
// full disk's does, and the program says so, rather than dying of SIGXFSZ with nothing said.
template <class Body, class Report>
int guardedMain(Body&& body, Report&& report) {
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    return body();
  } catch (const Error& e) {
    report(std::string(e.what()));
  } catch (const std::exception& e) {  // a library's own (ZeroMQ's, the standard library's)
    report(std::string(e.what()));
  }
  return 2;
}

}  // namespace rfms
