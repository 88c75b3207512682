// How a node waits for more mail before a deadline: the one waiting policy of every node that
// waits on its sockets, whatever the clock. Real-time safe (no allocation).
#pragma once

#include <chrono>
#include <initializer_list>
#include <span>
#include <zmq.hpp>

namespace rfms {

using SteadyClock = std::chrono::steady_clock;

// Waits until a message may be waiting on one of `sockets`, or a little while; false at once when
// `deadline` has passed. With more than 1.5 ms left it polls (ZeroMQ's poll counts whole
// milliseconds; at most 50 ms at a time, so that stop signals are seen); closer to the deadline it
// sleeps in 50 µs steps. Never a spin: on a small machine a spinning node takes the CPU that the
// others need to answer.
bool waitForMail(std::span<zmq::socket_t* const> sockets, SteadyClock::time_point deadline);
inline bool waitForMail(std::initializer_list<zmq::socket_t*> sockets, SteadyClock::time_point deadline) {
  return waitForMail(std::span<zmq::socket_t* const>(sockets.begin(), sockets.size()), deadline);
}

}  // namespace rfms
