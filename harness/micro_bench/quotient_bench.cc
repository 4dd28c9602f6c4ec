// harness/micro_bench/quotient_bench.cc - the quotient family under a load sweep, and its keyless merge and
// resize. 2^20 canonical slots, r = 8 (splatlab's `bm -n 24` shape at a quarter of its size).
//
// quotient_family/<filter>/insert/<a>-<b>   ns per insert while the fill rises from a% to b%
// quotient_family/<filter>/present/<b>      ns per positive lookup at fill b%
// quotient_family/<filter>/absent/<b>       ns per negative lookup at fill b%
// quotient_family/<filter>/merge            two filters at 45% each into one (90%), ns/key
// quotient_family/<filter>/resize_double    a 90% filter into 2^21 slots, r = 7, ns/key
// quotient_family/<filter>/merge_by_size/<m>, .../resize_double_by_size/<m>: the same at
//   m = 2^14 .. 2^22 canonical slots (90% after the merge, 90% before the doubling), so a
//   time linear in m shows as ns per key flat in m (the article's "single sequential pass").
// The classic QF also gets 99% and 100% steps (its circular table fills completely).
// References on this machine class (plots/reference.py, QUOTIENT_FAMILY_SPEED): splatlab's CQF
// inserts fall from ~3.5 to ~1 Mops (~290 -> ~1000 ns) by 90% load, lookups ~8 -> 3 Mops
// positive and ~17 -> 4.5 Mops negative; a public classic QF takes ~54 ns per insert at 25% load
// and ~4 us at 95%. FastFilter's CQF at n = 10^6 (half full; plots/reference.py,
// FASTFILTER_SPEED, median / best): insert 58 / 44 ns, absent lookups 26 / 21, present 45 / 35.
// Run: build/amqbench_micro --benchmark_filter='^quotient_family/' --benchmark_repetitions=5
// --benchmark_min_time=0.2 (a few minutes). The lookups take the command line's minimum time,
// as every benchmark here: their own 0.2 s once overrode it and made the tests' brief run of
// every benchmark spend 24 of its 28 s on them. Every benchmark checks for false negatives before it times anything.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "filters/cqf.h"
#include "filters/quotient.h"
#include "filters/rsqf.h"
#include "harness/cell/kernels.h"
#include "harness/cell/micro_size.h"
#include "workloads/uniform.h"

