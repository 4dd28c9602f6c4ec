// harness/kinds/concurrent_inserts_kind.cc - the concurrent_inserts kind (see the header).
#include "harness/kinds/concurrent_inserts_kind.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <span>
#include <string>

#include "core/concurrent_insert.h"
#include "core/errors.h"
#include "core/hashing.h"
#include "core/stats.h"
#include "filters/all.h"
#include "harness/cell/kernels.h"
#include "harness/kinds/threads_kind.h"
#include "harness/machine/thread_team.h"
#include "harness/run/cell_id.h"
#include "workloads/uniform.h"

namespace amq {
namespace {

struct InsertsOutcome {
  std::vector<double> inserts_per_second;  // each timed run's
  std::vector<double> cpu_shares;
  TeamRun placement;                       // the last timed run's
  std::size_t false_negatives = 0;         // over every run, warm-up included
  std::size_t insert_failures = 0;         // the last run's
  std::size_t size_bytes = 0;
  std::size_t lock_bytes = 0;
  std::size_t false_positives = 0;         // the last run's filter, over the absent stream
  double fpr_theory = 0;
};

template <ConcurrentInsertFilter F>
InsertsOutcome RunInsertsCell(std::span<const std::uint64_t> keys, std::span<const std::uint64_t> absent,
                              const FilterParams& params, int threads, int repeats) {
  InsertsOutcome out;
  // A byte per key (not a bit: threads write their own slices' bytes at once).
  std::vector<std::uint8_t> accepted(keys.size());
  for (int run = 0; run <= repeats; ++run) {  // run 0: the untimed warm-up
    auto filter = std::make_unique<F>(params);  // pages written here, before the clock
    InsertLocks locks(filter->insert_lock_count());
    const TeamRun team = RunTeam(threads, [](int) {}, [&](int t) {
      const std::size_t begin = TeamSliceBegin(keys.size(), t, threads);
      const std::size_t count = TeamSliceBegin(keys.size(), t + 1, threads) - begin;
      InsertConcurrentSlice(*filter, locks, keys.subspan(begin, count), std::span(accepted).subspan(begin, count));
    });
    // The exact key set, after the threads were joined: every accepted key must be found.
    std::size_t refused = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (!accepted[i]) {
        ++refused;
      } else if (!filter->contains(keys[i])) {
        ++out.false_negatives;
      }
    }
    out.insert_failures = refused;
    if (run > 0) {
      out.inserts_per_second.push_back(double(keys.size()) * 1e9 / std::max(team.wall_ns, 1.0));
      out.cpu_shares.push_back(team.cpu_share);
      out.placement = team;
    }
    if (run == repeats) {
      for (std::uint64_t k : absent) out.false_positives += filter->contains(k) ? 1 : 0;
      out.size_bytes = filter->size_in_bytes();
      out.lock_bytes = locks.size_in_bytes();
      out.fpr_theory = filter->theory().fpr;
    }
  }
  return out;
}

using RunInsertsFn = InsertsOutcome (*)(std::span<const std::uint64_t>, std::span<const std::uint64_t>,
                                        const FilterParams&, int, int);

template <class... Fs>
RunInsertsFn RunInsertsFor(std::string_view name, TypeList<Fs...>) {
  RunInsertsFn found = nullptr;
  ((Fs::kName == name ? (found = &RunInsertsCell<Fs>, 0) : 0), ...);
  return found;
}

template <class... Fs>
std::string ConcurrentNames(TypeList<Fs...>) {
  std::string names;
  ((names += (names.empty() ? "" : ", ") + std::string(Fs::kName)), ...);
  return names;
}

class ConcurrentInsertsPlan : public ExperimentPlan {
 public:
  explicit ConcurrentInsertsPlan(const ConcurrentInsertsParams& p) : p_(p) {
    for (std::size_t n : p_.keys) {
      for (const FilterEntry* f : p_.filters) {
        for (int t : p_.threads) {
          CellPlan c;
          c.identity = {{"kind", "concurrent_inserts"}, {"filter", std::string(f->name)}, {"keys", n},
                        {"threads", t}, {"queries", p_.queries}, {"target_fpr", p_.fpr}};
          c.cell_id = CellId(c.identity);
          c.seed = p_.seed;
          // In the suite's unit (key operations at ~10^7 a second, runner.h): repeats + 1 loads
          // of n keys on T threads, each checked by n lookups on one.
          c.cost = double(p_.repeats + 1) * double(n) * (1.0 / double(std::min(t, Cpus())) + 1.0) + double(p_.queries);
          c.label = std::string(f->name) + " n=" + std::to_string(n) + " T=" + std::to_string(t);
          cells_.push_back({f, n, t, RunInsertsFor(f->name, ConcurrentInsertFilters{})});
          plans_.push_back(std::move(c));
        }
      }
    }
  }

