// harness/micro_bench/static_bench.cc - build and query of the static filters at each n of --keys (default
// 10^6: harness/cell/micro_size.h), the shape of FastFilter's bulk-insert-and-query table
// (plots/reference.py, FASTFILTER_SPEED). There, at n = 10^6 on this machine class, median / best ns per key:
// BinaryFuse8 build 52 / 38, query 8.5 / 5; Xor8 build 301 / 235, query 6.5 / 5;
// StandardRibbon64 (r = 7) build 60 / 38, query 14-29.
// Run: build/amqbench_micro --benchmark_filter='^static/' --benchmark_repetitions=5
// (about a minute). Names: static/<filter>/<operation>/n:<n>/real_time.
//
// Memory: harness/micro_bench/micro_bench.cc's main keeps freed memory in the process (mallopt), and each
// build benchmark here first builds once untimed, so the timed builds reuse pages that are
// already mapped ("warm", as FastFilter's numbers after a first filter). static/*/build_cold
// instead hands all free memory back to the kernel before every timed build (malloc_trim,
// outside the timed region), so first-touch page faults of the scratch and output arrays are
// inside the time: that is what a process building one filter pays.
// Every benchmark checks for false negatives before it times anything.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <cmath>
#include <span>
#include <string>

#include "filters/binary_fuse.h"
#include "filters/ribbon.h"
#include "filters/xor.h"
#include "harness/cell/kernels.h"
#include "harness/cell/micro_size.h"

namespace amq {
namespace {

FilterParams StaticParams(std::size_t n) {
  FilterParams p;
  p.capacity = n;
  p.target_fpr = std::ldexp(1.0, -7);  // Ribbon r = 7; the fixed-width filters ignore it
  p.seed = 1;
  return p;
}

// Keys of their own (seed 2), a prefix of the same buffers at every n.
std::span<const std::uint64_t> StaticMembers(std::size_t n) {
  return MicroKeyPrefix<2, KeyStream::kMembers>(n);
}
std::span<const std::uint64_t> StaticNonMembers(std::size_t n) {
  return MicroKeyPrefix<2, KeyStream::kNonMembers>(n);
}

void PerKey(benchmark::State& state, std::size_t keys) {
  state.counters["ns_per_key"] =
      benchmark::Counter(static_cast<double>(keys), benchmark::Counter::kIsIterationInvariantRate |
                                                        benchmark::Counter::kInvert);
}

template <class F>
void BM_StaticBuild(benchmark::State& state, bool cold) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  const auto keys = StaticMembers(n);
  const FilterParams params = StaticParams(n);
  {
    const F warm = F::build(keys, params);  // maps the pages; also the correctness check
    if (CountContained(warm, keys) != keys.size()) {
      state.SkipWithError("false negatives");
      return;
    }
    state.counters["bits_per_key"] = 8.0 * warm.size_in_bytes() / keys.size();
  }
  int attempts = 0;
  for (auto _ : state) {
    if (cold) {
      state.PauseTiming();
      malloc_trim(0);
      state.ResumeTiming();
    }
    F filter = F::build(keys, params);
    benchmark::DoNotOptimize(filter);
    attempts = filter.build_attempts();
    state.PauseTiming();
    { F discard = std::move(filter); }  // free outside the timed region
    state.ResumeTiming();
  }
  state.counters["build_attempts"] = attempts;
  PerKey(state, keys.size());
}

template <class F>
void BM_StaticQuery(benchmark::State& state, bool members) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  const auto keys = StaticMembers(n);
  const F filter = F::build(keys, StaticParams(n));
  if (CountContained(filter, keys) != keys.size()) {
    state.SkipWithError("false negatives");
    return;
  }
  const auto queries = members ? keys : StaticNonMembers(n);
  std::size_t found = 0;
  for (auto _ : state) {
    found = CountContained(filter, queries);
    benchmark::DoNotOptimize(found);
  }
  state.counters["found_fraction"] = static_cast<double>(found) / queries.size();
  PerKey(state, queries.size());
}

template <class F>
void RegisterStatic() {
  const std::string base = "static/" + std::string(F::kName);
  for (bool cold : {false, true}) {
    AtEachMicroN(
        benchmark::RegisterBenchmark((base + (cold ? "/build_cold" : "/build_warm")).c_str(),
                                     [cold](benchmark::State& s) { BM_StaticBuild<F>(s, cold); }))
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (bool members : {true, false}) {
    AtEachMicroN(benchmark::RegisterBenchmark(
                     (base + (members ? "/query_present" : "/query_absent")).c_str(),
                     [members](benchmark::State& s) { BM_StaticQuery<F>(s, members); }))
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
}

// Registered once main() has read --keys: one benchmark per n.
const bool registered = RegisterAfterKeysFlag([] {
  RegisterStatic<Xor8>();
  RegisterStatic<BinaryFuse8>();
  RegisterStatic<BinaryFuse8x4>();
  RegisterStatic<Ribbon64>();
  RegisterStatic<Ribbon128>();
});

}  // namespace
}  // namespace amq
