// harness/micro_bench/micro_bench.cc - amqbench_micro: Google Benchmark micro-benchmarks of insert (or
// build) and query for every filter in filters/all.h, at each n of --keys (default 10^6 keys;
// harness/cell/micro_size.h). Names:
// "<filter>/<operation>/n:<n>/real_time", the operations being
//   insert | build           warm: into memory already mapped and touched (see BM_Build);
//                            below n = 2^17, several filters an iteration (BuildsPerIteration)
//   insert_cold | build_cold cold: the table allocated, zeroed and faulted in inside the timed
//                            region, as FastFilter's single pass times it
//   erase                    filters that erase (ErasableFilter): every key erased, in insert
//                            order, from tables filled with them outside the timed region (see
//                            BM_Erase)
//   query_present | query_absent                  one contains() per key, inlined into the loop
//   query_present_noinline | query_absent_noinline the same through a call that is not inlined,
//                            as FastFilter's benchmark calls its Contain: the like-for-like pair
//                            for its figures (the side-by-side runs against FastFilter use them)
//   query_present_batched | query_absent_batched  contains_many() over the whole buffer, for
//                            filters that batch (BatchedFilter): hashes and prefetches a group
//                            of keys before probing any of them
//   random_lines             from n = 2^20: random cache-line reads over the filter's own table
//                            (core/random_lines.h), the ceiling its lookups are set against;
//                            ns_per_key is then ns per line
//   random_lines_hashed      the same reads, each line named by the filters' hash of a number:
//                            the best rate a lookup that hashes once per line read can reach
//
// Reproduces the shape of FastFilter's bulk-insert-and-query table (plots/reference.py, FASTFILTER_SPEED):
// there, on this machine class, Cuckoo12 inserts at ~39-44 ns/key and queries at ~7-9.7,
// Bloom12 queries at ~9-14 (present) and ~19-24 ns/key (absent), blocked Bloom at ~4-6.
// Run: build/amqbench_micro --benchmark_repetitions=5 (about a minute per filter); against n:
// build/amqbench_micro --keys=1024,16384,262144,4194304 --benchmark_filter='^(bloom|xor8)/'.
// Each benchmark checks for false negatives before it times anything, and reports
// ns_per_key (time / keys) as a counter beside Google Benchmark's own fields; the query
// benchmarks add bits_per_key, the size of the filter they probe. Key buffers are
// generated once, outside any timed region; every timed loop is a kernel of harness/cell/kernels.h
// (or a static filter's own build), called directly for the filter type, but random_lines, which
// runs core/random_lines.h's kernels, the machine experiment's, on the filter's table.
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/random_lines.h"
#include "filters/all.h"
#include "harness/cell/cache_sizes.h"
#include "harness/cell/kernels.h"
#include "harness/cell/micro_size.h"

