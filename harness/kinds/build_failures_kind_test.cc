// harness/kinds/build_failures_kind_test.cc - the build_failures kind: its grid of n, its
// records (shares inside their intervals, attempt counts that agree with the failures, no false
// negatives, every field declared), its determinism, and the parameters it refuses.
#include "harness/kinds/build_failures_kind.h"

#include <gtest/gtest.h>

#include "core/errors.h"
#include "harness/kinds/kind_test_support.h"
#include "harness/run/schema.h"

namespace amq {
namespace {

TEST(BuildFailures, GeometricGridHasItsEndsAndNoRepeats) {
  EXPECT_EQ(GeometricSizes(100, 200, 4), (std::vector<std::size_t>{100, 119, 141, 168, 200}));
  EXPECT_EQ(GeometricSizes(1, 4, 4), (std::vector<std::size_t>{1, 2, 3, 4}));  // 1.19 and 1.41 round to 1
  EXPECT_EQ(GeometricSizes(1000, 1000, 8), (std::vector<std::size_t>{1000}));
}

TEST(BuildFailures, RecordsAgreeWithThemselvesAndTheSchema) {
  const auto plan = kBuildFailuresKind.plan(
      KindInput(kBuildFailuresKind, {{"keys", {300, 100, 300}}, {"key_sets", 60}, {"seed", 7}}, {"xor8", "binary_fuse8", "ribbon"}));
  ASSERT_EQ(plan->cells().size(), 6u);  // n = 100, 300 (sorted, once each) x three filters
  std::size_t failures = 0;
  for (std::size_t i = 0; i < plan->cells().size(); ++i) {
    const Json r = plan->Run(i).back();
    SCOPED_TRACE(r.dump());
    EXPECT_NO_THROW(CheckRecordAgainstSchema(r));
    EXPECT_EQ(r["false_negatives"], 0u);
    EXPECT_EQ(r["key_sets"], 60u);
    const auto first = r["first_build_failures"].get<std::size_t>();
    const auto gave_up = r["builds_given_up"].get<std::size_t>();
    const double share = r["first_build_failure_share"];
    EXPECT_DOUBLE_EQ(share, first / 60.0);
    EXPECT_LE(r["first_build_failure_ci_low"].get<double>(), share);
    EXPECT_GE(r["first_build_failure_ci_high"].get<double>(), share);
    EXPECT_LE(gave_up, first);
    if (gave_up < 60) {
      // Every first build that failed but was retried took at least two attempts.
      const double mean = r["build_attempts_mean"];
      EXPECT_GE(mean, 1.0 + double(first - gave_up) / double(60 - gave_up) - 1e-12);
      EXPECT_EQ(mean == 1.0, first == gave_up);
      EXPECT_GE(r["build_attempts_max"].get<std::size_t>(), first > gave_up ? 2u : 1u);
    }
    failures += first;
  }
  // The same plan again: the same records (keys and seeds come from the seed alone).
  const auto again = kBuildFailuresKind.plan(
      KindInput(kBuildFailuresKind, {{"keys", {100, 300}}, {"key_sets", 60}, {"seed", 7}}, {"xor8", "binary_fuse8", "ribbon"}));
  for (std::size_t i = 0; i < again->cells().size(); ++i) EXPECT_EQ(again->Run(i), plan->Run(i));
  // At n = 100 the 3-wise binary fuse filter's small tables make first failures common: a
  // grid of 360 builds without one would mean the attempts are not counted.
  EXPECT_GT(failures, 0u);
}

TEST(BuildFailures, RefusesWhatNoCellCouldRun) {
  EXPECT_THROW(kBuildFailuresKind.plan(KindInput(kBuildFailuresKind, {{"keys", {100}}}, {"bloom"})), InputError);
  EXPECT_THROW(kBuildFailuresKind.plan(KindInput(kBuildFailuresKind, {{"keys", {100}}, {"n_from", 10}, {"n_to", 20}}, {"xor8"})), InputError);
  EXPECT_THROW(kBuildFailuresKind.plan(KindInput(kBuildFailuresKind, {{"n_from", 10}}, {"xor8"})), InputError);
  EXPECT_THROW(kBuildFailuresKind.plan(KindInput(kBuildFailuresKind, {{"n_from", 20}, {"n_to", 10}}, {"xor8"})), InputError);
  EXPECT_THROW(kBuildFailuresKind.plan(KindInput(kBuildFailuresKind, Json::object(), {"xor8"})), InputError);
  EXPECT_THROW(CheckParam(*kBuildFailuresKind.Find("key_sets"), 0, "key_sets"), InputError);
  EXPECT_NO_THROW(kBuildFailuresKind.plan(KindInput(kBuildFailuresKind, {{"n_from", 10}, {"n_to", 20}}, {"xor8"})));
}

}  // namespace
}  // namespace amq
