// harness/kinds/absent_deletes_kind.cc - the absent_deletes kind (see the header).
#include "harness/kinds/absent_deletes_kind.h"

#include <cstdio>
#include <span>
#include <string>

#include "core/errors.h"
#include "core/hashing.h"
#include "filters/all.h"
#include "harness/cell/kernels.h"
#include "harness/run/cell_id.h"
#include "workloads/uniform.h"

namespace amq {
namespace {

// One table's counts.
struct TableCounts {
  std::size_t held = 0;                // members the filter accepted
  std::size_t false_negatives = 0;     // before the absent deletes: must be 0
  std::size_t accepted = 0;            // absent deletes the filter accepted
  std::size_t false_negatives_after = 0;
  double load_factor = 0;
};

using RunTable = TableCounts (*)(std::span<const std::uint64_t> members,
                                 std::span<const std::uint64_t> absent, const FilterParams&);

template <class F>
TableCounts RunTableOf(std::span<const std::uint64_t> members, std::span<const std::uint64_t> absent,
                       const FilterParams& params) {
  F filter(params);
  std::vector<std::uint64_t> held;
  held.reserve(members.size());
  for (std::uint64_t key : members) {
    if (filter.insert(key)) held.push_back(key);
  }
  TableCounts t;
  t.held = held.size();
  t.false_negatives = held.size() - CountContained(filter, held);
  if constexpr (HasLoadFactor<F>) t.load_factor = filter.load_factor();
  for (std::uint64_t key : absent) t.accepted += filter.erase(key) ? 1 : 0;
  t.false_negatives_after = held.size() - CountContained(filter, held);
  return t;
}

// The typed run of every erasable filter in filters/all.h, found by name once per cell.
template <class... Fs>
RunTable RunTableFor(std::string_view name, TypeList<Fs...>) {
  RunTable found = nullptr;
  (
      [&] {
        if constexpr (DynamicFilter<Fs> && ErasableFilter<Fs>) {
          if (Fs::kName == name) found = &RunTableOf<Fs>;
        }
      }(),
      ...);
  return found;
}

class AbsentDeletesPlan : public ExperimentPlan {
 public:
  explicit AbsentDeletesPlan(const AbsentDeletesParams& p) : p_(p) {
    for (std::size_t n : p_.keys) {
      for (const FilterEntry* f : p_.filters) {
        const std::size_t absent = AbsentFor(n);
        CellPlan c;
        c.identity = {{"kind", "absent_deletes"}, {"filter", std::string(f->name)}, {"keys", n},
                      {"key_sets", p_.key_sets},        {"absent_deletes", absent},
                      {"target_fpr", p_.fpr},       {"max_load", p_.max_load}};
        c.cell_id = CellId(c.identity);
        c.seed = p_.seed;
        // In the suite's unit (key operations at ~10^7 a second, runner.h): per table n
        // inserts, two lookups of every member and the absent erases.
        c.cost = double(p_.key_sets) * (3.0 * double(n) + double(absent));
        c.label = std::string(f->name) + " n=" + std::to_string(n);
        cells_.push_back({f, n, RunTableFor(f->name, AllFilters{})});
        plans_.push_back(std::move(c));
      }
    }
  }

  const std::vector<CellPlan>& cells() const override { return plans_; }

  std::vector<Json> Run(std::size_t i) override {
    const Cell& cell = cells_[i];
    const std::size_t absent_count = AbsentFor(cell.n);
    TableCounts sum;
    double load_sum = 0;
    std::vector<std::uint64_t> members(cell.n), absent(absent_count);
    for (std::size_t table = 0; table < p_.key_sets; ++table) {
      // Table `table`: members, absent keys (the other key stream: never a member) and the
      // hash seed all from seed + table, so tables are independent draws.
      const std::uint64_t seed = SpreadSeed(p_.seed + table);
      for (std::size_t k = 0; k < cell.n; ++k) members[k] = UniformKey(seed, KeyStream::kMembers, k);
      for (std::size_t k = 0; k < absent_count; ++k) absent[k] = UniformKey(seed, KeyStream::kNonMembers, k);
      FilterParams params;
      params.capacity = cell.n;
      params.target_fpr = p_.fpr;
      params.max_load = p_.max_load;
      params.seed = seed;
      const TableCounts t = cell.run(members, absent, params);
      sum.held += t.held;
      sum.false_negatives += t.false_negatives;
      sum.accepted += t.accepted;
      sum.false_negatives_after += t.false_negatives_after;
      load_sum += t.load_factor;
    }
    Json r;
    r["filter"] = std::string(cell.filter->name);
    r["family"] = std::string(cell.filter->family);
    r["keys"] = cell.n;
    r["target_fpr"] = p_.fpr;
    r["max_load"] = p_.max_load > 0 ? Json(p_.max_load) : Json(nullptr);
    r["key_sets"] = p_.key_sets;
    r["keys_inserted"] = sum.held;
    r["insert_failures"] = cell.n * p_.key_sets - sum.held;
    r["load_factor"] = load_sum / double(p_.key_sets);
    r["false_negatives"] = sum.false_negatives;
    r["absent_deletes"] = absent_count * p_.key_sets;
    r["absent_deletes_accepted"] = sum.accepted;
    r["false_negatives_after_absent_deletes"] = sum.false_negatives_after;
    return {r};
  }

