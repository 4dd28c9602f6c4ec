// filters/binary_fuse_test.cc - binary fuse filters: membership at small and large n, repeated
// keys, the paper's geometry, FPR 2^-k at several widths, and the bounded failure path.
#include "filters/binary_fuse.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "harness/cell/kernels.h"
#include "core/stats.h"
#include "workloads/uniform.h"
#include "harness/cell/stat_json.h"
#include "filters/static_test_support.h"
#include "filters/test_params.h"

namespace amq {
namespace {

using filter_tests::ExpectFprIsTwoToMinusK;
using filter_tests::StaticParams;

template <class F>
class FuseTest : public ::testing::Test {};
using FuseTypes = ::testing::Types<BinaryFuse8, BinaryFuse16, BinaryFuse<0, 3>, BinaryFuse8x4,
                                   BinaryFuse16x4, BinaryFuse<0, 4>>;
TYPED_TEST_SUITE(FuseTest, FuseTypes);

TYPED_TEST(FuseTest, HoldsEveryKey) {
  for (std::size_t n : {0, 1, 2, 3, 5, 1000, 100000}) {
    const auto keys = UniformKeys(n + 3, KeyStream::kMembers, n);
    const auto f = TypeParam::build(keys, StaticParams(n, 5));
    EXPECT_EQ(CountContained(f, keys), n) << "false negatives at n = " << n;
    EXPECT_GE(f.build_attempts(), 1);
  }
}

TYPED_TEST(FuseTest, RepeatedKeysAreRemovedNotRetriedForever) {
  const auto distinct = UniformKeys(3, KeyStream::kMembers, 1000);
  std::vector<std::uint64_t> keys(distinct.begin(), distinct.end());
  keys.insert(keys.end(), distinct.rbegin(), distinct.rbegin() + 10);  // 10 keys twice
  const auto f = TypeParam::build(keys, StaticParams(keys.size(), 9));
  EXPECT_EQ(CountContained(f, distinct), distinct.size());
  EXPECT_EQ(f.build_attempts(), 2);  // a repeated equation never peels
  const Json s = StatsOf(f);
  EXPECT_EQ(s["duplicates_removed"], 10);
  EXPECT_EQ(f.slots(), fuse_detail::GeometryFor(
                           1000, TypeParam::kName.find("4wise") != std::string_view::npos ? 4 : 3)
                           .slots);
}

TEST(BinaryFuse, GeometryFollowsThePaper) {
  // n = 10^6, 3-wise: L = 2^floor(13.8155/1.2030 + 2.25) = 2^13, factor 1.125:
  // 1,125,000 slots -> 138 segments of 8192 -> S = 136, array = 138 * 8192.
  auto g = fuse_detail::PaperGeometryFor(1000000, 3);
  EXPECT_EQ(g.segment_length, 8192u);
  EXPECT_DOUBLE_EQ(g.formula_factor, 1.125);
  EXPECT_EQ(g.segment_count, 136u);
  EXPECT_EQ(g.slots, 138u * 8192);
  // 4-wise: L = 2^floor(13.8155/1.0682 - 0.5) = 2^12, factor max(1.075, 1.0637) = 1.075:
  // 1,075,000 -> 263 segments of 4096 -> S = 260.
  g = fuse_detail::PaperGeometryFor(1000000, 4);
  EXPECT_EQ(g.segment_length, 4096u);
  EXPECT_DOUBLE_EQ(g.formula_factor, 1.075);
  EXPECT_EQ(g.slots, 263u * 4096);
  // Small n: the factor grows (0.875 + 0.25 ln 10^6 / ln n) and the array never vanishes.
  g = fuse_detail::PaperGeometryFor(1000, 3);
  EXPECT_NEAR(g.formula_factor, 0.875 + 0.25 * std::log(1e6) / std::log(1000.0), 1e-12);
  EXPECT_EQ(g.segment_length, 128u);  // floor(5.738 + 2.25) = 7
  for (std::size_t n : {0, 1, 2}) {
    EXPECT_GE(fuse_detail::GeometryFor(n, 3).slots, 3u);
    EXPECT_GE(fuse_detail::GeometryFor(n, 4).slots, 4u);
  }
  // Large n: the segment length stops at 2^18.
  EXPECT_EQ(fuse_detail::PaperGeometryFor(std::size_t{1} << 34, 3).segment_length, 1u << 18);
}

// Ours keeps the paper's slots (or fewer) and halves L (down to 256) only where few segments
// (S < 32) a first position can take would hold fewer than 1.12 n slots (3-wise); the 4-wise
// geometry is the paper's.
TEST(BinaryFuse, OurSegmentsKeepTheMiddleThickEnough) {
  // n = 12,338: the paper's L = 1024 gives S = 13, 13 * 1024 / 12,338 = 1.079 (96% of first
  // builds failed there); L = 512 gives S = 28, 1.162, in 30 * 512 = 15,360 slots, the same.
  auto ours = fuse_detail::GeometryFor(12338, 3), paper = fuse_detail::PaperGeometryFor(12338, 3);
  EXPECT_EQ(paper.segment_length, 1024u);
  EXPECT_EQ(paper.segment_count, 13u);
  EXPECT_EQ(ours.segment_length, 512u);
  EXPECT_EQ(ours.segment_count, 28u);
  EXPECT_EQ(ours.slots, paper.slots);
  // n = 10^6: 136 segments are many (1.114 n): the paper's geometry.
  ours = fuse_detail::GeometryFor(1000000, 3);
  EXPECT_EQ(ours.segment_length, 8192u);
  EXPECT_EQ(ours.slots, 138u * 8192);
  for (std::size_t n = 100; n <= 20000000; n += n / 37 + 1) {
    const auto g = fuse_detail::GeometryFor(n, 3);
    const auto p = fuse_detail::PaperGeometryFor(n, 3);
    ASSERT_LE(g.slots, p.slots) << "n = " << n;
    ASSERT_DOUBLE_EQ(g.formula_factor, p.formula_factor);
    const bool thin = p.segment_count < fuse_detail::kFewSegments &&
                      double(p.segment_count) * p.segment_length <
                          fuse_detail::kMinMiddleFactor3 * double(n);
    if (!thin || p.segment_length < 2 * fuse_detail::kShortestHalvedSegment) {
      ASSERT_EQ(g.segment_length, p.segment_length) << "n = " << n;
    } else {
      ASSERT_LT(g.segment_length, p.segment_length) << "n = " << n;
      ASSERT_TRUE(g.segment_count >= fuse_detail::kFewSegments ||
                  g.segment_length == fuse_detail::kShortestHalvedSegment ||
                  double(g.segment_count) * g.segment_length >=
                      fuse_detail::kMinMiddleFactor3 * double(n))
          << "n = " << n;
    }
    if (n >= 100000) {
      ASSERT_EQ(g.segment_length, p.segment_length) << "n = " << n;
    }
    const auto g4 = fuse_detail::GeometryFor(n, 4), p4 = fuse_detail::PaperGeometryFor(n, 4);
    ASSERT_EQ(g4.segment_length, p4.segment_length);
    ASSERT_EQ(g4.slots, p4.slots);
  }
}

TEST(BinaryFuse, SpaceIsTheRealisedFactorAndTheoryThePapers) {
  constexpr std::size_t n = 100000;
  const auto keys = UniformKeys(4, KeyStream::kMembers, n);
  for (int k : {4, 7, 8, 12}) {
    const auto f3 = BinaryFuse<0, 3>::build(keys, StaticParams(n, 1, std::ldexp(1.0, -k)));
    const auto g3 = fuse_detail::GeometryFor(n, 3);
    ASSERT_EQ(f3.fingerprint_bits(), k);
    EXPECT_DOUBLE_EQ(f3.theory().bits_per_key, g3.formula_factor * k);
    EXPECT_EQ(f3.size_in_bytes(), (g3.slots * k + 7) / 8);
    // The realised factor sits within one segment of the formula's.
    EXPECT_NEAR(f3.size_factor(), g3.formula_factor, static_cast<double>(g3.segment_length) / n);
    const auto f4 = BinaryFuse<0, 4>::build(keys, StaticParams(n, 1, std::ldexp(1.0, -k)));
    const auto g4 = fuse_detail::GeometryFor(n, 4);
    EXPECT_DOUBLE_EQ(f4.theory().bits_per_key, g4.formula_factor * k);
    EXPECT_EQ(f4.size_in_bytes(), (g4.slots * k + 7) / 8);
  }
  EXPECT_EQ(BinaryFuse8::build(keys, StaticParams(n, 1)).size_in_bytes(),
            fuse_detail::GeometryFor(n, 3).slots);
  EXPECT_EQ(BinaryFuse16x4::build(keys, StaticParams(n, 1)).size_in_bytes(),
            2 * fuse_detail::GeometryFor(n, 4).slots);
}

TEST(BinaryFuse, WidthFromParams) {
  FilterParams p = StaticParams(1000000, 1);
  EXPECT_EQ((BinaryFuse<0, 3>::FingerprintBitsFor(p, 1000000)), 7);
  p.target_fpr = 0;
  p.bits_per_key = 9;
  EXPECT_EQ((BinaryFuse<0, 3>::FingerprintBitsFor(p, 1000000)), 8);  // floor(9 / 1.125)
  EXPECT_EQ((BinaryFuse<0, 4>::FingerprintBitsFor(p, 1000000)), 8);  // floor(9 / 1.075)
  EXPECT_EQ(BinaryFuse16::FingerprintBitsFor(p, 1000000), 16);
}

TEST(BinaryFuse, FalsePositiveRateIsTwoToMinusK) {
  const auto keys = UniformKeys(21, KeyStream::kMembers, 100000);
  const auto negatives = UniformKeys(21, KeyStream::kNonMembers, 1000000);
  for (int k : {1, 4, 7, 8, 12}) {
    const FilterParams p = StaticParams(100000, 2, std::ldexp(1.0, -k));
    ExpectFprIsTwoToMinusK<BinaryFuse<0, 3>>(keys, negatives, p, k);
    ExpectFprIsTwoToMinusK<BinaryFuse<0, 4>>(keys, negatives, p, k);
  }
  ExpectFprIsTwoToMinusK<BinaryFuse8>(keys, negatives, StaticParams(100000, 2), 8);
  ExpectFprIsTwoToMinusK<BinaryFuse16>(keys, negatives, StaticParams(100000, 2), 16);
  ExpectFprIsTwoToMinusK<BinaryFuse8x4>(keys, negatives, StaticParams(100000, 2), 8);
  ExpectFprIsTwoToMinusK<BinaryFuse16x4>(keys, negatives, StaticParams(100000, 2), 16);
}

TEST(BinaryFuse, FailureIsBoundedAndReported) {
  // fewer slots than keys: no seed can peel this
  filter_tests::ExpectSqueezedBuildsFail<BinaryFuse8, BinaryFuse8x4>(
      UniformKeys(8, KeyStream::kMembers, 1000), 700);
}

TEST(BinaryFuse, StatsNameTheBuild) {
  const auto keys = UniformKeys(8, KeyStream::kMembers, 5000);
  const auto f = BinaryFuse8::build(keys, StaticParams(5000, 1));
  const Json s = StatsOf(f);
  EXPECT_EQ(s["build_attempts"], f.build_attempts());
  EXPECT_EQ(s["fingerprint_bits"], 8);
  EXPECT_EQ(s["slots"], f.slots());
  EXPECT_EQ(s["segment_length"], f.segment_length());
  EXPECT_DOUBLE_EQ(s["size_factor"].get<double>(), f.slots() / 5000.0);
}

}  // namespace
}  // namespace amq
