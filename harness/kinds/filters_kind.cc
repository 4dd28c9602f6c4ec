// harness/kinds/filters_kind.cc - the filters kind (see the header).
#include "harness/kinds/filters_kind.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "core/errors.h"
#include "core/file_util.h"
#include "harness/run/cell_id.h"
#include "harness/cell/memory_estimate.h"
#include "harness/cell/process_memory.h"
#include "traces/pcap_writer.h"
#include "traces/trace_stats.h"
#include "workloads/queries.h"

namespace amq {
namespace {

// One workload the grid shares between cells: a key distribution at one n and one key set, or
// the trace.
struct Group {
  std::optional<KeySource> source;  // absent: the trace
  std::size_t n = 0;
  std::size_t key_set = 0;  // keys, queries and hash seed from seed + key_set
};

// A cell: which group, which query stream of it, and the filter parameters.
struct FiltersCell {
  std::size_t group = 0;
  std::size_t stream = 0;  // index into query_dists x positive_fractions (0 for a trace)
  FiltersParams::Sizing sizing;
  double max_load = 0;
  const FilterEntry* filter = nullptr;
};

std::string FormatNumber(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

class FiltersPlan : public ExperimentPlan {
 public:
  explicit FiltersPlan(const FiltersParams& p) : p_(p) {
    if (p_.trace) {
      groups_.push_back({});
    } else {
      std::vector<std::size_t> sizes = p_.keys;
      if (p_.capacity && !p_.load_steps.empty()) {
        sizes.clear();
        for (double step : p_.load_steps) {
          sizes.push_back(static_cast<std::size_t>(std::llround(step * double(*p_.capacity))));
        }
      }
      for (const KeySource& source : p_.key_sources) {
        for (std::size_t n : sizes) {
          for (std::size_t set = 0; set < p_.key_sets; ++set) groups_.push_back({source, n, set});
        }
      }
    }
    const std::size_t streams = p_.trace ? 1 : p_.query_dists.size() * p_.positive_fractions.size();
    const Json trace_identity = p_.trace ? p_.trace->Identity() : Json(nullptr);
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      for (std::size_t s = 0; s < streams; ++s) {
        for (const auto& sizing : p_.sizings) {
          for (double max_load : p_.max_loads) {
            for (const FilterEntry* f : p_.filters) {
              FiltersCell cell{g, s, sizing, max_load, f};
              cells_.push_back(cell);
              plans_.push_back(PlanFor(cell, trace_identity));
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

  // A trace is read before the result file exists: a damaged capture, or one without IP
  // packets, is bad input that leaves nothing behind.
  // Every key set that can be refused (a key file shorter than n, a word list too small, a
  // stride that overflows) is made once here, before the first cell: bad input stops the run
  // before anything is written, not halfway through the grid.
  void Prepare() override {
    if (prepared_) return;
    prepared_ = true;
    if (p_.trace) {
      if (!cells_.empty()) Prepare(cells_.front());
      return;
    }
    for (const Group& group : groups_) {
      // One key set stands for the rest: a source that refuses one seed refuses every seed.
      if (group.source && group.source->kind != KeySource::Kind::kUniform && group.key_set == 0) {
        (void)MakeWorkload(*group.source, group.n, p_.queries, p_.seed);
      }
    }
  }

  std::vector<Json> Run(std::size_t i) override {
    const FiltersCell& cell = cells_[i];
    Prepare(cell);
    CellSpec spec;
    spec.keys = workload_->keys.size();
    spec.params.capacity = p_.capacity ? *p_.capacity : spec.keys;
    spec.params.target_fpr = cell.sizing.fpr;
    spec.params.bits_per_key = cell.sizing.bits_per_key;
    spec.params.max_load = cell.max_load;
    spec.params.seed = SeedOf(groups_[cell.group]);
    spec.params.max_kicks = p_.max_kicks;
    spec.workload = &*workload_;
    spec.queries = p_.queries;
    spec.positive_fraction = fraction_;
    spec.repeats = p_.repeats;
    spec.churn_rounds = p_.churn_rounds;
    spec.churn_queries_per_round = p_.churn_queries;
    spec.traced_lookups = p_.cache_lines;
    return {cell.filter->run_cell(spec)};  // the runner marks it record = cell
  }

  // Trace cells make no estimate: their keys are bounded by the capture, already read.
  std::optional<MemoryEstimate> EstimateMemory(std::size_t i) override {
    const FiltersCell& cell = cells_[i];
    const Group& group = groups_[cell.group];
    if (!group.source) return std::nullopt;
    const std::size_t capacity = p_.capacity ? *p_.capacity : group.n;
    const std::size_t size = std::max(capacity, group.n);
    const auto measure = [&](std::uint64_t divisor) {
      FilterParams scaled;
      scaled.capacity = static_cast<std::size_t>((capacity + divisor - 1) / divisor);
      scaled.target_fpr = cell.sizing.fpr;
      scaled.bits_per_key = cell.sizing.bits_per_key;
      scaled.max_load = cell.max_load;
      scaled.seed = SeedOf(group);
      scaled.max_kicks = p_.max_kicks;
      const std::size_t keys = static_cast<std::size_t>((group.n + divisor - 1) / divisor);
      return MeasureBuildBytesOnce(cell.filter->name, cell.filter->measure_build_bytes, scaled,
                                   keys);
    };
    MemoryEstimate e;
    e.scale = EstimateScale(size);
    const std::optional<std::uint64_t> filter_bytes = ExtrapolatedBuildBytes(size, measure);
    if (!filter_bytes) return std::nullopt;
    e.filter_bytes = *filter_bytes;
    e.buffer_bytes = CellBufferBytes(group.n, p_.queries);
    // A churn schedule holds one step (key, operation) per fill, erase, insert and query.
    if (p_.churn_rounds > 0) e.buffer_bytes += 16 * (group.n + p_.churn_rounds * (2 + p_.churn_queries));
    return e;
  }

  std::string Describe(const Json& r) const override {
    // A failed build carries no measurements, only its reason.
    if (r.value("build_failed", false)) return "build failed: " + r.value("error", std::string("?"));
    const Json fpr = r.value("fpr", Json(nullptr));
    char text[160];
    std::snprintf(text, sizeof text, "%.2f bits/key, fpr %.5f (theory %.5f), fn %lld",
                  r.value("bits_per_key", 0.0), fpr.is_number() ? fpr.get<double>() : 0.0,
                  r.value("fpr_theory", 0.0), r.value("false_negatives", 0LL));
    return text;
  }

 private:
  CellPlan PlanFor(const FiltersCell& cell, const Json& trace_identity) const {
    const Group& group = groups_[cell.group];
    Json workload;
    if (group.source) {
      const std::size_t fractions = p_.positive_fractions.size();
      workload = {{"keys_from", group.source->Name()},
                  {"query_dist", p_.query_dists[cell.stream / fractions].Name()},
                  {"positive_fraction", p_.positive_fractions[cell.stream % fractions]},
                  {"repeated_negatives", p_.repeated_negatives}};
      if (group.source->kind == KeySource::Kind::kFile) {
        workload["content_hash"] = FileContentHash(group.source->argument);
      }
    } else {
      workload = {{"trace", trace_identity}, {"trace_members", p_.trace_members}};
    }
    CellPlan plan;
    plan.identity = {{"kind", "filters"},
                     {"filter", std::string(cell.filter->name)},
                     {"keys", group.n},
                     {"capacity", p_.capacity ? Json(*p_.capacity) : Json(nullptr)},
                     {"target_fpr", cell.sizing.fpr},
                     {"target_bits_per_key", cell.sizing.bits_per_key},
                     {"max_load", cell.max_load},
                     {"max_kicks", p_.max_kicks},
                     {"queries", p_.queries},
                     {"churn_rounds", p_.churn_rounds},
                     {"churn_queries", p_.churn_queries},
                     {"workload", workload}};
    // Only when asked, so every cell that traces nothing keeps the identity it always had.
    if (p_.cache_lines) plan.identity["cache_lines"] = p_.cache_lines;
    // Likewise: a grid of one key set keeps its identity. Key set j is one cell of the grid,
    // identified by j (the seed stays out of identities: cell_id.h).
    if (p_.key_sets > 1) plan.identity["key_set"] = group.key_set;
    plan.cell_id = CellId(plan.identity);
    plan.seed = SeedOf(group);
    // Keys built R+1 times, three query loops of Q keys R times, churn steps R times.
    const double n = group.source ? double(group.n) : 1e6;
    plan.cost = n * (p_.repeats + 1) + 3.0 * p_.queries * p_.repeats +
                double(p_.churn_rounds) * (2 + p_.churn_queries) * p_.repeats +
                2.0 * double(p_.cache_lines) * TracedLookupCost(cell, n) + LinearProbingExtra(cell, n);
    std::ostringstream label;
    label << cell.filter->name;
    if (group.source) label << " " << group.source->Name() << " n=" << group.n;
    if (p_.key_sets > 1) label << " key-set=" << group.key_set;
    if (p_.capacity) label << " capacity=" << *p_.capacity;
    if (cell.sizing.fpr > 0) label << " fpr=" << FormatNumber(cell.sizing.fpr);
    if (cell.sizing.bits_per_key > 0) label << " bits/key=" << FormatNumber(cell.sizing.bits_per_key);
    if (cell.max_load > 0) label << " max-load=" << FormatNumber(cell.max_load);
    if (group.source) {
      const std::size_t fractions = p_.positive_fractions.size();
      label << " positive-fraction=" << FormatNumber(p_.positive_fractions[cell.stream % fractions]);
      if (p_.query_dists[cell.stream / fractions].zipf) {
        label << " query-dist=" << p_.query_dists[cell.stream / fractions].Name();
      }
    }
    plan.label = label.str();
    return plan;
  }

  // The classic quotient filter's clusters are linear probing's: near full, a lookup walks a
  // cluster of about 1/(1 - alpha)^2 slots (~1.6 ns a slot here) and an insert shifts about
  // 1/(1 - alpha) on average over the fill. The extra units for its builds, its lookups and the
  // check that finds every member (n lookups), at the load its table will have. Calibrated at
  // 2^18 slots: at load 0.99 an insert took 541 ns a key and a member lookup 16 us, against
  // about 20 ns each at 0.5; the check alone then takes 4 s of a cell's 4.6.
  double LinearProbingExtra(const FiltersCell& cell, double n) const {
    if (cell.filter->name != "quotient") return 0;
    const double alpha = QuotientLoad(cell, n);
    const double inserts = n * (p_.repeats + 1) * 0.05 / (1 - alpha);
    const double lookups = (n + 3.0 * p_.queries * p_.repeats) * 0.016 / ((1 - alpha) * (1 - alpha));
    return inserts + lookups;
  }

  // The load of a quotient table of n keys: its slots are capacity (or n) over max load, rounded
  // up to a power of two.
  double QuotientLoad(const FiltersCell& cell, double n) const {
    const double capacity = p_.capacity ? double(*p_.capacity) : n;
    const double max_load = cell.max_load > 0 ? cell.max_load : 0.95;
    const double slots = std::exp2(std::ceil(std::log2(std::max(1.0, std::ceil(capacity / max_load)))));
    return std::min(0.999, n / slots);
  }

  // One traced lookup (harness/cell/line_tracer.h), in the suite's units (key operations at ~10^7
  // a second, runner.h). Each access to the filter's storage takes two signals and an mprotect
  // pair, about 40 us here, and most lookups make a few to a few dozen: about 1 ms a lookup
  // between Bloom's 0.4 ms and blocked Bloom's 2.2 ms (54 accesses). The classic QF's lookups
  // walk their cluster, about 1/(1 - alpha)^2 slots: at load 0.954, 20 ms a lookup (80 s for 2 x 2,000),
  // about 420 units per lookup and unit of that.
  double TracedLookupCost(const FiltersCell& cell, double n) const {
    if (cell.filter->name != "quotient") return 1e4;
    const double alpha = QuotientLoad(cell, n);
    return 1e4 + 420.0 / ((1 - alpha) * (1 - alpha));
  }

  // The cell's workload and query stream, made before any timing and reused by the cells after
  // it that share them (cells are ordered group by group, stream by stream).
  void Prepare(const FiltersCell& cell) {
    if (!workload_ || current_group_ != cell.group) {
      workload_.reset();
      // Keep freed memory mapped and reuse it, so repeated builds measure warm memory rather
      // than the kernel's page-fault cost (see harness/cell/run_cell.h).
      KeepFreedMemory();
      const Group& group = groups_[cell.group];
      if (group.source) {
        workload_ = MakeWorkload(*group.source, group.n, p_.queries, SeedOf(group));
      } else {
        p_.trace->Materialise();
        TraceWorkloadOptions options;
        options.key = p_.trace->key;
        options.member_fraction = p_.trace_members;
        options.seed = p_.seed;
        workload_ = TraceWorkload(p_.trace->path, options);
      }
      current_group_ = cell.group;
      current_stream_ = SIZE_MAX;
    }
    if (current_stream_ == cell.stream) return;
    current_stream_ = cell.stream;
    if (groups_[cell.group].source) {
      const std::size_t fractions = p_.positive_fractions.size();
      QueryMix mix;
      mix.count = p_.queries;
      mix.dist = p_.query_dists[cell.stream / fractions];
      mix.positive_fraction = fraction_ = p_.positive_fractions[cell.stream % fractions];
      mix.seed = SeedOf(groups_[cell.group]);
      mix.repeated_negatives = p_.repeated_negatives;
      AddQueries(*workload_, mix);
    } else {
      std::size_t members = 0;
      for (std::uint8_t m : workload_->query_is_member) members += m;
      fraction_ = workload_->queries.empty() ? 0.0 : double(members) / workload_->queries.size();
    }
  }

  std::uint64_t SeedOf(const Group& group) const { return p_.seed + group.key_set; }

  FiltersParams p_;
  std::vector<Group> groups_;
  std::vector<FiltersCell> cells_;
  std::vector<CellPlan> plans_;
  std::optional<Workload> workload_;
  bool prepared_ = false;
  std::size_t current_group_ = SIZE_MAX, current_stream_ = SIZE_MAX;
  double fraction_ = 0;
};

}  // namespace

void ValidateFiltersParams(const FiltersParams& p) {
  if (p.filters.empty()) throw InputError("filters: no filter selected");
  if (p.key_sets < 1) throw InputError("key sets must be at least 1");
  if (p.trace) {
    if (p.key_sets > 1) throw InputError("key sets draw keys from the seed: not with a trace");
    if (p.trace->synth) ValidateSynthOptions(*p.trace->synth);
    if (!p.trace->optional && !p.trace->synth) CheckReadableFile(p.trace->path, "trace");
    if (!(p.trace_members > 0 && p.trace_members <= 1)) {
      throw InputError("trace members must be in (0, 1]");
    }
    return;
  }
  if (p.capacity && *p.capacity < 1) throw InputError("capacity must be at least 1");
  if (!p.load_steps.empty() && !p.capacity) throw InputError("load_steps needs a capacity");
  // A missing word list or key file is found now, not after other cells have run.
  for (const KeySource& source : p.key_sources) {
    if (source.kind == KeySource::Kind::kWords) (void)WordListPath(source.argument);
    if (source.kind == KeySource::Kind::kFile) (void)ReadLines(source.argument, "key file");
  }
}

std::unique_ptr<ExperimentPlan> MakeFiltersPlan(const FiltersParams& params) {
  return std::make_unique<FiltersPlan>(params);
}

namespace {

// One row per parameter: the suite key, its type and range, what it means, what --quick sets,
// and `amqbench run`'s option.
const ParamSpec kFiltersParams[] = {
    {"filters", ParamType::kFilters, {}, "the filters measured (a selector; run: --filter NAMES or all)"},
    {"seed", ParamType::kInt, AtLeast(0), "seed for keys, queries and hash functions (default: the suite's, run: 1)", {}, "seed"},
    {"keys", ParamType::kIntList, AtLeast(1), "keys to insert, one cell per n (default 1000000)", "[20000]", "keys"},
    {"capacity", ParamType::kInt, AtLeast(1), "size every filter for this many keys instead of n (a load sweep: fixed table, n varies)", {}, "capacity"},
    {"load_steps", ParamType::kNumList, OpenClosed(0, 1), "with capacity: n = capacity x step, one cell per step", {}, "load-steps"},
    {"fpr", ParamType::kNumList, Open(0, 1), "target false-positive rates", {}, "fpr"},
    {"bits_per_key", ParamType::kNumList, OpenClosed(0, 64), "target bits per key; not with fpr", {}, "bits-per-key"},
    {"max_load", ParamType::kNumList, OpenClosed(0, 1), "table fill limits (default: the family's)", {}, "max-load"},
    {"positive_fraction", ParamType::kNumList, Between(0, 1), "share of members in the mixed query loop (default 0.5)", {}, "positive-fraction"},
    {"keys_from", ParamType::kStrList, {}, "key distributions: uniform | sequential | strided:S | words:PACKAGE (e.g. words:wamerican) | file:PATH (default uniform)", {}, "keys-from"},
    {"query_dist", ParamType::kStrList, {}, "popularity of the query stream: uniform or zipf:A (default uniform)", {}, "query-dist"},
    {"repeated_negatives", ParamType::kInt, AtLeast(1), "the stream's non-members drawn from this many distinct keys only (repeated queries)", {}, "repeated-negatives"},
    {"churn", ParamType::kInt, AtLeast(0), "erasable dynamic filters: rounds of erase one, insert one, ask churn_queries (0: no churn phase)", {}, "churn"},
    {"churn_queries", ParamType::kInt, Between(0, 1e6), "queries per churn round (default 4)", {}, "churn-queries"},
    {"cache_lines", ParamType::kInt, Between(0, 1e6), "trace the cache lines this many member and absent lookups touch (0: none)", {}, "cache-lines"},
    {"trace", ParamType::kTrace, {}, "replay a capture: every distinct flow is a key, every packet a query; replaces keys, keys_from and query_dist", {}, "trace"},
    {"trace_members", ParamType::kNum, OpenClosed(0, 1), "with trace: share of the distinct flows the filter holds (the first ones seen; default 0.5)", {}, "trace-members"},
    {"queries", ParamType::kInt, AtLeast(1), "keys per timed query loop (default 1000000)", "20000", "queries"},
    {"repeats", ParamType::kInt, Between(1, 1000), "timed repeats per cell, the median reported with min and max (default 3)", "1", "repeats"},
    {"max_kicks", ParamType::kInt, Between(1, 1e6), "cuckoo: evictions before an insert fails (default 500)", {}, "max-kicks"},
    {"key_sets", ParamType::kInt, Between(1, 1e4), "independent tables: key set j (a cell each) draws keys, queries and hash seed from seed + j (default 1; repeats rebuild one table)", {}, "key-sets"},
};

std::unique_ptr<ExperimentPlan> FiltersPlanFrom(const PlanInput& in) {
  const Json& p = in.params;
  FiltersParams f;
  f.filters = in.filters;
  f.seed = in.Get<std::uint64_t>("seed", 1);
  if (in.Has("keys")) f.keys = p["keys"].get<std::vector<std::size_t>>();
  if (in.Has("capacity")) f.capacity = p["capacity"].get<std::size_t>();
  if (in.Has("load_steps")) f.load_steps = p["load_steps"].get<std::vector<double>>();
  if (in.Has("fpr") && in.Has("bits_per_key")) {
    throw InputError("give " + in.Name("fpr") + " or " + in.Name("bits_per_key") + ", not both");
  }
  if (in.Has("fpr")) {
    f.sizings.clear();
    for (double v : p["fpr"]) f.sizings.push_back({v, 0});
  }
  if (in.Has("bits_per_key")) {
    f.sizings.clear();
    for (double v : p["bits_per_key"]) f.sizings.push_back({0, v});
  }
  if (in.Has("max_load")) f.max_loads = p["max_load"].get<std::vector<double>>();
  if (in.Has("positive_fraction")) f.positive_fractions = p["positive_fraction"].get<std::vector<double>>();
  if (in.Has("keys_from")) {
    f.key_sources.clear();
    for (const Json& k : p["keys_from"]) f.key_sources.push_back(KeySource::Parse(k.get<std::string>()));
  }
  if (in.Has("query_dist")) {
    f.query_dists.clear();
    for (const Json& q : p["query_dist"]) {
      f.query_dists.push_back(Popularity::Parse(q.get<std::string>(), in.command_line ? "query-dist" : "query_dist"));
    }
  }
  f.repeated_negatives = in.Get<std::size_t>("repeated_negatives", 0);
  f.churn_rounds = in.Get<std::size_t>("churn", 0);
  f.churn_queries = in.Get<std::size_t>("churn_queries", 4);
  f.cache_lines = in.Get<std::size_t>("cache_lines", 0);
  if (in.Has("trace")) {
    if (in.Has("keys") || in.Has("keys_from") || in.Has("query_dist") || in.Has("positive_fraction")) {
      throw InputError(in.Name("trace") + " sets the keys and the queries: drop " + in.Name("keys") + ", " +
                       in.Name("keys_from") + ", " + in.Name("query_dist") + " and " + in.Name("positive_fraction"));
    }
    f.trace = TraceSource::FromJson(p["trace"], in.cache, in.Name("trace"));
    f.trace_members = in.Get<double>("trace_members", 0.5);
  }
  f.queries = in.Get<std::size_t>("queries", 1000000);
  f.repeats = in.Get<int>("repeats", 3);
  f.max_kicks = in.Get<int>("max_kicks", 500);
  f.key_sets = in.Get<std::size_t>("key_sets", 1);
  if (!f.capacity && !f.load_steps.empty()) throw InputError(in.Name("load_steps") + " needs a " + in.Name("capacity"));
  ValidateFiltersParams(f);
  return MakeFiltersPlan(f);
}

}  // namespace

const KindSpec kFiltersKind{
    "filters", "build each filter over a workload for every combination of the grid's lists, time it, check it, set it beside its theory",
    {std::begin(kFiltersParams), std::end(kFiltersParams)}, true, false, &FiltersPlanFrom};

}  // namespace amq
