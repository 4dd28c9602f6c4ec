// harness/kinds/build_failures_kind.cc - the build_failures kind (see the header).
#include "harness/kinds/build_failures_kind.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/errors.h"
#include "core/hashing.h"
#include "core/stats.h"
#include "harness/cell/process_memory.h"
#include "harness/run/cell_id.h"
#include "workloads/uniform.h"

namespace amq {

std::vector<std::size_t> GeometricSizes(std::size_t from, std::size_t to, int steps) {
  std::vector<std::size_t> sizes;
  const double ratio = std::pow(2.0, 1.0 / steps);
  for (double n = double(from); std::llround(n) <= static_cast<long long>(to); n *= ratio) {
    const auto whole = static_cast<std::size_t>(std::llround(n));
    if (sizes.empty() || sizes.back() != whole) sizes.push_back(whole);
  }
  if (sizes.empty() || sizes.back() != to) sizes.push_back(to);
  return sizes;
}

namespace {

bool ReportsAttempts(const FilterEntry& f) {
  return std::any_of(f.stats.begin(), f.stats.end(), [](const StatSpec& s) { return s.name == "build_attempts"; });
}

class BuildFailuresPlan : public ExperimentPlan {
 public:
  explicit BuildFailuresPlan(const BuildFailuresParams& p) : p_(p) {
    for (std::size_t n : p_.keys) {
      for (const FilterEntry* f : p_.filters) {
        CellPlan c;
        c.identity = {{"kind", "build_failures"}, {"filter", std::string(f->name)}, {"keys", n},
                      {"key_sets", p_.key_sets}, {"target_fpr", p_.fpr}};
        c.cell_id = CellId(c.identity);
        c.seed = p_.seed;
        // In the suite's unit (key operations at ~10^7 a second, runner.h): every key set is
        // made, built and checked. Measured at 45fa2c1: 30.8 s for 7.7e8 keys over all key sets
        // and n, about 40 ns (0.4 units) a key; 0.5 keeps the plan a little above that. Out of
        // cache a key costs more: build_failures_large (n to 10^7, 8.1e8 keys) took 200 s at
        // 4d3585a beside another job, about 250 ns a key, against the 41 s 0.5 planned; the
        // second term, up to 2 units as n passes 2^20 keys, plans it at 2.3 units near 10^7.
        const double per_key = 0.5 + 2.0 * double(n) / (double(n) + double(1 << 20));
        c.cost = per_key * double(n) * double(p_.key_sets);
        c.label = std::string(f->name) + " n=" + std::to_string(n);
        cells_.push_back({f, n});
        plans_.push_back(std::move(c));
      }
    }
  }

  const std::vector<CellPlan>& cells() const override { return plans_; }

  std::vector<Json> Run(std::size_t i) override {
    const auto& [filter, n] = cells_[i];
    std::size_t first_failures = 0, given_up = 0, false_negatives = 0, built = 0, attempts_max = 0;
    double attempts_sum = 0, bits_sum = 0;
    // Key set after key set builds on the memory the last one freed (process_memory.h).
    KeepFreedMemory();
    std::vector<std::uint64_t> keys;
    for (std::size_t set = 0; set < p_.key_sets; ++set) {
      // Key set `set`: its keys and the filter's hash seed both come from seed + set, so the
      // sets are independent draws and any one can be rebuilt alone.
      const std::uint64_t seed = SpreadSeed(p_.seed + set);
      keys.resize(n);
      for (std::size_t k = 0; k < n; ++k) keys[k] = UniformKey(seed, KeyStream::kMembers, k);
      FilterParams params;
      params.capacity = n;
      params.target_fpr = p_.fpr;
      params.seed = seed;
      const Json r = filter->build_once(keys, params);
      if (r["build_failed"].get<bool>()) {
        ++given_up;
        ++first_failures;
        continue;
      }
      const auto attempts = r["build_attempts"].get<std::size_t>();
      first_failures += attempts > 1 ? 1 : 0;
      attempts_sum += double(attempts);
      attempts_max = std::max(attempts_max, attempts);
      false_negatives += r["false_negatives"].get<std::size_t>();
      bits_sum += 8.0 * r["size_bytes"].get<double>() / double(n);
      ++built;
    }
    const Interval ci = WilsonInterval(first_failures, p_.key_sets);
    Json cell;
    cell["filter"] = std::string(filter->name);
    cell["family"] = std::string(filter->family);
    cell["keys"] = n;
    cell["target_fpr"] = p_.fpr > 0 ? Json(p_.fpr) : Json(nullptr);
    cell["key_sets"] = p_.key_sets;
    cell["first_build_failures"] = first_failures;
    cell["first_build_failure_share"] = double(first_failures) / double(p_.key_sets);
    cell["first_build_failure_ci_low"] = ci.low;
    cell["first_build_failure_ci_high"] = ci.high;
    cell["builds_given_up"] = given_up;
    cell["build_attempts_mean"] = built ? Json(attempts_sum / double(built)) : Json(nullptr);
    cell["build_attempts_max"] = attempts_max;
    cell["bits_per_key"] = built ? bits_sum / double(built) : 0.0;
    cell["false_negatives"] = false_negatives;
    return {cell};
  }

