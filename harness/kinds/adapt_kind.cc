// harness/kinds/adapt_kind.cc - the three adaptive kinds as plans for the one runner: a cell is one
// filter at one geometry and one workload setting; its lines are its trials (or its trace's
// windows), then its cell line (the summary over trials, or the whole replay).
#include <algorithm>
#include <sstream>

#include "core/errors.h"
#include "core/file_util.h"
#include "core/stats.h"
#include "harness/kinds/adapt_kind.h"
#include "harness/run/cell_id.h"
#include "harness/run/schema.h"
#include "traces/trace_io.h"

namespace amq {
namespace {

// Every packet's key in trace order, through the trace readers of traces/.
std::vector<std::uint64_t> ReadPacketKeys(const TraceSource& source) {
  source.Materialise();
  std::vector<std::uint64_t> keys;
  ReadTrace(source.path, [&](const TraceRecord& r) { keys.push_back(FlowHash(r.flow, source.key)); });
  if (keys.empty()) throw InputError("trace " + source.path + " has no IP packets");
  return keys;
}

struct AdaptCell {
  const FilterEntry* filter = nullptr;
  std::size_t slots = 0;
  int bits = 8;
  double as_ratio = 0, queries_per_flow = 0;  // synthetic
  AttackKind attack = AttackKind::kKnownFalsePositives;
  std::size_t set_size = 0;                   // adversarial
  std::size_t queries_per_set = 0;
};

class AdaptPlan : public ExperimentPlan {
 public:
  explicit AdaptPlan(const AdaptParams& p) : p_(p) {
    // The same nesting `amqbench adapt` always had: bits, then the workload lists, then filters.
    for (int bits : p_.bits_per_slot) {
      if (p_.kind == AdaptKind::kSynthetic) {
        for (double ratio : p_.as_ratios) {
          for (double qpf : p_.queries_per_flow) {
            for (const FilterEntry* f : p_.filters) Add({f, p_.geometry.slots, bits, ratio, qpf});
          }
        }
      } else if (p_.kind == AdaptKind::kTrace) {
        for (const FilterEntry* f : p_.filters) Add({f, p_.geometry.slots, bits});
      } else {
        // slots_sweep: the filter's size n is a cell axis (the state-reading attack's growth in
        // n); queries_per_slot: the stream length grows with it.
        const std::vector<std::size_t> sweep =
            p_.slots_sweep.empty() ? std::vector<std::size_t>{p_.geometry.slots} : p_.slots_sweep;
        for (std::size_t slots : sweep) {
          for (AttackKind attack : p_.attacks) {
            // A state-reading attack chooses its own queries: its set is the budget D.
            const std::vector<std::size_t> sets =
                ReadsState(attack) ? std::vector<std::size_t>{p_.query_budget} : p_.set_sizes;
            std::vector<std::size_t> lengths = p_.queries_per_set;
            if (p_.queries_per_slot > 0) {
              lengths = {static_cast<std::size_t>(std::llround(p_.queries_per_slot * double(slots)))};
            }
            for (std::size_t set : sets) {
              for (std::size_t n : lengths) {
                for (const FilterEntry* f : p_.filters) Add({f, slots, bits, 0, 0, attack, set, n});
              }
            }
          }
        }
      }
    }
  }

  const std::vector<CellPlan>& cells() const override { return plans_; }

  std::string SkipReason() const override {
    if (p_.trace && !p_.trace->Available()) return "trace " + p_.trace->Describe() + " is not here";
    return "";
  }

  void Prepare() override {
    if (p_.kind == AdaptKind::kTrace && packets_.empty()) packets_ = ReadPacketKeys(*p_.trace);
  }

