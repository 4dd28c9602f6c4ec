// harness/adapt_experiment.cc - the adaptive cuckoo filter experiments (see the header).
#include "harness/adapt_experiment.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <bit>
#include <unordered_map>
#include <unordered_set>

#include "filters/acf.h"
#include "core/errors.h"
#include "filters/all.h"
#include "core/hashing.h"
#include "core/stats.h"
#include "core/zipf.h"
#include "workloads/uniform.h"

namespace amq {
namespace {

// Fewest trials for an interval over trials: Student's t from 6 (core/stats.h, MeanInterval);
// the suites' adversarial cells that show one run 1,000.
constexpr std::size_t kTrialsForInterval = 20;

// Seeds for the parts of one trial, all derived from its seed so a trial is reproducible.
std::uint64_t SubSeed(std::uint64_t seed, std::uint64_t part) {
  return SpreadSeed(seed * 0x9e3779b97f4a7c15ULL + part);
}

template <class F>
AcfParams ParamsFor(const AdaptGeometry& g, std::uint64_t seed) {
  AcfParams p;
  p.slots = g.slots;
  p.bits_per_slot = g.bits_per_slot;
  p.selector_bits = F::kCyclicKind ? g.selector_bits : 0;
  p.tables = g.tables;
  p.seed = seed;
  p.max_kicks = g.max_kicks;
  p.max_moves = g.max_moves;
  p.max_load = g.max_load;
  return p;
}

template <class F>
std::string InvalidFor(const AdaptGeometry& g) {
  return F::Invalid(ParamsFor<F>(g, 0));
}

Json Number(double v) {
  return v == std::floor(v) && std::abs(v) < 1e15 ? Json(static_cast<long long>(v)) : Json(v);
}

// What every record says about the filter: its geometry, its space, its theory, and what
// adapting cost (counters accumulated since it was built).
template <class F>
void DescribeFilter(const F& filter, Json& r) {
  r["bits_per_slot"] = filter.bits_per_slot();
  r["fingerprint_bits"] = Number(filter.fingerprint_bits());
  r["selector_bits"] = filter.selector_bits();
  r["tables"] = filter.tables();
  r["slots_per_bucket"] = F::kSlotsPerBucket;
  r["slots"] = filter.slots();
  r["keys_inserted"] = filter.stored();
  r["load_factor"] = filter.load_factor();
  r["size_bytes"] = filter.size_in_bytes();
  r["remote_bytes"] = filter.remote_bytes();
  r["bits_per_key"] = filter.stored() ? 8.0 * filter.size_in_bytes() / filter.stored() : 0.0;
  r["fpr_theory_static"] = filter.static_fpr_theory();
}

template <class F>
void DescribeCounters(const F& filter, Json& r) {
  const AcfCounters& c = filter.counters();
  r["adaptations"] = c.adaptations;
  r["remote_lookups"] = c.remote_lookups;
  r["remote_reads_for_adaptation"] = c.remote_reads_for_adaptation;
  r["moves"] = c.moves;
  r["rebuilds"] = c.rebuilds;
  r["failed_fixes"] = c.failed_fixes;
  r["insert_failures"] = c.insert_failures;
  // A fresh random non-member's FPR in the state the filter ended in (selector drift).
  r["fpr_theory_end"] = filter.theory().fpr;
}

// Members must all still be found, and every slot must still match its remote key, after
// however many adaptations: checked at the end of every trial, reported, never assumed.
template <class F>
void CheckInvariants(const F& filter, const std::vector<std::uint64_t>& members, Json& r) {
  std::size_t missing = 0;
  for (std::uint64_t k : members) missing += filter.contains(k) ? 0 : 1;
  r["false_negatives"] = missing;
  const std::string why = filter.CheckConsistency();
  r["consistent"] = why.empty();
  if (!why.empty()) r["inconsistency"] = why;
}

// The FPR's interval over flows, not queries: a static filter answers all of a flow's queries
// alike, so a flow asked ten times is one draw (core/stats.h, EffectiveDraws). Wilson over the
// queries, as this once was, excluded its own theory in 33 of 48 static control cells.
void SetFlowInterval(Json& r, std::size_t false_positives, std::size_t queries, double squares) {
  const double draws = EffectiveDraws(double(queries), squares);
  const Interval ci = WilsonIntervalAt(queries ? double(false_positives) / queries : 0.0, draws);
  r["effective_flows"] = draws;
  r["query_count_squares"] = squares;
  r["fpr_ci_low"] = ci.low;
  r["fpr_ci_high"] = ci.high;
}

template <class F>
std::vector<std::uint64_t> FillToLoad(F& filter, std::uint64_t seed, double max_load) {
  const std::size_t n = static_cast<std::size_t>(std::floor(max_load * filter.slots()));
  std::vector<std::uint64_t> members;
  members.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t k = UniformKey(seed, KeyStream::kMembers, i);
    if (filter.insert(k)) members.push_back(k);
  }
  return members;
}

template <class F>
Json Synthetic(const SyntheticSpec& spec) {
  F filter(ParamsFor<F>(spec.geometry, SubSeed(spec.seed, 1)));
  const std::vector<std::uint64_t> members =
      FillToLoad(filter, SubSeed(spec.seed, 2), spec.geometry.max_load);
  const std::size_t flows = std::max<std::size_t>(
      1, static_cast<std::size_t>(std::llround(spec.as_ratio * members.size())));
  const std::size_t queries = std::max<std::size_t>(
      1, static_cast<std::size_t>(std::llround(spec.queries_per_flow * double(flows))));
  // A fresh flow set and query order for every grid point: were they drawn from the trial's seed
  // alone, the flows of A/S = 1 would be the first tenth of A/S = 10's and the cells of one
  // trial would not be independent samples. The filter itself is shared (a paired comparison).
  const std::uint64_t point = SpreadSeed(std::bit_cast<std::uint64_t>(spec.as_ratio) ^
                                         SpreadSeed(std::bit_cast<std::uint64_t>(spec.queries_per_flow)));
  const std::uint64_t flow_seed = SubSeed(spec.seed ^ point, 3);
  XorShift64Star rng(SubSeed(spec.seed ^ point, 4));
  const ZipfSampler zipf(flows, spec.popularity.zipf ? spec.popularity.alpha : 1.0);

  // A flow's first query sees the filter as a static one would (ignoring earlier fixes'
  // side effects); its repeats are where adaptation pays. Counted apart.
  std::vector<std::uint32_t> asked(flows, 0);  // queries per flow, for the interval
  std::size_t fp_first = 0, fp_repeat = 0, first_queries = 0;
  for (std::size_t i = 0; i < queries; ++i) {
    const std::uint64_t flow =
        spec.popularity.zipf ? zipf(rng) - 1 : ReduceRange(rng.Next(), flows);
    const AcfOutcome out =
        filter.query_and_adapt(UniformKey(flow_seed, KeyStream::kNonMembers, flow));
    if (out.answer == AcfAnswer::kMember)
      throw std::logic_error("a non-member found in the remote store");
    const bool fp = out.answer == AcfAnswer::kFalsePositive;
    if (asked[flow]++ == 0) {
      ++first_queries;
      fp_first += fp;
    } else {
      fp_repeat += fp;
    }
  }
  const std::size_t false_positives = fp_first + fp_repeat;

  Json r;
  r["filter"] = std::string(F::kName);
  r["record"] = "trial";
  r["trial"] = spec.trial;
  r["seed"] = spec.seed;
  DescribeFilter(filter, r);
  r["as_ratio"] = spec.as_ratio;
  r["flows"] = flows;
  r["queries_per_flow"] = spec.queries_per_flow;
  r["popularity"] = spec.popularity.Name();
  r["negative_queries"] = queries;
  r["false_positives"] = false_positives;
  r["fpr"] = double(false_positives) / queries;
  double squares = 0;
  for (std::uint32_t m : asked) squares += double(m) * m;
  SetFlowInterval(r, false_positives, queries, squares);
  r["flows_queried"] = first_queries;
  r["false_positives_first_query"] = fp_first;
  r["false_positives_repeat"] = fp_repeat;
  r["fpr_first_query"] = first_queries ? double(fp_first) / first_queries : 0.0;
  r["fpr_repeat"] = queries > first_queries ? double(fp_repeat) / (queries - first_queries) : 0.0;
  DescribeCounters(filter, r);
  CheckInvariants(filter, members, r);
  return r;
}

template <class F>
Json Trace(const TraceSpec& spec) {
  const std::vector<std::uint64_t>& packets = *spec.packets;
  F filter(ParamsFor<F>(spec.geometry, SubSeed(spec.seed, 1)));
  const std::size_t target =
      static_cast<std::size_t>(std::floor(spec.geometry.max_load * filter.slots()));
  std::unordered_set<std::uint64_t> members;  // S: what the filter holds (refused keys excluded)
  std::unordered_set<std::uint64_t> tried;    // distinct keys offered to insert
  std::vector<std::uint64_t> member_list;
  for (std::uint64_t k : packets) {
    if (filter.stored() >= target) break;
    if (!tried.insert(k).second) continue;
    if (filter.insert(k)) {
      members.insert(k);
      member_list.push_back(k);
    }
  }

  const int windows = std::max(1, spec.windows);
  std::vector<std::size_t> w_neg(windows, 0), w_fp(windows, 0), w_packets(windows, 0);
  std::unordered_map<std::uint64_t, std::size_t> negative_flows;  // queries per flow
  std::size_t negatives = 0, false_positives = 0, false_negatives = 0;
  for (std::size_t i = 0; i < packets.size(); ++i) {
    const std::uint64_t k = packets[i];
    const int w = static_cast<int>((i * static_cast<std::size_t>(windows)) / packets.size());
    ++w_packets[w];
    const AcfOutcome out = filter.query_and_adapt(k);
    if (members.count(k)) {
      false_negatives += out.answer != AcfAnswer::kMember;
      continue;
    }
    if (out.answer == AcfAnswer::kMember)
      throw std::logic_error("a non-member found in the remote store");
    ++negatives;
    ++w_neg[w];
    ++negative_flows[k];
    if (out.answer == AcfAnswer::kFalsePositive) {
      ++false_positives;
      ++w_fp[w];
    }
  }

  Json whole;
  whole["filter"] = std::string(F::kName);
  whole["record"] = "cell";
  whole["trace"] = spec.trace;
  whole["trial"] = 0;
  whole["seed"] = spec.seed;
  DescribeFilter(filter, whole);
  whole["packets"] = packets.size();
  whole["distinct_keys_inserted"] = tried.size();
  whole["flows"] = negative_flows.size();
  whole["as_ratio"] = members.empty() ? 0.0 : double(negative_flows.size()) / members.size();
  whole["queries_per_flow"] =
      negative_flows.empty() ? 0.0 : double(negatives) / negative_flows.size();
  whole["negative_queries"] = negatives;  // negative queries: the FPR's denominator
  whole["member_queries"] = packets.size() - negatives;
  whole["false_positives"] = false_positives;
  whole["fpr"] = negatives ? double(false_positives) / negatives : 0.0;
  double squares = 0;
  for (const auto& [flow, m] : negative_flows) squares += double(m) * double(m);
  SetFlowInterval(whole, false_positives, negatives, squares);
  whole["windows"] = windows;
  DescribeCounters(filter, whole);
  CheckInvariants(filter, member_list, whole);
  whole["false_negatives"] = whole["false_negatives"].get<std::size_t>() + false_negatives;

  Json window_records = Json::array();
  for (int w = 0; w < windows; ++w) {
    Json r;
    r["filter"] = std::string(F::kName);
    r["record"] = "window";
    r["trace"] = spec.trace;
    r["seed"] = spec.seed;
    r["window"] = w;
    r["packets"] = w_packets[w];
    r["negative_queries"] = w_neg[w];
    r["false_positives"] = w_fp[w];
    r["fpr"] = w_neg[w] ? double(w_fp[w]) / w_neg[w] : 0.0;
    r["bits_per_slot"] = filter.bits_per_slot();
    r["fpr_theory_static"] = whole["fpr_theory_static"];
    window_records.push_back(r);
  }
  return Json{{"whole", whole}, {"windows", window_records}};
}

template <class F>
Json Adversarial(const AdversarialSpec& spec) {
  F filter(ParamsFor<F>(spec.geometry, SubSeed(spec.seed, 1)));
  const std::vector<std::uint64_t> members =
      FillToLoad(filter, SubSeed(spec.seed, 2), spec.geometry.max_load);
  const std::uint64_t flow_seed = SubSeed(spec.seed, 3);

  // The query set: non-members that are false positives of the filter as built (what an
  // adversary who has seen the filter answer would pick), or plain random non-members.
  std::vector<std::uint64_t> set;
  std::size_t scanned = 0;
  const std::size_t scan_limit = std::size_t{1} << 34;
  while (set.size() < spec.set_size && scanned < scan_limit) {
    const std::uint64_t q = UniformKey(flow_seed, KeyStream::kNonMembers, scanned++);
    if (spec.attack == AttackKind::kRandomSet || filter.contains(q)) set.push_back(q);
  }
  std::size_t initially_false_positive = 0;
  for (std::uint64_t q : set) initially_false_positive += filter.contains(q);

  // The schedule: round the set once, then uniformly at random; written down first so that the
  // same filter with adaptation off can be asked exactly the same queries (the replay below).
  std::vector<std::uint32_t> schedule(spec.repeats);
  XorShift64Star rng(SubSeed(spec.seed, 4));
  for (std::size_t i = 0; i < spec.repeats; ++i) {
    schedule[i] = static_cast<std::uint32_t>(i < set.size() ? i : ReduceRange(rng.Next(), set.size()));
  }

  // Adaptation off: the same filter, built again from the same seed and keys (so slot for slot
  // the one just built), asked the same schedule through contains(), which never adapts. Its
  // count is measured, not the expectation repeats * initially_false_positive / set_size.
  std::size_t false_positives_static = 0;
  {
    F twin(ParamsFor<F>(spec.geometry, SubSeed(spec.seed, 1)));
    FillToLoad(twin, SubSeed(spec.seed, 2), spec.geometry.max_load);
    for (std::uint32_t j : schedule) false_positives_static += twin.contains(set[j]);
  }

  std::size_t false_positives = 0, last_fp = 0, fp_first_half = 0, fp_second_half = 0;
  for (std::size_t i = 0; i < spec.repeats; ++i) {
    const std::uint64_t q = set[schedule[i]];
    const AcfOutcome out = filter.query_and_adapt(q);
    if (out.answer == AcfAnswer::kMember)
      throw std::logic_error("a non-member found in the remote store");
    if (out.answer == AcfAnswer::kFalsePositive) {
      ++false_positives;
      last_fp = i + 1;
      (i < spec.repeats / 2 ? fp_first_half : fp_second_half)++;
    }
  }

  Json r;
  r["filter"] = std::string(F::kName);
  r["record"] = "trial";
  r["attack"] = spec.attack == AttackKind::kKnownFalsePositives ? "known_fps" : "random_set";
  r["trial"] = spec.trial;
  r["seed"] = spec.seed;
  DescribeFilter(filter, r);
  r["set_size"] = set.size();
  r["set_initially_false_positive"] = initially_false_positive;
  r["non_members_scanned"] = scanned;
  r["queries_per_set"] = spec.repeats;
  r["negative_queries"] = spec.repeats;
  r["false_positives"] = false_positives;
  r["fpr"] = spec.repeats ? double(false_positives) / spec.repeats : 0.0;
  r["false_positives_static"] = false_positives_static;
  r["false_positives_first_half"] = fp_first_half;
  r["false_positives_second_half"] = fp_second_half;
  r["last_false_positive_query"] = last_fp;
  DescribeCounters(filter, r);
  CheckInvariants(filter, members, r);
  return r;
}

template <class F>
AdaptEntry EntryFor() {
  return AdaptEntry{F::kName,      F::kAdaptive,    F::kCyclicKind,
                    F::kCuckooingKind, F::kTakesTables, &Synthetic<F>,
                    &Trace<F>,      &Adversarial<F>, &InvalidFor<F>};
}

// Every filter of the one list that has the capability, in the list's order.
template <class... Fs>
std::vector<AdaptEntry> AdaptiveEntries(TypeList<Fs...>) {
  std::vector<AdaptEntry> entries;
  (
      [&] {
        if constexpr (AdaptiveFilter<Fs>) entries.push_back(EntryFor<Fs>());
      }(),
      ...);
  return entries;
}

}  // namespace