  const std::vector<CellPlan>& cells() const override { return plans_; }

  std::vector<Json> Run(std::size_t i) override {
    const Cell& cell = cells_[i];
    const std::uint64_t seed = SpreadSeed(p_.seed);
    if (keys_.size() != cell.n || keys_seed_ != seed) {
      keys_.resize(cell.n);
      for (std::size_t k = 0; k < cell.n; ++k) keys_[k] = UniformKey(seed, KeyStream::kMembers, k);
      absent_.resize(p_.queries);
      for (std::size_t k = 0; k < p_.queries; ++k) absent_[k] = UniformKey(seed, KeyStream::kNonMembers, k);
      keys_seed_ = seed;
    }
    FilterParams params;
    params.capacity = cell.n;
    params.target_fpr = p_.fpr;
    params.seed = seed;
    const InsertsOutcome o = cell.run(keys_, absent_, params, cell.threads, p_.repeats);

    Json r;
    r["filter"] = std::string(cell.filter->name);
    r["family"] = std::string(cell.filter->family);
    r["dynamic"] = cell.filter->dynamic;
    r["erasable"] = cell.filter->erasable;
    r["keys"] = cell.n;
    r["threads"] = cell.threads;
    r["queries"] = p_.queries;
    r["target_fpr"] = p_.fpr;
    r["repeats"] = p_.repeats;
    r["keys_inserted"] = cell.n - o.insert_failures;
    r["insert_failures"] = o.insert_failures;
    r["size_bytes"] = o.size_bytes;
    r["lock_bytes"] = o.lock_bytes;
    r["bits_per_key"] = cell.n > o.insert_failures ? 8.0 * double(o.size_bytes) / double(cell.n - o.insert_failures) : 0.0;
    r["false_negatives"] = o.false_negatives;
    r["fpr_after_concurrent_inserts"] = p_.queries ? double(o.false_positives) / double(p_.queries) : 0.0;
    r["fpr_theory"] = o.fpr_theory;
    const Summary rate = Summarize(o.inserts_per_second);
    const std::string base_key = std::string(cell.filter->name) + " " + std::to_string(cell.n);
    if (cell.threads == 1) one_thread_[base_key] = rate.median;
    r["inserts_per_second"] = rate.median;
    r["inserts_per_second_min"] = rate.min;
    r["inserts_per_second_max"] = rate.max;
    r["inserts_per_second_samples"] = o.inserts_per_second;
    const auto base = one_thread_.find(base_key);
    r["insert_speedup"] = base != one_thread_.end() && base->second > 0 ? Json(rate.median / base->second) : Json(nullptr);
    PutTeamPlacement(r, o.placement, Summarize(o.cpu_shares).median);
    return {r};
  }

  std::string Describe(const Json& r) const override {
    char text[200];
    const Json& s = r["insert_speedup"];
    std::snprintf(text, sizeof text, "inserts/s %.3g (%.2fx), refused %zu; CPUs %s", r["inserts_per_second"].get<double>(),
                  s.is_number() ? s.get<double>() : 0.0, r["insert_failures"].get<std::size_t>(),
                  r["thread_cpus"].dump().c_str());
    return text;
  }

  bool Broken(const Json& r) const override { return r.value("false_negatives", 0) != 0; }

 private:
  struct Cell {
    const FilterEntry* filter;
    std::size_t n;
    int threads;
    RunInsertsFn run;
  };

  static int Cpus() { return static_cast<int>(PlacementCpus().size()); }

