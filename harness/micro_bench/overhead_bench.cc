// harness/micro_bench/overhead_bench.cc - what Google Benchmark itself adds to a timing, as
// Debian ships the library: built without NDEBUG, so its checks are on and it prints "Library
// was built as DEBUG". Two loops with nothing of ours in them:
//   overhead/google_benchmark/empty_iteration  one pass of `for (auto _ : state)` and a compiler
//                                              barrier, what every query benchmark's time per
//                                              pass over n keys holds
//   overhead/google_benchmark/pause_resume     one PauseTiming() and ResumeTiming(), as every
//                                              build and insert benchmark calls once or twice
//                                              per build (the timer readings between them land
//                                              partly inside the timed region)
// The time Google Benchmark reports for them is the whole of its own cost per iteration, built
// debug or not, so it bounds what the debug build adds; plots/sections/speed.py sets it beside
// the time of one iteration of every benchmark of the same run.
// Run: build/amqbench_micro --benchmark_filter='^overhead/' --benchmark_repetitions=5
#include <benchmark/benchmark.h>

namespace amq {
namespace {

// With the compiler barrier every benchmark's pass ends in (DoNotOptimize): an empty body
// alone lets the compiler fold the loop away (0.000 ns an iteration).
void BM_EmptyIteration(benchmark::State& state) {
  for (auto _ : state) benchmark::ClobberMemory();
}

void BM_PauseResume(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    state.ResumeTiming();
  }
}

// Registered at static initialization: they take no n. The query and build benchmarks' own
// settings (real time, repetitions from the command line) apply.
const bool registered = [] {
  benchmark::RegisterBenchmark("overhead/google_benchmark/empty_iteration", BM_EmptyIteration)
      ->Unit(benchmark::kNanosecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("overhead/google_benchmark/pause_resume", BM_PauseResume)
      ->Unit(benchmark::kNanosecond)
      ->UseRealTime();
  return true;
}();

}  // namespace
}  // namespace amq
