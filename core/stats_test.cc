// core/stats_test.cc - the intervals the report and the tests rely on.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/stats.h"

namespace amq {
namespace {

TEST(Stats, WilsonIntervalKnownValues) {
  // 10 of 100: the Wilson 95% interval is [0.0552, 0.1744] (Newcombe 1998, method 3).
  const Interval i = WilsonInterval(10, 100);
  EXPECT_NEAR(i.low, 0.0552, 5e-4);
  EXPECT_NEAR(i.high, 0.1744, 5e-4);
  const Interval zero = WilsonInterval(0, 1000);
  EXPECT_EQ(zero.low, 0.0);
  EXPECT_GT(zero.high, 0.0);
}

// Clustered draws: 10 flows of 10 queries each are 10 draws, not 100; uneven clusters fewer.
TEST(Stats, EffectiveDrawsCountClustersNotQueries) {
  EXPECT_DOUBLE_EQ(EffectiveDraws(100, 10 * 10 * 10), 10.0);
  EXPECT_DOUBLE_EQ(EffectiveDraws(100, 100), 100.0);          // every query its own flow
  EXPECT_DOUBLE_EQ(EffectiveDraws(100, 90 * 90 + 10), 100.0 * 100 / 8110);  // one heavy flow
  // The interval at 10 effective draws is the interval of 1 in 10, however many queries.
  const Interval a = WilsonIntervalAt(0.1, EffectiveDraws(100, 1000));
  const Interval b = WilsonInterval(1, 10);
  EXPECT_DOUBLE_EQ(a.low, b.low);
  EXPECT_DOUBLE_EQ(a.high, b.high);
}

// Student's t quantiles (scipy.stats.t.ppf(0.975, n - 1)) times s / sqrt(n).
TEST(Stats, MeanIntervalUsesStudentsT) {
  std::vector<double> v(20);
  for (int i = 0; i < 20; ++i) v[i] = i % 2;  // mean 0.5, s = sqrt(20 / 76)
  const Interval i20 = MeanInterval(v);
  const double half = 2.093024054 * std::sqrt(5.0 / 19.0) / std::sqrt(20.0);
  EXPECT_NEAR(i20.low, 0.5 - half, 1e-5);
  EXPECT_NEAR(i20.high, 0.5 + half, 1e-5);
  const Interval i6 = MeanInterval({1, 2, 3, 4, 5, 6});  // t(0.975, 5) = 2.570582
  EXPECT_NEAR(i6.high - 3.5, 2.570582 * std::sqrt(3.5) / std::sqrt(6.0), 3e-3);
}

TEST(Stats, BinomialBandContainsTheMeanAndScalesWithSd) {
  const Interval band = BinomialBand(1000000, 0.01);  // mean 10,000, sd 99.5
  EXPECT_NEAR(band.low, 10000 - 5 * 99.4987 - 1, 0.01);
  EXPECT_NEAR(band.high, 10000 + 5 * 99.4987 + 1, 0.01);
}

TEST(Stats, SummaryIsMedianMinMax) {
  const Summary s = Summarize({5, 1, 3, 9});
  EXPECT_EQ(s.median, 4);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 9);
}

}  // namespace
}  // namespace amq
