// harness/kinds/counting_kind.cc - the counting experiment (see the header) as a plan for the
// one runner: a cell is one structure (the CQF, or a Count-Min sketch of one depth) counting
// one multiset.
#include "harness/kinds/counting_kind.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>

#include "core/errors.h"
#include "core/file_util.h"
#include "core/hashing.h"
#include "core/zipf.h"
#include "filters/count_min.h"
#include "filters/cqf.h"
#include "harness/run/cell_id.h"
#include "traces/trace_io.h"

namespace amq {
namespace {

using Counts = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

// One multiset, in insertion order, with its exact counts and keys known to be absent.
struct Multiset {
  std::vector<std::uint64_t> items;
  Counts truth;                        // (key, count), sorted by key
  std::vector<std::uint64_t> absent;  // distinct keys not in the multiset
};

std::uint64_t CountSeed(std::uint64_t seed, std::uint64_t part) {
  return SpreadSeed(seed * 0x9e3779b97f4a7c15ULL + part);
}

// Exact counts and absent keys for `items`; absent keys are random 64-bit words checked
// against the distinct keys.
Multiset Complete(std::vector<std::uint64_t> items, std::size_t absent, std::uint64_t seed) {
  Multiset m;
  m.items = std::move(items);
  std::vector<std::uint64_t> sorted = m.items;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
    m.truth.emplace_back(sorted[i], j - i);
    i = j;
  }
  XorShift64Star rng(CountSeed(seed, 2));
  while (m.absent.size() < absent) {
    const std::uint64_t k = rng.Next();
    const auto at = std::lower_bound(m.truth.begin(), m.truth.end(), std::make_pair(k, std::uint64_t{0}));
    if (at != m.truth.end() && at->first == k) continue;
    m.absent.push_back(k);
  }
  std::sort(m.absent.begin(), m.absent.end());
  m.absent.erase(std::unique(m.absent.begin(), m.absent.end()), m.absent.end());
  return m;
}

// N draws of Zipf(alpha) over U ranks; rank k is key MurmurMix64(k ^ s), a bijection, so
// distinct ranks are distinct keys.
Multiset ZipfMultiset(const CountingParams& p, double alpha) {
  const ZipfSampler zipf(p.universe, alpha);
  XorShift64Star rng(CountSeed(p.seed, 1));
  const std::uint64_t s = CountSeed(p.seed, 3);
  std::vector<std::uint64_t> items(p.items);
  for (auto& k : items) k = MurmurMix64(zipf(rng) ^ s);
  return Complete(std::move(items), p.absent_queries, p.seed);
}

Multiset TraceMultiset(const CountingParams& p) {
  p.trace->Materialise();
  std::vector<std::uint64_t> items;
  ReadTrace(p.trace->path, [&](const TraceRecord& r) { items.push_back(FlowHash(r.flow, p.trace->key)); });
  if (items.empty()) throw InputError("trace " + p.trace->path + " has no IP packets");
  return Complete(std::move(items), p.absent_queries, p.seed);
}

// The CQF holding the multiset: sized for its distinct keys at max_load, and given twice the
// capacity whenever its used slots pass max_load or an insert is refused (counters take slots
// of their own, so a skewed multiset needs more slots than it has distinct keys). Stopping at
// max_load, not at the first refusal, keeps the table out of the near-full regime where every
// insert shifts long clusters.
Cqf CountInCqf(const Multiset& m, const CountingParams& p) {
  FilterParams fp;
  fp.capacity = std::max<std::size_t>(m.truth.size(), 1);
  fp.target_fpr = p.fpr;
  fp.max_load = p.max_load;
  fp.seed = p.seed;
  for (;;) {
    Cqf cqf(fp);
    bool full = false;
    for (std::uint64_t k : m.items) {
      if (!cqf.insert(k) || cqf.load_factor() > p.max_load) {
        full = true;
        break;
      }
    }
    if (!full) return cqf;
    fp.capacity *= 2;
  }
}

void PutError(const CountError& e, const char* prefix, Json& r) {
  const std::string p(prefix);
  r[p + "error_mean"] = e.mean;
  r[p + "error_max"] = e.max;
  r[p + "exact_fraction"] = e.exact_fraction;
}

struct CountingCell {
  int multiset = 0;  // index into the plan's multisets: the Zipf alphas, then the trace
  int depth = 0;     // 0: the CQF; otherwise the Count-Min sketch's rows
};

class CountingPlan : public ExperimentPlan {
 public:
  explicit CountingPlan(const CountingParams& p) : p_(p) {
    const int sets = static_cast<int>(p_.zipf_alphas.size()) + (p_.trace ? 1 : 0);
    for (int s = 0; s < sets; ++s) {
      Add({s, 0});
      for (int d : p_.depths) Add({s, d});
    }
  }

