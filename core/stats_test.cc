// core/stats_test.cc - the intervals the report and the tests rely on.
#include <gtest/gtest.h>

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