  std::vector<Json> Run(std::size_t i) override {
    const AdaptCell& c = cells_[i];
    AdaptGeometry g = p_.geometry;
    g.slots = c.slots;
    g.bits_per_slot = c.bits;
    std::vector<Json> lines;
    if (p_.kind == AdaptKind::kTrace) {
      if (packets_.empty()) packets_ = ReadPacketKeys(*p_.trace);
      TraceSpec spec;
      spec.geometry = g;
      spec.packets = &packets_;
      spec.trace = p_.trace->synth ? p_.trace->Describe() : BaseName(p_.trace->path);
      spec.windows = p_.windows;
      spec.seed = p_.seed;
      const Json result = c.filter->adaptive->trace(spec);
      for (const Json& w : result["windows"]) lines.push_back(w);
      lines.push_back(result["whole"]);
      return lines;
    }
    for (int t = 0; t < p_.trials; ++t) {
      if (p_.kind == AdaptKind::kSynthetic) {
        SyntheticSpec spec;
        spec.geometry = g;
        spec.as_ratio = c.as_ratio;
        spec.queries_per_flow = c.queries_per_flow;
        spec.popularity = p_.popularity;
        spec.trial = t;
        spec.seed = p_.seed + t;
        lines.push_back(c.filter->adaptive->synthetic(spec));
      } else {
        AdversarialSpec spec;
        spec.geometry = g;
        spec.attack = c.attack;
        spec.set_size = c.set_size;
        spec.queries = c.queries_per_set;
        spec.trial = t;
        spec.seed = p_.seed + t;
        lines.push_back(c.filter->adaptive->adversarial(spec));
      }
    }
    Json summary = SummarizeTrials(lines);
    if (!p_.trial_lines) lines.clear();
    lines.push_back(std::move(summary));
    return lines;
  }

  std::string Describe(const Json& r) const override {
    char text[200];
    const auto field = [&](const char* name) { return r.value(name, Json(nullptr)).dump(); };
    if (p_.kind == AdaptKind::kAdversarial) {
      std::snprintf(text, sizeof text, "%s false positives in %s queries (replayed with adaptation off: %s)",
                    field("false_positives").c_str(), field("negative_queries").c_str(),
                    field("false_positives_static").c_str());
    } else {
      const Json fpr = r.value("fpr", Json(nullptr));
      std::snprintf(text, sizeof text, "load %.3f, fpr %.6f (static theory %.6f), %s adaptations",
                    r.value("load_factor", 0.0), fpr.is_number() ? fpr.get<double>() : 0.0,
                    r.value("fpr_theory_static", 0.0), field("adaptations").c_str());
    }
    return text;
  }

 private:
  void Add(const AdaptCell& c) {
    AdaptGeometry g = p_.geometry;
    g.slots = c.slots;
    CellPlan plan;
    plan.identity = {{"kind", AdaptKindName(p_.kind)},
                     {"filter", std::string(c.filter->name)},
                     {"slots", g.slots},
                     {"bits_per_slot", c.bits},
                     {"selector_bits", c.filter->adaptive->takes_selector_bits ? g.selector_bits : 0},
                     {"tables", c.filter->adaptive->takes_tables ? g.tables : 0},
                     {"max_load", g.max_load},
                     {"max_kicks", g.max_kicks},
                     {"max_moves", c.filter->adaptive->takes_max_moves ? g.max_moves : 0}};
    std::ostringstream label;
    label << c.filter->name << " bits=" << c.bits;
    double queries = 0;
    if (p_.kind == AdaptKind::kSynthetic) {
      plan.identity["as_ratio"] = c.as_ratio;
      plan.identity["queries_per_flow"] = c.queries_per_flow;
      plan.identity["popularity"] = p_.popularity.Name();
      plan.identity["trials"] = p_.trials;
      label << " A/S=" << c.as_ratio << " q/flow=" << c.queries_per_flow;
      queries = p_.trials * c.as_ratio * c.queries_per_flow * double(g.slots) * g.max_load;
    } else if (p_.kind == AdaptKind::kTrace) {
      plan.identity["trace"] = p_.trace->Identity();
      plan.identity["windows"] = p_.windows;
      queries = 1e6;
    } else {
      plan.identity["attack"] = AttackName(c.attack);
      plan.identity["set_size"] = c.set_size;
      plan.identity["queries_per_set"] = c.queries_per_set;
      plan.identity["trials"] = p_.trials;
      label << " " << AttackName(c.attack) << " set=" << c.set_size << " n=" << c.queries_per_set;
      if (!p_.slots_sweep.empty()) label << " slots=" << c.slots;
      // Twice: the adaptive run and its replay with adaptation off; two fills per trial too.
      queries = 2.0 * double(p_.trials) * double(c.queries_per_set);
    }
    plan.cell_id = CellId(plan.identity);
    plan.seed = p_.seed;
    // In the suite's unit (key operations at ~10^7 a second, runner.h), so the suite's ETA can
    // extrapolate from one kind to the next: filling is per slot, and a query through
    // query_and_adapt about 0.3 units, which fits adapt_grid (planned 45.7 s, took 42.6 s);
    // adapt_support, mostly fills, comes out 2x high (planned 50 s, took 27.6 s).
    const double fills = p_.kind == AdaptKind::kAdversarial ? 2 : 1;  // the replay builds a twin
    plan.cost = fills * double(p_.trials) * double(g.slots) + queries * 0.3;
    plan.label = label.str();
    cells_.push_back(c);
    plans_.push_back(std::move(plan));
  }

