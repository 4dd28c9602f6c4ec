// workloads/queries_test.cc - the Zipf sampler against its exact distribution (chi-square with a
// bound from the chi-square distribution itself), query mixes with exact positive counts and
// exact membership flags, repeated negatives (adversarial), and churn schedules.
#include "workloads/queries.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/errors.h"
#include "workloads/keys.h"
#include "core/zipf.h"

namespace amq {
namespace {

// Upper quantile of chi-square(df) at z standard normal deviations, by the Wilson-Hilferty
// cube-root approximation (accurate to a few percent of the quantile for df >= 10). z = 5: a
// correct sampler fails with probability ~3e-7.
double ChiSquareBound(double df, double z = 5.0) {
  const double c = 2.0 / (9.0 * df);
  return df * std::pow(1.0 - c + z * std::sqrt(c), 3.0);
}

// Pearson's statistic of `samples` draws against Zipf(n, alpha), ranks pooled from the tail so
// every bin expects at least 20 (the chi-square approximation needs >= 5).
struct ChiSquare {
  double statistic = 0;
  double df = 0;
};

ChiSquare ZipfChiSquare(std::uint64_t n, double sampled_alpha, double tested_alpha,
                        std::size_t samples, std::uint64_t seed) {
  const ZipfSampler sampler(n, sampled_alpha);
  XorShift64Star rng(seed);
  std::vector<std::uint64_t> counts(n, 0);
  for (std::size_t i = 0; i < samples; ++i) {
    const std::uint64_t k = sampler(rng);
    EXPECT_GE(k, 1u);
    EXPECT_LE(k, n);
    if (k >= 1 && k <= n) ++counts[k - 1];
  }
  const std::vector<double> pmf = ZipfPmf(n, tested_alpha);
  ChiSquare result;
  double expected = 0, observed = 0;
  int bins = 0;
  for (std::uint64_t k = 0; k < n; ++k) {
    expected += pmf[k] * static_cast<double>(samples);
    observed += static_cast<double>(counts[k]);
    if (expected >= 20 || k + 1 == n) {
      result.statistic += (observed - expected) * (observed - expected) / expected;
      ++bins;
      expected = observed = 0;
    }
  }
  result.df = bins - 1;
  return result;
}

TEST(Zipf, MatchesItsDistribution) {
  std::uint64_t seed = 1;
  for (std::uint64_t n : {1000ULL, 100000ULL}) {
    for (double alpha : {0.0, 0.5, 0.99, 1.0, 1.3, 2.0}) {
      const ChiSquare x = ZipfChiSquare(n, alpha, alpha, 200000, seed++);
      EXPECT_LT(x.statistic, ChiSquareBound(x.df))
          << "n " << n << " alpha " << alpha << " df " << x.df;
    }
  }
}

// The test above can fail: a sampler off by 0.03 in alpha is rejected by the same bound.
TEST(Zipf, GoodnessOfFitHasPower) {
  const ChiSquare x = ZipfChiSquare(1000, 1.03, 1.0, 200000, 99);
  EXPECT_GT(x.statistic, ChiSquareBound(x.df)) << "df " << x.df;
}

TEST(Zipf, EdgeCases) {
  XorShift64Star rng(3);
  const ZipfSampler one(1, 1.5);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(one(rng), 1u);
  // A huge support costs no memory; draws stay in range and rank 1 keeps its share.
  const ZipfSampler huge(std::uint64_t{1} << 40, 1.1);
  std::size_t ones = 0;
  for (int i = 0; i < 10000; ++i) {
    const std::uint64_t k = huge(rng);
    ASSERT_GE(k, 1u);
    ASSERT_LE(k, std::uint64_t{1} << 40);
    ones += k == 1;
  }
  // P(1) = 1 / H(2^40, 1.1), with H within 1e-3 of zeta(1.1) - (2^40)^-0.1 / 0.1 = 10.58 - 0.63.
  const double p1 = 1.0 / (10.5844 - std::pow(0x1p40, -0.1) / 0.1);
  const double sd = std::sqrt(10000 * p1 * (1 - p1));
  EXPECT_NEAR(static_cast<double>(ones), 10000 * p1, 5 * sd + 1);
}

TEST(Queries, MixHasExactPositivesAndFlags) {
  Workload w = MakeWorkload("sequential", 5000, 5000, 1);
  const std::unordered_set<std::uint64_t> members(w.keys.begin(), w.keys.end());
  for (double p : {0.0, 0.25, 0.5, 0.75, 0.95, 1.0}) {
    for (const char* dist : {"uniform", "zipf:0.99"}) {
      QueryMix mix;
      mix.count = 10001;
      mix.positive_fraction = p;
      mix.dist = Popularity::Parse(dist);
      mix.seed = 4;
      AddQueries(w, mix);
      ASSERT_EQ(w.queries.size(), 10001u);
      ASSERT_EQ(w.query_is_member.size(), 10001u);
      std::size_t positives = 0;
      for (std::size_t i = 0; i < w.queries.size(); ++i) {
        ASSERT_EQ(w.query_is_member[i], members.count(w.queries[i]) ? 1 : 0);
        positives += w.query_is_member[i];
      }
      EXPECT_EQ(positives, static_cast<std::size_t>(std::llround(p * 10001)));
      EXPECT_EQ(w.parameters["queries"]["positives"], positives);
      EXPECT_EQ(w.parameters["queries"]["dist"], dist);
    }
  }
}

// Positions of positives are spread out, not clustered: in a 50% mix the longest run of equal
// answers among 10^4 queries is ~log2(10^4) = 13, never hundreds.
TEST(Queries, PositivesAreInterleaved) {
  Workload w = MakeWorkload("uniform", 1000, 1000, 2);
  QueryMix mix;
  mix.count = 10000;
  mix.positive_fraction = 0.5;
  AddQueries(w, mix);
  std::size_t longest = 1, run = 1;
  for (std::size_t i = 1; i < w.query_is_member.size(); ++i) {
    run = w.query_is_member[i] == w.query_is_member[i - 1] ? run + 1 : 1;
    longest = std::max(longest, run);
  }
  EXPECT_LT(longest, 40u);
}

// Zipf popularity over the pool: the most-asked key is asked ~ Q * P(1) times.
TEST(Queries, ZipfPopularityOverThePool) {
  Workload w = MakeWorkload("uniform", 2000, 2000, 3);
  QueryMix mix;
  mix.count = 100000;
  mix.positive_fraction = 1.0;
  mix.dist = Popularity::Parse("zipf:1.2");
  AddQueries(w, mix);
  std::unordered_map<std::uint64_t, std::size_t> counts;
  for (std::uint64_t q : w.queries) ++counts[q];
  std::size_t top = 0;
  for (const auto& [key, c] : counts) top = std::max(top, c);
  const double p1 = ZipfPmf(2000, 1.2)[0];
  const double sd = std::sqrt(100000 * p1 * (1 - p1));
  EXPECT_NEAR(static_cast<double>(top), 100000 * p1, 5 * sd);
}

TEST(Queries, RepeatedNegatives) {
  Workload w = MakeWorkload("uniform", 1000, 50000, 4);
  QueryMix mix;
  mix.count = 20000;
  mix.positive_fraction = 0.0;
  mix.repeated_negatives = 100;
  AddQueries(w, mix);
  const std::set<std::uint64_t> distinct(w.queries.begin(), w.queries.end());
  EXPECT_EQ(distinct.size(), 100u);
  const std::set<std::uint64_t> negatives(w.negatives.begin(), w.negatives.end());
  for (std::uint64_t q : distinct) EXPECT_TRUE(negatives.count(q));
  EXPECT_EQ(w.parameters["queries"]["repeated_negatives"], 100);
}

TEST(Queries, BadInput) {
  EXPECT_THROW(Popularity::Parse("zipf"), InputError);
  EXPECT_THROW(Popularity::Parse("zipf:"), InputError);
  EXPECT_THROW(Popularity::Parse("zipf:-1"), InputError);
  EXPECT_THROW(Popularity::Parse("zipf:0"), InputError);
  EXPECT_THROW(Popularity::Parse("zipf:1x"), InputError);
  EXPECT_THROW(Popularity::Parse("zipf:nan"), InputError);
  EXPECT_THROW(Popularity::Parse("normal"), InputError);
  EXPECT_EQ(Popularity::Parse("zipf:0.99").Name(), "zipf:0.99");
  EXPECT_THROW(ParsePositiveFraction("1.5"), InputError);
  EXPECT_THROW(ParsePositiveFraction("half"), InputError);
  EXPECT_DOUBLE_EQ(ParsePositiveFraction("0.95"), 0.95);
  Workload empty = MakeWorkload("uniform", 0, 10, 1);
  QueryMix mix;
  mix.count = 10;
  mix.positive_fraction = 0.5;
  EXPECT_THROW(AddQueries(empty, mix), InputError);  // no members to ask about
  mix.positive_fraction = 2;
  EXPECT_THROW(AddQueries(empty, mix), InputError);
}

TEST(Churn, SteadyLoadAndExactMembership) {
  const Workload w = MakeWorkload("uniform", 2000, 5000, 6);
  ChurnOptions o;
  o.resident = 1500;
  o.rounds = 20000;
  o.queries_per_round = 3;
  o.positive_fraction = 0.5;
  o.seed = 8;
  const auto steps = MakeChurnSchedule(w, o);
  ASSERT_EQ(steps.size(), 1500 + 20000 * 5u);
  std::unordered_set<std::uint64_t> held;
  const std::unordered_set<std::uint64_t> pool(w.keys.begin(), w.keys.end());
  std::size_t reinserted = 0, positives = 0, queries = 0;
  std::unordered_set<std::uint64_t> ever_erased;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const ChurnStep& s = steps[i];
    switch (s.op) {
      case ChurnStep::Op::kInsert:
        ASSERT_TRUE(pool.count(s.key));
        ASSERT_TRUE(held.insert(s.key).second) << "step " << i << " inserts a held key";
        reinserted += ever_erased.count(s.key);
        break;
      case ChurnStep::Op::kErase:
        ASSERT_EQ(held.erase(s.key), 1u) << "step " << i << " erases a key not held";
        ever_erased.insert(s.key);
        break;
      case ChurnStep::Op::kQuery:
        ASSERT_EQ(s.member, held.count(s.key) ? 1 : 0) << "step " << i;
        positives += s.member;
        ++queries;
        break;
    }
    if (i >= 1500) {
      // Between rounds the load is steady: an erase is always followed by an insert.
      ASSERT_TRUE(held.size() == 1500 || (held.size() == 1499 && s.op == ChurnStep::Op::kErase));
    }
  }
  EXPECT_GT(reinserted, 0u) << "erased keys never came back";
  const double mean = queries * 0.5, sd = std::sqrt(queries * 0.25);
  EXPECT_NEAR(static_cast<double>(positives), mean, 5 * sd);
  o.resident = 2001;
  EXPECT_THROW(MakeChurnSchedule(w, o), InputError);
}

}  // namespace
}  // namespace amq
