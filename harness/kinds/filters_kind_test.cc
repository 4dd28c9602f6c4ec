// harness/kinds/filters_kind_test.cc - the filters kind's key sets: independent tables, one
// cell each, key set j being the cell a run at seed + j gives; `repeats` cannot give that.
#include "harness/kinds/filters_kind.h"

#include <gtest/gtest.h>

#include <set>

#include "core/errors.h"
#include "harness/kinds/kind_test_support.h"

namespace amq {
namespace {

Json Grid(std::uint64_t seed) {
  return {{"keys", {3000}}, {"fpr", {0.01}}, {"max_load", {0.94}}, {"queries", 2000}, {"repeats", 1}, {"seed", seed}};
}

TEST(FiltersKeySets, EachKeySetIsItsOwnTableAndTheCellARunAtThatSeedGives) {
  Json params = Grid(7);
  params["key_sets"] = 3;
  const auto plan = kFiltersKind.plan(KindInput(kFiltersKind, params, {"cuckoo", "cuckoo_survey_insert"}));
  ASSERT_EQ(plan->cells().size(), 6u);  // 3 key sets x 2 filters
  std::set<std::string> ids;
  std::set<std::uint64_t> seeds;
  for (const CellPlan& c : plan->cells()) {
    ids.insert(c.cell_id);
    seeds.insert(c.seed);
  }
  EXPECT_EQ(ids.size(), 6u) << "every key set is a cell of its own";
  EXPECT_EQ(seeds, (std::set<std::uint64_t>{7, 8, 9}));
  std::set<std::uint64_t> kicks;
  for (std::size_t i = 0; i < plan->cells().size(); ++i) {
    const Json r = plan->Run(i).back();
    EXPECT_EQ(r["seed"], plan->cells()[i].seed);
    EXPECT_EQ(r["false_negatives"], 0u);
    kicks.insert(r["kicks_total"].get<std::uint64_t>());
    // Key set j is the table a grid of one key set at seed 7 + j builds.
    const auto alone = kFiltersKind.plan(KindInput(kFiltersKind, Grid(plan->cells()[i].seed), {r["filter"].get<std::string>()}));
    EXPECT_EQ(alone->Run(0).back()["kicks_total"], r["kicks_total"]);
  }
  EXPECT_GT(kicks.size(), 3u) << "tables of different seeds differ";
  // A grid of one key set keeps the identity it had before key sets existed.
  const auto one = kFiltersKind.plan(KindInput(kFiltersKind, Grid(7), {"cuckoo"}));
  Json with_one = Grid(7);
  with_one["key_sets"] = 1;
  EXPECT_EQ(kFiltersKind.plan(KindInput(kFiltersKind, with_one, {"cuckoo"}))->cells()[0].cell_id, one->cells()[0].cell_id);
}

TEST(FiltersKeySets, RefusedWithATrace) {
  FiltersParams p;
  p.filters = {FindFilter("cuckoo")};
  p.trace = TraceSource{};
  p.trace->optional = true;
  p.key_sets = 2;
  EXPECT_THROW(ValidateFiltersParams(p), InputError);
}

}  // namespace
}  // namespace amq
