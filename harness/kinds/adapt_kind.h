// harness/kinds/adapt_kind.h - the adaptive cuckoo filter experiments behind `amqbench adapt`.
//
// Three experiments, each run once per filter of filters/acf.h through a table of function
// pointers instantiated per filter type (dispatch once per trial, never per query):
//
//   synthetic    the ACF papers' protocol: S fills max_load of the slots; A is a set of
//                as_ratio * |S| non-member flows; queries_per_flow * |A| queries are drawn from
//                A (uniform or Zipf popularity); every query goes through query_and_adapt.
//   trace        a packet trace replayed in order: distinct keys are inserted until the filter
//                reaches max_load, then every packet is a query; FPR over the replay and in
//                windows over time, so adaptation is seen at work.
//   adversarial  a small set of queries asked again and again: either known false positives
//                (a static filter pays on every query) or random non-members (it pays eps per
//                query on average); an adaptive filter should stop paying. Or an adversary that
//                reads the filter's state (state_reading, state_reading_follow) and picks each
//                query to collide, within a budget of distinct queries (adapt_trial.h).
//
// The FPR is always measured at the filter (the answer before the remote store is asked).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <memory>
#include <optional>

#include "core/zipf.h"
#include "filters/acf.h"
#include "harness/cell/adapt_trial.h"
#include "harness/cell/registry.h"
#include "harness/run/kind.h"
#include "harness/run/trace_source.h"
#include "harness/run/runner.h"
#include "harness/run/result_file.h"

namespace amq {

// The parameters of the three adaptive kinds; `amqbench adapt` and suite experiments of kinds
// adapt_synthetic, adapt_trace and adapt_adversarial fill one and run MakeAdaptPlan's plan.
enum class AdaptKind { kSynthetic, kTrace, kAdversarial };
struct AdaptParams {
  AdaptKind kind = AdaptKind::kSynthetic;
  std::vector<const FilterEntry*> filters;  // each with entry->adaptive
  AdaptGeometry geometry;              // bits_per_slot is taken from the list below
  std::vector<int> bits_per_slot = {8, 12};
  std::vector<double> as_ratios = {1, 10};
  std::vector<double> queries_per_flow = {10};
  Popularity popularity;
  int trials = 3;
  std::optional<TraceSource> trace;
  int windows = 10;
  std::vector<std::size_t> set_sizes = {1, 10, 100};
  std::vector<AttackKind> attacks = {AttackKind::kKnownFalsePositives, AttackKind::kRandomSet};
  std::vector<std::size_t> queries_per_set = {100000};
  std::size_t query_budget = 16;            // state-reading attacks: distinct queries D
  std::vector<std::size_t> slots_sweep;     // adversarial cells over n (empty: geometry.slots)
  double queries_per_slot = 0;              // > 0: L = queries_per_slot x slots, not queries_per_set  // n, the stream length: swept for the Support Optimality paper's contrast
  std::uint64_t seed = 1;
  // Whether each trial's own line is written before the cell's summary. The summary holds every
  // figure the report reads; a cell of 1,000 trials writes 1,000 lines without it.
  bool trial_lines = true;
};

const char* AdaptKindName(AdaptKind kind);  // "adapt_synthetic", ...
// Throws InputError naming the first geometry a filter cannot take.
void ValidateAdaptParams(const AdaptParams& params);
std::unique_ptr<ExperimentPlan> MakeAdaptPlan(const AdaptParams& params);

// Aggregates one cell's trial records into a summary record: mean FPR with min and max; counts
// summed over trials; synthetic cells the pooled FPR's interval over flows; adversarial cells the
// mean count per trial, with an interval over trials from 20 trials up.
Json SummarizeTrials(const std::vector<Json>& trials);

// The three kinds' declarations: the geometry they share, then each one's own parameters.
extern const KindSpec kAdaptSyntheticKind;
extern const KindSpec kAdaptTraceKind;
extern const KindSpec kAdaptAdversarialKind;

}  // namespace amq
