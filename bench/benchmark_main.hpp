// The main() of the Google Benchmark programs here: as BENCHMARK_MAIN, but a filter that matches
// no benchmark (a bad regular expression, or a name that is not there) is an error, exit 2, not
// an empty table that reads as a run.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>

namespace rfms::bench {

// Runs the benchmarks the command line chose into `reporter` (the console's when null); false,
// with one line on stderr, when it chose none.
inline bool runChosenBenchmarks(benchmark::BenchmarkReporter* reporter = nullptr) {
  const std::size_t ran =
      reporter != nullptr ? benchmark::RunSpecifiedBenchmarks(reporter) : benchmark::RunSpecifiedBenchmarks();
  if (ran == 0) std::fprintf(stderr, "no benchmark matches --benchmark_filter (or its expression does not compile)\n");
  return ran > 0;
}

}  // namespace rfms::bench

#define RFMS_BENCHMARK_MAIN()                                         \
  int main(int argc, char** argv) {                                   \
    benchmark::Initialize(&argc, argv);                               \
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2; \
    const bool ran = rfms::bench::runChosenBenchmarks();              \
    benchmark::Shutdown();                                            \
    return ran ? 0 : 2;                                               \
  }