namespace amq {
namespace {

// Every n inserts and queries a prefix of the same keys (seed 1).
std::span<const std::uint64_t> Members(std::size_t n) {
  return MicroKeyPrefix<1, KeyStream::kMembers>(n);
}
std::span<const std::uint64_t> NonMembers(std::size_t n) {
  return MicroKeyPrefix<1, KeyStream::kNonMembers>(n);
}

long MinorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

void ReportPerKey(benchmark::State& state, std::size_t keys) {
  state.counters["ns_per_key"] =
      benchmark::Counter(static_cast<double>(keys), benchmark::Counter::kIsIterationInvariantRate |
                                                        benchmark::Counter::kInvert);
}

// Builds and inserts pause Google Benchmark's timers around what they must not time (setting up
// a fresh table, freeing the last). A pause and resume costs 1.3 to 1.8 us here with Debian's
// library, which is built with its checks on (REPORT.md's overhead line measures it); against
// one build of n = 1,024 keys (7 us) that was 41% of the iteration. So an iteration builds
// BuildsPerIteration(n) filters of the same keys back to back, at least kKeysPerBuildIteration
// keys in all, and pays the pauses once for them all. micro_n's builds (portable, n = 2^10 to
// 2^16) then take at least 0.53 ms an iteration (cuckoo12's inserts at n = 1,024), so two
// pauses and resumes are at most 0.7% of one; at 2^16 keys an iteration the worst was 1.3%.
// From n = 2^17 up, one build a pass, as before.
// What a small n's point then measures: builds of tables that together hold 2^17 keys (about
// 160 KB for Bloom filters), in L2 rather than L1 here. At n = 1,024 the portable per-key
// times were the same with 2^16 and 2^17 keys a pass (bloom 5.5, blocked_bloom 4.4, cuckoo12
// 4.1 ns); at 2^18 the tables leave L2 (blocked_bloom's native inserts went from 1.9 to 3.3 ns
// a key). ns_per_key divides by every key built; builds_per_iteration says how many filters an
// iteration built (the erase benchmark's tables_emptied_per_iteration, how many it emptied).
constexpr std::size_t kKeysPerBuildIteration = std::size_t{1} << 17;

std::size_t BuildsPerIteration(std::size_t n) {
  return std::max<std::size_t>(1, kKeysPerBuildIteration / std::max<std::size_t>(n, 1));
}

// Per key over the `tables` an iteration filled or emptied, n keys each; `counter` records how
// many.
void ReportTables(benchmark::State& state, std::size_t n, std::size_t tables, const char* counter) {
  ReportPerKey(state, n * tables);
  state.counters[counter] = static_cast<double>(tables);
}

// Empty tables for the dynamic filters' timed inserts, allocated and zeroed outside the timed
// region (BM_Build frees the last pass's tables before this).
template <Filter F>
void FreshTables(std::vector<F>& tables, std::size_t builds, const FilterParams& params) {
  tables.reserve(builds);
  for (std::size_t b = 0; b < builds; ++b) tables.emplace_back(params);
}

// Inserts the keys into each of the tables; false when any insert was refused.
template <Filter F>
bool InsertIntoEach(std::vector<F>& tables, std::span<const std::uint64_t> keys) {
  std::vector<std::size_t> failed;
  for (F& table : tables) benchmark::DoNotOptimize(InsertAll(table, keys, failed));
  return failed.empty();
}

// Erases the keys from each of the tables; false when any erase was refused.
template <class F>
  requires DynamicFilter<F> && ErasableFilter<F>
bool EraseFromEach(std::vector<F>& tables, std::span<const std::uint64_t> keys) {
  bool every_key_erased = true;
  for (F& table : tables) every_key_erased &= EraseAll(table, keys) == keys.size();
  return every_key_erased;
}

// Builds `builds` static filters of the keys into `filters` (capacity reserved beforehand, so
// each build is moved into place, never reallocated).
template <Filter F>
void BuildEach(std::vector<F>& filters, std::size_t builds, std::span<const std::uint64_t> keys,
               const FilterParams& params) {
  for (std::size_t b = 0; b < builds; ++b) filters.push_back(F::build(keys, params));
  benchmark::DoNotOptimize(filters.data());
}

// Insert n keys into fresh filters (dynamic), or build them (static), on pre-faulted memory. A
// dynamic filter's constructor allocates and zeroes its table outside the timed region. A
// static filter is built once untimed first (that build is also its false-negative check):
// main() keeps freed memory in the process, so the timed builds reuse pages already mapped.
template <Filter F>
void BM_Build(benchmark::State& state) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  const std::size_t builds = BuildsPerIteration(n);
  const auto keys = Members(n);
  const FilterParams params = MicroFilterParams(n, MicroSizingOf<F>());
  std::vector<F> filters;
  if constexpr (StaticFilter<F>) {
    {
      const F warm = F::build(keys, params);
      if (CountContained(warm, keys) != n) {
        state.SkipWithError("false negatives");
        return;
      }
    }
    filters.reserve(builds);
    for (auto _ : state) {
      BuildEach(filters, builds, keys, params);
      state.PauseTiming();
      filters.clear();  // free outside the timed region
      state.ResumeTiming();
    }
  } else {
    for (auto _ : state) {
      state.PauseTiming();
      FreshTables(filters, builds, params);
      state.ResumeTiming();
      const bool every_key_in = InsertIntoEach(filters, keys);
      state.PauseTiming();
      filters.clear();  // free outside the timed region
      if (!every_key_in) {
        // Google Benchmark forbids ResumeTiming after SkipWithError: leave the loop instead.
        state.SkipWithError("an insert was refused: the table cannot hold n keys at this load");
        break;
      }
      state.ResumeTiming();
    }
  }
  ReportTables(state, n, builds, "builds_per_iteration");
}

// Erase every key from tables that hold them all: full to empty, so the time is the mean over
// every load the table passes through as it empties. The tables are filled outside the timed
// region, with the same pause and resume as BM_Build's inserts, and the keys are erased in the
// order they went in (random keys, so random blocks). Every erase must be accepted: a held
// key's refused erase is a lost key.
template <class F>
  requires DynamicFilter<F> && ErasableFilter<F>
void BM_Erase(benchmark::State& state) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  const std::size_t builds = BuildsPerIteration(n);
  const auto keys = Members(n);
  const FilterParams params = MicroFilterParams(n, MicroSizingOf<F>());
  std::vector<F> filters;
  for (auto _ : state) {
    state.PauseTiming();
    filters.clear();  // free the last pass's tables outside the timed region
    FreshTables(filters, builds, params);
    if (!InsertIntoEach(filters, keys)) {
      state.SkipWithError("an insert was refused: the table cannot hold n keys at this load");
      break;
    }
    state.ResumeTiming();
    const bool every_key_erased = EraseFromEach(filters, keys);
    if (!every_key_erased) {
      state.PauseTiming();
      state.SkipWithError("an erase of a key the filter holds was refused: a lost key");
      break;
    }
  }
  ReportTables(state, n, builds, "tables_emptied_per_iteration");
}

