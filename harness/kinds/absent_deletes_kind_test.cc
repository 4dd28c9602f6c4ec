// harness/kinds/absent_deletes_kind_test.cc - the absent_deletes kind: its records (no false
// negative before the deletes, the survey's false negatives after them, every field declared),
// its determinism, and the filters it refuses.
#include "harness/kinds/absent_deletes_kind.h"

#include <gtest/gtest.h>

#include "core/errors.h"
#include "harness/kinds/kind_test_support.h"
#include "harness/run/schema.h"

namespace amq {
namespace {

TEST(AbsentDeletes, FalsePositiveDeletesCostMembersButTheBuildLosesNone) {
  // f = 4 at eps = 1/2 (cuckoo: 4 + 3 = 7 bits; quotient: r = 1 .. 2): many absent keys match
  // a member, so a few thousand deletes accept some in every table.
  const Json params = {{"keys", {2000}}, {"key_sets", 3}, {"fpr", 0.5}, {"seed", 5}};
  const std::vector<std::string> names = {"cuckoo", "cuckoo_survey_insert", "quotient", "rsqf", "cqf"};
  const auto plan = kAbsentDeletesKind.plan(KindInput(kAbsentDeletesKind, params, names));
  ASSERT_EQ(plan->cells().size(), names.size());
  for (std::size_t i = 0; i < plan->cells().size(); ++i) {
    const Json r = plan->Run(i).back();
    SCOPED_TRACE(r.dump());
    EXPECT_NO_THROW(CheckRecordAgainstSchema(r));
    EXPECT_EQ(r["false_negatives"], 0u) << "the build before the deletes must hold every member";
    EXPECT_FALSE(plan->Broken(r)) << "false negatives after absent deletes are the measurement";
    EXPECT_EQ(r["absent_deletes"], 6000u);
    const auto accepted = r["absent_deletes_accepted"].get<std::size_t>();
    const auto lost = r["false_negatives_after_absent_deletes"].get<std::size_t>();
    EXPECT_GT(accepted, 0u);
    EXPECT_GT(lost, 0u) << "an accepted absent delete removes a member's fingerprint";
    // A member is lost only through an accepted delete (one copy each; a counter only counts
    // down by one), so the losses never exceed the accepted deletes.
    EXPECT_LE(lost, accepted);
  }
  // The same plan again: the same records (keys and seeds come from the seed alone).
  const auto again = kAbsentDeletesKind.plan(KindInput(kAbsentDeletesKind, params, names));
  for (std::size_t i = 0; i < again->cells().size(); ++i) EXPECT_EQ(again->Run(i), plan->Run(i));
}

TEST(AbsentDeletes, ABrokenBuildIsStillBroken) {
  const auto plan = kAbsentDeletesKind.plan(KindInput(kAbsentDeletesKind, {{"keys", {100}}}, {"cuckoo"}));
  EXPECT_TRUE(plan->Broken({{"false_negatives", 1}, {"false_negatives_after_absent_deletes", 0}}));
  EXPECT_FALSE(plan->Broken({{"false_negatives", 0}, {"false_negatives_after_absent_deletes", 9}}));
}

TEST(AbsentDeletes, RefusesFiltersThatCannotErase) {
  EXPECT_THROW(kAbsentDeletesKind.plan(KindInput(kAbsentDeletesKind, {{"keys", {100}}}, {"bloom"})), InputError);
  EXPECT_THROW(kAbsentDeletesKind.plan(KindInput(kAbsentDeletesKind, {{"keys", {100}}}, {"xor8"})), InputError);
  EXPECT_THROW(kAbsentDeletesKind.plan(KindInput(kAbsentDeletesKind, Json::object(), {"cuckoo"})), InputError);
  EXPECT_THROW(CheckParam(*kAbsentDeletesKind.Find("key_sets"), 0, "key_sets"), InputError);
}

}  // namespace
}  // namespace amq
