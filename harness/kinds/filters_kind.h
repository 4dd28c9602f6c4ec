// harness/kinds/filters_kind.h - the "filters" experiment kind: build each filter over a
// workload for every combination of the grid's lists, time it, check it, compare it with its
// theory (harness/cell/run_cell.h measures one cell). `amqbench run` and suite experiments of
// kind filters both fill a FiltersParams and run the plan MakeFiltersPlan returns.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/zipf.h"
#include "harness/cell/registry.h"
#include "harness/run/kind.h"
#include "harness/run/runner.h"
#include "harness/run/trace_source.h"
#include "workloads/keys.h"

namespace amq {

struct FiltersParams {
  std::vector<const FilterEntry*> filters;
  std::vector<std::size_t> keys = {1000000};
  std::optional<std::size_t> capacity;        // size every filter for this many keys
  std::vector<double> load_steps;             // with capacity: keys = round(capacity * step)
  struct Sizing {
    double fpr = 0;
    double bits_per_key = 0;
  };
  std::vector<Sizing> sizings = {{}};
  std::vector<double> max_loads = {0};        // 0: the family's default
  std::vector<double> positive_fractions = {0.5};
  std::vector<KeySource> key_sources = {KeySource{}};
  std::vector<Popularity> query_dists = {Popularity{}};
  std::size_t repeated_negatives = 0;
  std::size_t churn_rounds = 0;
  std::size_t churn_queries = 4;
  std::size_t cache_lines = 0;                // > 0: trace this many lookups' cache lines
  std::optional<TraceSource> trace;
  double trace_members = 0.5;
  std::size_t queries = 1000000;
  int repeats = 3;
  int max_kicks = 500;
  std::uint64_t seed = 1;
  // Independent tables: key set j (one cell each) draws its keys, queries and hash seed from
  // seed + j, the cell a run at that seed would give. `repeats` cannot give a spread over
  // tables: it rebuilds one table from one seed, the same table every time.
  std::size_t key_sets = 1;
};

// Throws InputError naming the parameter (as `--name` on the command line, `name` in a suite).
void ValidateFiltersParams(const FiltersParams& params);

std::unique_ptr<ExperimentPlan> MakeFiltersPlan(const FiltersParams& params);

// The kind's declaration: its parameters (suite keys, `amqbench run` options) and its plan.
extern const KindSpec kFiltersKind;

}  // namespace amq