  ConcurrentInsertsParams p_;
  std::vector<Cell> cells_;
  std::vector<CellPlan> plans_;
  std::vector<std::uint64_t> keys_, absent_;
  std::uint64_t keys_seed_ = 0;
  std::map<std::string, double> one_thread_;  // (filter, n) -> T = 1 median
};

const ParamSpec kConcurrentInsertsParams[] = {
    {"filters", ParamType::kFilters, {}, "filters with a concurrent insert mode (core/concurrent_insert.h)"},
    {"seed", ParamType::kInt, AtLeast(0), "keys, non-members and hash seed (default: the suite's)"},
    {"keys", ParamType::kIntList, Between(1, 1e9), "keys (n) each filter is sized for and loaded with; one set of cells per n"},
    {"threads", ParamType::kIntList, Between(1, 4096), "thread counts T, 1 among them (the speedups' base); more than the CPUs is allowed (cpu_share says so) (default: 1, 2, 4, ... up to the CPUs this process may use, and that count)"},
    {"queries", ParamType::kInt, Between(1, 1e10), "fresh non-members looked up in the last run's filter, for its FPR (default 10^5)"},
    {"fpr", ParamType::kNum, Open(0, 1), "target FPR of the filters sized from it (default 0.01)"},
    {"repeats", ParamType::kInt, Between(1, 1000), "timed loads after the untimed warm-up; the median is reported with min and max (default 5)"},
};

std::unique_ptr<ExperimentPlan> ConcurrentInsertsPlanFrom(const PlanInput& in) {
  ConcurrentInsertsParams p;
  for (const FilterEntry* filter : in.filters) {
    if (!RunInsertsFor(filter->name, ConcurrentInsertFilters{})) {
      throw InputError("filter '" + std::string(filter->name) + "' has no concurrent insert mode; those that do: " +
                       ConcurrentNames(ConcurrentInsertFilters{}));
    }
    p.filters.push_back(filter);
  }
  if (!in.Has("keys")) throw InputError("give " + in.Name("keys"));
  p.keys = in.params["keys"].get<std::vector<std::size_t>>();
  p.threads = ThreadCountsFrom(in);
  for (int t : p.threads) {
    for (std::size_t n : p.keys) {
      if (std::size_t(t) > n) {
        throw InputError(in.Name("keys") + " " + std::to_string(n) + " gives no key to some of " + std::to_string(t) +
                         " threads");
      }
    }
  }
  p.queries = in.Get<std::size_t>("queries", p.queries);
  p.fpr = in.Get("fpr", p.fpr);
  p.repeats = in.Get("repeats", p.repeats);
  p.seed = in.Get<std::uint64_t>("seed", 1);
  return MakeConcurrentInsertsPlan(p);
}

std::vector<FieldSpec> ConcurrentInsertsFields() {
  const char* kind = "concurrent_inserts";
  std::vector<FieldSpec> fields = {
      {"lock_bytes", "integer", "bytes", "concurrent_inserts: the locks the filter's concurrent inserts take turns on (one byte each), beside size_bytes", kind},
      {"fpr_after_concurrent_inserts", "number", "fraction", "concurrent_inserts: false positives over `queries` fresh non-members in the last run's filter. A filter whose layout depends on the insert order (cuckoo placement, the VQF's block choice) may answer differently from run to run at T > 1, so it is recorded like a measurement of the machine, never compared exactly", kind, kMachine},
      {"inserts_per_second", "number", "inserts/s", "concurrent_inserts: n / the wall time from the barrier to the last thread's end, median of the timed runs", kind, kMachine},
      {"inserts_per_second_min", "number", "inserts/s", "slowest timed run", kind, kMachine},
      {"inserts_per_second_max", "number", "inserts/s", "fastest timed run", kind, kMachine},
      {"inserts_per_second_samples", "array", "inserts/s", "each timed run, in the order they ran", kind, kMachine},
      {"insert_speedup", "number|null", "x", "concurrent_inserts: inserts_per_second / the T = 1 median of the same filter and n; null when that cell did not run in this process", kind, kMachine},
  };
  // threads, thread_cpus, pinned, cpu_share, ...: the thread team's fields, which the threads
  // kind declares (ThreadTeamFields), not declared twice.
  return fields;
}

}  // namespace

std::unique_ptr<ExperimentPlan> MakeConcurrentInsertsPlan(const ConcurrentInsertsParams& params) {
  return std::make_unique<ConcurrentInsertsPlan>(params);
}

const KindSpec kConcurrentInsertsKind{
    "concurrent_inserts", "T pinned threads loading one filter at once through its concurrent insert mode: throughput and speedup",
    {std::begin(kConcurrentInsertsParams), std::end(kConcurrentInsertsParams)}, true, false, &ConcurrentInsertsPlanFrom,
    ConcurrentInsertsFields()};

}  // namespace amq