const AdaptEntry* FindAdaptFilter(std::string_view name) {
  static const std::vector<AdaptEntry> entries = AdaptiveEntries(AllFilters{});
  for (const AdaptEntry& e : entries) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

Json SummarizeTrials(const std::vector<Json>& trials) {
  const Json& first = trials.front();
  Json s;
  s["filter"] = first["filter"];
  s["record"] = "cell";
  s["trials"] = trials.size();
  s["seed"] = first["seed"];
  for (const char* key : {"bits_per_slot", "fingerprint_bits", "selector_bits", "tables",
                          "slots_per_bucket", "slots", "size_bytes", "remote_bytes", "as_ratio",
                          "flows", "queries_per_flow", "popularity", "attack", "set_size", "queries_per_set"}) {
    if (first.contains(key)) s[key] = first[key];
  }
  // Adversarial cells: what one trial pays on average, with a 95% interval over the trials
  // (independent: each has its own filter and set), beside the sums below.
  if (first.contains("false_positives_static")) {
    for (const char* key : {"false_positives", "false_positives_static"}) {
      std::vector<double> v;
      for (const Json& t : trials) v.push_back(t[key].get<double>());
      double mean = 0;
      for (double x : v) mean += x / double(v.size());
      s[std::string(key) + "_mean"] = mean;
      if (v.size() >= kTrialsForInterval) {
        const Interval ci = MeanInterval(v);
        // Counts are never negative, so neither is their mean: clipping keeps the coverage.
        s[std::string(key) + "_mean_ci_low"] = std::max(0.0, ci.low);
        s[std::string(key) + "_mean_ci_high"] = ci.high;
      }
    }
  }
  std::vector<double> fpr;
  for (const Json& t : trials) fpr.push_back(t["fpr"].get<double>());
  double mean = 0;
  for (double v : fpr) mean += v / fpr.size();
  s["fpr"] = mean;
  s["fpr_min"] = *std::min_element(fpr.begin(), fpr.end());
  s["fpr_max"] = *std::max_element(fpr.begin(), fpr.end());
  for (const char* key : {"load_factor", "fpr_theory_static", "fpr_theory_end", "fpr_first_query",
                          "fpr_repeat", "bits_per_key"}) {
    if (!first.contains(key)) continue;
    double m = 0;
    for (const Json& t : trials) m += t[key].get<double>() / trials.size();
    s[key] = m;
  }
  for (const char* key :
       {"negative_queries", "false_positives", "false_positives_first_query", "false_positives_repeat",
        "adaptations", "remote_lookups", "remote_reads_for_adaptation", "moves", "rebuilds",
        "failed_fixes", "insert_failures", "false_negatives", "false_positives_static",
        "set_initially_false_positive"}) {
    if (!first.contains(key)) continue;
    double total = 0;
    for (const Json& t : trials) total += t[key].get<double>();
    s[key] = Number(total);
  }
  // Synthetic cells: the pooled FPR's interval over every flow of every trial.
  if (first.contains("query_count_squares")) {
    double queries = 0, fps = 0, squares = 0;
    for (const Json& t : trials) {
      queries += t["negative_queries"].get<double>();
      fps += t["false_positives"].get<double>();
      squares += t["query_count_squares"].get<double>();
    }
    const Interval ci = WilsonIntervalAt(queries > 0 ? fps / queries : 0.0, EffectiveDraws(queries, squares));
    s["effective_flows"] = EffectiveDraws(queries, squares);
    s["fpr_ci_low"] = ci.low;
    s["fpr_ci_high"] = ci.high;
  }
  bool consistent = true;
  for (const Json& t : trials) consistent = consistent && t.value("consistent", true);
  s["consistent"] = consistent;
  return s;
}

}  // namespace amq
