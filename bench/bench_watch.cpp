// rfms-bench-watch: what watched signals (debug(), supervisor/signal_watch.hpp) cost the
// supervisor's period: ns per period of RemoteDesk::observe with 1, 4 and 16 clients each watching
// 16 signals at the sample rate (the most the desk admits), on one period's real mail, and the share
// of a 1 ms period that is. The cost of serving the samples (status answers) falls on the
// background side between periods, not on the step.
//   build/bin/rfms-bench-watch [any Google Benchmark flag]
#include <benchmark/benchmark.h>

#include "bench/benchmark_main.hpp"

#include "common/robot_model_loader.hpp"
#include "harness/harness.hpp"
#include "harness/watch_load.hpp"

namespace {

using namespace rfms;

void observe(benchmark::State& state) {
  static const RobotModel model = loadRobotModel(RFMS_DEFAULT_ROBOT);
  Harness h(model, proto::ControllerSettings{});
  PeriodMail mail;
  h.on_period = [&](const PeriodMail& m) { mail = m; };
  h.runUntil([] { return false; }, 20);
  RemoteDesk desk(model, SupervisorConfig{});
  if (!watchEverything(desk, h.background(), static_cast<std::uint64_t>(state.range(0)), 1000.0, 20))
    state.SkipWithError("watch refused");
  const SupervisorInbox in = supervisorInbox(mail);
  std::uint64_t k = 20;
  for (auto _ : state) desk.observe(++k, in, *mail.supervisor);
}
BENCHMARK(observe)->Arg(1)->Arg(4)->Arg(16)->Unit(benchmark::kNanosecond);

}  // namespace

RFMS_BENCHMARK_MAIN()
