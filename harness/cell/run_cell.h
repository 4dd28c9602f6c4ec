// harness/cell/run_cell.h - one cell of the benchmark grid, measured for one filter type.
//
// The protocol, the same for every filter:
//   1. Build R+1 times from the same keys and seed. The first build is an untimed warm-up,
//      so timed builds run on memory the allocator has already faulted in (first touch costs
//      several ns per byte on these VMs and would otherwise dominate). A dynamic filter's
//      allocation and zeroing happen in its constructor, outside the timed insert loop.
//   2. Time R passes of each query loop over prebuilt arrays: Q sampled members, Q distinct
//      non-members, and Q queries mixed at the cell's positive fraction.
//   3. Check every inserted key is found (false negatives must be 0), count false positives
//      over the non-members, and compare both with the filter's own theory.
// Timings are reported as median, min and max over the R repeats, and each repeat, in ns per key.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>
#include <span>
#include <string>
#include <vector>

#include "core/filter.h"
#include "core/json.h"
#include "harness/cell/stat_json.h"
#include "core/hashing.h"
#include "harness/cell/kernels.h"
#include "harness/cell/line_tracer.h"
#include "harness/cell/perf_counters.h"
#include "core/stats.h"
#include "workloads/queries.h"
#include "core/workload.h"

namespace amq {

struct CellSpec {
  FilterParams params;              // params.capacity: keys the filter is sized for
  std::size_t keys = 0;             // keys inserted: capacity, or fewer/more for a load sweep
  const Workload* workload = nullptr;  // supplies >= keys members and >= queries negatives
  std::size_t queries = 0;          // keys per timed query loop
  double positive_fraction = 0.5;   // share of members in the mixed query loop
  int repeats = 3;
  std::size_t churn_rounds = 0;        // > 0: erasable dynamic filters also run a churn phase
  std::size_t churn_queries_per_round = 4;
  std::size_t traced_lookups = 0;      // > 0: count the cache lines this many lookups touch
};

// The query arrays for one cell, built before any timing.
struct QuerySet {
  std::vector<std::uint64_t> positives;  // sampled with replacement from the inserted keys
  std::vector<std::uint64_t> negatives;  // distinct non-members
  std::vector<std::uint64_t> mixed;      // the workload's query stream (Zipf, trace replay), or
                                         // a uniform blend at the positive fraction
  std::vector<std::uint8_t> mixed_is_member;  // 1: the filter holds mixed[i]
};

// `refused` are keys the filter refused to insert (sorted): a stream query about one of them
// is not a member of what the filter holds.
QuerySet MakeQuerySet(std::span<const std::uint64_t> inserted,
                      const std::vector<std::uint64_t>& refused, const CellSpec& spec);

// Fields every record shares, filled from the spec before the filter runs.
Json CellHeader(const CellSpec& spec);

// Adds the timing fields `name`, `name_min`, `name_max` in ns per key, and `name_samples`: every
// pass, the run's own spread (two stored runs' passes are not independent samples of one
// another: amqbench compare shows their ratio and amqbench ab judges timings, issue 27).
void PutTiming(Json& record, const std::string& name, const std::vector<double>& total_ns,
               std::size_t keys_per_pass);

// 3b. Memory locality: the distinct 64-byte lines of the filter's storage each of the first
// `traced_lookups` member and non-member lookups touches, traced from the addresses it reads
// (harness/cell/line_tracer.h), not timed. Filters that do not expose their storage (bytes()), and
// builds where tracing is unavailable, record nulls.
template <class F>
void PutLineCounts(const F& filter, const QuerySet& queries, std::size_t lookups, Json& record) {
  const auto count = [&](std::span<const std::uint64_t> keys, const std::string& name) {
    std::optional<std::size_t> total, most;
    std::size_t traced = 0, one_line = 0;
    if constexpr (requires { { filter.bytes() } -> std::convertible_to<std::span<const std::uint8_t>>; }) {
      total = 0;
      most = 0;
      LineTraceSession session(filter.bytes());
      for (std::size_t i = 0; i < std::min(lookups, keys.size()); ++i) {
        const std::uint64_t key = keys[i];
        const auto lines = session.Trace([&] { KeepAlive(filter.contains(key)); });
        if (!lines) {
          total.reset();
          break;
        }
        *total += lines->size();
        most = std::max(*most, lines->size());
        one_line += lines->size() <= 1;
        ++traced;
      }
    }
    const bool measured = total && traced > 0;
    record["cache_lines_" + name + "_mean"] = measured ? Json(static_cast<double>(*total) / traced) : Json(nullptr);
    record["cache_lines_" + name + "_max"] = measured ? Json(*most) : Json(nullptr);
    record["cache_lines_" + name + "_lookups"] = measured ? traced : 0;
    record["cache_lines_" + name + "_one_line"] = measured ? Json(one_line) : Json(nullptr);
  };
  count(queries.positives, "member");
  count(queries.negatives, "absent");
}

// 4. Churn: a fresh filter filled to 90% of n, then rounds of erase one, insert one, ask a few,
// timed (R passes, each from a fresh fill) and checked at every query.
template <class F>
  requires DynamicFilter<F> && ErasableFilter<F>
void RunChurnPhase(const CellSpec& spec, Json& record) {
  // 90% of the members are held at any time; the other 10% circulate, so an insert brings in
  // a key that is not already there (with every member held, each round would erase a key and
  // put the same key back).
  ChurnOptions options;
  options.resident = spec.keys - spec.keys / 10;
  options.rounds = spec.churn_rounds;
  options.queries_per_round = spec.churn_queries_per_round;
  options.positive_fraction = spec.positive_fraction;
  options.seed = spec.params.seed;
  const std::vector<ChurnStep> schedule = MakeChurnSchedule(*spec.workload, options);
  const std::span<const ChurnStep> fill(schedule.data(), options.resident);
  const std::span<const ChurnStep> churn(schedule.data() + options.resident,
                                         schedule.size() - options.resident);
  std::vector<double> churn_ns;
  ChurnOutcome outcome;
  Theory churned{};  // the formula at the state churn leaves: 90% of the full build's load
  double churned_load = 0;
  for (int pass = 0; pass < spec.repeats; ++pass) {
    F filter(spec.params);
    std::vector<std::uint64_t> refused;
    (void)RunChurn(filter, fill, refused);
    churn_ns.push_back(TimeNs([&] { outcome = RunChurn(filter, churn, refused); }));
    churned = filter.theory();
    if constexpr (HasLoadFactor<F>) churned_load = filter.load_factor();
  }
  PutTiming(record, "churn_ns", churn_ns, churn.size());
  record["churn_rounds"] = spec.churn_rounds;
  record["churn_resident"] = options.resident;
  record["churn_ops"] = churn.size();
  record["churn_false_negatives"] = outcome.false_negatives;
  record["churn_insert_failures"] = outcome.insert_failures;
  record["churn_fpr"] = outcome.negative_queries
                            ? Json(static_cast<double>(outcome.false_positives) / outcome.negative_queries)
                            : Json(nullptr);
  // churn_fpr is measured at the resident load, so its theory is taken there too, not at the
  // full build's load that fpr_theory describes.
  record["churn_fpr_theory"] = churned.fpr;
  if constexpr (HasLoadFactor<F>) record["churn_load_factor"] = churned_load;
  record["false_negatives"] = record["false_negatives"].get<std::size_t>() + outcome.false_negatives;
}

// The batched lookups (contains_many), timed like the one-at-a-time ones, and checked key by
// key against contains(): batched_disagreements counts the keys the two paths answer
// differently (0, or the batched path is wrong). Returns the members the batched path missed,
// which count as false negatives.
template <BatchedFilter F>
std::size_t RunBatchedQueries(const F& filter, const QuerySet& queries, int repeats, Json& record) {
  std::vector<std::uint8_t> answers(std::max(queries.positives.size(), queries.negatives.size()), 0);
  std::size_t disagreements = 0, missed_members = 0;
  // Plain variables, not a structured binding: clang 14 (the sanitizer build) cannot capture a
  // binding in the timed lambda.
  for (const auto& entry : {std::pair{"query_ns_positive_batched", std::span(queries.positives)},
                            std::pair{"query_ns_negative_batched", std::span(queries.negatives)}}) {
    const char* name = entry.first;
    const std::span<const std::uint64_t> batch = entry.second;
    std::vector<double> ns;
    for (int pass = 0; pass < repeats; ++pass) {
      ns.push_back(TimeNs([&] { KeepAlive(CountContainedBatched(filter, batch, answers)); }));
    }
    PutTiming(record, name, ns, batch.size());
    const bool members = batch.data() == queries.positives.data();
    for (std::size_t i = 0; i < batch.size(); ++i) {
      disagreements += (answers[i] != 0) != filter.contains(batch[i]) ? 1 : 0;
      missed_members += members && answers[i] == 0 ? 1 : 0;
    }
  }
  record["batched_disagreements"] = disagreements;
  return missed_members;
}

template <Filter F>
Json RunCell(const CellSpec& spec) {
  Json record = CellHeader(spec);
  record["filter"] = std::string(F::kName);
  record["family"] = std::string(F::kFamily);
  record["dynamic"] = DynamicFilter<F>;
  record["erasable"] = ErasableFilter<F>;
  const std::span<const std::uint64_t> keys(spec.workload->keys.data(), spec.keys);

  // 1. Build, R + 1 times; keep the last filter (every build is identical: same seed).
  std::vector<double> build_ns;
  std::vector<std::size_t> failed;
  std::optional<F> filter;
  for (int pass = 0; pass <= spec.repeats; ++pass) {
    filter.reset();
    failed.clear();
    if constexpr (StaticFilter<F>) {
      try {
        build_ns.push_back(TimeNs([&] { filter.emplace(F::build(keys, spec.params)); }));
      } catch (const BuildFailed& e) {
        record["build_failed"] = true;
        record["error"] = e.what();
        return record;
      }
    } else {
      filter.emplace(spec.params);
      build_ns.push_back(TimeNs([&] { InsertAll(*filter, keys, failed); }));
    }
  }
  build_ns.erase(build_ns.begin());  // the warm-up
  PutTiming(record, StaticFilter<F> ? "build_ns" : "insert_ns", build_ns, keys.size());
  record["build_failed"] = false;

  // The exact set the filter holds: every key but the ones it refused.
  std::vector<std::uint64_t> held, refused;
  held.reserve(keys.size());
  for (std::size_t i = 0, next_failed = 0; i < keys.size(); ++i) {
    if (next_failed < failed.size() && failed[next_failed] == i) {
      ++next_failed;
      refused.push_back(keys[i]);
    } else {
      held.push_back(keys[i]);
    }
  }
  std::sort(refused.begin(), refused.end());

  // 2. Query timings.
  const QuerySet queries = MakeQuerySet(held, refused, spec);
  std::vector<double> positive_ns, negative_ns, mixed_ns;
  const auto timed_count = [&](std::span<const std::uint64_t> batch) {
    std::size_t hits = 0;
    const double ns = TimeNs([&] { KeepAlive(hits = CountContained(*filter, batch)); });
    return std::pair{ns, hits};
  };
  // The first pass of each lookup loop is also counted in hardware, where counters exist; the
  // counters start and stop outside the timed region.
  HardwareCounters& counters = HardwareCounters::Shared();
  counters.SayOnceIfUnavailable();
  const auto counted = [&](const char* name, std::span<const std::uint64_t> batch, auto&& timed) {
    counters.Start();
    const auto result = timed();
    if (const std::optional<CounterReading> c = counters.Stop(); c && !batch.empty()) {
      const double n = static_cast<double>(batch.size());
      record[std::string("query_cycles_") + name] = double(c->cycles) / n;
      record[std::string("query_instructions_") + name] = double(c->instructions) / n;
      record[std::string("query_cache_misses_") + name] = double(c->cache_misses) / n;
    }
    return result;
  };
  std::size_t false_positives = 0;
  for (int pass = 0; pass < spec.repeats; ++pass) {
    const auto positives = [&] { return timed_count(queries.positives); };
    const auto negatives = [&] { return timed_count(queries.negatives); };
    positive_ns.push_back((pass == 0 ? counted("positive", queries.positives, positives) : positives()).first);
    const auto [ns, hits] = pass == 0 ? counted("negative", queries.negatives, negatives) : negatives();
    negative_ns.push_back(ns);
    false_positives = hits;  // identical on every pass: the filter does not change
    mixed_ns.push_back(timed_count(queries.mixed).first);
  }
  PutTiming(record, "query_ns_positive", positive_ns, queries.positives.size());
  PutTiming(record, "query_ns_negative", negative_ns, queries.negatives.size());
  PutTiming(record, "query_ns_mixed", mixed_ns, queries.mixed.size());
  std::size_t batched_false_negatives = 0;
  if constexpr (BatchedFilter<F>) {
    batched_false_negatives = RunBatchedQueries(*filter, queries, spec.repeats, record);
  }
  if (spec.traced_lookups > 0) PutLineCounts(*filter, queries, spec.traced_lookups, record);

  // 3. Correctness and accuracy against theory. The stream is checked query by query:
  // a member not found is a false negative, a non-member found a false positive.
  std::size_t stream_false_positives = 0, stream_negatives = 0, stream_false_negatives = 0;
  for (std::size_t i = 0; i < queries.mixed.size(); ++i) {
    const bool present = filter->contains(queries.mixed[i]);
    if (queries.mixed_is_member[i]) {
      stream_false_negatives += present ? 0 : 1;
    } else {
      ++stream_negatives;
      stream_false_positives += present ? 1 : 0;
    }
  }
  const std::size_t found = CountContained(*filter, held);
  record["false_negatives"] = (held.size() - found) + stream_false_negatives + batched_false_negatives;
  record["stream_queries"] = queries.mixed.size();
  record["stream_negative_queries"] = stream_negatives;
  record["stream_false_positives"] = stream_false_positives;
  record["stream_fpr"] =
      stream_negatives ? Json(static_cast<double>(stream_false_positives) / stream_negatives)
                       : Json(nullptr);
  record["keys_inserted"] = held.size();
  record["insert_failures"] = failed.size();

  const Theory theory = filter->theory();
  const double bits = 8.0 * static_cast<double>(filter->size_in_bytes());
  const double bits_per_key = held.empty() ? 0.0 : bits / held.size();
  const Interval ci = WilsonInterval(false_positives, queries.negatives.size());
  record["size_bytes"] = filter->size_in_bytes();
  record["bits_per_key"] = bits_per_key;
  record["bits_per_key_theory"] = theory.bits_per_key;
  // No negative queries (a trace whose flows are all members): no FPR, not an FPR of 0.
  record["fpr"] = queries.negatives.empty()
                      ? Json(nullptr)
                      : Json(static_cast<double>(false_positives) / queries.negatives.size());
  record["fpr_ci_low"] = ci.low;
  record["fpr_ci_high"] = ci.high;
  record["fpr_theory"] = theory.fpr;
  record["false_positives"] = false_positives;
  record["negative_queries"] = queries.negatives.size();
  const double lower_bound = theory.fpr > 0 && theory.fpr < 1 ? std::log2(1.0 / theory.fpr) : 0;
  record["space_overhead_pct"] =
      lower_bound > 0 ? Json(100.0 * (bits_per_key / lower_bound - 1.0)) : Json(nullptr);
  if constexpr (HasLoadFactor<F>) record["load_factor"] = filter->load_factor();
  if constexpr (DynamicFilter<F> && ErasableFilter<F>) {
    if (spec.churn_rounds > 0) RunChurnPhase<F>(spec, record);
  }
  PutFilterStats(*filter, record);
  return record;
}

}  // namespace amq
