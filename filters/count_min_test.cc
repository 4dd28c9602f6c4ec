// filters/count_min_test.cc - the Count-Min sketch: never below the truth, Theorem 1's bound
// e N / w held by at least 1 - e^-d of the keys, the byte budget, saturation, and the
// degenerate one-counter sketch whose every estimate is N.
#include "filters/count_min.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "core/zipf.h"

namespace amq {
namespace {

// A Zipf(1) multiset of `items` draws over `universe` ranks, counted exactly and in `cms`.
std::map<std::uint64_t, std::uint64_t> CountZipf(CountMinSketch& cms, std::size_t items,
                                                 std::uint64_t universe, std::uint64_t seed) {
  const ZipfSampler zipf(universe, 1.0);
  XorShift64Star rng(seed);
  std::map<std::uint64_t, std::uint64_t> truth;
  for (std::size_t i = 0; i < items; ++i) {
    const std::uint64_t key = MurmurMix64(zipf(rng));
    cms.insert(key);
    ++truth[key];
  }
  return truth;
}

TEST(CountMinSketch, NeverBelowTheTruthAndWithinTheoremOnesBound) {
  for (int depth : {1, 2, 4}) {
    CountMinSketch cms(depth, 512, 7);
    const std::size_t items = 50000;
    const auto truth = CountZipf(cms, items, 20000, 3);
    const double bound = cms.error_bound(items);
    EXPECT_NEAR(bound, std::exp(1.0) * items / 512, 1e-9);
    std::size_t over = 0;
    for (const auto& [key, count] : truth) {
      ASSERT_GE(cms.count(key), count) << "depth " << depth;
      over += static_cast<double>(cms.count(key) - count) > bound;
    }
    // Theorem 1: each key exceeds the bound with probability at most e^-d, so the expected
    // share over the distinct keys is at most e^-d.
    EXPECT_LE(static_cast<double>(over) / truth.size(), std::exp(-static_cast<double>(depth)))
        << "depth " << depth << ": " << over << " of " << truth.size() << " keys over the bound";
  }
}

TEST(CountMinSketch, MoreRowsNeverRaiseAnEstimateOfTheSameRows) {
  // Rows are seeded by index, so a depth-4 sketch holds the depth-2 sketch's rows: its minimum
  // over more counters can only be lower or equal, key by key.
  CountMinSketch two(2, 256, 9), four(4, 256, 9);
  const auto truth = CountZipf(two, 20000, 5000, 5);
  (void)CountZipf(four, 20000, 5000, 5);
  std::size_t lower = 0;
  for (const auto& [key, count] : truth) {
    ASSERT_LE(four.count(key), two.count(key));
    lower += four.count(key) < two.count(key);
  }
  EXPECT_GT(lower, 0u);  // two more rows of 256 counters must help some key of 5,000
}

TEST(CountMinSketch, OneCounterCountsEverything) {
  CountMinSketch cms(3, 1, 1);
  for (std::uint64_t k = 0; k < 1000; ++k) cms.insert(k * 7919);
  EXPECT_EQ(cms.count(0), 1000u);
  EXPECT_EQ(cms.count(123456789), 1000u);  // never inserted: still N
}

TEST(CountMinSketch, ALoneKeyIsExactAndAbsentKeysOfAnEmptySketchAreZero) {
  CountMinSketch cms(4, 1024, 2);
  EXPECT_EQ(cms.count(42), 0u);
  for (int i = 0; i < 37; ++i) cms.insert(42);
  EXPECT_EQ(cms.count(42), 37u);
}

TEST(CountMinSketch, WithBytesFillsTheBudgetWithWholeRows) {
  const CountMinSketch cms = CountMinSketch::WithBytes(1000, 3, 1);
  EXPECT_EQ(cms.width(), 83u);  // floor(1000 / 12)
  EXPECT_LE(cms.size_in_bytes(), 1000u);
  EXPECT_GT(cms.size_in_bytes() + 12, 1000u);
  EXPECT_THROW(CountMinSketch::WithBytes(11, 3, 1), std::invalid_argument);  // no whole counter per row
  EXPECT_THROW(CountMinSketch::WithBytes(100, 0, 1), std::invalid_argument);
}

TEST(CountMinSketch, SaturatesInsteadOfWrapping) {
  CountMinSketch cms(2, 8, 1);
  cms.insert(5, 0xFFFFFFF0u);
  cms.insert(5, 0x20u);
  EXPECT_EQ(cms.count(5), 0xFFFFFFFFu);
}

}  // namespace
}  // namespace amq
