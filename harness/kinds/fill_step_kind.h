// harness/kinds/fill_step_kind.h - the fill_step kind: a dynamic filter filled in steps of a
// share of its capacity (5% by default), with each operation's speed measured within each step.
//
// The figures of the vector quotient filter paper (Pandey et al., SIGMOD 2021) and the prefix
// filter paper (Even, Even, Morrison, PVLDB 2022) draw throughput against how full the filter
// is: insert, lookup and delete speed change as a table fills, and a single number at one load
// hides that. For each selected filter and capacity n, the filter is sized for n (its own
// maximum load, or max_load); step k then
//   1. inserts the next step_share * n keys (timed): the fill reaches k * step_share of n;
//   2. looks up `queries` keys sampled from those it holds (timed; each must be found);
//   3. looks up `queries` fresh non-members (timed; the hits are the FPR at this fill);
//   4. erasable filters: erases `queries` distinct held keys (timed), then inserts them again
//      (timed), so the next step starts from the fill it planned - erase alone would leave the
//      table emptier with every step, and the steps' loads would drift from k * step_share.
// Insert-only filters (Bloom, blocked Bloom) get the first three. The fill goes to 100% of n,
// which for the table families is their maximum load (n / slots = max_load when the table is
// not rounded up: n = 0.95 * 2^20 fills a power-of-two table at the default 0.95 exactly).
//
// One untimed warm-up fill comes first: it faults in the filter's memory (the timed fills reuse
// it, as the filters kind's builds do) and checks every held key at every step against the exact
// key set (false_negatives, which must be 0), and takes the FPR and the filter's state at each
// step. Then `repeats` timed fills from a fresh filter, with the same keys, samples and seed:
// each step's timings are the median, min and max over them. Every fill is the same sequence of
// states (the filters are deterministic at a seed), so the warm-up's full checks hold for the
// timed fills, which also check their own samples. A cell writes one `step` line per step and
// its cell line last.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "harness/cell/registry.h"
#include "harness/run/kind.h"
#include "harness/run/runner.h"

namespace amq {

struct FillStepParams {
  std::vector<const FilterEntry*> filters;  // dynamic filters only
  std::vector<std::size_t> capacities;      // n each filter is sized for, one cell per n
  double step_share = 0.05;                 // share of n inserted per step
  double fpr = 0.01;
  double max_load = 0;                      // 0: the family's default
  std::size_t queries = 0;                  // per timed loop and step; 0: one step's keys
  int repeats = 3;                          // timed fills after the warm-up
  std::uint64_t seed = 1;
};

// The number of keys offered once step k (1-based) is done: round(k * share * n), capped at
// n. Exposed for its test.
std::size_t FillStepEnd(std::size_t capacity, double share, std::size_t step);
// Steps to fill n: ceil(1 / share), less a step that would add no key.
std::size_t FillStepCount(std::size_t capacity, double share);

std::unique_ptr<ExperimentPlan> MakeFillStepPlan(const FillStepParams& params);

extern const KindSpec kFillStepKind;

}  // namespace amq