  const std::vector<CellPlan>& cells() const override { return plans_; }

  std::string SkipReason() const override {
    if (p_.trace && !p_.trace->Available()) return "trace " + p_.trace->Describe() + " is not here";
    return "";
  }

  std::vector<Json> Run(std::size_t i) override {
    const CountingCell& c = cells_[i];
    const Multiset& m = MultisetOf(c.multiset);
    const Cqf cqf = CountInCqf(m, p_);
    Json r;
    r["record"] = "cell";
    r["multiset"] = MultisetName(c.multiset);
    r["zipf_alpha"] = IsTrace(c.multiset) ? Json(nullptr) : Json(p_.zipf_alphas[c.multiset]);
    r["items"] = m.items.size();
    r["distinct"] = m.truth.size();
    r["count_max"] = std::max_element(m.truth.begin(), m.truth.end(),
                                      [](const auto& a, const auto& b) { return a.second < b.second; })->second;
    CountError present, absent;
    if (c.depth == 0) {
      r["filter"] = "cqf";
      r["size_bytes"] = cqf.size_in_bytes();
      r["quotient_bits"] = cqf.quotient_bits();
      r["remainder_bits"] = cqf.remainder_bits();
      r["load_factor"] = cqf.load_factor();
      present = MeasureCountError(m.truth, [&](std::uint64_t k) { return cqf.count(k); });
      absent = MeasureCountError(Absent(m), [&](std::uint64_t k) { return cqf.count(k); });
    } else {
      // Exactly the CQF's bytes, so the two are compared in the same memory.
      CountMinSketch cms = CountMinSketch::WithBytes(cqf.size_in_bytes(), c.depth, p_.seed);
      for (std::uint64_t k : m.items) cms.insert(k);
      r["filter"] = "count_min";
      r["size_bytes"] = cms.size_in_bytes();
      r["depth"] = cms.depth();
      r["width"] = cms.width();
      r["count_error_bound"] = cms.error_bound(m.items.size());
      r["count_bound_failure_probability"] = cms.bound_failure_probability();
      present = MeasureCountError(m.truth, [&](std::uint64_t k) { return cms.count(k); });
      absent = MeasureCountError(Absent(m), [&](std::uint64_t k) { return cms.count(k); });
      std::size_t over = 0;
      const double bound = cms.error_bound(m.items.size());
      for (const auto& [k, count] : m.truth) over += static_cast<double>(cms.count(k) - count) > bound;
      r["count_bound_exceeded_fraction"] = static_cast<double>(over) / m.truth.size();
    }
    r["bits_per_key"] = 8.0 * r["size_bytes"].get<double>() / m.truth.size();
    PutError(present, "count_", r);
    r["absent_queries"] = absent.keys;
    PutError(absent, "absent_", r);
    r["false_negatives"] = present.below_truth;
    return {r};
  }

  std::string Describe(const Json& r) const override {
    char text[200];
    std::snprintf(text, sizeof text, "%s on %s: mean error %.4f, max %llu, exact %.4f",
                  r.value("filter", std::string()).c_str(), r.value("multiset", std::string()).c_str(),
                  r.value("count_error_mean", 0.0),
                  static_cast<unsigned long long>(r.value("count_error_max", std::uint64_t{0})),
                  r.value("count_exact_fraction", 0.0));
    return text;
  }

