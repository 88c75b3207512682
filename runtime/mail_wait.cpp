#include "runtime/mail_wait.hpp"

#include <algorithm>
#include <thread>

#include "runtime/transport.hpp"

namespace rfms {

bool waitForMail(std::span<zmq::socket_t* const> sockets, SteadyClock::time_point deadline) {
  using std::chrono::microseconds;
  const auto left = deadline - SteadyClock::now();
  if (left <= SteadyClock::duration::zero()) return false;
  if (left > microseconds(1500)) {
    // A whole millisecond short of the deadline, so that the poll's rounding cannot overshoot it.
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(left).count() - 1;
    pollAny(sockets, static_cast<int>(std::clamp<long>(ms, 1, 50)));
  } else {
    std::this_thread::sleep_for(std::min<SteadyClock::duration>(left, microseconds(50)));
  }
  return true;
}

}  // namespace rfms
