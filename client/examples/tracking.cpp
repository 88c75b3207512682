// Tracking: an object moves on a circle and its transform is updated at --rate-hz (200 Hz by
// default; RFMS handled 50 Hz). One tracking move takes the arm to a position defined on the
// object and then keeps it there as the object moves, the controller carrying the object on
// between updates with its own fitted velocity. At the end it reports the update rate reached, how
// long updates took from their arrival at the controller to the first setpoint that used them (in
// ms and sample periods), and how far the arm trailed the object.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "client/rfms_client.hpp"
#include "common/command_line.hpp"
#include "common/statistics.hpp"

using rfms::percentile;

int main(int argc, char** argv) {
  using rfms::RfmsClient;
  using Clock = std::chrono::steady_clock;
  CLI::App app{"tracking: the arm follows an object whose transform is updated at a high rate"};
  rfms::ClientOptions options;
  double rate_hz = 200.0, seconds = 6.0, radius_mm = 20.0, period_s = 4.0;
  app.add_option("--bridge", options.bridge, "the bridge, host:port")->capture_default_str();
  app.add_option("--key", options.key_file, "this client's key file (deploy/rfms keys)")->envname("RFMS_KEY");
  app.add_option("--rate-hz", rate_hz, "transform updates per second")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 2000.0));
  app.add_option("--seconds", seconds, "how long to track")->capture_default_str()->check(CLI::Range(0.5, 86400.0));
  app.add_option("--radius-mm", radius_mm, "radius of the object's circle")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 60.0));
  app.add_option("--circle-s", period_s, "time for one circle")->capture_default_str()->check(CLI::Range(0.5, 60.0));
  if (const auto code = rfms::parseCommandLine(app, argc, argv)) return *code;
  try {
    RfmsClient arm(options);
    arm.beginTask("tracking");
    arm.calibrate();
    const double mm = 1e-3, pi = 3.141592653589793;
    const rfms::Transform centre = rfms::trans(220 * mm, -126.24 * mm, 100 * mm) * rfms::rpy(0, pi / 2, 0);
    auto object = [&](double t) {
      const double a = 2 * pi * t / period_s;
      return rfms::trans(0, radius_mm * mm * std::cos(a), radius_mm * mm * std::sin(a)) * centre;
    };
    arm.transform("obj", object(0.0));
    arm.position("follow", {.righty = true, .up = false, .flip = true}, {"T6"}, {"obj"});
    arm.motion("reach", rfms::Motion::joint(2.0, 0.3));
    arm.motion("track", rfms::Motion::cartesian(0.5, 0.1).tracking());
    arm.wait(arm.move("follow", "reach"));
    const std::uint64_t tracking = arm.move("follow", "track");

    std::vector<double> delay_ms, trail_mm;
    const auto start = Clock::now();
    const auto step = std::chrono::duration<double>(1.0 / rate_hz);
    auto next_update = start, next_poll = start;
    long updates = 0;
    double dt_ms = 1.0;
    for (;;) {
      const double t = std::chrono::duration<double>(Clock::now() - start).count();
      if (t > seconds) break;
      if (Clock::now() >= next_poll) {
        // How far the arm trails the object, seen through its encoders.
        next_poll += std::chrono::milliseconds(50);
        const rfms::ArmStatus s = arm.status();
        dt_ms = s.dt_ms > 0 ? s.dt_ms : dt_ms;
        if (t > 1.0) trail_mm.push_back((s.t6.translation() - object(t).translation()).norm() * 1e3);
      }
      // A refused update throws RequestRefused, which ends the example with its reason.
      const rfms::Applied applied = arm.transform("obj", object(t));
      if (applied.arrival_to_setpoint_ms > 0) delay_ms.push_back(applied.arrival_to_setpoint_ms);
      ++updates;
      next_update += std::chrono::duration_cast<Clock::duration>(step);
      std::this_thread::sleep_until(next_update);
    }
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    arm.stop();  // the tracking move's end: it completes once the arm is at rest
    arm.wait(tracking, 30.0);
    arm.endTask();
    std::printf("updates: %ld in %.2f s (%.1f Hz)\n", updates, elapsed, static_cast<double>(updates) / elapsed);
    std::printf(
        "arrival at the bridge -> first setpoint using it: p50 %.3f ms, p99 %.3f ms, max %.3f ms "
        "(p99 %.2f periods of %.3g ms)\n",
        percentile(delay_ms, 50), percentile(delay_ms, 99), percentile(delay_ms, 100), percentile(delay_ms, 99) / dt_ms,
        dt_ms);
    std::printf("the arm trailed the object by p50 %.2f mm, p99 %.2f mm, max %.2f mm\n", percentile(trail_mm, 50),
                percentile(trail_mm, 99), percentile(trail_mm, 100));
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "tracking: " << e.what() << "\n";
    return 1;
  }
}
