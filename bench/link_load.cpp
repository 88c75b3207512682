// rfms-link-load: drives the link as hard as a stop-and-wait client can: each of --clients threads
// sends --count transform updates, one after another, and the figures are printed: messages per
// second, request latency (send to answer) p50/p99/max, retransmissions, and the time from each
// update's arrival at the bridge to the first setpoint that used it. bench/rfms-bench-link runs it
// against a paced cluster, with and without injected faults.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "client/task_link.hpp"
#include "common/command_line.hpp"
#include "common/mail_codec.hpp"
#include "common/statistics.hpp"
#include "common/transform.hpp"

using rfms::percentile;

int main(int argc, char** argv) {
  using Clock = std::chrono::steady_clock;
  CLI::App app{"rfms-link-load: messages per second and latency through rfms-bridge"};
  rfms::ClientOptions options;
  int count = 2000, clients = 1;
  double timeout_ms = 5.0, rate_hz = 0.0;
  std::string label = "link";
  app.add_option("--bridge", options.bridge, "the bridge, host:port")->capture_default_str();
  app.add_option("--key", options.key_file, "this client's key file (deploy/rfms keys)")->envname("RFMS_KEY");
  app.add_option("--count", count, "updates per client")->capture_default_str()->check(CLI::Range(1, 1000000));
  app.add_option("--rate", rate_hz, "updates a second per client (0: as fast as the answers come)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 100000.0));
  app.add_option("--clients", clients,
                 "clients in parallel, all with --key (more than the bridge's bridge_sessions_per_key, 8 unless "
                 "set, take turns in that key's sessions)")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  app.add_option("--link-timeout-ms", timeout_ms, "retransmission timeout, 1 .. 10000 ms (as rfms-client)")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 10000.0));
  app.add_option("--loss", options.faults.loss, "injected on this side: loss")->check(CLI::Range(0.0, 1.0));
  app.add_option("--duplicate", options.faults.duplicate, "duplication")->check(CLI::Range(0.0, 1.0));
  app.add_option("--reorder", options.faults.reorder, "reordering")->check(CLI::Range(0.0, 1.0));
  app.add_option("--corrupt", options.faults.corrupt, "corruption")->check(CLI::Range(0.0, 1.0));
  app.add_option("--label", label, "name of this run in the output");
  bool refused = false;
  app.add_flag("--refused", refused,
               "send updates the supervisor refuses (a name that is not one, 64 KB long): its memory and log "
               "must stay bounded");
  int sessions = 0;
  app.add_option("--sessions", sessions,
                 "instead: open this many sessions one after another (a handshake and one status request "
                 "each), and report handshakes per second")
      ->check(CLI::Range(0, 10000000));
  if (const auto code = rfms::parseCommandLine(app, argc, argv)) return *code;
  options.link.timeout_s = timeout_ms * 1e-3;
  options.link.max_tries = 1000;
  if (sessions > 0) {
    // Each client a program of its own, as far as the bridge can tell: a new key session, a
    // handshake, one status request; then gone (the bridge closes idle sessions as others come).
    std::vector<double> ms;
    const auto start = Clock::now();
    try {
      for (int i = 0; i < sessions; ++i) {
        const auto t0 = Clock::now();
        rfms::TaskLink client(options);
        client.status();
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rfms-link-load: %s\n", e.what());
      return 1;
    }
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    std::printf("%-22s %d sessions %7.0f handshakes/s  handshake + status p50 %6.3f p99 %7.3f ms\n", label.c_str(),
                sessions, sessions / s, percentile(ms, 50), percentile(ms, 99));
    return 0;
  }

  std::mutex m;
  std::vector<double> latency_ms, delay_ms;
  std::uint64_t retransmissions = 0;
  std::string failure;
  const auto start = Clock::now();
  std::vector<std::thread> pool;
  for (int c = 0; c < clients; ++c)
    pool.emplace_back([&, c] {
      try {
        rfms::ClientOptions o = options;
        o.fault_seed = options.fault_seed + static_cast<std::uint64_t>(c);
        rfms::TaskLink client(o);
        std::vector<double> lat, del;
        const std::string name = "load" + std::to_string(c);
        for (int n = 1; n <= count; ++n) {
          if (rate_hz > 0.0) std::this_thread::sleep_until(start + std::chrono::duration<double>((n - 1) / rate_hz));
          rfms::proto::TaskRequest r;
          r.mutable_transform()->set_name(refused ? std::string(60000, '?') : name);
          rfms::encode(rfms::trans(1e-3 * n, 0, 0), *r.mutable_transform()->mutable_value());
          const auto t0 = Clock::now();
          const rfms::proto::TaskReply reply = client.send(r);
          lat.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
          if (reply.accepted() == refused || reply.handled() != static_cast<std::uint64_t>(n))
            throw std::runtime_error("request " + std::to_string(n) + " not applied exactly once: " + reply.reason());
          if (reply.arrival_to_setpoint_ms() > 0) del.push_back(reply.arrival_to_setpoint_ms());
        }
        std::lock_guard lock(m);
        latency_ms.insert(latency_ms.end(), lat.begin(), lat.end());
        delay_ms.insert(delay_ms.end(), del.begin(), del.end());
        retransmissions += client.link().counts().retransmissions;
      } catch (const std::exception& e) {
        std::lock_guard lock(m);
        failure = e.what();
      }
    });
  for (auto& t : pool) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!failure.empty()) {
    std::fprintf(stderr, "rfms-link-load: %s\n", failure.c_str());
    return 1;
  }
  const double total = static_cast<double>(count) * clients;
  std::printf(
      "%-22s %2d client(s) %7.0f msg/s  latency p50 %6.3f p99 %7.3f max %8.3f ms  retransmissions %llu"
      "  arrival->setpoint p50 %.3f p99 %.3f max %.3f ms\n",
      label.c_str(), clients, total / seconds, percentile(latency_ms, 50), percentile(latency_ms, 99),
      percentile(latency_ms, 100), static_cast<unsigned long long>(retransmissions), percentile(delay_ms, 50),
      percentile(delay_ms, 99), percentile(delay_ms, 100));
  return 0;
}
