// filters/ribbon_frac_test.cc - Ribbon with fractional result bits: the column split the target
// asks for, membership at small and large n, FPR at eps between powers of two against the
// header's 2^-lo (1 - q/2), space (1 + eps_w)(lo + q), and `ribbon`'s own bytes at a whole
// log2(1/eps).
#include "filters/ribbon_frac.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/stats.h"
#include "filters/ribbon.h"
#include "harness/cell/kernels.h"
#include "harness/cell/stat_json.h"
#include "workloads/uniform.h"

namespace amq {
namespace {

FilterParams FracParams(std::size_t n, std::uint64_t seed, double fpr) {
  FilterParams p;
  p.capacity = n;
  p.seed = seed;
  p.target_fpr = fpr;
  return p;
}

TEST(RibbonFrac, SplitMeetsTheTarget) {
  // 1%: lo = 6, q = 2 - 2^7 0.01 = 0.72.
  const RibbonFrac::Split one = RibbonFrac::SplitFor(FracParams(1000, 1, 0.01));
  EXPECT_EQ(one.lower, 6);
  EXPECT_NEAR(one.upper_share, 0.72, 1e-12);
  // 2^-7.5: q = 2 - 2^0.5.
  const RibbonFrac::Split half = RibbonFrac::SplitFor(FracParams(1000, 1, std::exp2(-7.5)));
  EXPECT_EQ(half.lower, 7);
  EXPECT_NEAR(half.upper_share, 2 - std::sqrt(2.0), 1e-12);
  // A whole log2(1/eps): no wide blocks at all.
  for (int r : {1, 7, 16, 32}) {
    const RibbonFrac::Split whole = RibbonFrac::SplitFor(FracParams(1000, 1, std::ldexp(1.0, -r)));
    EXPECT_EQ(whole.lower, r);
    EXPECT_EQ(whole.upper_share, 0.0);
  }
  // Out of range: clamped to one column at eps > 1/2 and 32 below 2^-32.
  EXPECT_EQ(RibbonFrac::SplitFor(FracParams(1000, 1, 0.9)).lower, 1);
  EXPECT_EQ(RibbonFrac::SplitFor(FracParams(1000, 1, 0.9)).upper_share, 0.0);
  EXPECT_EQ(RibbonFrac::SplitFor(FracParams(1000, 1, 1e-12)).lower, 32);
  // --bits-per-key 7.056 = 1.05 * 6.72: the same split as 1%.
  FilterParams by_bits = FracParams(1000, 1, 0.0);
  by_bits.bits_per_key = 7.056;
  EXPECT_EQ(RibbonFrac::SplitFor(by_bits).lower, 6);
  EXPECT_NEAR(RibbonFrac::SplitFor(by_bits).upper_share, 0.72, 1e-12);
}

TEST(RibbonFrac, HoldsEveryKey) {
  for (std::size_t n : {0, 1, 2, 3, 127, 128, 129, 1000, 100000}) {
    const auto keys = UniformKeys(n + 3, KeyStream::kMembers, n);
    for (double eps : {0.3, 0.01, 0.003, std::exp2(-7.5), std::exp2(-31.5)}) {
      const auto f = RibbonFrac::build(keys, FracParams(n, 5, eps));
      EXPECT_EQ(CountContained(f, keys), n) << "false negatives at n = " << n << ", eps = " << eps;
      std::vector<std::uint8_t> out(n);
      EXPECT_EQ(f.contains_many(keys, out), n) << "batched false negatives at n = " << n;
    }
  }
}

// The FPR is 2^-lo (1 - q'/2) at the split built, q' within w / (2 starts) of the target's q,
// so within 2^-(lo+1) w / starts of eps: checked, then the measured count against a binomial
// band (core/stats.h) around that theory.
TEST(RibbonFrac, FalsePositiveRateIsTheTarget) {
  constexpr std::size_t kKeys = 100000, kNegatives = 1000000;
  const auto keys = UniformKeys(21, KeyStream::kMembers, kKeys);
  const auto negatives = UniformKeys(21, KeyStream::kNonMembers, kNegatives);
  for (double eps : {0.1, 0.01, 0.003, std::exp2(-7.5), 0.001}) {
    const auto f = RibbonFrac::build(keys, FracParams(kKeys, 2, eps));
    const double starts = static_cast<double>(f.slots() - RibbonFrac::kRibbonWidth + 1);
    EXPECT_NEAR(f.theory().fpr, eps,
                std::ldexp(RibbonFrac::kRibbonWidth / starts, -(f.lower_columns() + 1)))
        << "eps = " << eps;
    const Interval band = BinomialBand(kNegatives, f.theory().fpr);
    const double fp = static_cast<double>(CountContained(f, negatives));
    EXPECT_GE(fp, band.low) << "eps = " << eps << ", theory " << f.theory().fpr;
    EXPECT_LE(fp, band.high) << "eps = " << eps << ", theory " << f.theory().fpr;
  }
}

// Measured 8 size / n against (1 + eps_w)(lo + q): the slots round up to a whole block (< w / n
// slots of at most lo + 1 bits) and the split to a whole block (< w / n wide slots' extra bit).
TEST(RibbonFrac, BitsPerKeyFollowTheFormula) {
  constexpr std::size_t n = 100000;
  const auto keys = UniformKeys(4, KeyStream::kMembers, n);
  for (double eps : {0.1, 0.01, 0.003, std::exp2(-7.5), 0.001}) {
    const auto f = RibbonFrac::build(keys, FracParams(n, 1, eps));
    const RibbonFrac::Split split = RibbonFrac::SplitFor(FracParams(n, 1, eps));
    const double formula = (1 + RibbonFrac::kOverhead) * (split.lower + split.upper_share);
    EXPECT_DOUBLE_EQ(f.theory().bits_per_key, formula);
    const double measured = 8.0 * static_cast<double>(f.size_in_bytes()) / n;
    EXPECT_NEAR(measured, formula, (split.lower + 2.0) * RibbonFrac::kRibbonWidth / n)
        << "eps = " << eps;
    // And never more than `ribbon` at the same target, which rounds r up.
    const auto whole = Ribbon128::build(keys, FracParams(n, 1, eps));
    EXPECT_LT(f.size_in_bytes(), whole.size_in_bytes()) << "eps = " << eps;
  }
}

TEST(RibbonFrac, OnePercentIsUnderRibbonsWholeSevenBits) {
  // The numbers: ribbon 7.35 bits/key at 0.78%, the fractional one 7.056 at 1%.
  const auto keys = UniformKeys(6, KeyStream::kMembers, 1000);
  EXPECT_NEAR(RibbonFrac::build(keys, FracParams(1000, 1, 0.01)).theory().bits_per_key, 7.056,
              1e-12);
  EXPECT_NEAR(Ribbon128::build(keys, FracParams(1000, 1, 0.01)).theory().bits_per_key, 7.35,
              1e-12);
}

// At a whole log2(1/eps) every block keeps r columns and the fingerprints are r bits wide:
// the filter is `ribbon`'s, byte for byte and answer for answer.
TEST(RibbonFrac, WholeBitsAreRibbonsFilter) {
  constexpr std::size_t n = 20000;
  const auto keys = UniformKeys(7, KeyStream::kMembers, n);
  const auto probes = UniformKeys(7, KeyStream::kNonMembers, 100000);
  for (int r : {1, 4, 7, 12, 32}) {
    const FilterParams p = FracParams(n, 3, std::ldexp(1.0, -r));
    const auto frac = RibbonFrac::build(keys, p);
    const auto whole = Ribbon128::build(keys, p);
    EXPECT_EQ(frac.result_bits(), r);
    EXPECT_EQ(frac.lower_columns(), whole.result_bits());
    EXPECT_EQ(frac.theory().fpr, whole.theory().fpr);
    EXPECT_DOUBLE_EQ(frac.theory().bits_per_key, whole.theory().bits_per_key);
    ASSERT_EQ(frac.size_in_bytes(), whole.size_in_bytes());
    EXPECT_EQ(std::memcmp(frac.bytes().data(), whole.bytes().data(), frac.size_in_bytes()), 0)
        << "r = " << r;
    EXPECT_EQ(CountContained(frac, probes), CountContained(whole, probes)) << "r = " << r;
  }
}

TEST(RibbonFrac, StatisticsDescribeTheSplit) {
  constexpr std::size_t n = 100000;
  const auto keys = UniformKeys(9, KeyStream::kMembers, n);
  const auto f = RibbonFrac::build(keys, FracParams(n, 1, 0.01));
  const Json s = StatsOf(f);
  EXPECT_EQ(s["ribbon_columns"], 7);
  EXPECT_EQ(s["ribbon_blocks_with_one_column_less"], f.narrow_blocks());
  EXPECT_NEAR(s["ribbon_upper_share"].get<double>(), 0.72, 128.0 / n);
  const std::size_t blocks = f.slots() / RibbonFrac::kRibbonWidth;
  EXPECT_EQ(f.size_in_bytes(), (f.narrow_blocks() * 6 + (blocks - f.narrow_blocks()) * 7) * 16);
  EXPECT_DOUBLE_EQ(s["fingerprint_bits"].get<double>(), 8.0 * f.size_in_bytes() / f.slots());
}

TEST(RibbonFrac, FailureIsBoundedAndReported) {
  const auto keys = UniformKeys(8, KeyStream::kMembers, 1000);
  StaticBuildOptions squeeze;
  squeeze.max_attempts = 5;
  squeeze.slots_override = 640;  // fewer slots than keys: the system is overdetermined
  EXPECT_THROW(RibbonFrac::build(keys, FracParams(1000, 1, 0.01), squeeze), BuildFailed);
}

}  // namespace
}  // namespace amq
