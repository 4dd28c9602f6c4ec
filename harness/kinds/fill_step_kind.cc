// harness/kinds/fill_step_kind.cc - the fill_step kind (see the header).
#include "harness/kinds/fill_step_kind.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>

#include "core/errors.h"
#include "core/hashing.h"
#include "core/stats.h"
#include "filters/all.h"
#include "harness/cell/kernels.h"
#include "harness/cell/process_memory.h"
#include "harness/cell/run_cell.h"
#include "harness/cell/stat_json.h"
#include "harness/run/cell_id.h"
#include "workloads/uniform.h"

namespace amq {

std::size_t FillStepEnd(std::size_t capacity, double share, std::size_t step) {
  const double end = std::round(double(step) * share * double(capacity));
  return std::min(capacity, static_cast<std::size_t>(end));
}

std::size_t FillStepCount(std::size_t capacity, double share) {
  std::size_t steps = 0;
  while (FillStepEnd(capacity, share, steps) < capacity) ++steps;
  return steps;
}

namespace {

// The timed operations of a step, in the order a step runs them.
enum Op : std::size_t { kInsert, kMember, kAbsent, kErase, kReinsert, kOps };
constexpr const char* kOpFields[kOps] = {"step_insert_ns", "step_member_ns", "step_absent_ns", "step_erase_ns",
                                         "step_reinsert_ns"};

// What a fill saw at one step. The filter's state (load, theory, size, statistics) is the
// warm-up's, taken where the FPR is measured: after the step's inserts, before its erases; `held`
// is counted once the erased keys are back.
struct StepState {
  std::size_t offered = 0;          // keys offered so far (the fill's numerator)
  std::size_t held = 0;             // keys the filter holds
  std::size_t refused = 0;          // this step's inserts the filter refused
  std::size_t refused_total = 0;
  std::size_t false_positives = 0;  // of the step's absent lookups
  std::size_t erase_misses = 0;     // held keys whose erase the filter refused (a lost key)
  std::size_t reinsert_failures = 0;
  std::size_t false_negatives = 0;  // held keys not found, over the exact set and the samples
  std::size_t erased = 0;           // keys erased and inserted again (0: not erasable)
  double load_factor = -1;          // -1: the filter has none
  Theory theory{};
  std::size_t size_bytes = 0;
  Json stats;                       // the filter's declared statistics at this step
};

// One cell's inputs, the same in every fill.
struct FillInputs {
  std::span<const std::uint64_t> members;  // n keys, offered in this order
  std::span<const std::uint64_t> absent;   // `queries` fresh non-members per step, step after step
  FilterParams params;
  double share = 0.05;
  std::size_t steps = 0;
  std::size_t queries = 0;
  std::uint64_t sample_seed = 0;
};

// Per step and operation, the total ns of each timed fill.
using StepTimings = std::vector<std::array<std::vector<double>, kOps>>;

struct FillOutcome {
  std::vector<StepState> states;  // the warm-up fill's
  StepTimings timings;
};

// The held keys a step looks up: `count` draws with replacement, as the filters kind samples.
void SampleMembers(std::span<const std::uint64_t> held, std::size_t count, std::uint64_t seed,
                   std::vector<std::uint64_t>& out) {
  XorShift64Star rng(seed);
  out.resize(held.empty() ? 0 : count);
  for (auto& key : out) key = held[ReduceRange(rng.Next(), held.size())];
}

// The held keys a step erases and inserts again: `count` distinct positions, without
// replacement (a key erased twice would take a matching fingerprint of another key with it),
// spread over the whole insertion history by a stride coprime to the number held, from a seeded
// start - O(count), where a shuffle of every held position would cost O(n) a step.
void SampleErasePositions(std::size_t held, std::size_t count, std::uint64_t seed, std::vector<std::size_t>& out) {
  out.clear();
  if (held == 0 || count == 0) return;
  XorShift64Star rng(seed);
  const std::size_t start = ReduceRange(rng.Next(), held);
  std::size_t stride = std::max<std::size_t>(1, held / count) + ReduceRange(rng.Next(), 7);
  while (std::gcd(stride, held) != 1) ++stride;
  for (std::size_t i = 0; i < count; ++i) out.push_back((start + i * (stride % held)) % held);
}

// One fill of a fresh filter through every step, returning each step's state. The warm-up fill
// (`timings` null) checks every held key at every step and takes the filter's state there; a
// timed fill adds each step's timings and checks only its samples. The loops timed are
// harness/cell/kernels.h's, called directly on F.
template <class F>
std::vector<StepState> RunFill(const FillInputs& in, StepTimings* timings) {
  const bool warm_up = timings == nullptr;
  F filter(in.params);
  std::vector<StepState> states;
  std::vector<std::uint64_t> held, members_sample, erase_sample;
  std::vector<std::size_t> failed, erase_positions, dropped;
  held.reserve(in.members.size());
  std::size_t refused_total = 0;
  for (std::size_t step = 1; step <= in.steps; ++step) {
    StepState s;
    const std::size_t begin = FillStepEnd(in.members.size(), in.share, step - 1);
    const std::size_t end = FillStepEnd(in.members.size(), in.share, step);
    const auto keys = in.members.subspan(begin, end - begin);
    std::array<double, kOps> ns{};

    failed.clear();
    ns[kInsert] = TimeNs([&] { KeepAlive(InsertAll(filter, keys, failed)); });
    for (std::size_t i = 0, next = 0; i < keys.size(); ++i) {
      if (next < failed.size() && failed[next] == i) {
        ++next;
      } else {
        held.push_back(keys[i]);
      }
    }
    refused_total += failed.size();
    s.offered = end;
    s.held = held.size();
    s.refused = failed.size();
    s.refused_total = refused_total;

    const std::uint64_t step_seed = in.sample_seed + step;
    SampleMembers(held, in.queries, step_seed, members_sample);
    std::size_t found = 0, false_positives = 0;
    ns[kMember] = TimeNs([&] { KeepAlive(found = CountContained(filter, members_sample)); });
    const auto absent = in.absent.subspan((step - 1) * in.queries, in.queries);
    ns[kAbsent] = TimeNs([&] { KeepAlive(false_positives = CountContained(filter, absent)); });
    s.false_negatives = members_sample.size() - found;
    s.false_positives = false_positives;
    if (warm_up) {
      if constexpr (HasLoadFactor<F>) s.load_factor = filter.load_factor();
      s.theory = filter.theory();
      s.size_bytes = filter.size_in_bytes();
      s.stats = Json::object();
      PutFilterStats(filter, s.stats);
    }

    if constexpr (ErasableFilter<F>) {
      SampleErasePositions(held.size(), std::min(in.queries, held.size()), ~step_seed, erase_positions);
      erase_sample.clear();
      for (std::size_t pos : erase_positions) erase_sample.push_back(held[pos]);
      std::size_t erased = 0;
      ns[kErase] = TimeNs([&] { KeepAlive(erased = EraseAll(filter, erase_sample)); });
      failed.clear();
      ns[kReinsert] = TimeNs([&] { KeepAlive(InsertAll(filter, erase_sample, failed)); });
      s.erased = erase_sample.size();
      s.erase_misses = erase_sample.size() - erased;
      s.reinsert_failures = failed.size();
      // A key the filter would not take back is no longer held: drop it from the exact set,
      // highest position first so that each swap moves a key that stays.
      dropped.clear();
      for (std::size_t i : failed) dropped.push_back(erase_positions[i]);
      std::sort(dropped.rbegin(), dropped.rend());
      for (std::size_t pos : dropped) {
        held[pos] = held.back();
        held.pop_back();
      }
      s.held = held.size();
    }

    if (warm_up) {
      // The exact check: every held key, once the step's erases and re-inserts are done.
      s.false_negatives += held.size() - CountContained(filter, held);
    } else {
      auto& step_ns = (*timings)[step - 1];
      for (std::size_t op = 0; op < kOps; ++op) {
        if (op < kErase || ErasableFilter<F>) step_ns[op].push_back(ns[op]);
      }
    }
    states.push_back(std::move(s));
  }
  return states;
}

// Every fill of one cell: the warm-up's states, with each timed fill's sampled misses added (a
// filter that were not the same at the same seed could not hide a lost key behind the warm-up).
template <class F>
FillOutcome RunFills(const FillInputs& in, int repeats) {
  FillOutcome out;
  out.states = RunFill<F>(in, nullptr);
  out.timings.resize(in.steps);
  for (int pass = 0; pass < repeats; ++pass) {
    const std::vector<StepState> timed = RunFill<F>(in, &out.timings);
    for (std::size_t step = 0; step < in.steps; ++step) {
      out.states[step].false_negatives += timed[step].false_negatives + timed[step].erase_misses;
    }
  }
  return out;
}

using RunFillsFn = FillOutcome (*)(const FillInputs&, int);

// The typed fills of every dynamic filter in filters/all.h, found by name once per cell.
template <class... Fs>
RunFillsFn RunFillsFor(std::string_view name, TypeList<Fs...>) {
  RunFillsFn found = nullptr;
  (
      [&] {
        if constexpr (DynamicFilter<Fs>) {
          if (Fs::kName == name) found = &RunFills<Fs>;
        }
      }(),
      ...);
  return found;
}

class FillStepPlan : public ExperimentPlan {
 public:
  explicit FillStepPlan(const FillStepParams& p) : p_(p) {
    for (std::size_t n : p_.capacities) {
      for (const FilterEntry* f : p_.filters) {
        const std::size_t steps = FillStepCount(n, p_.step_share);
        const std::size_t q = QueriesFor(n);
        CellPlan c;
        c.identity = {{"kind", "fill_step"},       {"filter", std::string(f->name)}, {"capacity", n},
                      {"step_share", p_.step_share}, {"target_fpr", p_.fpr},         {"max_load", p_.max_load},
                      {"queries", q}};
        c.cell_id = CellId(c.identity);
        c.seed = p_.seed;
        // In the suite's unit (key operations at ~10^7 a second, runner.h): n inserts and, per
        // step, the lookups (and erases and re-inserts) of `queries` keys, in the warm-up and
        // each timed fill; the warm-up's exact checks look up every held key at every step, about
        // n (steps + 1) / 2 lookups.
        const double per_step = double(q) * (f->erasable ? 4.0 : 2.0);
        c.cost = double(p_.repeats + 1) * (double(n) + double(steps) * per_step) + double(n) * double(steps + 1) / 2;
        c.label = std::string(f->name) + " n=" + std::to_string(n);
        cells_.push_back({f, n, RunFillsFor(f->name, AllFilters{})});
        plans_.push_back(std::move(c));
      }
    }
  }

