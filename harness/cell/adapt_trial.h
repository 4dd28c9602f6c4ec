// harness/cell/adapt_trial.h - one trial of an adaptive filter, measured: the adapt_* kinds'
// counterpart of harness/cell/run_cell.h. Three protocols, each a function template the registry
// instantiates once per AdaptiveFilter (filters/acf.h), so a kind dispatches once per trial and
// every query below is a direct call:
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
//                query to collide, within a budget of distinct queries (StateReading below).
//
// The FPR is always measured at the filter (the answer before the remote store is asked).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/hashing.h"
#include "core/json.h"
#include "core/stats.h"
#include "core/zipf.h"
#include "filters/acf.h"
#include "harness/cell/stat_json.h"
#include "workloads/uniform.h"

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

// kStateReading and kStateReadingFollow: an adversary that reads the filter's state (see
// StateReading below); the first keeps attacking the bucket of the first false positive it found,
// the second follows that false positive's element wherever a fix moves it.
enum class AttackKind { kKnownFalsePositives, kRandomSet, kStateReading, kStateReadingFollow };
inline const char* AttackName(AttackKind a) {
  switch (a) {
    case AttackKind::kKnownFalsePositives:
      return "known_fps";
    case AttackKind::kRandomSet:
      return "random_set";
    case AttackKind::kStateReading:
      return "state_reading";
    case AttackKind::kStateReadingFollow:
      return "state_reading_follow";
  }
  return "?";
}
inline bool ReadsState(AttackKind a) {
  return a == AttackKind::kStateReading || a == AttackKind::kStateReadingFollow;
}
struct AdversarialSpec {
  AdaptGeometry geometry;
  AttackKind attack = AttackKind::kKnownFalsePositives;
  std::size_t set_size = 1;  // the state-reading attacks: the budget D of distinct queries
  std::size_t queries = 100000;  // asked of the set (the kind's queries_per_set)
  int trial = 0;
  std::uint64_t seed = 1;
};