// The filter the query benchmarks probe, held between calls: Google Benchmark calls a benchmark
// once per repetition (and again while it sizes the iteration count), and at n = 2^26 a build
// takes seconds. One filter is held at a time - the last (type, n) asked for - so memory holds
// at most one beside what the running benchmark builds.
struct HeldFilter {
  const void* type = nullptr;  // the address of a per-type tag
  std::size_t n = 0;
  bool holds_every_key = false;  // the false-negative check, made once after the build
  std::shared_ptr<const void> built;
};

HeldFilter& SharedHeldFilter() {
  static HeldFilter held;
  return held;
}

template <Filter F>
const Built<F>& BuiltFor(std::size_t n, bool& holds_every_key) {
  static const char tag = 0;
  HeldFilter& slot = SharedHeldFilter();
  if (slot.type != &tag || slot.n != n) {
    slot.built.reset();  // free the previous filter before building the next
    auto built = std::make_shared<const Built<F>>(
        Build<F>(Members(n), MicroFilterParams(n, MicroSizingOf<F>())));
    slot.holds_every_key = CountContained(built->filter, Members(n)) == n;
    slot.built = std::move(built);
    slot.type = &tag;
    slot.n = n;
  }
  holds_every_key = slot.holds_every_key;
  return *static_cast<const Built<F>*>(slot.built.get());
}

// The held filter of n keys, or null (the benchmark skipped with an error) when it lost a key.
template <Filter F>
const Built<F>* HeldFilterWithEveryKey(benchmark::State& state, std::size_t n) {
  bool holds_every_key = false;
  const Built<F>& built = BuiltFor<F>(n, holds_every_key);
  if (!holds_every_key) {
    state.SkipWithError("false negatives");
    return nullptr;
  }
  return &built;
}

// The query loop over n members or n non-members of the held filter, one contains() per key
// or (batched) contains_many over the whole buffer into answers allocated and touched before
// timing. The batched path must also find every member before it is timed.
enum class QueryLoop { kInlined, kOutOfLine, kBatched };

template <Filter F, QueryLoop kLoop = QueryLoop::kInlined>
void BM_Query(benchmark::State& state, bool members) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  const Built<F>* held = HeldFilterWithEveryKey<F>(state, n);
  if (held == nullptr) return;
  const Built<F>& built = *held;
  const auto queries = members ? Members(n) : NonMembers(n);
  if constexpr (kLoop == QueryLoop::kBatched) {
    std::vector<std::uint8_t> answers(n, 0);
    if (members && CountContainedBatched(built.filter, queries, answers) != n) {
      state.SkipWithError("false negatives in the batched path");
      return;
    }
    for (auto _ : state) benchmark::DoNotOptimize(CountContainedBatched(built.filter, queries, answers));
  } else if constexpr (kLoop == QueryLoop::kOutOfLine) {
    for (auto _ : state) benchmark::DoNotOptimize(CountContainedOutOfLine(built.filter, queries));
  } else {
    for (auto _ : state) benchmark::DoNotOptimize(CountContained(built.filter, queries));
  }
  ReportPerKey(state, n);
  // How much memory the lookups range over: plots mark where a filter outgrows each cache.
  state.counters["bits_per_key"] = 8.0 * double(built.filter.size_in_bytes()) / double(n);
}