  const std::vector<CellPlan>& cells() const override { return plans_; }

  std::vector<Json> Run(std::size_t i) override {
    const Cell& cell = cells_[i];
    // Keep freed memory mapped and reuse it, so the timed fills insert into memory the warm-up
    // already faulted in (the filters kind does the same; harness/cell/run_cell.h).
    KeepFreedMemory();
    const std::uint64_t seed = SpreadSeed(p_.seed);
    const std::size_t n = cell.n, q = QueriesFor(n), steps = FillStepCount(n, p_.step_share);
    std::vector<std::uint64_t> members(n), absent(steps * q);
    for (std::size_t k = 0; k < n; ++k) members[k] = UniformKey(seed, KeyStream::kMembers, k);
    for (std::size_t k = 0; k < absent.size(); ++k) absent[k] = UniformKey(seed, KeyStream::kNonMembers, k);
    FillInputs in;
    in.members = members;
    in.absent = absent;
    in.params.capacity = n;
    in.params.target_fpr = p_.fpr;
    in.params.max_load = p_.max_load;
    in.params.seed = seed;
    in.share = p_.step_share;
    in.steps = steps;
    in.queries = q;
    in.sample_seed = seed ^ 0x66696c6cULL;
    const FillOutcome outcome = cell.run(in, p_.repeats);

    const bool erasable = cell.filter->erasable;
    std::vector<Json> lines;
    std::size_t false_negatives = 0, erase_misses = 0, reinsert_failures = 0;
    for (std::size_t k = 0; k < steps; ++k) {
      const StepState& s = outcome.states[k];
      Json r = Common(cell);
      r["record"] = "step";
      r["step"] = k + 1;
      r["keys"] = s.offered;
      r["fill"] = double(s.offered) / double(n);
      r["keys_inserted"] = s.held;
      r["step_insert_failures"] = s.refused;
      r["insert_failures"] = s.refused_total;
      if (s.load_factor >= 0) r["load_factor"] = s.load_factor;
      const auto& ns = outcome.timings[k];
      PutTiming(r, kOpFields[kInsert], ns[kInsert], s.offered - FillStepEnd(n, p_.step_share, k));
      PutTiming(r, kOpFields[kMember], ns[kMember], q);
      PutTiming(r, kOpFields[kAbsent], ns[kAbsent], q);
      PutTiming(r, kOpFields[kErase], ns[kErase], erasable ? s.erased : 0);
      PutTiming(r, kOpFields[kReinsert], ns[kReinsert], erasable ? s.erased : 0);
      r["erase_misses"] = s.erase_misses;
      r["reinsert_failures"] = s.reinsert_failures;
      r["false_negatives"] = s.false_negatives;
      PutFpr(r, s.false_positives, q);
      r["fpr_theory"] = s.theory.fpr;
      r["size_bytes"] = s.size_bytes;
      for (const auto& [name, value] : s.stats.items()) {
        if (r.contains(name)) throw std::logic_error("statistic '" + name + "' collides with a fill_step field");
        r[name] = value;
      }
      false_negatives += s.false_negatives;
      erase_misses += s.erase_misses;
      reinsert_failures += s.reinsert_failures;
      lines.push_back(std::move(r));
    }
    const StepState& last = outcome.states.back();
    Json r = Common(cell);
    r["fill_steps"] = steps;
    r["keys"] = n;
    r["keys_inserted"] = last.held;
    r["insert_failures"] = last.refused_total;
    r["erase_misses"] = erase_misses;
    r["reinsert_failures"] = reinsert_failures;
    r["false_negatives"] = false_negatives;
    if (last.load_factor >= 0) r["load_factor"] = last.load_factor;
    PutFpr(r, last.false_positives, q);
    r["fpr_theory"] = last.theory.fpr;
    r["size_bytes"] = last.size_bytes;
    r["bits_per_key"] = last.held ? 8.0 * double(last.size_bytes) / double(last.held) : 0.0;
    r["bits_per_key_theory"] = last.theory.bits_per_key;
    lines.push_back(std::move(r));
    return lines;
  }