namespace adapt_trial {

// Seeds for the parts of one trial, all derived from its seed so a trial is reproducible.
inline std::uint64_t SubSeed(std::uint64_t seed, std::uint64_t part) {
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

inline Json Number(double v) {
  return v == std::floor(v) && std::abs(v) < 1e15 ? Json(static_cast<long long>(v)) : Json(v);
}

// What every record says about the filter: its declared statistics (geometry, space, theory,
// F::kStats: the path the filters kind takes too), what it holds, and what adapting cost
// (counters accumulated since it was built).
template <class F>
void DescribeFilter(const F& filter, Json& r) {
  r["keys_inserted"] = filter.stored();
  r["load_factor"] = filter.load_factor();
  r["size_bytes"] = filter.size_in_bytes();
  r["bits_per_key"] = filter.stored() ? 8.0 * filter.size_in_bytes() / filter.stored() : 0.0;
  PutFilterStats(filter, r);
}

template <class F>
void DescribeCounters(const F& filter, Json& r) {
  const AcfCounters& c = filter.counters();
  r["adaptations"] = c.adaptations;
  r["remote_lookups"] = c.remote_lookups;
  r["remote_reads_for_adaptation"] = c.remote_reads_for_adaptation;
  r["moves"] = c.moves;
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
inline void SetFlowInterval(Json& r, std::size_t false_positives, std::size_t queries, double squares) {
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
  // side effects); its later queries are where adaptation pays. Counted apart.
  std::vector<std::uint32_t> asked(flows, 0);  // queries per flow, for the interval
  std::size_t fp_first = 0, fp_later = 0, first_queries = 0;
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
      fp_later += fp;
    }
  }
  const std::size_t false_positives = fp_first + fp_later;

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
  r["false_positives_repeat"] = fp_later;
  r["fpr_first_query"] = first_queries ? double(fp_first) / first_queries : 0.0;
  r["fpr_repeat"] = queries > first_queries ? double(fp_later) / (queries - first_queries) : 0.0;
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

// What every adversarial trial record opens with: the filter, the attack and the trial.
template <class F>
Json AttackRecord(const F& filter, const AdversarialSpec& spec) {
  Json r;
  r["filter"] = std::string(F::kName);
  r["record"] = "trial";
  r["attack"] = AttackName(spec.attack);
  r["trial"] = spec.trial;
  r["seed"] = spec.seed;
  DescribeFilter(filter, r);
  return r;
}

// Adaptation off: the same filter, built again from the same seed and keys (so slot for slot the
// one attacked), asked query(0) .. query(queries - 1) through contains(), which never adapts. Its
// count is measured, not an expectation.
template <class F, class Query>
std::size_t ReplayWithAdaptationOff(const AdversarialSpec& spec, std::size_t queries, Query query) {
  F twin(ParamsFor<F>(spec.geometry, SubSeed(spec.seed, 1)));
  FillToLoad(twin, SubSeed(spec.seed, 2), spec.geometry.max_load);
  std::size_t false_positives = 0;
  for (std::size_t i = 0; i < queries; ++i) false_positives += twin.contains(query(i));
  return false_positives;
}

// The state-reading adversary (the Support Optimality paper's Omega(n) for the Cyclic and
// Swapping ACFs with |Q| = O(1)): it sees the filter's state through const reads (filters/acf.h:
// colliding_slots, collides_in_bucket, slot_holding), may use at most D = set_size distinct
// queries, and asks `queries` in all. Its first query is the first random non-member that is a
// false positive; the bucket it collides in is the target. Then at each step: if a query already
// chosen collides now, ask it (a false positive); else, within the budget, scan random
// non-members for one that collides in the target bucket now and ask it; else nothing it may ask
// collides, and as nothing it asks adapts the filter, nothing ever will: it keeps asking a
// chosen query for nothing. The Cyclic ACF's selector runs through 2^s values and comes back, so
// about 2^s queries close a cycle; the Swapping ACF's bucket only permutes its elements, so
// queries covering each (element, position) close one; a Cuckooing ACF's element leaves the
// bucket (the follow variant goes after it). Measured, not assumed: the record says how many
// distinct queries were used, how many non-members were scanned and whether a cycle closed.
template <class F>
Json StateReading(const AdversarialSpec& spec) {
  F filter(ParamsFor<F>(spec.geometry, SubSeed(spec.seed, 1)));
  const std::vector<std::uint64_t> members =
      FillToLoad(filter, SubSeed(spec.seed, 2), spec.geometry.max_load);
  const std::uint64_t flow_seed = SubSeed(spec.seed, 3);
  const bool follow = spec.attack == AttackKind::kStateReadingFollow;
  // A search gives up after this many non-members (about 4 x slots x 2^bits: far beyond the
  // buckets x code range it needs on average); an empty target is known without scanning.
  const std::size_t search_limit = 4 * filter.slots() << std::min(spec.geometry.bits_per_slot, 20);

  std::size_t scanned = 0, failed_searches = 0;
  std::vector<std::uint64_t> chosen;
  while (scanned < search_limit) {
    const std::uint64_t q = UniformKey(flow_seed, KeyStream::kNonMembers, scanned++);
    if (filter.contains(q)) {
      chosen.push_back(q);
      break;
    }
  }
  std::size_t target = F::kNoSlot;
  std::uint64_t target_key = 0;
  if (!chosen.empty()) {
    target = filter.colliding_slots(chosen[0]).front();
    target_key = filter.remote().key(target);
  }

  std::vector<std::uint16_t> schedule(spec.queries, 0);  // index into `chosen`, for the replay
  std::size_t false_positives = 0, last_new = 0, fp_after_last_new = 0;
  std::size_t last = 0;
  bool frozen = chosen.empty();
  for (std::size_t i = 0; i < spec.queries && !chosen.empty(); ++i) {
    std::size_t pick = chosen.size();
    if (!frozen) {
      // From the one after the query last asked: a closed cycle's next query is found first.
      for (std::size_t k = 0; k < chosen.size(); ++k) {
        const std::size_t j = (last + 1 + k) % chosen.size();
        if (filter.contains(chosen[j])) {
          pick = j;
          break;
        }
      }
      if (pick == chosen.size() && chosen.size() < spec.set_size) {
        const std::size_t at = follow ? filter.slot_holding(target_key) : target;
        if (at != F::kNoSlot && filter.bucket_occupied(at)) {
          for (std::size_t tried = 0; tried < search_limit; ++tried) {
            const std::uint64_t q = UniformKey(flow_seed, KeyStream::kNonMembers, scanned++);
            if (filter.collides_in_bucket(q, at)) {
              chosen.push_back(q);
              pick = chosen.size() - 1;
              last_new = i + 1;
              fp_after_last_new = 0;
              break;
            }
          }
          failed_searches += pick == chosen.size();
        }
      }
      if (pick == chosen.size()) {
        frozen = true;
        pick = last;
      }
    } else {
      pick = last;
    }
    const AcfOutcome out = filter.query_and_adapt(chosen[pick]);
    if (out.answer == AcfAnswer::kMember)
      throw std::logic_error("a non-member found in the remote store");
    if (out.answer == AcfAnswer::kFalsePositive) {
      ++false_positives;
      if (last_new != i + 1) ++fp_after_last_new;
    } else if (!frozen) {
      throw std::logic_error("a query chosen because it collides was not a false positive");
    }
    schedule[i] = static_cast<std::uint16_t>(pick);
    last = pick;
  }
  // A cycle closed: after the last new query every query was a false positive, for at least
  // one more round of the chosen set.
  const std::size_t after = spec.queries - last_new;
  const bool closed = !chosen.empty() && fp_after_last_new == after && after >= chosen.size();

  const std::size_t false_positives_static =
      chosen.empty() ? 0
                     : ReplayWithAdaptationOff<F>(spec, schedule.size(),
                                                  [&](std::size_t i) { return chosen[schedule[i]]; });

  Json r = AttackRecord(filter, spec);
  r["set_size"] = spec.set_size;
  r["distinct_queries"] = chosen.size();
  r["adversary_scans"] = scanned;
  r["failed_searches"] = failed_searches;
  r["last_new_query"] = last_new;
  r["cycle_closed"] = closed ? 1 : 0;
  r["queries_per_set"] = spec.queries;
  r["negative_queries"] = spec.queries;
  r["false_positives"] = false_positives;
  r["fpr"] = spec.queries ? double(false_positives) / spec.queries : 0.0;
  r["false_positives_static"] = false_positives_static;
  DescribeCounters(filter, r);
  CheckInvariants(filter, members, r);
  return r;
}

template <class F>
Json Adversarial(const AdversarialSpec& spec) {
  if (ReadsState(spec.attack)) return StateReading<F>(spec);
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
  std::vector<std::uint32_t> schedule(spec.queries);
  XorShift64Star rng(SubSeed(spec.seed, 4));
  for (std::size_t i = 0; i < spec.queries; ++i) {
    schedule[i] = static_cast<std::uint32_t>(i < set.size() ? i : ReduceRange(rng.Next(), set.size()));
  }

  // Adaptation off, the same schedule: measured, not queries * initially_false_positive / set_size.
  const std::size_t false_positives_static =
      ReplayWithAdaptationOff<F>(spec, schedule.size(), [&](std::size_t i) { return set[schedule[i]]; });

  std::size_t false_positives = 0, last_fp = 0, fp_first_half = 0, fp_second_half = 0;
  for (std::size_t i = 0; i < spec.queries; ++i) {
    const std::uint64_t q = set[schedule[i]];
    const AcfOutcome out = filter.query_and_adapt(q);
    if (out.answer == AcfAnswer::kMember)
      throw std::logic_error("a non-member found in the remote store");
    if (out.answer == AcfAnswer::kFalsePositive) {
      ++false_positives;
      last_fp = i + 1;
      (i < spec.queries / 2 ? fp_first_half : fp_second_half)++;
    }
  }

  Json r = AttackRecord(filter, spec);
  r["set_size"] = set.size();
  r["set_initially_false_positive"] = initially_false_positive;
  r["non_members_scanned"] = scanned;
  r["queries_per_set"] = spec.queries;
  r["negative_queries"] = spec.queries;
  r["false_positives"] = false_positives;
  r["fpr"] = spec.queries ? double(false_positives) / spec.queries : 0.0;
  r["false_positives_static"] = false_positives_static;
  r["false_positives_first_half"] = fp_first_half;
  r["false_positives_second_half"] = fp_second_half;
  r["last_false_positive_query"] = last_fp;
  DescribeCounters(filter, r);
  CheckInvariants(filter, members, r);
  return r;
}

}  // namespace adapt_trial

// What an adaptive filter brings to the adapt_* kinds, instantiated for it by the registry:
// the geometry parameters it takes, read off its own constants (filters/acf.h), and its trials.
struct AdaptiveTrials {
  bool adapts;               // false for the static controls (adaptation off)
  bool takes_selector_bits;  // the Cyclic ACFs
  bool takes_max_moves;      // a fix that moves elements (the Cuckooing ACFs)
  bool takes_tables;         // a table count (the 1-slot Cuckooing ACFs)
  Json (*synthetic)(const SyntheticSpec&);
  Json (*trace)(const TraceSpec&);  // returns {"whole": record, "windows": [records]}
  Json (*adversarial)(const AdversarialSpec&);
  std::string (*invalid)(const AdaptGeometry&);  // empty if the geometry fits this filter
};

template <AdaptiveFilter F>
const AdaptiveTrials* AdaptiveTrialsOf() {
  static constexpr AdaptiveTrials trials{F::kAdaptive,        F::kCyclicKind,
                                         F::kCuckooingKind,   F::kTakesTables,
                                         &adapt_trial::Synthetic<F>, &adapt_trial::Trace<F>,
                                         &adapt_trial::Adversarial<F>, &adapt_trial::InvalidFor<F>};
  return &trials;
}

}  // namespace amq