  AdaptParams p_;
  std::vector<AdaptCell> cells_;
  std::vector<CellPlan> plans_;
  std::vector<std::uint64_t> packets_;
};

// Fewest trials for an interval over trials: Student's t from 6 (core/stats.h, MeanInterval);
// the suites' adversarial cells that show one run 1,000.
constexpr std::size_t kTrialsForInterval = 20;

}  // namespace

const char* AdaptKindName(AdaptKind kind) {
  switch (kind) {
    case AdaptKind::kSynthetic:
      return "adapt_synthetic";
    case AdaptKind::kTrace:
      return "adapt_trace";
    case AdaptKind::kAdversarial:
      return "adapt_adversarial";
  }
  return "?";
}

void ValidateAdaptParams(const AdaptParams& p) {
  if (p.filters.empty()) throw InputError("adapt: no filter selected");
  for (const FilterEntry* f : p.filters) {
    for (int bits : p.bits_per_slot) {
      AdaptGeometry g = p.geometry;
      g.bits_per_slot = bits;
      if (const std::string why = f->adaptive->invalid(g); !why.empty()) {
        throw InputError(std::string(f->name) + ": " + why +
                         (f->adaptive->takes_selector_bits ? " (--selector-bits, --bits-per-slot)" : ""));
      }
    }
  }
  if (p.kind == AdaptKind::kTrace) {
    if (!p.trace) throw InputError("the adapt_trace experiment needs a trace");
    if (!p.trace->optional && !p.trace->synth) CheckReadableFile(p.trace->path, "trace");
  }
}

std::unique_ptr<ExperimentPlan> MakeAdaptPlan(const AdaptParams& params) {
  return std::make_unique<AdaptPlan>(params);
}

Json SummarizeTrials(const std::vector<Json>& trials) {
  const Json& first = trials.front();
  Json s;
  s["filter"] = first["filter"];
  s["record"] = "cell";
  s["trials"] = trials.size();
  s["seed"] = first["seed"];
  // Every other field as its declaration says it combines over trials (harness/run/schema.cc
  // for the kind's own fields, F::kStats for the filter's statistics).
  for (const auto& [key, value] : first.items()) {
    if (s.contains(key)) continue;
    const FieldSpec* field = FindRecordField(key);
    const OverTrials rule = field ? field->over_trials : OverTrials::kNone;
    if (rule == OverTrials::kNone) continue;
    if (rule == OverTrials::kFirst) {
      s[key] = value;
      continue;
    }
    if (rule == OverTrials::kAll) {
      bool all = true;
      for (const Json& t : trials) all = all && t.value(key, true);
      s[key] = all;
      continue;
    }
    std::vector<double> v;
    for (const Json& t : trials) v.push_back(t[key].get<double>());
    double sum = 0;
    for (double x : v) sum += x;
    if (rule == OverTrials::kSum) {
      s[key] = adapt_trial::Number(sum);
      continue;
    }
    double mean = 0;
    for (double x : v) mean += x / double(v.size());  // as the summaries always averaged
    s[key] = mean;
    if (rule == OverTrials::kMeanRange) {
      s[key + "_min"] = *std::min_element(v.begin(), v.end());
      s[key + "_max"] = *std::max_element(v.begin(), v.end());
    }
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
  return s;
}

namespace {

// The geometry every adaptive kind takes (each filter uses the parts its own constants say it
// takes: filters/acf.h), then each kind's own parameters. `amqbench adapt` has one option each.
const ParamSpec kAdaptGeometry[] = {
    {"filters", ParamType::kFilters, {}, "adaptive filters and their static controls (adapt: --filter NAMES or all)"},
    {"seed", ParamType::kInt, AtLeast(0), "base seed; trial t uses seed + t (default: the suite's, adapt: 1)", {}, "seed"},
    {"slots", ParamType::kInt, Between(16, 4294967296.0), "slots per filter, the same for every filter (rounded up to a multiple of d*b; default 65536)", {}, "slots"},
    {"bits_per_slot", ParamType::kIntList, Between(4, 32), "bits per slot, one cell each (the Cyclic ACF's selector bits come out of these; default 8,12)", {}, "bits-per-slot"},
    {"selector_bits", ParamType::kInt, Between(1, 4), "Cyclic ACFs: hash-selector bits s, leaving at least 2 fingerprint bits (default 2)", {}, "selector-bits"},
    {"tables", ParamType::kInt, Between(2, 8), "1-slot Cuckooing ACFs: tables k (default 4)", {}, "tables"},
    {"max_load", ParamType::kNum, Open(0, 1), "share of the slots S fills (default 0.95)", {}, "max-load"},
    {"max_kicks", ParamType::kInt, Between(1, 1e6), "insert: evictions before a key is refused (default 500)", {}, "max-kicks"},
    {"max_moves", ParamType::kInt, Between(1, 1e6), "Cuckooing ACFs: moves of one fix before the table is rebuilt with a new seed (default 500)", {}, "max-moves"},
};
const ParamSpec kAdaptTrials[] = {
    {"trials", ParamType::kInt, Between(1, 1000), "trials, fresh seeds each (default 3)", {}, "trials"},
    {"trial_lines", ParamType::kBool, {}, "write each trial's line before the cell's summary (default true)"},
};
const ParamSpec kAdaptSynthetic[] = {
    {"as_ratio", ParamType::kNumList, OpenClosed(0, 10000), "|A| / |S|, one cell each (default 1,10)", {}, "as-ratio"},
    {"queries_per_flow", ParamType::kNumList, OpenClosed(0, 1e6), "mean queries per flow of A, one cell each (default 10)", {}, "queries-per-flow"},
    {"popularity", ParamType::kStr, {}, "uniform | zipf:A (flow of rank r asked with probability ~ r^-A)", {}, "popularity"},
};
const ParamSpec kAdaptTrace[] = {
    {"trace", ParamType::kTrace, {}, "the capture replayed (pcap, pcapng, amqtrace or text trace)", {}, "trace"},
    {"windows", ParamType::kInt, Between(1, 10000), "windows over the replay (default 10)", {}, "windows"},
};
const ParamSpec kAdaptAdversarial[] = {
    {"fp_set", ParamType::kIntList, Between(1, 1e7), "query set sizes, one cell each (default 1,10,100)", {}, "fp-set"},
    {"attack", ParamType::kStrList, {}, "known_fps (false positives of the filter as built), random_set, state_reading (an adversary that reads the filter's state and attacks the bucket of its first false positive) or state_reading_follow (it follows that element where fixes move it) (default known_fps,random_set)", {}, "attack"},
    {"queries_per_set", ParamType::kIntList, Between(1, 1e9), "queries asked of the set, one cell each (default 100000)", {}, "queries-per-set"},
    {"query_budget", ParamType::kInt, Between(1, 65535), "state-reading attacks: distinct queries D the adversary may use (default 16)", {}, "query-budget"},
    {"slots_sweep", ParamType::kIntList, Between(16, 4294967296.0), "slots per filter, one cell each, in place of slots (the state-reading attack's growth in n)", {}, "slots-sweep"},
    {"queries_per_slot", ParamType::kNum, OpenClosed(0, 1e4), "queries asked per slot of the filter, in place of queries_per_set (L proportional to n)", {}, "queries-per-slot"},
};

std::unique_ptr<ExperimentPlan> AdaptPlanFrom(AdaptKind kind, const PlanInput& in) {
  const Json& p = in.params;
  AdaptParams a;
  a.kind = kind;
  for (const FilterEntry* f : in.filters) {
    if (!f->adaptive) throw InputError("filter '" + std::string(f->name) + "' cannot take part in adaptive experiments");
    a.filters.push_back(f);
  }
  a.seed = in.Get<std::uint64_t>("seed", 1);
  a.geometry.slots = in.Get("slots", a.geometry.slots);
  if (in.Has("bits_per_slot")) a.bits_per_slot = p["bits_per_slot"].get<std::vector<int>>();
  a.geometry.selector_bits = in.Get("selector_bits", a.geometry.selector_bits);
  a.geometry.tables = in.Get("tables", a.geometry.tables);
  a.geometry.max_load = in.Get("max_load", a.geometry.max_load);
  a.geometry.max_kicks = in.Get("max_kicks", a.geometry.max_kicks);
  a.geometry.max_moves = in.Get("max_moves", a.geometry.max_moves);
  if (in.Has("as_ratio")) a.as_ratios = p["as_ratio"].get<std::vector<double>>();
  if (in.Has("queries_per_flow")) a.queries_per_flow = p["queries_per_flow"].get<std::vector<double>>();
  if (in.Has("popularity")) a.popularity = Popularity::Parse(p["popularity"].get<std::string>());
  a.trials = in.Get("trials", a.trials);
  a.trial_lines = in.Get("trial_lines", true);
  if (in.Has("trace")) a.trace = TraceSource::FromJson(p["trace"], in.cache, in.Name("trace"));
  a.windows = in.Get("windows", a.windows);
  if (in.Has("fp_set")) a.set_sizes = p["fp_set"].get<std::vector<std::size_t>>();
  if (in.Has("attack")) {
    a.attacks.clear();
    for (const Json& x : p["attack"]) {
      const std::string name = x.get<std::string>();
      bool known = false;
      for (AttackKind k : {AttackKind::kKnownFalsePositives, AttackKind::kRandomSet, AttackKind::kStateReading,
                           AttackKind::kStateReadingFollow}) {
        if (name == AttackName(k)) {
          a.attacks.push_back(k);
          known = true;
        }
      }
      if (!known) {
        throw InputError(in.Name("attack") +
                         " must be known_fps, random_set, state_reading or state_reading_follow, got '" + name + "'");
      }
    }
  }
  if (in.Has("queries_per_set")) a.queries_per_set = p["queries_per_set"].get<std::vector<std::size_t>>();
  a.query_budget = in.Get("query_budget", a.query_budget);
  if (in.Has("slots_sweep")) a.slots_sweep = p["slots_sweep"].get<std::vector<std::size_t>>();
  a.queries_per_slot = in.Get("queries_per_slot", a.queries_per_slot);
  ValidateAdaptParams(a);
  return MakeAdaptPlan(a);
}

}  // namespace

// The fields the three adaptive kinds write (harness/run/schema.h), declared once, with the
// first of them; how each combines over a cell's trials is part of its row.
const KindSpec kAdaptSyntheticKind{
    "adapt_synthetic", "the ACF papers' protocol: S fills the filter, queries drawn from a set A of non-member flows",
    Concat({kAdaptGeometry, kAdaptSynthetic, kAdaptTrials}), true, false,
    [](const PlanInput& in) { return AdaptPlanFrom(AdaptKind::kSynthetic, in); },
    {
    {"trial", "integer", "", "trial number within the cell (its seed is the cell's seed + trial)", "adapt_*, trial rows", kIdentity},
    {"trials", "integer", "count", "trials summarised in a cell row", "adapt_synthetic, adapt_adversarial cell rows"},
    {"max_moves", "integer", "count", "Cuckooing ACF: moves of one fix before the table is rebuilt", "adapt_*"},
    {"as_ratio", "number", "ratio", "|A| / |S|: non-member flows per member", "adapt_synthetic, adapt_trace", kDeterministic, OverTrials::kFirst},
    {"flows", "integer", "flows", "distinct non-member flows (|A|)", "adapt_synthetic, adapt_trace", kDeterministic, OverTrials::kFirst},
    {"queries_per_flow", "number", "queries", "mean queries per non-member flow", "adapt_synthetic, adapt_trace", kDeterministic, OverTrials::kFirst},
    {"popularity", "string", "", "how flows of A are drawn: uniform or zipf:ALPHA", "adapt_synthetic", kDeterministic, OverTrials::kFirst},
    {"flows_queried", "integer", "flows", "flows of A asked at least once", "adapt_synthetic"},
    {"false_positives_first_query", "integer", "queries", "false positives on a flow's first query (what a static filter pays)", "adapt_synthetic", kDeterministic, OverTrials::kSum},
    {"false_positives_repeat", "integer", "queries", "false positives on a flow's later queries (where adaptation pays)", "adapt_synthetic", kDeterministic, OverTrials::kSum},
    {"effective_flows", "number", "flows", "independent draws behind fpr's interval: (sum of queries per flow)^2 / sum of their squares (Kish); exact for a static filter, whose flows answer alike, conservative for an adaptive one", "adapt_synthetic, adapt_trace cell and trial rows"},
    {"query_count_squares", "number", "queries^2", "sum over non-member flows of (queries to the flow)^2, from which cells pool effective_flows", "adapt_synthetic, adapt_trace trial rows and adapt_trace cells"},
    {"fpr_first_query", "number", "fraction", "false_positives_first_query / flows_queried", "adapt_synthetic", kDeterministic, OverTrials::kMean},
    {"fpr_repeat", "number", "fraction", "false_positives_repeat / a flow's queries after its first", "adapt_synthetic", kDeterministic, OverTrials::kMean},
    {"fpr_min", "number", "fraction", "lowest trial fpr of the cell", "adapt_synthetic, adapt_adversarial cell rows"},
    {"fpr_max", "number", "fraction", "highest trial fpr of the cell", "adapt_synthetic, adapt_adversarial cell rows"},
    {"adaptations", "integer", "count", "false positives fixed", "adapt_*", kDeterministic, OverTrials::kSum},
    {"remote_lookups", "integer", "count", "remote-store reads to confirm a positive answer", "adapt_*", kDeterministic, OverTrials::kSum},
    {"remote_reads_for_adaptation", "integer", "count", "remote-store reads a fix needed", "adapt_*", kDeterministic, OverTrials::kSum},
    {"moves", "integer", "count", "Cuckooing ACF: fingerprints moved by fixes", "adapt_*", kDeterministic, OverTrials::kSum},
    {"failed_fixes", "integer", "count", "false positives that could not be fixed", "adapt_*", kDeterministic, OverTrials::kSum},
    {"fpr_theory_end", "number", "fraction", "a fresh random non-member's FPR in the state the filter ended in (selector drift)", "adapt_*", kDeterministic, OverTrials::kMean},
    {"consistent", "boolean", "", "the filter and its remote store agreed slot for slot at the end", "adapt_*", kDeterministic, OverTrials::kAll},
    {"inconsistency", "string", "", "where the filter and its remote store disagreed", "adapt_*"},
    {"trace", "string", "", "the replayed trace's file name", "adapt_trace"},
    {"packets", "integer", "packets", "packets in the trace (window rows: in the window)", "adapt_trace"},
    {"distinct_keys_inserted", "integer", "keys", "distinct keys offered to the filter before it reached its load", "adapt_trace"},
    {"member_queries", "integer", "queries", "packets whose key the filter holds", "adapt_trace"},
    {"windows", "integer", "count", "windows the replay is cut into", "adapt_trace cell rows"},
    {"window", "integer", "", "window number, 0 first", "adapt_trace window rows", kIdentity},
    {"attack", "string", "", "known_fps (non-members that are false positives of the filter as built) or random_set", "adapt_adversarial", kDeterministic, OverTrials::kFirst},
    {"set_size", "integer", "keys", "non-members in the repeated query set (state-reading attacks: the budget D of distinct queries)", "adapt_adversarial", kDeterministic, OverTrials::kFirst},
    {"queries_per_set", "integer", "queries", "queries asked of the set (round the set once, then uniformly at random)", "adapt_adversarial", kDeterministic, OverTrials::kFirst},
    {"set_initially_false_positive", "integer", "keys", "set members the filter answered present before any query", "adapt_adversarial", kDeterministic, OverTrials::kSum},
    {"non_members_scanned", "integer", "keys", "non-members tried to find the set", "adapt_adversarial"},
    {"false_positives_static", "integer", "queries", "false positives of the same filter with adaptation off, replayed over the same query schedule (cell rows: summed over trials)", "adapt_adversarial", kDeterministic, OverTrials::kSum},
    {"false_positives_mean", "number", "queries", "false_positives per trial, the mean over the cell's trials", "adapt_adversarial cell rows"},
    {"false_positives_static_mean", "number", "queries", "false_positives_static per trial, the mean over the cell's trials", "adapt_adversarial cell rows"},
    {"false_positives_mean_ci_low", "number", "queries", "lower end of false_positives_mean's 95% Student-t interval over trials (present from 20 trials)", "adapt_adversarial cell rows"},
    {"false_positives_mean_ci_high", "number", "queries", "upper end of false_positives_mean's 95% interval over trials", "adapt_adversarial cell rows"},
    {"false_positives_static_mean_ci_low", "number", "queries", "lower end of false_positives_static_mean's 95% Student-t interval over trials (present from 20 trials)", "adapt_adversarial cell rows"},
    {"false_positives_static_mean_ci_high", "number", "queries", "upper end of false_positives_static_mean's 95% interval over trials", "adapt_adversarial cell rows"},
    {"false_positives_first_half", "integer", "queries", "false positives in the first half of the queries", "adapt_adversarial"},
    {"false_positives_second_half", "integer", "queries", "false positives in the second half of the queries", "adapt_adversarial"},
    {"last_false_positive_query", "integer", "", "index (from 1) of the last query answered falsely, 0 if none", "adapt_adversarial"},
    {"distinct_queries", "number", "keys", "state-reading attacks: distinct queries the adversary used, at most set_size (cell rows: the mean over trials)", "adapt_adversarial", kDeterministic, OverTrials::kMean},
    {"adversary_scans", "integer", "keys", "state-reading attacks: non-members the adversary scanned for its first false positive and its searches (cell rows: summed over trials)", "adapt_adversarial", kDeterministic, OverTrials::kSum},
    {"failed_searches", "integer", "count", "state-reading attacks: searches for a colliding non-member that gave up (cell rows: summed over trials)", "adapt_adversarial", kDeterministic, OverTrials::kSum},
    {"last_new_query", "number", "", "state-reading attacks: index (from 1) of the query at which the last new distinct query was asked, 0 if only the first (cell rows: the mean)", "adapt_adversarial", kDeterministic, OverTrials::kMean},
    {"cycle_closed", "integer", "trials", "state-reading attacks: 1 if every query after the last new one was a false positive, for at least one round of the chosen set (cell rows: trials in which it closed)", "adapt_adversarial", kDeterministic, OverTrials::kSum},
    }};
const KindSpec kAdaptTraceKind{
    "adapt_trace", "a capture replayed in order through query_and_adapt, its FPR in windows over time",
    Concat({kAdaptGeometry, kAdaptTrace}), true, false,
    [](const PlanInput& in) { return AdaptPlanFrom(AdaptKind::kTrace, in); }};
const KindSpec kAdaptAdversarialKind{
    "adapt_adversarial", "a small set of non-members asked again and again: known false positives or random ones",
    Concat({kAdaptGeometry, kAdaptAdversarial, kAdaptTrials}), true, false,
    [](const PlanInput& in) { return AdaptPlanFrom(AdaptKind::kAdversarial, in); }};

}  // namespace amq
