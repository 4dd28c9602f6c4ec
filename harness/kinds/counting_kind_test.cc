// harness/kinds/counting_kind_test.cc - the counting kind: the error measure on a hand-made
// case, and a small Zipf multiset counted by the CQF and a Count-Min sketch in the same bytes,
// with neither below the truth, the CQF wrong only where fingerprints collide, and every field
// the records carry declared in the schema.
#include "harness/kinds/counting_kind.h"

#include <gtest/gtest.h>

#include "core/errors.h"

#include <cmath>
#include <set>

#include "harness/run/schema.h"

namespace amq {
namespace {

TEST(CountingExperiment, ErrorMeasureOnAHandMadeCase) {
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> truth = {{1, 5}, {2, 1}, {3, 0}, {4, 2}};
  // Estimates 5 (exact), 3 (+2), 0 (exact), 1 (-1: below the truth).
  const CountError e = MeasureCountError(truth, [](std::uint64_t k) -> std::uint64_t {
    return k == 1 ? 5 : k == 2 ? 3 : k == 3 ? 0 : 1;
  });
  EXPECT_EQ(e.keys, 4u);
  EXPECT_DOUBLE_EQ(e.mean, 3.0 / 4);
  EXPECT_EQ(e.max, 2u);
  EXPECT_DOUBLE_EQ(e.exact_fraction, 0.5);
  EXPECT_EQ(e.below_truth, 1u);
}

TEST(CountingExperiment, CqfAndCountMinOnOneZipfMultisetInTheSameBytes) {
  CountingParams p;
  p.zipf_alphas = {1.0};
  p.items = 20000;
  p.universe = 5000;
  p.fpr = 0.01;
  p.depths = {4};
  p.absent_queries = 2000;
  p.seed = 3;
  ValidateCountingParams(p);
  const auto plan = MakeCountingPlan(p);
  ASSERT_EQ(plan->cells().size(), 2u);  // the CQF, then the depth-4 sketch
  const Json cqf = plan->Run(0).back();
  const Json cms = plan->Run(1).back();
  EXPECT_EQ(cqf["filter"], "cqf");
  EXPECT_EQ(cms["filter"], "count_min");
  EXPECT_EQ(cqf["items"], 20000u);
  EXPECT_EQ(cqf["distinct"], cms["distinct"]);
  // The same memory, up to one counter per row.
  const auto cqf_bytes = cqf["size_bytes"].get<std::uint64_t>();
  const auto cms_bytes = cms["size_bytes"].get<std::uint64_t>();
  EXPECT_LE(cms_bytes, cqf_bytes);
  EXPECT_GT(cms_bytes + 4 * 4, cqf_bytes);
  EXPECT_EQ(cqf["false_negatives"], 0u);
  EXPECT_EQ(cms["false_negatives"], 0u);

  // The CQF is wrong about a key only when another key shares its p = q + r bit fingerprint:
  // each of D keys does with probability at most (D - 1) / 2^p. Allow the expectation plus
  // four binomial standard deviations.
  const double d = cqf["distinct"].get<double>();
  const double p_collide = d / std::ldexp(1.0, cqf["quotient_bits"].get<int>() + cqf["remainder_bits"].get<int>());
  const double wrong = 1 - cqf["count_exact_fraction"].get<double>();
  EXPECT_LE(wrong, p_collide + 4 * std::sqrt(p_collide / d)) << "CQF wrong on " << wrong * d << " keys";
  // An absent key is counted above 0 only on a false positive: at most FPR alpha / 2^r.
  const double absent_wrong = 1 - cqf["absent_exact_fraction"].get<double>();
  const double fpr = cqf["load_factor"].get<double>() / std::ldexp(1.0, cqf["remainder_bits"].get<int>());
  EXPECT_LE(absent_wrong, fpr + 4 * std::sqrt(fpr / 2000));
  // Theorem 1's bound in the sketch's own record: e N / w with failure share at most e^-d.
  EXPECT_NEAR(cms["count_error_bound"].get<double>(), std::exp(1.0) * 20000 / cms["width"].get<double>(), 1e-6);
  EXPECT_LE(cms["count_bound_exceeded_fraction"].get<double>(), std::exp(-4.0));
  // Running a cell again gives the same record: the kind is deterministic.
  EXPECT_EQ(plan->Run(1).back(), cms);

  std::set<std::string> declared;
  for (const FieldSpec& f : RecordSchema()) declared.insert(f.name);
  for (const Json& r : {cqf, cms}) {
    for (const auto& [name, value] : r.items()) EXPECT_TRUE(declared.count(name)) << name << " is not in the schema";
  }
}

TEST(CountingExperiment, RefusesParametersNoCellCouldRunWith) {
  CountingParams p;
  p.zipf_alphas = {};
  EXPECT_ANY_THROW(ValidateCountingParams(p));  // nothing to count
  // Each value's range is the kind's declaration, checked by every front door.
  EXPECT_THROW(CheckParam(*kCountingKind.Find("depth"), Json::array({0}), "depth"), InputError);
  EXPECT_THROW(CheckParam(*kCountingKind.Find("fpr"), 1.5, "fpr"), InputError);
  EXPECT_NO_THROW(CheckParam(*kCountingKind.Find("fpr"), 0.01, "fpr"));
  EXPECT_NO_THROW(CheckParam(*kCountingKind.Find("depth"), Json::array({1, 32}), "depth"));
}

}  // namespace
}  // namespace amq
