// filters/theory_formulas_test.cc - what filters/theory_formulas.h promises beyond the filters'
// own theory() (filters/theory_test.cc, the conformance suite): the family curves are the
// filters' formulas with a continuous width, the seeds' formulas say what the seeds said, and
// the limits and special values the report's labels and checks rely on hold.
#include "filters/theory_formulas.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "filters/cuckoo.h"

namespace amq {
namespace {

// The curve meets eps exactly; the filter's size steps by 0.01 above it.
TEST(TheoryFormulas, BlockedBloomCurveLiesWithinOneGridStepBelowTheSize) {
  for (double eps : {0.05, 0.01, 0.001, 1e-5}) {
    const double curve = BlockedBloomBitsPerKey(eps);
    const double size = BlockedBloomBitsPerKeyFor(eps);
    EXPECT_LE(BlockedBloomFprAtBitsPerKey(curve), eps) << eps;
    EXPECT_GT(BlockedBloomFprAtBitsPerKey(curve - 1e-9), eps) << eps;
    EXPECT_LE(curve, size + 1e-9) << eps;
    EXPECT_GT(curve, size - 0.0101) << eps;
  }
}

// The AMQ survey's lab (30,000 keys, 1%, max load 0.94, b = 4): f = 7 + 3, 2^13 buckets.
TEST(TheoryFormulas, CuckooLabGeometryIsTheLabs) {
  const CuckooLabGeometry g = CuckooSurveyLabGeometry(30000, 0.01, 0.94, 4);
  EXPECT_EQ(g.fingerprint_bits, 10);
  EXPECT_EQ(g.buckets, 8192u);
  EXPECT_EQ(g.load, 30000.0 / 32768);
  EXPECT_EQ(g.bits_per_key, 10.0 * 32768 / 30000);
  // ceil(log2(2b)) follows b; one bucket is enough for a handful of keys (the filter takes 2).
  EXPECT_EQ(CuckooFingerprintBitsFor(0.01, 2), 9);
  EXPECT_EQ(CuckooFingerprintBitsFor(0.01, 8), 11);
  EXPECT_EQ(CuckooSurveyLabGeometry(3, 0.01, 0.95, 4).buckets, 1u);
}

// The filter sizes with the same rule from two buckets up.
TEST(TheoryFormulas, CuckooFilterSizesByTheSameRule) {
  for (std::size_t n : {1u, 100u, 3840u, 30000u}) {
    FilterParams p;
    p.capacity = n;
    p.target_fpr = 0.001;
    p.max_load = 0.94;
    const std::uint64_t seed_buckets =
        CuckooSurveyLabGeometry(static_cast<double>(n), 0.001, 0.94, 4).buckets;
    EXPECT_EQ(Cuckoo<0>::BucketsFor(p), std::max<std::uint64_t>(seed_buckets, 2)) << n;
    EXPECT_EQ(Cuckoo<0>::FingerprintBitsFor(p), CuckooFingerprintBitsFor(0.001, 4));
  }
}

// For f >= 8 the FPR is close to 2 b alpha / 2^f, the paper's approximation.
TEST(TheoryFormulas, CuckooFprApproachesTwoBAlphaOverTwoToTheF) {
  EXPECT_NEAR(CuckooFpr(16, 0.95, 4) / (8 * 0.95 / 65536), 1.0, 1e-3);
  EXPECT_EQ(CuckooFpr(12, 0.0, 4), 0.0);
}

// 1 - e^(-alpha / 2^r) is the large-table limit of 1 - (1 - 2^-(q+r))^n at n = alpha 2^q.
TEST(TheoryFormulas, QuotientFprAtLoadIsTheTablesLimit) {
  for (int r : {4, 8, 13}) {
    const double limit = QuotientFprAtLoad(r, 0.9);
    EXPECT_NEAR(QuotientFpr(0.9 * std::ldexp(1.0, 30), 30, r) / limit, 1.0, 1e-6) << r;
    EXPECT_GT(std::abs(QuotientFpr(0.9 * 16, 4, r) / limit - 1), 1e-6) << r;  // small tables differ
  }
}

// The AMQ survey's log2(n / alpha) is the quotient width q, exactly, at any fill of a 2^q table.
TEST(TheoryFormulas, QuotientSeed000CountsQBitsExactly) {
  for (int q : {6, 10, 20}) {
    for (double n : {1.0, 37.0, 0.75 * std::ldexp(1.0, q), std::ldexp(1.0, q)}) {
      const double alpha = n / std::ldexp(1.0, q);
      EXPECT_EQ(QuotientSurveyBitsPerKey(n, 8, alpha), (q + 8 + 3) / alpha) << q << " " << n;
    }
  }
  EXPECT_EQ(QuotientBitsPerKey(8, 2.125, 0.5), 20.25);
}

TEST(TheoryFormulas, KnuthAtHalfLoad) {
  EXPECT_EQ(KnuthDisplacementMean(0.5), 0.5);
  EXPECT_EQ(KnuthProbesToEmptyMean(0.5), 2.5);
  EXPECT_EQ(KnuthDisplacementMean(0.0), 0.0);
}

// Knuth's finite-table sum against every placement of n keys into m slots by linear probing
// (circular, first come first served): the mean displacement over all m^n home choices.
double EnumeratedDisplacement(int m, int n) {
  double total = 0, placements = 0;
  std::vector<int> homes(n, 0);
  for (;;) {
    std::vector<bool> used(m, false);
    for (int h : homes) {
      int s = h;
      while (used[s]) s = (s + 1) % m;
      used[s] = true;
      total += (s - h + m) % m;
    }
    placements += 1;
    int i = 0;
    while (i < n && ++homes[i] == m) homes[i++] = 0;
    if (i == n) break;
  }
  return total / (placements * n);
}

TEST(TheoryFormulas, KnuthFiniteTableMatchesEveryPlacement) {
  EXPECT_EQ(KnuthDisplacementMeanFinite(3, 1), 0.0);
  EXPECT_NEAR(KnuthDisplacementMeanFinite(3, 2), 1.0 / 6, 1e-15);
  for (auto [m, n] : {std::pair{4, 3}, {5, 4}, {5, 5}, {6, 3}}) {
    EXPECT_NEAR(KnuthDisplacementMeanFinite(m, n), EnumeratedDisplacement(m, n), 1e-12) << m << " " << n;
  }
}

TEST(TheoryFormulas, KnuthFiniteTableApproachesTheLimitFromBelow) {
  const double m = std::ldexp(1.0, 20);
  EXPECT_NEAR(KnuthDisplacementMeanFinite(m, 0.5 * m), KnuthDisplacementMean(0.5), 1e-5);
  const double small = std::ldexp(1.0, 18), n = std::round(0.99 * small);
  const double finite = KnuthDisplacementMeanFinite(small, n), limit = KnuthDisplacementMean(n / small);
  EXPECT_LT(finite, limit);
  // Knuth's first correction term, alpha / (2 (1 - alpha)^3 m), accounts for most of the gap.
  const double alpha = n / small;
  EXPECT_NEAR(limit - finite, alpha / (2 * std::pow(1 - alpha, 3) * small), 0.25 * (limit - finite));
}

// The report labels the binary fuse curves 1.125 and 1.075 log2(1/eps) at n = 10^6.
TEST(TheoryFormulas, BinaryFuseFactorsAtAMillionKeys) {
  EXPECT_EQ(BinaryFuseSizeFactor(1000000, 3), 1.125);
  EXPECT_EQ(BinaryFuseSizeFactor(1000000, 4), 1.075);
  EXPECT_GT(BinaryFuseSizeFactor(1000, 3), 1.125);  // small n needs more slots per key
  EXPECT_EQ(BinaryFuseSizeFactor(0, 3), BinaryFuseSizeFactor(2, 3));
}

// The XOR curve is the limit of (1.23 n + 32) k / n at k = log2(1/eps).
TEST(TheoryFormulas, XorCurveIsTheLargeNLimit) {
  EXPECT_NEAR(XorBitsPerKey(1e12, 10) / XorBitsPerKeyForFpr(std::ldexp(1.0, -10)), 1.0, 1e-9);
  EXPECT_DOUBLE_EQ(XorBitsPerKey(100, 8), (123.0 + 32) * 8 / 100);
}

// Fractional Ribbon: equal to standard Ribbon at a whole log2(1/eps), at most 0.086 bits of
// lo + q over log2(1/eps) between (filters/ribbon_frac.h), and its FPR at the split is eps.
TEST(TheoryFormulas, RibbonFracCurveMeetsRibbonAtWholeWidths) {
  for (int r = 1; r <= 20; ++r) {
    const double eps = std::ldexp(1.0, -r);
    EXPECT_DOUBLE_EQ(RibbonFracBitsPerKeyForFpr(eps, 0.05), RibbonBitsPerKey(r, 0.05)) << r;
  }
  for (double eps : {0.3, 0.01, 0.003, 2e-5}) {
    const double excess = RibbonFracBitsPerKeyForFpr(eps, 0.0) - LowerBoundBitsPerKey(eps);
    EXPECT_GE(excess, -1e-12) << eps;
    EXPECT_LE(excess, 0.0861) << eps;
    const RibbonFracSplit split = RibbonFracSplitFor(eps, 0.0, 0.05);
    EXPECT_NEAR(RibbonFracFpr(split.lower, split.upper_share) / eps, 1.0, 1e-12) << eps;
  }
}

TEST(TheoryFormulas, BloomOptimumIsLog2OverLn2) {
  EXPECT_NEAR(BloomBitsPerKey(0.01), 9.585, 1e-3);
  // At the optimum k = (m/n) ln 2 the FPR is 2^-k.
  EXPECT_NEAR(BloomFpr(7, 1000, 1000 * 7 / std::log(2.0)), std::ldexp(1.0, -7), 1e-12);
}

}  // namespace
}  // namespace amq
