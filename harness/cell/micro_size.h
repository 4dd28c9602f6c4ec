// harness/cell/micro_size.h - the key counts n the Google Benchmark micro-benchmarks run at, and the
// parameters they build filters with (the micro kind's memory estimate builds the same ones).
//
// n is a Google Benchmark argument: every size-taking benchmark is registered once per n and
// named "<filter>/<operation>/n:<n>/real_time", so speed against n comes from the same code.
// amqbench_micro takes the list before Google Benchmark's own flags:
//   --keys=N          one n (default 10^6, FastFilter's bulk-insert-and-query size)
//   --keys=N1,N2,...  each n of the list, in that order
// ctest runs every benchmark at a small n, so a benchmark that aborts fails the tests without
// the minutes the full size takes.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/filter.h"
#include "workloads/uniform.h"

namespace amq {

inline constexpr std::size_t kMicroDefaultKeys = 1000000;
inline constexpr std::size_t kMicroMinKeys = 1000;
inline constexpr std::size_t kMicroMaxKeys = 1000000000;

inline std::vector<std::size_t>& MicroKeyCountsSetting() {
  static std::vector<std::size_t> counts = {kMicroDefaultKeys};
  return counts;
}

// The n of every size-taking benchmark, in registration order.
inline const std::vector<std::size_t>& MicroKeyCounts() { return MicroKeyCountsSetting(); }

// The largest n: key buffers are generated once at this size and each n uses a prefix of them.
inline std::size_t LargestMicroKeys() {
  const auto& counts = MicroKeyCounts();
  return *std::max_element(counts.begin(), counts.end());
}

// The first n keys of a stream (workloads/uniform.h): one buffer sized for the largest n,
// generated on first use - outside any timed region - so every n uses a prefix of the same keys.
template <std::uint64_t kSeed, KeyStream kStream>
std::span<const std::uint64_t> MicroKeyPrefix(std::size_t n) {
  static const std::vector<std::uint64_t> keys = UniformKeys(kSeed, kStream, LargestMicroKeys());
  return {keys.data(), n};
}

// "N" or "N1,N2,...": whole numbers in [1000, 10^9], no n twice (two benchmarks of one name).
inline std::optional<std::vector<std::size_t>> ParseMicroKeys(std::string_view text) {
  std::vector<std::size_t> counts;
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    std::size_t n = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), n);
    if (item.empty() || error != std::errc() || end != item.data() + item.size() ||
        n < kMicroMinKeys || n > kMicroMaxKeys ||
        std::find(counts.begin(), counts.end(), n) != counts.end()) {
      return std::nullopt;
    }
    counts.push_back(n);
    if (comma == std::string_view::npos) return counts;
    text.remove_prefix(comma + 1);
  }
}

// Takes --keys=... out of argv (Google Benchmark refuses flags it does not know). Returns false
// for a value ParseMicroKeys refuses.
inline bool TakeMicroKeysFlag(int& argc, char** argv) {
  int kept = 1;
  bool ok = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--keys=", 7) == 0) {
      const auto counts = ParseMicroKeys(argv[i] + 7);
      ok = ok && counts.has_value();
      if (counts) MicroKeyCountsSetting() = *counts;
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  return ok;
}

// Registers a Google Benchmark (B: benchmark::internal::Benchmark) once per n, named ".../n:<n>".
template <class B>
B* AtEachMicroN(B* b) {
  b->ArgName("n");
  for (std::size_t n : MicroKeyCounts()) b->Arg(static_cast<std::int64_t>(n));
  return b;
}

// Benchmark files that register at static initialization, before main() has read --keys,
// hand their registration here instead; main() runs it once the n list is known.
inline std::vector<void (*)()>& KeysFlagRegistrations() {
  static std::vector<void (*)()> registrations;
  return registrations;
}
inline bool RegisterAfterKeysFlag(void (*registration)()) {
  KeysFlagRegistrations().push_back(registration);
  return true;
}

// The list as --keys takes it, for the run's context and the micro kind's command line.
inline std::string MicroKeysText(const std::vector<std::size_t>& counts) {
  std::string text;
  for (std::size_t n : counts) {
    if (!text.empty()) text += ',';
    text += std::to_string(n);
  }
  return text;
}

// The filters of harness/micro_bench/micro_bench.cc at n keys: sized from a 1% FPR target, except the
// quotient family (`family` is the filter's kFamily), which runs at FastFilter's CQF
// configuration so the two are timed like with like: r = 8 remainder bits (eps = 2^-8) and a
// table at most half full (10^6 keys: 2^21 slots, load 0.477). At the 1% target and max load
// 0.96 the same keys would fill 2^20 slots to 0.954 with r = 7, where runs are long and an
// insert shifts far more; the quotient_load experiment times them against load.
// A filter timed beside a FastFilter configuration sized otherwise says how, in traits of its
// own, so the sizing stays one function: another FPR than 1% (FastFilter's HomogRibbon64_8,
// BalancedRibbon64Pack_8 and GCS run at 2^-8, its CountingBloom10 at 10 counters a key), another load than 0.96 (its Morton filter at 0.95):
//   static constexpr double kMicroTargetFpr = 1.0 / 256;
//   static constexpr double kMicroMaxLoad = 0.95;
struct MicroSizing {
  std::string_view family = {};  // the filter's kFamily ("quotient": the CQF configuration)
  double target_fpr = 0.0;       // kMicroTargetFpr; 0: the 1% target
  double max_load = 0.0;         // kMicroMaxLoad; 0: 0.96
};

template <class F>
constexpr MicroSizing MicroSizingOf() {
  MicroSizing sizing;
  sizing.family = F::kFamily;
  if constexpr (requires { F::kMicroTargetFpr; }) sizing.target_fpr = F::kMicroTargetFpr;
  if constexpr (requires { F::kMicroMaxLoad; }) sizing.max_load = F::kMicroMaxLoad;
  return sizing;
}

inline FilterParams MicroFilterParams(std::size_t n, const MicroSizing& sizing = {}) {
  FilterParams p;
  p.capacity = n;
  p.target_fpr = 0.01;
  // 10^6 keys at the default 0.95 would need 263,158 buckets and get 2^19, leaving a cuckoo
  // table half empty; 0.96 keeps 2^18 buckets, load 0.954, close to FastFilter's 0.94. (At a
  // power of two n no load limit below 1 avoids the doubling: there the tables are half full.)
  p.max_load = 0.96;
  if (sizing.family == "quotient") {
    p.target_fpr = 1.0 / 256;
    p.max_load = 0.5;
  }
  if (sizing.target_fpr > 0) p.target_fpr = sizing.target_fpr;
  if (sizing.max_load > 0) p.max_load = sizing.max_load;
  p.seed = 1;
  return p;
}

}  // namespace amq