 private:
  bool IsTrace(int s) const { return s == static_cast<int>(p_.zipf_alphas.size()); }

  std::string MultisetName(int s) const {
    if (!IsTrace(s)) {
      std::ostringstream name;
      name << "zipf:" << p_.zipf_alphas[s];
      return name.str();
    }
    return "trace:" + (p_.trace->synth ? p_.trace->Describe() : BaseName(p_.trace->path));
  }

  // Built once per multiset and kept: the CQF and Count-Min cells of one multiset share it.
  const Multiset& MultisetOf(int s) {
    if (cached_index_ != s) {
      cached_ = IsTrace(s) ? TraceMultiset(p_) : ZipfMultiset(p_, p_.zipf_alphas[s]);
      cached_index_ = s;
    }
    return cached_;
  }

  static Counts Absent(const Multiset& m) {
    Counts out;
    out.reserve(m.absent.size());
    for (std::uint64_t k : m.absent) out.emplace_back(k, 0);
    return out;
  }

  void Add(const CountingCell& c) {
    CellPlan plan;
    plan.identity = {{"kind", "counting"},
                     {"filter", c.depth ? "count_min" : "cqf"},
                     {"multiset", MultisetName(c.multiset)},
                     {"items", IsTrace(c.multiset) ? Json(nullptr) : Json(p_.items)},
                     {"universe", IsTrace(c.multiset) ? Json(nullptr) : Json(p_.universe)},
                     {"trace", IsTrace(c.multiset) ? p_.trace->Identity() : Json(nullptr)},
                     {"fpr", p_.fpr},
                     {"max_load", p_.max_load},
                     {"depth", c.depth},
                     {"absent_queries", p_.absent_queries}};
    plan.cell_id = CellId(plan.identity);
    plan.seed = p_.seed;
    // Items counted (a trace's size is unknown until it is read: taken as 10^6 packets) and
    // absent keys asked.
    plan.cost = 2.0 * (IsTrace(c.multiset) ? 1e6 : static_cast<double>(p_.items)) +
                static_cast<double>(p_.absent_queries);
    plan.label = std::string(c.depth ? "count_min depth " + std::to_string(c.depth) : "cqf") + " on " +
                 MultisetName(c.multiset);
    plans_.push_back(plan);
    cells_.push_back(c);
  }

  CountingParams p_;
  std::vector<CellPlan> plans_;
  std::vector<CountingCell> cells_;
  int cached_index_ = -1;
  Multiset cached_;
};

}  // namespace

void ValidateCountingParams(const CountingParams& p) {
  if (p.zipf_alphas.empty() && !p.trace) throw InputError("counting: give zipf alphas or a trace");
  if (p.trace && p.trace->synth) ValidateSynthOptions(*p.trace->synth);
}

std::unique_ptr<ExperimentPlan> MakeCountingPlan(const CountingParams& params) {
  return std::make_unique<CountingPlan>(params);
}

