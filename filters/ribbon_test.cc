// filters/ribbon_test.cc - standard Ribbon (w = 64 and 128): membership at small and large n,
// repeated keys, FPR 2^-r at several widths, space r m / n, and the bounded failure path.
#include "filters/ribbon.h"

#include <gtest/gtest.h>

#include <cmath>

#include "harness/cell/kernels.h"
#include "core/stats.h"
#include "workloads/uniform.h"
#include "harness/cell/stat_json.h"
#include "filters/static_test_support.h"
#include "filters/ribbon_test_support.h"
#include "filters/test_params.h"

namespace amq {
namespace {

using filter_tests::ExpectFprIsTwoToMinusK;
using filter_tests::StaticParams;

template <class F>
class RibbonTest : public ::testing::Test {};
using RibbonTypes = ::testing::Types<Ribbon64, Ribbon128>;
TYPED_TEST_SUITE(RibbonTest, RibbonTypes);

TYPED_TEST(RibbonTest, HoldsEveryKey) {
  for (std::size_t n : {0, 1, 2, 3, 64, 65, 1000, 100000}) {
    const auto keys = UniformKeys(n + 3, KeyStream::kMembers, n);
    for (int r : {1, 7, 13, 32}) {
      const auto f = TypeParam::build(keys, StaticParams(n, 5, std::ldexp(1.0, -r)));
      ASSERT_EQ(f.result_bits(), r);
      EXPECT_EQ(CountContained(f, keys), n) << "false negatives at n = " << n << ", r = " << r;
      EXPECT_GE(f.build_attempts(), 1);
    }
  }
}

TYPED_TEST(RibbonTest, RepeatedKeysAreRedundantRows) {
  const auto distinct = UniformKeys(3, KeyStream::kMembers, 1000);
  std::vector<std::uint64_t> keys(distinct.begin(), distinct.end());
  keys.insert(keys.end(), distinct.begin(), distinct.begin() + 100);
  const auto f = TypeParam::build(keys, StaticParams(keys.size(), 9));
  EXPECT_EQ(CountContained(f, distinct), distinct.size());
  const Json s = StatsOf(f);
  EXPECT_EQ(s["redundant_rows"], 100);
  EXPECT_DOUBLE_EQ(f.theory().bits_per_key, 7 * (1 + TypeParam::kOverhead));
}

TYPED_TEST(RibbonTest, SlotsAreNTimesOnePlusOverheadInWholeBlocks) {
  constexpr std::size_t n = 100000;
  const auto keys = UniformKeys(4, KeyStream::kMembers, n);
  for (int r : {4, 7, 8, 12}) {
    const auto f = TypeParam::build(keys, StaticParams(n, 1, std::ldexp(1.0, -r)));
    const std::size_t slots = TypeParam::SlotsFor(n, TypeParam::kOverhead);
    EXPECT_EQ(f.slots(), slots);
    EXPECT_EQ(slots % TypeParam::kRibbonWidth, 0u);
    EXPECT_DOUBLE_EQ(f.theory().bits_per_key, r * (1 + TypeParam::kOverhead));  // not r m / n
    EXPECT_EQ(f.size_in_bytes(), slots * r / 8);
    // Rounding m up to whole blocks adds less than one block.
    EXPECT_NEAR(f.overhead(), TypeParam::kOverhead, 128.0 / n);
    const Json s = StatsOf(f);
    EXPECT_DOUBLE_EQ(s["overhead"].get<double>(), f.overhead());
  }
}

TEST(Ribbon, WidthFromParams) {
  FilterParams p = StaticParams(1000, 1);
  EXPECT_EQ(Ribbon64::ResultBitsFor(p), 7);  // default 1%
  p.target_fpr = 0;
  p.bits_per_key = 8;
  EXPECT_EQ(Ribbon128::ResultBitsFor(p), 7);  // floor(8 / 1.05)
  EXPECT_EQ(Ribbon64::ResultBitsFor(p), 7);   // floor(8 / 1.14)
  const Json s = StatsOf(Ribbon128::build(std::vector<std::uint64_t>{1, 2, 3}, p));
  EXPECT_EQ(s["ribbon_width"], 128);
}

TEST(Ribbon, FalsePositiveRateIsTwoToMinusR) {
  const auto keys = UniformKeys(21, KeyStream::kMembers, 100000);
  const auto negatives = UniformKeys(21, KeyStream::kNonMembers, 1000000);
  for (int r : {1, 4, 7, 8, 12, 16}) {
    const FilterParams p = StaticParams(keys.size(), 2, std::ldexp(1.0, -r));
    ExpectFprIsTwoToMinusK<Ribbon64>(keys, negatives, p, r);
    ExpectFprIsTwoToMinusK<Ribbon128>(keys, negatives, p, r);
  }
}

TEST(Ribbon, FailureIsBoundedAndReported) {
  // fewer slots than keys: the system is overdetermined
  filter_tests::ExpectSqueezedBuildsFail<Ribbon64, Ribbon128>(
      UniformKeys(8, KeyStream::kMembers, 1000), 640);
}

TEST(Ribbon, TightOverheadNeedsRetriesButStaysBounded) {
  // 2% overhead at w = 64 fails most seeds at n = 10^4: the build either succeeds after
  // several attempts or throws, and never exceeds the attempt limit.
  const auto keys = UniformKeys(8, KeyStream::kMembers, 10000);
  StaticBuildOptions tight;
  tight.max_attempts = 20;
  tight.slots_override = 10240;
  int retried = 0, failed = 0;
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    try {
      const auto f = Ribbon64::build(keys, StaticParams(10000, seed), tight);
      EXPECT_LE(f.build_attempts(), 20);
      retried += f.build_attempts() > 1;
      EXPECT_EQ(CountContained(f, keys), keys.size());
    } catch (const BuildFailed&) {
      ++failed;
    }
  }
  EXPECT_GT(retried + failed, 0) << "2% overhead should not band at the first try every time";
}

// Banding reduces two keys at a time at w = 64 (Banding::Run; w = 128 one at a time, through
// Insert, which the cases at w = 128 check as well). Against Insert one key at a time in the
// same sorted order, on the same keys and seeds: the same verdict on consistency (standard
// Ribbon at an overhead where some seeds fail), the same number of redundant rows (the rank),
// every stored pivot with its leading 1 at its own slot, and every key's equation satisfied by
// the pivots: its row reduces to 0 = 0 against them.
template <class Row, int kWidth>
void ExpectTwoChainBandingIsElimination(std::size_t n, double overhead, int result_bits) {
  const std::size_t slots = (static_cast<std::size_t>(n * (1 + overhead)) / kWidth + 1) * kWidth;
  const std::uint64_t starts = slots - kWidth + 1;
  const auto distinct = UniformKeys(41, KeyStream::kMembers, n);
  std::vector<std::uint64_t> keys(distinct.begin(), distinct.end());
  // Some keys twice: redundant rows.
  keys.insert(keys.end(), distinct.begin(), distinct.begin() + std::min<std::size_t>(20, n));
  int failed = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    ribbon_detail::Banding<Row, kWidth> two, one;
    const bool banded = two.Run(keys, slots, starts, seed, result_bits);
    // One key at a time, over the hashes Run sorted.
    one.rows.assign(slots, 0);
    one.results.assign(slots, 0);
    bool consistent = true;
    std::size_t redundant = 0;
    for (std::uint64_t h : two.sorted) {
      const auto done = one.Insert(ReduceRange(h, starts), ribbon_detail::CoefficientsOf<Row>(h),
                                   one.ResultOf(h, result_bits));
      if (done.outcome == decltype(one)::Outcome::kInconsistent) consistent = false;
      redundant += done.outcome == decltype(one)::Outcome::kRedundant;
    }
    ASSERT_EQ(banded, consistent) << "seed " << seed;
    if (!banded) {
      ++failed;
      continue;
    }
    EXPECT_EQ(two.redundant, redundant) << "seed " << seed;
    for (std::size_t i = 0; i < slots; ++i) {
      ASSERT_TRUE(two.rows[i] == 0 || (two.rows[i] & 1) == 1) << "slot " << i << ", seed " << seed;
    }
    for (std::uint64_t h : two.sorted) {
      Row c = ribbon_detail::CoefficientsOf<Row>(h);
      std::uint32_t result = two.ResultOf(h, result_bits);
      ASSERT_EQ(two.Reduce(ReduceRange(h, starts), c, result).outcome,
                decltype(two)::Outcome::kRedundant)
          << "a key's equation is not implied by the pivots, seed " << seed;
    }
  }
  if (result_bits > 0 && overhead < 0.05) {
    EXPECT_GT(failed, 0) << "no seed failed at " << overhead << " overhead: the consistency check saw no failure";
  }
}

