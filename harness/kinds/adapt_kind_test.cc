// harness/kinds/adapt_kind_test.cc - the adaptive experiments' statistics: the FPR interval is
// over flows (a static control's interval covers its theory at about the stated rate), and the
// adversarial "adaptation off" count is a replay of the same queries, not an expectation.
#include "harness/kinds/adapt_kind.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/stats.h"

namespace amq {
namespace {

const AdaptiveTrials& Entry(std::string_view name) {
  const FilterEntry* e = FindFilter(name);
  if (!e || !e->adaptive) throw std::logic_error("no adaptive filter " + std::string(name));
  return *e->adaptive;
}

bool Covers(double low, double high, double theory) { return low <= theory && theory <= high; }

// The test: static controls, 20 trials (seeds 1..20) at two A/S values each, 80
// intervals in all. Flows are the independent draws, so a 95% interval should leave its theory
// out about 4 times; more than the 5-sd binomial band allows (or below 90% coverage) fails.
// The same trials' Wilson intervals over queries, the interval this replaced, must fail the
// same bound: otherwise this sample could not tell a valid interval from an invalid one.
TEST(AdaptInterval, FlowIntervalCoversStaticTheoryAtItsRate) {
  std::size_t intervals = 0, excluded = 0, excluded_over_queries = 0;
  for (const char* name : {"cuckoo_4x1", "cuckoo_2x4"}) {
    for (double as_ratio : {1.0, 2.0}) {
      std::vector<Json> trials;
      for (int t = 0; t < 20; ++t) {
        SyntheticSpec spec;
        spec.geometry.slots = 1024;
        spec.geometry.bits_per_slot = 8;
        spec.as_ratio = as_ratio;
        spec.queries_per_flow = 10;
        spec.trial = t;
        spec.seed = 1 + t;
        const Json r = Entry(name).synthetic(spec);
        ASSERT_EQ(r["adaptations"].get<std::size_t>(), 0u) << name;
        const double theory = r["fpr_theory_static"].get<double>();
        ++intervals;
        excluded += !Covers(r["fpr_ci_low"], r["fpr_ci_high"], theory);
        const Interval q = WilsonInterval(r["false_positives"], r["negative_queries"]);
        excluded_over_queries += !Covers(q.low, q.high, theory);
        trials.push_back(r);
      }
      // The cell's interval pools the flows of all 20 trials.
      const Json cell = SummarizeTrials(trials);
      EXPECT_TRUE(Covers(cell["fpr_ci_low"], cell["fpr_ci_high"], cell["fpr_theory_static"].get<double>()))
          << name << " A/S " << as_ratio << ": " << cell.dump();
      EXPECT_GT(cell["effective_flows"].get<double>(), 20 * 0.8 * 973 * as_ratio);
    }
  }
  ::testing::Test::RecordProperty("excluded_over_flows", int(excluded));
  ::testing::Test::RecordProperty("excluded_over_queries", int(excluded_over_queries));
  const double bound = BinomialBand(intervals, 0.05).high;
  EXPECT_LE(double(excluded), bound) << excluded << " of " << intervals;
  EXPECT_GE(double(intervals - excluded), 0.9 * intervals) << excluded << " of " << intervals;
  EXPECT_GT(double(excluded_over_queries), bound) << excluded_over_queries << " of " << intervals;
}

// Each grid point draws its own flows. Drawn from the trial's seed alone (as they once were),
// A/S = 1 at 50 and at 60 queries per flow would ask the same flows of the same static filter,
// every one of them at least once, and find the same false-positive flows in every trial.
TEST(AdaptInterval, FlowSetsAreDrawnPerGridPoint) {
  int differ = 0;
  for (int t = 0; t < 10; ++t) {
    SyntheticSpec spec;
    spec.geometry.slots = 1024;
    spec.seed = 1 + t;
    spec.queries_per_flow = 50;
    const Json fifty = Entry("cuckoo_4x1").synthetic(spec);
    spec.queries_per_flow = 60;
    const Json sixty = Entry("cuckoo_4x1").synthetic(spec);
    ASSERT_EQ(fifty["flows_queried"], fifty["flows"]);
    ASSERT_EQ(sixty["flows_queried"], sixty["flows"]);
    differ += fifty["false_positives_first_query"] != sixty["false_positives_first_query"];
  }
  EXPECT_GE(differ, 5);
}

AdversarialSpec Attack(AttackKind attack, std::size_t set_size, std::uint64_t seed) {
  AdversarialSpec spec;
  spec.geometry.slots = 1024;
  spec.attack = attack;
  spec.set_size = set_size;
  spec.queries = 500;
  spec.seed = seed;
  return spec;
}

// Adaptation off is a replay: a static control pays exactly what its replay pays, query for
// query; known false positives cost a static filter every query; an adaptive filter asked the
// same schedule pays less.
TEST(AdaptAdversarial, ReplayWithAdaptationOffIsExact) {
  for (std::uint64_t seed : {1, 2, 3}) {
    for (AttackKind attack : {AttackKind::kKnownFalsePositives, AttackKind::kRandomSet}) {
      for (const char* name : {"cuckoo_4x1", "cuckoo_2x4"}) {
        const Json r = Entry(name).adversarial(Attack(attack, 10, seed));
        EXPECT_EQ(r["false_positives"], r["false_positives_static"]) << name << " seed " << seed;
      }
    }
    const Json known = Entry("acf_cuckooing").adversarial(Attack(AttackKind::kKnownFalsePositives, 10, seed));
    EXPECT_EQ(known["false_positives_static"].get<std::size_t>(), 500u);
    EXPECT_LT(known["false_positives"].get<std::size_t>(), 50u);
    // One random non-member: a static filter pays on every query or on none.
    const Json one = Entry("acf_cuckooing").adversarial(Attack(AttackKind::kRandomSet, 1, seed));
    EXPECT_EQ(one["false_positives_static"].get<std::size_t>(),
              500 * one["set_initially_false_positive"].get<std::size_t>());
  }
}

// Cells give the mean per trial beside the sums, and an interval over trials from 20 trials.
TEST(AdaptAdversarial, CellsCarryMeansAndTheirInterval) {
  std::vector<Json> trials;
  for (std::uint64_t seed = 1; seed <= 20; ++seed)
    trials.push_back(Entry("cuckoo_4x1").adversarial(Attack(AttackKind::kKnownFalsePositives, 1, seed)));
  const Json cell = SummarizeTrials(trials);
  EXPECT_EQ(cell["false_positives_static"].get<double>(), 20 * 500.0);
  EXPECT_EQ(cell["false_positives_static_mean"].get<double>(), 500.0);
  EXPECT_EQ(cell["false_positives_mean_ci_low"].get<double>(), 500.0);  // no spread, no width
  trials.resize(19);
  EXPECT_FALSE(SummarizeTrials(trials).contains("false_positives_mean_ci_low"));
}

AdversarialSpec StateAttack(AttackKind attack, std::size_t slots, std::uint64_t seed) {
  AdversarialSpec spec;
  spec.geometry.slots = slots;
  spec.attack = attack;
  spec.set_size = 16;
  spec.queries = 4 * slots;
  spec.seed = seed;
  return spec;
}

// The state-reading adversary, measured: against a static control its first false positive pays
// on every query with one distinct query; the Cyclic ACF (s = 2) cycles after about 2^s distinct
// queries and then pays on every query; the Swapping ACF cycles within its budget of 16 (4
// elements x 4 positions); the Cuckooing ACF's element leaves the attacked bucket, so the
// bucket-bound adversary stops paying. The replay with adaptation off asks the same queries. No
// member is ever lost.
TEST(AdaptStateReading, CyclesCloseForCyclicAndSwappingNotForCuckooing) {
  for (std::uint64_t seed : {1, 2, 3}) {
    const Json control = Entry("cuckoo_4x1").adversarial(StateAttack(AttackKind::kStateReading, 1024, seed));
    EXPECT_EQ(control["false_positives"].get<std::size_t>(), 4096u);
    EXPECT_EQ(control["false_positives_static"].get<std::size_t>(), 4096u);
    EXPECT_EQ(control["distinct_queries"].get<std::size_t>(), 1u);
    EXPECT_EQ(control["cycle_closed"].get<int>(), 1);
    for (const char* name : {"acf_cyclic", "acf_swapping"}) {
      const Json r = Entry(name).adversarial(StateAttack(AttackKind::kStateReading, 1024, seed));
      EXPECT_EQ(r["cycle_closed"].get<int>(), 1) << name << " seed " << seed << ": " << r.dump();
      EXPECT_LE(r["distinct_queries"].get<std::size_t>(), 16u);
      EXPECT_GT(r["false_positives"].get<std::size_t>(), 4096u * 9 / 10) << name;
      EXPECT_EQ(r["false_negatives"].get<std::size_t>(), 0u);
      EXPECT_TRUE(r["consistent"].get<bool>());
    }
    const Json cyclic = Entry("acf_cyclic").adversarial(StateAttack(AttackKind::kStateReading, 1024, seed));
    EXPECT_LE(cyclic["distinct_queries"].get<std::size_t>(), 8u);  // 2^s = 4, plus strays
    const Json cuckooing = Entry("acf_cuckooing").adversarial(StateAttack(AttackKind::kStateReading, 1024, seed));
    EXPECT_EQ(cuckooing["cycle_closed"].get<int>(), 0);
    EXPECT_LT(cuckooing["false_positives"].get<std::size_t>(), 40u);
    EXPECT_EQ(cuckooing["false_negatives"].get<std::size_t>(), 0u);
    // The static replay of the adversary's queries pays on every repeat of a false positive.
    EXPECT_GE(cuckooing["false_positives_static"].get<std::size_t>(), cuckooing["false_positives"].get<std::size_t>());
  }
}

// The same seed gives the same attack, query for query.
TEST(AdaptStateReading, Deterministic) {
  const auto spec = StateAttack(AttackKind::kStateReadingFollow, 1024, 7);
  EXPECT_EQ(Entry("acf_cuckooing").adversarial(spec).dump(), Entry("acf_cuckooing").adversarial(spec).dump());
}

}  // namespace
}  // namespace amq
