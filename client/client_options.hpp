// How a client reaches the bridge, and the errors its calls throw; shared by the library
// (RfmsClient) and the wire it speaks (TaskLink).
#pragma once

#include <cstdint>
#include <string>

#include "common/error.hpp"
#include "common/refusal.hpp"
#include "net_bridge/fault_injector.hpp"
#include "net_bridge/link_options.hpp"

namespace rfms {

struct ClientOptions {
  std::string bridge = "127.0.0.1:47031";  // host:port
  // This client's key file (rfms-keys client); empty: a fresh key, for a bridge started with
  // --insecure only.
  std::string key_file;
  LinkOptions link;
  FaultRates faults;  // injected on the datagrams this client sends (tests, studies)
  std::uint64_t fault_seed = 1;
  double poll_s = 0.01;  // how often a wait asks for status
};

// The supervisor refused a request; it changed nothing. what(): what was asked and why not.
class RequestRefused : public Error {
 public:
  RequestRefused(const std::string& what, std::string reason, RefusalCode code)
      : Error(what), reason_(std::move(reason)), code_(code) {}
  const std::string& reason() const { return reason_; }  // the supervisor's words alone
  RefusalCode code() const { return code_; }             // the kind of refusal, to branch on

 private:
  std::string reason_;
  RefusalCode code_;
};

// A move ended without completing (a stop, an emergency), ran its course without doing what it
// was asked, or did not end in time; or a calibration did not finish.
class MoveFailed : public Error {
 public:
  using Error::Error;
};

}  // namespace rfms