TEST(Ribbon, TwoChainBandingIsElimination) {
  ExpectTwoChainBandingIsElimination<std::uint64_t, 64>(20000, 0.14, 7);   // standard, bands
  ExpectTwoChainBandingIsElimination<std::uint64_t, 64>(20000, 0.02, 7);   // standard, often fails
  ExpectTwoChainBandingIsElimination<std::uint64_t, 64>(20000, 0.094, 0);  // homogeneous
  ExpectTwoChainBandingIsElimination<U128, 128>(20000, 0.05, 9);
  ExpectTwoChainBandingIsElimination<U128, 128>(20000, 0.01, 9);
  ExpectTwoChainBandingIsElimination<std::uint64_t, 64>(1, 0.1, 7);         // one key: one chain
  ExpectTwoChainBandingIsElimination<std::uint64_t, 64>(3, 0.1, 7);
}

}  // namespace
}  // namespace amq

namespace amq {
namespace {

// Back-substitution runs a compile-time copy for 1 to 16 columns and the run-time loop beyond:
// both must give the same solution words. Checked against the run-time loop block by block, on
// one banding at r = 1 .. 18, standard (free variables 0) and homogeneous (free variables
// drawn from a seed).
TEST(Ribbon, BackSubstitutionEqualsTheRunTimeColumnLoop) {
  using Row = std::uint64_t;
  constexpr int kWidth = 64;
  const std::size_t slots = kBackSubstitutionSlots;
  const auto banding = BandedForBackSubstitution(UniformKeys(21, KeyStream::kMembers, 3000), 99, 18);
  for (const std::optional<std::uint64_t> free_seed : {std::optional<std::uint64_t>(), std::optional<std::uint64_t>(7)}) {
    for (int r = 1; r <= 18; ++r) {
      const ribbon_detail::AllColumns layout{r};
      const std::vector<Row> dispatched = ribbon_detail::BackSubstitute(banding, slots, r, layout, free_seed);
      std::vector<Row> runtime(layout.offset(slots / kWidth) + r, 0), state(r, 0);
      const std::optional<std::uint64_t> spread =
          free_seed ? std::optional<std::uint64_t>(SpreadSeed(*free_seed)) : std::nullopt;
      for (std::size_t block = slots / kWidth; block-- > 0;) {
        ribbon_detail::BackSubstituteBlock<0>(banding, block, r, spread, state.data());
        std::copy_n(state.begin(), r, runtime.begin() + layout.offset(block));
      }
      EXPECT_EQ(dispatched, runtime) << "r = " << r << (free_seed ? ", homogeneous" : "");
    }
  }
}

}  // namespace
}  // namespace amq