  std::string Describe(const Json& r) const override {
    const Json& mean = r["build_attempts_mean"];  // null when no build succeeded
    char text[160];
    std::snprintf(text, sizeof text, "first build failed for %zu of %zu key sets, %.3f attempts on average, %zu gave up",
                  r["first_build_failures"].get<std::size_t>(), r["key_sets"].get<std::size_t>(),
                  mean.is_number() ? mean.get<double>() : 0.0, r["builds_given_up"].get<std::size_t>());
    return text;
  }

  // A build that gave up leaves a user with no filter, but it is the measurement here, not a
  // broken invariant; a lost key is.
  bool Broken(const Json& r) const override { return r.value("false_negatives", 0) != 0; }

 private:
  struct Cell {
    const FilterEntry* filter;
    std::size_t n;
  };
  BuildFailuresParams p_;
  std::vector<Cell> cells_;
  std::vector<CellPlan> plans_;
};

const ParamSpec kBuildFailuresParams[] = {
    {"filters", ParamType::kFilters, {}, "filters whose build can fail and retry (each reports build_attempts)"},
    {"seed", ParamType::kInt, AtLeast(0), "key set i draws its keys and hash seed from seed + i (default: the suite's)"},
    {"keys", ParamType::kIntList, Between(1, 1e9), "the n of every cell; not with n_from and n_to"},
    {"n_from", ParamType::kInt, Between(1, 1e9), "smallest n of a geometric grid"},
    {"n_to", ParamType::kInt, Between(1, 1e9), "largest n of a geometric grid"},
    {"steps_per_doubling", ParamType::kInt, Between(1, 1024), "n of the grid per doubling (default 8)"},
    {"key_sets", ParamType::kInt, Between(1, 1e7), "independent key sets built per filter and n (default 100)"},
    {"fpr", ParamType::kNum, Open(0, 1), "target FPR of the filters that take their width from it (default theirs)"},
};

std::unique_ptr<ExperimentPlan> BuildFailuresPlanFrom(const PlanInput& in) {
  BuildFailuresParams b;
  for (const FilterEntry* f : in.filters) {
    if (!ReportsAttempts(*f)) {
      throw InputError("filter '" + std::string(f->name) + "' reports no build_attempts: its build cannot fail");
    }
    b.filters.push_back(f);
  }
  const bool grid = in.Has("n_from") || in.Has("n_to");
  if (grid == in.Has("keys")) throw InputError("give " + in.Name("keys") + ", or " + in.Name("n_from") + " and " + in.Name("n_to"));
  if (grid) {
    if (!in.Has("n_from") || !in.Has("n_to")) throw InputError(in.Name("n_from") + " goes with " + in.Name("n_to"));
    const auto from = in.Get<std::size_t>("n_from", 0), to = in.Get<std::size_t>("n_to", 0);
    if (from > to) throw InputError(in.Name("n_from") + " must be at most " + in.Name("n_to"));
    b.keys = GeometricSizes(from, to, in.Get("steps_per_doubling", 8));
  } else {
    b.keys = in.params["keys"].get<std::vector<std::size_t>>();
    std::sort(b.keys.begin(), b.keys.end());
    b.keys.erase(std::unique(b.keys.begin(), b.keys.end()), b.keys.end());
  }
  b.key_sets = in.Get("key_sets", b.key_sets);
  b.fpr = in.Get("fpr", 0.0);
  b.seed = in.Get<std::uint64_t>("seed", 1);
  return MakeBuildFailuresPlan(b);
}

}  // namespace

std::unique_ptr<ExperimentPlan> MakeBuildFailuresPlan(const BuildFailuresParams& params) {
  return std::make_unique<BuildFailuresPlan>(params);
}

const KindSpec kBuildFailuresKind{
    "build_failures", "how often a static filter's first build fails, and the attempts it needs, against n",
    {std::begin(kBuildFailuresParams), std::end(kBuildFailuresParams)}, true, false, &BuildFailuresPlanFrom,
    {
        {"key_sets", "integer", "count", "independent key sets built (key set i: its keys and hash seed from seed + i)", "build_failures, absent_deletes"},
        {"first_build_failures", "integer", "count", "key sets whose first build attempt failed (a retry, or no filter at all)", "build_failures"},
        {"first_build_failure_share", "number", "fraction", "first_build_failures / key_sets", "build_failures"},
        {"first_build_failure_ci_low", "number", "fraction", "lower end of the share's 95% Wilson interval over the key sets (independent draws)", "build_failures"},
        {"first_build_failure_ci_high", "number", "fraction", "upper end of that interval", "build_failures"},
        {"builds_given_up", "integer", "count", "key sets for which every attempt failed (BuildFailed: no filter)", "build_failures"},
        {"build_attempts_mean", "number|null", "count", "attempts per successful build, the mean (null if none succeeded)", "build_failures"},
        {"build_attempts_max", "integer", "count", "most attempts one successful build took", "build_failures"},
    }};

}  // namespace amq
