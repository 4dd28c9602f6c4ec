// harness/micro_bench.cc - amqbench_micro: Google Benchmark micro-benchmarks of insert (or
// build) and query for every filter in filters/all.h, at n = 10^6 keys by default.
//
// Reproduces the shape of FastFilter's bulk-insert-and-query table (REFERENCE_NUMBERS.md §2):
// there, on this machine class, Cuckoo12 inserts at ~39-44 ns/key and queries at ~7-9.7,
// Bloom12 queries at ~9-14 (present) and ~19-24 ns/key (absent), blocked Bloom at ~4-6.
// Run: build/amqbench_micro --benchmark_repetitions=5 (about a minute per filter).
// Each benchmark checks for false negatives before it times anything, and reports
// ns_per_key (time / keys) as a counter beside Google Benchmark's own fields.
#include <benchmark/benchmark.h>

#include <malloc.h>

#include <cstdio>

#include <string>

#include "filters/all.h"
#include "harness/kernels.h"
#include "harness/micro_size.h"
#include "workloads/uniform.h"

namespace amq {
namespace {


FilterParams MicroParams() {
  FilterParams p;
  p.capacity = MicroKeys();
  p.target_fpr = 0.01;
  // 10^6 keys at the default 0.95 would need 263,158 buckets and get 2^19, leaving a cuckoo
  // table half empty; 0.96 keeps 2^18 buckets, load 0.954, close to FastFilter's 0.94.
  p.max_load = 0.96;
  p.seed = 1;
  return p;
}

const std::vector<std::uint64_t>& Members() {
  static const auto keys = UniformKeys(1, KeyStream::kMembers, MicroKeys());
  return keys;
}
const std::vector<std::uint64_t>& NonMembers() {
  static const auto keys = UniformKeys(1, KeyStream::kNonMembers, MicroKeys());
  return keys;
}

void ReportPerKey(benchmark::State& state, std::size_t keys) {
  state.counters["ns_per_key"] = benchmark::Counter(
      static_cast<double>(keys), benchmark::Counter::kIsIterationInvariantRate |
                                     benchmark::Counter::kInvert);
}

// Insert all keys into a fresh filter (dynamic), or build it (static). A dynamic filter's
// constructor allocates and zeroes its table outside the timed region; the first iteration
// of a static build is as warm as the rest because the allocator keeps freed memory.
template <Filter F>
void BM_Build(benchmark::State& state) {
  const auto& keys = Members();
  const FilterParams params = MicroParams();
  for (auto _ : state) {
    if constexpr (StaticFilter<F>) {
      F filter = F::build(keys, params);
      benchmark::DoNotOptimize(filter);
    } else {
      state.PauseTiming();
      F filter(params);
      std::vector<std::size_t> failed;
      state.ResumeTiming();
      benchmark::DoNotOptimize(InsertAll(filter, keys, failed));
      state.PauseTiming();
      const bool refused = !failed.empty();
      { F discard = std::move(filter); }  // free outside the timed region
      if (refused) {
        // Google Benchmark forbids ResumeTiming after SkipWithError: leave the loop instead.
        state.SkipWithError("an insert was refused: the table cannot hold n keys at this load");
        break;
      }
      state.ResumeTiming();
    }
  }
  ReportPerKey(state, keys.size());
}

template <Filter F>
void BM_Query(benchmark::State& state, bool members) {
  const auto& keys = Members();
  const auto built = Build<F>(keys, MicroParams());
  if (CountContained(built.filter, keys) != keys.size()) {
    state.SkipWithError("false negatives");
    return;
  }
  const auto& queries = members ? keys : NonMembers();
  for (auto _ : state) benchmark::DoNotOptimize(CountContained(built.filter, queries));
  ReportPerKey(state, queries.size());
}

template <class... Fs>
void RegisterAll(TypeList<Fs...>) {
  (benchmark::RegisterBenchmark((std::string(Fs::kName) + (StaticFilter<Fs> ? "/build" : "/insert")).c_str(),
                                BM_Build<Fs>)
       ->Unit(benchmark::kMillisecond)
       ->UseRealTime(),
   ...);
  (benchmark::RegisterBenchmark((std::string(Fs::kName) + "/query_present").c_str(),
                                [](benchmark::State& s) { BM_Query<Fs>(s, true); })
       ->Unit(benchmark::kMillisecond)
       ->UseRealTime(),
   ...);
  (benchmark::RegisterBenchmark((std::string(Fs::kName) + "/query_absent").c_str(),
                                [](benchmark::State& s) { BM_Query<Fs>(s, false); })
       ->Unit(benchmark::kMillisecond)
       ->UseRealTime(),
   ...);
}

}  // namespace
}  // namespace amq

int main(int argc, char** argv) {
  mallopt(M_MMAP_THRESHOLD, 1 << 30);  // keep freed memory for the next build: warm pages
  mallopt(M_TRIM_THRESHOLD, -1);
  if (!amq::TakeMicroKeysFlag(argc, argv)) {
    std::fprintf(stderr, "amqbench_micro: --keys=N takes a whole number in [1000, 10^9]\n");
    return 2;
  }
  amq::RegisterAll(amq::AllFilters{});
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
