// harness/kinds/fill_step_kind_test.cc - the fill_step kind: its steps, its records (one line per
// step then the cell line, no false negative at any step, erase timed only where a filter can
// erase, every field declared), a full filter's refusals counted, its determinism, and the
// parameters and filters it refuses.
#include "harness/kinds/fill_step_kind.h"

#include <gtest/gtest.h>

#include <string>

#include "core/errors.h"
#include "harness/kinds/kind_test_support.h"
#include "harness/run/schema.h"

namespace amq {
namespace {

TEST(FillStep, StepsReachTheCapacityAndAddKeysEveryTime) {
  EXPECT_EQ(FillStepCount(100, 0.05), 20u);
  EXPECT_EQ(FillStepEnd(100, 0.05, 1), 5u);
  EXPECT_EQ(FillStepEnd(100, 0.05, 20), 100u);
  EXPECT_EQ(FillStepCount(996147, 0.05), 20u);
  EXPECT_EQ(FillStepEnd(996147, 0.05, 19), 946340u);  // round(0.95 * 996147)
  // 0.3 does not divide 1: the last step is capped at n.
  EXPECT_EQ(FillStepCount(100, 0.3), 4u);
  EXPECT_EQ(FillStepEnd(100, 0.3, 3), 90u);
  EXPECT_EQ(FillStepEnd(100, 0.3, 4), 100u);
  // Ten steps reach round(99.99) = 100 already: no eleventh step of no keys.
  EXPECT_EQ(FillStepCount(100, 0.09999), 10u);
  EXPECT_EQ(FillStepCount(1, 1.0), 1u);
}

// A record without its timings: what two runs at one seed must agree on.
Json WithoutTimings(Json r) {
  for (auto it = r.begin(); it != r.end();) {
    it = it.key().ends_with("_ns") || it.key().find("_ns_") != std::string::npos ? r.erase(it) : std::next(it);
  }
  return r;
}

TEST(FillStep, EveryStepRecordedCheckedAndDeclared) {
  const Json params = {{"capacity", {3000}}, {"repeats", 2}, {"seed", 3}};
  const std::vector<std::string> names = {"bloom", "counting_bloom", "cuckoo12", "quotient", "cqf", "acf_cuckooing"};
  const auto plan = kFillStepKind.plan(KindInput(kFillStepKind, params, names));
  ASSERT_EQ(plan->cells().size(), names.size());
  for (std::size_t i = 0; i < plan->cells().size(); ++i) {
    const std::vector<Json> lines = plan->Run(i);
    ASSERT_EQ(lines.size(), 21u) << "20 steps of 5% and the cell line";
    const Json& cell = lines.back();
    SCOPED_TRACE(cell.dump());
    EXPECT_EQ(cell.value("record", "cell"), "cell");
    EXPECT_FALSE(plan->Broken(cell));
    EXPECT_EQ(cell["fill_steps"], 20u);
    const bool erasable = cell["erasable"];
    std::size_t reinsert_failures = 0;
    for (std::size_t k = 0; k < 20; ++k) {
      const Json& r = lines[k];
      SCOPED_TRACE(r.dump());
      EXPECT_NO_THROW(CheckRecordAgainstSchema(r));
      EXPECT_EQ(r["record"], "step");
      EXPECT_EQ(r["step"], k + 1);
      EXPECT_EQ(r["keys"], 150 * (k + 1));
      EXPECT_DOUBLE_EQ(r["fill"].get<double>(), 0.05 * double(k + 1));
      EXPECT_EQ(r["false_negatives"], 0u) << "a held key lost at step " << k + 1;
      EXPECT_EQ(r["erase_misses"], 0u);
      reinsert_failures += r["reinsert_failures"].get<std::size_t>();
      // Every key offered is held, refused, or was erased and not taken back.
      EXPECT_EQ(r["keys_inserted"].get<std::size_t>() + r["insert_failures"].get<std::size_t>() + reinsert_failures,
                r["keys"].get<std::size_t>());
      EXPECT_EQ(r["queries"], 150u) << "default: one step's keys";
      for (const char* op : {"step_insert_ns", "step_member_ns", "step_absent_ns"}) {
        EXPECT_TRUE(r[op].is_number()) << op;
        EXPECT_EQ(r[std::string(op) + "_samples"].size(), 2u) << op;
      }
      EXPECT_EQ(r["step_erase_ns"].is_number(), erasable);
      EXPECT_EQ(r["step_reinsert_ns"].is_number(), erasable);
      EXPECT_LE(r["fpr_ci_low"].get<double>(), r["fpr"].get<double>());
      EXPECT_GE(r["fpr_ci_high"].get<double>(), r["fpr"].get<double>());
    }
    EXPECT_NO_THROW(CheckRecordAgainstSchema(cell));
    EXPECT_EQ(cell["keys_inserted"], lines[19]["keys_inserted"]);
    EXPECT_EQ(cell["reinsert_failures"], reinsert_failures);
    // The same plan again: the same records but for the timings.
    const auto again = kFillStepKind.plan(KindInput(kFillStepKind, params, names));
    const std::vector<Json> repeated = again->Run(i);
    ASSERT_EQ(repeated.size(), lines.size());
    for (std::size_t k = 0; k < lines.size(); ++k) EXPECT_EQ(WithoutTimings(repeated[k]), WithoutTimings(lines[k]));
  }
}

TEST(FillStep, AFullFilterRefusesCleanlyAndLosesNothing) {
  // 4,096 keys in 1,024 buckets of 4 (max_load 1: no spare slot), a 12-bit cuckoo filter: the
  // last steps cannot all fit. The refusals are counted, and no held key is lost to them.
  const auto plan = kFillStepKind.plan(
      KindInput(kFillStepKind, {{"capacity", {4096}}, {"max_load", 1.0}, {"repeats", 1}, {"step_share", 0.25}}, {"cuckoo12"}));
  const std::vector<Json> lines = plan->Run(0);
  ASSERT_EQ(lines.size(), 5u);
  const Json& cell = lines.back();
  SCOPED_TRACE(cell.dump());
  EXPECT_GT(cell["insert_failures"].get<std::size_t>(), 0u);
  EXPECT_EQ(cell["false_negatives"], 0u);
  EXPECT_FALSE(plan->Broken(cell));
  EXPECT_EQ(lines[0]["insert_failures"], 0u) << "a quarter full takes every key";
}

TEST(FillStep, BrokenWhenAHeldKeyIsLost) {
  const auto plan = kFillStepKind.plan(KindInput(kFillStepKind, {{"capacity", {100}}}, {"cuckoo"}));
  EXPECT_TRUE(plan->Broken({{"false_negatives", 1}, {"erase_misses", 0}}));
  EXPECT_TRUE(plan->Broken({{"false_negatives", 0}, {"erase_misses", 2}}));
  EXPECT_FALSE(plan->Broken({{"false_negatives", 0}, {"erase_misses", 0}, {"insert_failures", 7}}));
}

TEST(FillStep, RefusesWhatNoCellCouldRun) {
  EXPECT_THROW(kFillStepKind.plan(KindInput(kFillStepKind, {{"capacity", {100}}}, {"xor8"})), InputError);
  EXPECT_THROW(kFillStepKind.plan(KindInput(kFillStepKind, Json::object(), {"cuckoo"})), InputError);
  EXPECT_THROW(kFillStepKind.plan(KindInput(kFillStepKind, {{"capacity", {10}}, {"step_share", 0.05}}, {"cuckoo"})),
               InputError);
  EXPECT_THROW(CheckParam(*kFillStepKind.Find("step_share"), 0, "step_share"), InputError);
  EXPECT_THROW(CheckParam(*kFillStepKind.Find("repeats"), 0, "repeats"), InputError);
  EXPECT_NO_THROW(kFillStepKind.plan(KindInput(kFillStepKind, {{"capacity", {20}}, {"step_share", 0.05}}, {"cuckoo"})));
}

}  // namespace
}  // namespace amq