namespace {

const ParamSpec kCountingParams[] = {
    {"filters", ParamType::kFilters, {}, "the counting filter: the cqf alone (the Count-Min sketch it is set against is not a filter)"},
    {"seed", ParamType::kInt, AtLeast(0), "seed of the multisets and hash functions (default: the suite's)"},
    {"zipf", ParamType::kNumList, Between(0, 100), "one Zipf(alpha) multiset per alpha"},
    {"items", ParamType::kInt, AtLeast(1), "N, items per Zipf multiset (default 1000000)"},
    {"universe", ParamType::kInt, AtLeast(1), "U, ranks the Zipf draws come from (default 1000000)"},
    {"trace", ParamType::kTrace, {}, "also count a capture's per-flow packet counts"},
    {"fpr", ParamType::kNum, Open(0, 1), "the CQF's r = ceil(log2(1/fpr)) (default 0.01)"},
    {"max_load", ParamType::kNum, OpenClosed(0, 1), "the CQF is grown until its used slots stay within it (default 0.95)"},
    {"depth", ParamType::kIntList, Between(1, 32), "Count-Min rows, one cell per depth (default 4)"},
    {"absent_queries", ParamType::kInt, Between(0, 1e9), "keys never inserted, asked of both (default 100000)"},
};

std::unique_ptr<ExperimentPlan> CountingPlanFrom(const PlanInput& in) {
  // The counting filter is named so the suite says what is compared.
  if (in.filters.size() != 1 || in.filters[0]->name != std::string_view("cqf")) {
    throw InputError("counting: filters must select the cqf alone (filters = { names = [\"cqf\"] })");
  }
  const Json& p = in.params;
  CountingParams c;
  c.seed = in.Get<std::uint64_t>("seed", 1);
  c.zipf_alphas = in.Has("zipf") ? p["zipf"].get<std::vector<double>>() : std::vector<double>{};
  c.items = in.Get("items", c.items);
  c.universe = in.Get("universe", c.universe);
  if (in.Has("trace")) c.trace = TraceSource::FromJson(p["trace"], in.cache, in.Name("trace"));
  c.fpr = in.Get("fpr", c.fpr);
  c.max_load = in.Get("max_load", c.max_load);
  if (in.Has("depth")) c.depths = p["depth"].get<std::vector<int>>();
  c.absent_queries = in.Get("absent_queries", c.absent_queries);
  ValidateCountingParams(c);
  return MakeCountingPlan(c);
}

}  // namespace

const KindSpec kCountingKind{
    "counting", "the CQF's in-run counters against a Count-Min sketch of the same bytes, on skewed multisets",
    {std::begin(kCountingParams), std::end(kCountingParams)}, true, false, &CountingPlanFrom,
    // The fields only counting records carry (harness/run/schema.h): the CQF against a Count-Min
    // sketch of the same bytes, counting one multiset.
    {
    {"multiset", "string", "", "what was counted: zipf:ALPHA (items draws from universe ranks) or trace:NAME (each flow's count is its packet count)", "counting"},
    {"zipf_alpha", "number|null", "", "the Zipf exponent of the multiset, or null for a trace", "counting"},
    {"items", "integer", "items", "N: items counted (the multiset's total count)", "counting"},
    {"distinct", "integer", "keys", "distinct keys of the multiset", "counting"},
    {"count_max", "integer", "items", "the largest true count of one key", "counting"},
    {"depth", "integer", "rows", "Count-Min sketch: rows d", "counting count_min"},
    {"width", "integer", "counters", "Count-Min sketch: 32-bit counters per row w = floor(size_bytes / (4 d)), size_bytes being the CQF's", "counting count_min"},
    {"count_error_bound", "number", "items", "Count-Min sketch: Cormode and Muthukrishnan's bound e N / w on one key's excess, holding with probability >= 1 - e^-d", "counting count_min"},
    {"count_bound_failure_probability", "number", "fraction", "Count-Min sketch: e^-d, the most a key may exceed count_error_bound with", "counting count_min"},
    {"count_bound_exceeded_fraction", "number", "fraction", "Count-Min sketch: share of distinct keys whose excess is above count_error_bound", "counting count_min"},
    {"count_error_mean", "number", "items", "mean |estimate - true count| over the distinct keys", "counting"},
    {"count_error_max", "integer", "items", "largest |estimate - true count| over the distinct keys", "counting"},
    {"count_exact_fraction", "number", "fraction", "share of distinct keys whose estimate is their true count", "counting"},
    {"absent_queries", "integer", "keys", "distinct keys never inserted, asked for their count (truth 0)", "counting"},
    {"absent_error_mean", "number", "items", "mean estimate over the absent keys", "counting"},
    {"absent_error_max", "integer", "items", "largest estimate over the absent keys", "counting"},
    {"absent_exact_fraction", "number", "fraction", "share of absent keys counted 0", "counting"},
    }};

}  // namespace amq