// The random-line ceiling on the held filter's own table: core/random_lines.h's 16 streams of
// random line reads over its bytes(), in this process, on the pages its lookups read, minutes
// from them. A lookup's lines per second are set against this rather than against the machine
// experiment's buffer (plots/sections/speed_vs_n.py), because on this virtual machine the rate
// moves with the allocation and the window: see core/random_lines.h. Each line is prefetched 64
// lines before it is loaded, as a batched lookup loads its lines, on tables of
// kPrefetchedLinesFromBytes or more; below that plain loads, which the machine experiment finds
// faster in cache (results/machine.jsonl: prefetching wins from 4 MiB on, on both kinds of
// pages); the label says which. ns_per_key is ns per line read; lines_per_second its inverse.
// kIndex kHashed names each line through HashKey (random_lines_hashed): the same reads with the
// one hash a lookup cannot skip, the floor the report's bound table sets a lookup against.
constexpr std::size_t kRandomLinesFromKeys = std::size_t{1} << 20;
constexpr std::size_t kPrefetchedLinesFromBytes = std::size_t{4} << 20;
constexpr std::uint64_t kRandomLineRounds = std::uint64_t{1} << 16;  // x 16 lines an iteration

template <Filter F, LineIndex kIndex = LineIndex::kDirect>
void BM_RandomLines(benchmark::State& state) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  const Built<F>* held = HeldFilterWithEveryKey<F>(state, n);
  if (held == nullptr) return;
  const Built<F>& built = *held;
  const std::span<const std::uint8_t> table = built.filter.bytes();
  const std::uint64_t lines = table.size() / kRandomLineBytes;
  if (lines == 0) {
    state.SkipWithError("the table is smaller than one cache line");
    return;
  }
  const auto* base = reinterpret_cast<const std::byte*>(table.data());
  const bool prefetched = table.size() >= kPrefetchedLinesFromBytes;
  const auto kernel = prefetched ? &RandomLinesPrefetched<kIndex> : &RandomLines<kIndex>;  // chosen once
  std::uint64_t streams[kRandomLineStreams];
  for (int s = 0; s < kRandomLineStreams; ++s) streams[s] = SpreadSeed(static_cast<std::uint64_t>(s) + 1);
  for (auto _ : state) benchmark::DoNotOptimize(kernel(base, lines, kRandomLineRounds, streams));
  const std::size_t lines_read = kRandomLineRounds * kRandomLineStreams;
  ReportPerKey(state, lines_read);
  state.counters["lines_per_second"] =
      benchmark::Counter(static_cast<double>(lines_read), benchmark::Counter::kIsIterationInvariantRate);
  // The method as a label, not a 0/1 counter: a counter that is 0 in every repetition has a
  // coefficient of variation of 0/0, which Google Benchmark writes as NaN, and JSON has no NaN.
  state.SetLabel(prefetched ? "prefetched" : "loads");
  state.counters["bits_per_key"] = 8.0 * double(built.filter.size_in_bytes()) / double(n);
  state.counters["table_bytes"] = static_cast<double>(table.size());
}

// Insert n keys into a fresh filter (dynamic), or build it (static), on fresh memory: the
// allocation, the zeroing and the first touch of every page are timed, as in a program that
// builds a filter once. malloc_trim(0) before each pass hands the previous pass's pages back
// to the kernel (main() keeps them otherwise), and page_faults_per_key shows they were taken
// again. One build a pass at every n, unlike BM_Build: a second build in the same pass would
// reuse the first one's freed scratch pages, and time a warm build as a cold one.
template <Filter F>
void BM_BuildCold(benchmark::State& state) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  const auto keys = Members(n);
  const FilterParams params = MicroFilterParams(n, MicroSizingOf<F>());
  long faults = 0;
  for (auto _ : state) {
    state.PauseTiming();
    malloc_trim(0);
    const long faults_before = MinorFaults();
    state.ResumeTiming();
    bool refused = false;
    if constexpr (StaticFilter<F>) {
      F filter = F::build(keys, params);
      benchmark::DoNotOptimize(filter);
      state.PauseTiming();
      faults += MinorFaults() - faults_before;
      { F discard = std::move(filter); }
    } else {
      F filter(params);
      std::vector<std::size_t> failed;
      benchmark::DoNotOptimize(InsertAll(filter, keys, failed));
      state.PauseTiming();
      faults += MinorFaults() - faults_before;
      refused = !failed.empty();
      { F discard = std::move(filter); }
    }
    if (refused) {
      state.SkipWithError("an insert was refused: the table cannot hold n keys at this load");
      break;
    }
    state.ResumeTiming();
  }
  ReportPerKey(state, n);
  state.counters["page_faults_per_key"] =
      benchmark::Counter(static_cast<double>(faults) / static_cast<double>(n),
                         benchmark::Counter::kAvgIterations);
}