  std::string Describe(const Json& r) const override {
    char text[200];
    char load[32] = "";
    if (r.contains("load_factor")) std::snprintf(load, sizeof load, " (load %.3f)", r["load_factor"].get<double>());
    std::snprintf(text, sizeof text, "%zu steps to %zu keys%s, %zu refused, FPR %.4f when full",
                  r["fill_steps"].get<std::size_t>(), r["keys_inserted"].get<std::size_t>(), load,
                  r["insert_failures"].get<std::size_t>(), r["fpr"].get<double>());
    return text;
  }

  // A held key not found, or whose erase the filter refused, is lost: the cell is broken.
  // Refused inserts are what a full filter does, counted, not a fault.
  bool Broken(const Json& r) const override {
    return r.value("false_negatives", 0) != 0 || r.value("erase_misses", 0) != 0;
  }

 private:
  struct Cell {
    const FilterEntry* filter;
    std::size_t n;
    RunFillsFn run;
  };

  std::size_t QueriesFor(std::size_t n) const {
    return p_.queries ? p_.queries : std::max<std::size_t>(1, FillStepEnd(n, p_.step_share, 1));
  }

  Json Common(const Cell& cell) const {
    Json r;
    r["filter"] = std::string(cell.filter->name);
    r["family"] = std::string(cell.filter->family);
    r["dynamic"] = true;
    r["erasable"] = cell.filter->erasable;
    r["capacity"] = cell.n;
    r["step_share"] = p_.step_share;
    r["target_fpr"] = p_.fpr;
    r["max_load"] = p_.max_load > 0 ? Json(p_.max_load) : Json(nullptr);
    r["queries"] = QueriesFor(cell.n);
    r["repeats"] = p_.repeats;
    return r;
  }