namespace amq {
namespace {

constexpr int kR = 8;
// One table of 2^q slots, the smallest power of two holding the micro-benchmarks' largest key
// count (2^20 at the default 10^6), probed by a quarter as many keys (2^18 there). The family's
// axis is load, not n: its benchmarks are not repeated per n of a --keys list.
int Q() {
  int q = 10;
  while ((std::size_t{1} << q) < LargestMicroKeys()) ++q;
  return q;
}
std::size_t Slots() { return std::size_t{1} << Q(); }
std::size_t Probes() { return Slots() / 4; }

const std::vector<std::uint64_t>& SweepKeys() {
  static const auto keys = UniformKeys(21, KeyStream::kMembers, Slots());
  return keys;
}
const std::vector<std::uint64_t>& SweepNegatives() {
  static const auto keys = UniformKeys(21, KeyStream::kNonMembers, Probes());
  return keys;
}

std::size_t KeysAt(int percent) { return Slots() * percent / 100; }

template <class F>
F Empty() {
  return F(Q(), kR, SpreadSeed(21), 1.0);
}

// The filter filled to `percent` (built once per process, then copied).
template <class F>
const F& FilledTo(int percent) {
  static std::map<int, F> cache;
  auto it = cache.find(percent);
  if (it == cache.end()) {
    F f = Empty<F>();
    const auto& keys = SweepKeys();
    for (std::size_t i = 0; i < KeysAt(percent); ++i) {
      if (!f.insert(keys[i])) throw std::runtime_error("sweep fill refused an insert");
    }
    it = cache.emplace(percent, std::move(f)).first;
  }
  return it->second;
}

// Repetitions report median (gbench's own), min and max.
benchmark::internal::Benchmark* WithMinMax(benchmark::internal::Benchmark* b) {
  return b
      ->ComputeStatistics(
          "min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); })
      ->ComputeStatistics("max", [](const std::vector<double>& v) {
        return *std::max_element(v.begin(), v.end());
      });
}

void PerKey(benchmark::State& state, std::size_t keys) {
  state.counters["ns_per_key"] =
      benchmark::Counter(static_cast<double>(keys), benchmark::Counter::kIsIterationInvariantRate |
                                                        benchmark::Counter::kInvert);
}

template <class F>
void BM_InsertBand(benchmark::State& state, int from, int to) {
  const auto& keys = SweepKeys();
  const std::span<const std::uint64_t> band(keys.data() + KeysAt(from), KeysAt(to) - KeysAt(from));
  const F& start = FilledTo<F>(from);
  std::vector<std::size_t> failed;
  for (auto _ : state) {
    state.PauseTiming();
    F f = start;
    failed.clear();
    state.ResumeTiming();
    benchmark::DoNotOptimize(InsertAll(f, band, failed));
    state.PauseTiming();
    if (!failed.empty()) state.SkipWithError("insert refused");
    if (CountContained(f, band) != band.size()) state.SkipWithError("false negatives");
    state.ResumeTiming();
  }
  PerKey(state, band.size());
  state.counters["load"] = to / 100.0;
}

template <class F>
void BM_Lookup(benchmark::State& state, int percent, bool present) {
  const F& f = FilledTo<F>(percent);
  const auto& keys = SweepKeys();
  // Near-full classic QF clusters span much of the table and a lookup walks them: fewer probes.
  const std::size_t probe_count =
      percent >= 100 ? Probes() / 1024 : (percent >= 99 ? Probes() / 64 : Probes());
  const std::size_t n = std::min(probe_count, KeysAt(percent));
  const std::span<const std::uint64_t> members(keys.data(), n);
  if (CountContained(f, members) != n) {
    state.SkipWithError("false negatives");
    return;
  }
  const std::span<const std::uint64_t> probes =
      present ? members : std::span<const std::uint64_t>(SweepNegatives().data(), probe_count);
  std::size_t hits = 0;
  for (auto _ : state) benchmark::DoNotOptimize(hits = CountContained(f, probes));
  PerKey(state, probes.size());
  state.counters["load"] = percent / 100.0;
  if (!present) state.counters["fpr"] = static_cast<double>(hits) / probes.size();
}

// Times F::merge(a, b) after checking, once, that the merge keeps 2^q slots and finds every key.
template <class F>
void TimeMerge(benchmark::State& state, const F& a, const F& b, std::span<const std::uint64_t> keys,
               int q) {
  {
    const F m = F::merge(a, b);
    if (m.quotient_bits() != q || CountContained(m, keys) != keys.size()) {
      state.SkipWithError("merge lost keys or grew");
      return;
    }
  }
  for (auto _ : state) {
    F m = F::merge(a, b);
    benchmark::DoNotOptimize(m);
  }
  PerKey(state, keys.size());
}

// Times f.resized_double() after checking, once, that the doubled filter finds every key.
template <class F>
void TimeResize(benchmark::State& state, const F& f, std::span<const std::uint64_t> keys) {
  {
    const F g = f.resized_double();
    if (CountContained(g, keys) != keys.size()) {
      state.SkipWithError("resize lost keys");
      return;
    }
  }
  for (auto _ : state) {
    F g = f.resized_double();
    benchmark::DoNotOptimize(g);
  }
  PerKey(state, keys.size());
}

template <class F>
void BM_Merge(benchmark::State& state) {
  const auto& keys = SweepKeys();
  F a = Empty<F>(), b = Empty<F>();
  const std::size_t half = KeysAt(45);
  for (std::size_t i = 0; i < half; ++i) a.insert(keys[i]);
  for (std::size_t i = half; i < 2 * half; ++i) b.insert(keys[i]);
  TimeMerge(state, a, b, std::span(keys.data(), 2 * half), Q());
}

template <class F>
void BM_Resize(benchmark::State& state) {
  TimeResize(state, FilledTo<F>(90), std::span(SweepKeys().data(), KeysAt(90)));
}

// Merge and doubling at a table of 2^q slots of their own (keys of stream 22 + q), independent
// of --keys: the article's O(m) is a statement about m.
constexpr int kSizedQ[] = {14, 16, 18, 20, 22};

template <class F>
void BM_MergeBySize(benchmark::State& state, int q) {
  const std::size_t half = (std::size_t{1} << q) * 45 / 100;
  const auto keys = UniformKeys(22 + q, KeyStream::kMembers, 2 * half);
  F a(q, kR, SpreadSeed(22 + q), 1.0), b(q, kR, SpreadSeed(22 + q), 1.0);
  for (std::size_t i = 0; i < half; ++i) a.insert(keys[i]);
  for (std::size_t i = half; i < 2 * half; ++i) b.insert(keys[i]);
  TimeMerge(state, a, b, keys, q);
  state.counters["slots"] = static_cast<double>(std::size_t{1} << q);
}

template <class F>
void BM_ResizeBySize(benchmark::State& state, int q) {
  const std::size_t n = (std::size_t{1} << q) * 90 / 100;
  const auto keys = UniformKeys(22 + q, KeyStream::kMembers, n);
  F f(q, kR, SpreadSeed(22 + q), 1.0);
  for (std::uint64_t key : keys) {
    if (!f.insert(key)) {
      state.SkipWithError("fill refused an insert");
      return;
    }
  }
  TimeResize(state, f, keys);
  state.counters["slots"] = static_cast<double>(std::size_t{1} << q);
}

template <class F>
bool RegisterSweep(std::vector<int> steps) {
  const std::string base = "quotient_family/" + std::string(F::kName);
  int from = 0;
  for (int to : steps) {
    const std::string band = std::to_string(from) + "-" + std::to_string(to);
    auto* insert = benchmark::RegisterBenchmark(
        (base + "/insert/" + band).c_str(),
        [from, to](benchmark::State& s) { BM_InsertBand<F>(s, from, to); });
    // Filling the circular classic QF's last 1% walks clusters of ~10^5-10^6 slots per insert
    // (tens of seconds per pass): one pass per repetition there.
    WithMinMax(insert)->Unit(benchmark::kMicrosecond)->UseRealTime()->Iterations(to >= 100 ? 1 : 5);
    auto* present =
        benchmark::RegisterBenchmark((base + "/present/" + std::to_string(to)).c_str(),
                                     [to](benchmark::State& s) { BM_Lookup<F>(s, to, true); });
    WithMinMax(present)->Unit(benchmark::kMicrosecond)->UseRealTime();
    auto* absent =
        benchmark::RegisterBenchmark((base + "/absent/" + std::to_string(to)).c_str(),
                                     [to](benchmark::State& s) { BM_Lookup<F>(s, to, false); });
    WithMinMax(absent)->Unit(benchmark::kMicrosecond)->UseRealTime();
    from = to;
  }
  WithMinMax(benchmark::RegisterBenchmark((base + "/merge").c_str(), BM_Merge<F>))
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->Iterations(5);
  WithMinMax(benchmark::RegisterBenchmark((base + "/resize_double").c_str(), BM_Resize<F>))
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->Iterations(5);
  for (int q : kSizedQ) {
    const std::string m = std::to_string(std::size_t{1} << q);
    WithMinMax(benchmark::RegisterBenchmark((base + "/merge_by_size/" + m).c_str(),
                                            [q](benchmark::State& s) { BM_MergeBySize<F>(s, q); }))
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(3);
    WithMinMax(benchmark::RegisterBenchmark((base + "/resize_double_by_size/" + m).c_str(),
                                            [q](benchmark::State& s) { BM_ResizeBySize<F>(s, q); }))
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(3);
  }
  return true;
}

const bool registered = RegisterSweep<QuotientFilter>({10, 25, 50, 75, 90, 95, 99, 100}) &&
                        RegisterSweep<Rsqf>({10, 25, 50, 75, 90, 95}) &&
                        RegisterSweep<Cqf>({10, 25, 50, 75, 90, 95});

}  // namespace
}  // namespace amq
