// harness/kinds/counting_kind.h - the counting experiment: the quotient filter article's claim
// (the wiki article "Quotient Filter") that the counting quotient filter's in-run counters beat
// the Count-Min sketch on skewed multisets, measured.
//
// A multiset - N items drawn Zipf(alpha) from a universe of U keys, or a trace's packets, so a
// flow's count is its packet count - is counted in a CQF (filters/cqf.h, r from the fpr) and in
// a Count-Min sketch (filters/count_min.h) given exactly the CQF's bytes. Each estimate is
// compared with the exact count of every distinct key: mean and max absolute error and the
// fraction counted exactly; absent keys (never inserted) are asked too, whose true count is 0.
// Neither structure may ever count below the truth (false_negatives must be 0). Deterministic:
// no timing, so the records are the same on every host at the same seed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "harness/run/kind.h"
#include "harness/run/trace_source.h"
#include "harness/run/runner.h"

namespace amq {

struct CountingParams {
  std::vector<double> zipf_alphas = {1.0};  // one Zipf multiset per alpha
  std::size_t items = 1000000;              // N, items per Zipf multiset
  std::size_t universe = 1000000;           // U, ranks the Zipf draws come from
  std::optional<TraceSource> trace;         // also count a trace's per-flow packet counts
  double fpr = 0.01;                        // the CQF's r = ceil(log2(1/fpr))
  double max_load = 0.95;                   // the CQF is grown until its used slots stay within it
  std::vector<int> depths = {4};            // Count-Min rows, one cell per depth
  std::size_t absent_queries = 100000;      // keys never inserted, asked of both
  std::uint64_t seed = 1;
};

// What one structure's counts got wrong, against the exact counts.
struct CountError {
  std::size_t keys = 0;            // distinct keys asked
  double mean = 0;                 // mean |estimate - truth|
  std::uint64_t max = 0;           // largest |estimate - truth|
  double exact_fraction = 0;       // share of keys with estimate == truth
  std::size_t below_truth = 0;     // estimates under the truth: must be 0 for both structures
};

// The error of `estimate` over (key, true count) pairs. Exposed for its test.
template <class Estimate>
CountError MeasureCountError(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& truth,
                             Estimate&& estimate) {
  CountError e;
  e.keys = truth.size();
  double sum = 0;
  std::size_t exact = 0;
  for (const auto& [key, count] : truth) {
    const std::uint64_t got = estimate(key);
    const std::uint64_t miss = got > count ? got - count : count - got;
    if (got < count) ++e.below_truth;
    if (miss == 0) ++exact;
    if (miss > e.max) e.max = miss;
    sum += static_cast<double>(miss);
  }
  if (e.keys) {
    e.mean = sum / e.keys;
    e.exact_fraction = static_cast<double>(exact) / e.keys;
  }
  return e;
}

// Throws InputError for parameters no cell could run with (each value's range is declared with
// the kind's parameters, harness/run/kind.h, and checked where they are read).
void ValidateCountingParams(const CountingParams& params);
std::unique_ptr<ExperimentPlan> MakeCountingPlan(const CountingParams& params);

extern const KindSpec kCountingKind;

}  // namespace amq