  static void PutFpr(Json& r, std::size_t false_positives, std::size_t queries) {
    const Interval ci = WilsonInterval(false_positives, queries);
    r["false_positives"] = false_positives;
    r["negative_queries"] = queries;
    r["fpr"] = double(false_positives) / double(queries);
    r["fpr_ci_low"] = ci.low;
    r["fpr_ci_high"] = ci.high;
  }

  FillStepParams p_;
  std::vector<Cell> cells_;
  std::vector<CellPlan> plans_;
};

const ParamSpec kFillStepParams[] = {
    {"filters", ParamType::kFilters, {}, "dynamic filters (dynamic = true); the erasable ones also time erase and re-insert"},
    {"seed", ParamType::kInt, AtLeast(0), "members, non-members, samples and hash seed (default: the suite's)"},
    {"capacity", ParamType::kIntList, Between(1, 1e9), "keys each filter is sized for (n), filled to 100% of it; one cell per n"},
    {"step_share", ParamType::kNum, OpenClosed(0, 1), "share of n inserted per step (default 0.05: 20 steps)"},
    {"fpr", ParamType::kNum, Open(0, 1), "target FPR of the filters sized from it (default 0.01)"},
    {"max_load", ParamType::kNum, OpenClosed(0, 1), "table fill limit the tables are sized with, reached at 100% of n (default: each family's own)"},
    {"queries", ParamType::kInt, Between(1, 1e9), "keys per timed lookup, erase and re-insert loop at each step (default: one step's keys; erases: at most those held)"},
    {"repeats", ParamType::kInt, Between(1, 1000), "timed fills after the untimed warm-up; timings are median, _min and _max over them (default 3)"},
};

std::unique_ptr<ExperimentPlan> FillStepPlanFrom(const PlanInput& in) {
  FillStepParams f;
  for (const FilterEntry* filter : in.filters) {
    if (!filter->dynamic || !RunFillsFor(filter->name, AllFilters{})) {
      throw InputError("filter '" + std::string(filter->name) + "' is built all at once: fill_step takes dynamic filters");
    }
    f.filters.push_back(filter);
  }
  if (!in.Has("capacity")) throw InputError("give " + in.Name("capacity"));
  f.capacities = in.params["capacity"].get<std::vector<std::size_t>>();
  f.step_share = in.Get("step_share", f.step_share);
  for (std::size_t n : f.capacities) {
    if (double(n) * f.step_share < 1) {
      throw InputError(in.Name("step_share") + " of " + in.Name("capacity") + " " + std::to_string(n) +
                       " is less than one key a step");
    }
  }
  f.fpr = in.Get("fpr", f.fpr);
  f.max_load = in.Get("max_load", 0.0);
  f.queries = in.Get<std::size_t>("queries", 0);
  f.repeats = in.Get("repeats", f.repeats);
  f.seed = in.Get<std::uint64_t>("seed", 1);
  return MakeFillStepPlan(f);
}

}  // namespace

std::unique_ptr<ExperimentPlan> MakeFillStepPlan(const FillStepParams& params) {
  return std::make_unique<FillStepPlan>(params);
}

const KindSpec kFillStepKind{
    "fill_step", "dynamic filters filled in steps of 5% of their capacity, each operation timed within each step",
    {std::begin(kFillStepParams), std::end(kFillStepParams)}, true, false, &FillStepPlanFrom,
    {
        {"step", "integer", "", "fill_step: the step, 1 .. steps; after it, round(step * step_share * capacity) keys were offered", "fill_step steps", kIdentity},
        {"fill_steps", "integer", "count", "fill_step: steps to fill the capacity", "fill_step"},
        {"step_share", "number", "fraction", "fill_step: share of the capacity inserted per step", "fill_step"},
        {"fill", "number", "fraction", "fill_step: keys offered so far / capacity (the fill-step charts' x axis; the table's load is load_factor)", "fill_step steps"},
        {"step_insert_failures", "integer", "count", "fill_step: this step's inserts the filter refused (insert_failures: all steps so far)", "fill_step steps"},
        {"step_insert_ns", "number|null", "ns/key", "fill_step: ns per key to insert the step's keys, median of the timed fills", "fill_step steps", kTiming},
        {"step_insert_ns_min", "number", "ns/key", "fastest timed fill", "fill_step steps", kTiming},
        {"step_insert_ns_max", "number", "ns/key", "slowest timed fill", "fill_step steps", kTiming},
        {"step_insert_ns_samples", "array", "ns/key", "each timed fill, in the order they ran", "fill_step steps", kTiming},
        {"step_member_ns", "number|null", "ns/key", "fill_step: ns per lookup of `queries` held keys sampled with replacement, after the step's inserts (median of the timed fills)", "fill_step steps", kTiming},
        {"step_member_ns_min", "number", "ns/key", "fastest timed fill", "fill_step steps", kTiming},
        {"step_member_ns_max", "number", "ns/key", "slowest timed fill", "fill_step steps", kTiming},
        {"step_member_ns_samples", "array", "ns/key", "each timed fill, in the order they ran", "fill_step steps", kTiming},
        {"step_absent_ns", "number|null", "ns/key", "fill_step: ns per lookup of `queries` fresh non-members, after the step's inserts (median of the timed fills)", "fill_step steps", kTiming},
        {"step_absent_ns_min", "number", "ns/key", "fastest timed fill", "fill_step steps", kTiming},
        {"step_absent_ns_max", "number", "ns/key", "slowest timed fill", "fill_step steps", kTiming},
        {"step_absent_ns_samples", "array", "ns/key", "each timed fill, in the order they ran", "fill_step steps", kTiming},
        {"step_erase_ns", "number|null", "ns/key", "fill_step, erasable filters: ns per erase of up to `queries` distinct held keys (median of the timed fills); null for the others", "fill_step steps", kTiming},
        {"step_erase_ns_min", "number", "ns/key", "fastest timed fill", "fill_step steps", kTiming},
        {"step_erase_ns_max", "number", "ns/key", "slowest timed fill", "fill_step steps", kTiming},
        {"step_erase_ns_samples", "array", "ns/key", "each timed fill, in the order they ran", "fill_step steps", kTiming},
        {"step_reinsert_ns", "number|null", "ns/key", "fill_step, erasable filters: ns per insert of the erased keys again, which restores the step's load (median of the timed fills); null for the others", "fill_step steps", kTiming},
        {"step_reinsert_ns_min", "number", "ns/key", "fastest timed fill", "fill_step steps", kTiming},
        {"step_reinsert_ns_max", "number", "ns/key", "slowest timed fill", "fill_step steps", kTiming},
        {"step_reinsert_ns_samples", "array", "ns/key", "each timed fill, in the order they ran", "fill_step steps", kTiming},
        {"erase_misses", "integer", "keys", "fill_step: erases of held keys the filter refused (a lost key: must be 0); steps: this step's, cell: all steps'", "fill_step"},
        {"reinsert_failures", "integer", "count", "fill_step: erased keys the filter refused to take back (no longer held); steps: this step's, cell: all steps'", "fill_step"},
    }};

}  // namespace amq
