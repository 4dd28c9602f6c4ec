// harness/adapt_experiment.h - the adaptive cuckoo filter experiments behind `amqbench adapt`.
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
//                query on average); an adaptive filter should stop paying.
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
#include "harness/filters_experiment.h"
#include "harness/runner.h"
#include "harness/result_file.h"

namespace amq {

struct AdaptGeometry {
  std::size_t slots = std::size_t{1} << 16;
  int bits_per_slot = 8;
  int selector_bits = 2;  // the Cyclic ACFs only; the others get 0
  int tables = 4;         // the 1-slot Cuckooing ACFs only
  double max_load = 0.95;
  int max_kicks = 500;
  int max_moves = 500;
};

struct SyntheticSpec {
  AdaptGeometry geometry;
  double as_ratio = 1;
  double queries_per_flow = 10;
  Popularity popularity;
  int trial = 0;
  std::uint64_t seed = 1;  // this trial's seed: keys, flows, queries and hash functions
};

struct TraceSpec {
  AdaptGeometry geometry;
  const std::vector<std::uint64_t>* packets = nullptr;  // per-packet keys, in trace order
  std::string trace;                                    // what it was, for the record
  int windows = 10;
  std::uint64_t seed = 1;
};

enum class AttackKind { kKnownFalsePositives, kRandomSet };
struct AdversarialSpec {
  AdaptGeometry geometry;
  AttackKind attack = AttackKind::kKnownFalsePositives;
  std::size_t set_size = 1;
  std::size_t repeats = 100000;
  int trial = 0;
  std::uint64_t seed = 1;
};

// What a filter needs to take part in the adaptive experiments: built from AcfParams, and a
// query that asks the remote store on a positive answer and fixes a false positive. Filters
// are chosen for these experiments by this capability, over the one list in filters/all.h.
template <class F>
concept AdaptiveFilter =
    Filter<F> && std::constructible_from<F, const AcfParams&> &&
    requires(F& f, const F& cf, std::uint64_t key, const AcfParams& p) {
      { f.query_and_adapt(key) } -> std::same_as<AcfOutcome>;
      { F::Invalid(p) } -> std::convertible_to<std::string>;
      { cf.counters() } -> std::convertible_to<const AcfCounters&>;
      { cf.CheckConsistency() } -> std::convertible_to<std::string>;
    };

// The experiments instantiated for one adaptive filter: dispatch once per trial.
struct AdaptEntry {
  std::string_view name;
  bool adaptive;   // false for the static controls (adaptation off)
  bool cyclic;     // takes selector bits
  bool cuckooing;  // takes max moves (a fix that moves elements)
  bool tables;     // takes a table count (the 1-slot Cuckooing ACFs)
  Json (*synthetic)(const SyntheticSpec&);
  Json (*trace)(const TraceSpec&);  // returns {"whole": record, "windows": [records]}
  Json (*adversarial)(const AdversarialSpec&);
  std::string (*invalid)(const AdaptGeometry&);  // empty if the geometry fits this filter
};

// nullptr unless the filter of that name is an AdaptiveFilter.
const AdaptEntry* FindAdaptFilter(std::string_view name);

// The parameters of the three adaptive kinds; `amqbench adapt` and suite experiments of kinds
// adapt_synthetic, adapt_trace and adapt_adversarial fill one and run MakeAdaptPlan's plan.
enum class AdaptKind { kSynthetic, kTrace, kAdversarial };
struct AdaptParams {
  AdaptKind kind = AdaptKind::kSynthetic;
  std::vector<const AdaptEntry*> filters;
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
  std::vector<std::size_t> queries_per_set = {100000};  // n, the stream length: swept for seed 001's contrast
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

}  // namespace amq