// One benchmark per filter, operation and n of --keys, named "<filter>/<operation>/n:<n>/real_time".
// Registered filter by filter and n, every operation of one (filter, n) together: Google
// Benchmark runs benchmarks in the order they were registered, so the lookups of one (filter, n)
// follow each other and probe the one filter BuiltFor holds, built and checked once. Registered
// operation by operation, every n of every filter came round once per lookup operation, and the
// held filter was built again each time: up to six builds and checks of each filter at each n,
// where at 2^24 keys one can take 9 s here (rsqf: a 5.0 s load, a 3.9 s pass of lookups).
template <Filter F>
void RegisterAtEveryN() {
  for (std::size_t keys : MicroKeyCounts()) {
    const auto n = static_cast<std::int64_t>(keys);
    const auto at = [n](const std::string& operation, auto function) {
      benchmark::RegisterBenchmark((std::string(F::kName) + "/" + operation).c_str(), function)
          ->ArgName("n")
          ->Arg(n)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    };
    at(StaticFilter<F> ? "build" : "insert", BM_Build<F>);
    at("query_present", [](benchmark::State& s) { BM_Query<F>(s, true); });
    at("query_absent", [](benchmark::State& s) { BM_Query<F>(s, false); });
    at("query_present_noinline", [](benchmark::State& s) { BM_Query<F, QueryLoop::kOutOfLine>(s, true); });
    at("query_absent_noinline", [](benchmark::State& s) { BM_Query<F, QueryLoop::kOutOfLine>(s, false); });
    at(StaticFilter<F> ? "build_cold" : "insert_cold", BM_BuildCold<F>);
    if constexpr (DynamicFilter<F> && ErasableFilter<F>) at("erase", BM_Erase<F>);
    if constexpr (BatchedFilter<F>) {
      at("query_present_batched", [](benchmark::State& s) { BM_Query<F, QueryLoop::kBatched>(s, true); });
      at("query_absent_batched", [](benchmark::State& s) { BM_Query<F, QueryLoop::kBatched>(s, false); });
    }
    // The ceiling on the filter's own table, from 2^20 keys (about 1 MiB and more: past L2
    // here), where the rate depends on the pages and the window; below, every table is in
    // cache and the machine experiment's rates stand.
    if (keys >= kRandomLinesFromKeys) {
      at("random_lines", BM_RandomLines<F>);
      at("random_lines_hashed", BM_RandomLines<F, LineIndex::kHashed>);
    }
  }
}

template <class... Fs>
void RegisterAll(TypeList<Fs...>) {
  (RegisterAtEveryN<Fs>(), ...);
}

}  // namespace
}  // namespace amq

int main(int argc, char** argv) {
  mallopt(M_MMAP_THRESHOLD, 1 << 30);  // keep freed memory for the next build: warm pages
  mallopt(M_TRIM_THRESHOLD, -1);
  if (!amq::TakeMicroKeysFlag(argc, argv)) {
    std::fprintf(stderr,
                 "amqbench_micro: --keys=N or --keys=N1,N2,... takes whole numbers in [1000, 10^9],"
                 " each once\n");
    return 2;
  }
  amq::RegisterAll(amq::AllFilters{});
  for (void (*registration)() : amq::KeysFlagRegistrations()) registration();
  // The n list and the caches go into Google Benchmark's context: plots/load.py reads n of
  // names without one from "keys", and marks the caches on charts against n.
  benchmark::AddCustomContext("keys", amq::MicroKeysText(amq::MicroKeyCounts()));
  benchmark::AddCustomContext("amq_caches", amq::DataCacheText(amq::CacheSizes()));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  // The held filter goes before static destruction: the last one is a library's (RocksDB's
  // Ribbon), and destroying it among the statics aborted ("pthread lock: Invalid argument").
  amq::SharedHeldFilter().built.reset();
  benchmark::Shutdown();
  return 0;
}