  std::string Describe(const Json& r) const override {
    char text[200];
    std::snprintf(text, sizeof text, "%zu of %zu absent deletes accepted, then %zu false negatives (%zu before)",
                  r["absent_deletes_accepted"].get<std::size_t>(), r["absent_deletes"].get<std::size_t>(),
                  r["false_negatives_after_absent_deletes"].get<std::size_t>(),
                  r["false_negatives"].get<std::size_t>());
    return text;
  }

  // The false negatives the absent deletes cause are the measurement; one before them is a
  // broken filter.
  bool Broken(const Json& r) const override { return r.value("false_negatives", 0) != 0; }

 private:
  struct Cell {
    const FilterEntry* filter;
    std::size_t n;
    RunTable run;
  };
  std::size_t AbsentFor(std::size_t n) const { return p_.absent_deletes ? p_.absent_deletes : n; }

  AbsentDeletesParams p_;
  std::vector<Cell> cells_;
  std::vector<CellPlan> plans_;
};

const ParamSpec kAbsentDeletesParams[] = {
    {"filters", ParamType::kFilters, {}, "erasable filters (erasable = true)"},
    {"seed", ParamType::kInt, AtLeast(0), "table i draws its members, absent keys and hash seed from seed + i (default: the suite's)"},
    {"keys", ParamType::kIntList, Between(1, 1e9), "members inserted per table, one cell per n"},
    {"key_sets", ParamType::kInt, Between(1, 1e6), "independent tables built per filter and n, key set i from seed + i (default 10)"},
    {"absent_deletes", ParamType::kInt, Between(1, 1e9), "absent keys erased per table (default: n)"},
    {"fpr", ParamType::kNum, Open(0, 1), "target FPR (default 0.01)"},
    {"max_load", ParamType::kNum, OpenClosed(0, 1), "table fill limit (default: the family's)"},
};

std::unique_ptr<ExperimentPlan> AbsentDeletesPlanFrom(const PlanInput& in) {
  AbsentDeletesParams a;
  for (const FilterEntry* f : in.filters) {
    if (!f->erasable || !RunTableFor(f->name, AllFilters{})) {
      throw InputError("filter '" + std::string(f->name) + "' cannot erase: absent_deletes takes erasable filters");
    }
    a.filters.push_back(f);
  }
  if (!in.Has("keys")) throw InputError("give " + in.Name("keys"));
  a.keys = in.params["keys"].get<std::vector<std::size_t>>();
  a.key_sets = in.Get("key_sets", a.key_sets);
  a.absent_deletes = in.Get<std::size_t>("absent_deletes", 0);
  a.fpr = in.Get("fpr", a.fpr);
  a.max_load = in.Get("max_load", 0.0);
  a.seed = in.Get<std::uint64_t>("seed", 1);
  return MakeAbsentDeletesPlan(a);
}

}  // namespace

std::unique_ptr<ExperimentPlan> MakeAbsentDeletesPlan(const AbsentDeletesParams& params) {
  return std::make_unique<AbsentDeletesPlan>(params);
}

const KindSpec kAbsentDeletesKind{
    "absent_deletes", "false negatives caused by deleting keys never inserted, in every erasable filter",
    {std::begin(kAbsentDeletesParams), std::end(kAbsentDeletesParams)}, true, false, &AbsentDeletesPlanFrom,
    {
        // key_sets: declared once, with build_failures' fields.
        {"absent_deletes", "integer", "count", "keys never inserted that were erased, over all tables", "absent_deletes"},
        {"absent_deletes_accepted", "integer", "count", "absent deletes the filter accepted (the absent key matched a member's fingerprint: a false positive)", "absent_deletes"},
        {"false_negatives_after_absent_deletes", "integer", "keys", "members not found after the absent deletes, over all tables (the AMQ survey's effect, not a broken filter; false_negatives is the build's invariant, before them)", "absent_deletes"},
    }};

}  // namespace amq
