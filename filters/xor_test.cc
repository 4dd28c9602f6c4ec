// filters/xor_test.cc - XOR filters: membership at small and large n, repeated keys, FPR 2^-k
// at several widths, the exact space formula, and the bounded failure path.
#include "filters/xor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "filters/binary_fuse.h"
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
class XorTest : public ::testing::Test {};
using XorTypes = ::testing::Types<Xor8, Xor16, Xor<0>>;
TYPED_TEST_SUITE(XorTest, XorTypes);

TYPED_TEST(XorTest, HoldsEveryKey) {
  for (std::size_t n : {0, 1, 2, 3, 1000, 100000}) {
    const auto keys = UniformKeys(n + 17, KeyStream::kMembers, n);
    const auto f = TypeParam::build(keys, StaticParams(n, 5));
    EXPECT_EQ(CountContained(f, keys), n) << "false negatives at n = " << n;
    EXPECT_GE(f.build_attempts(), 1);
  }
}

TYPED_TEST(XorTest, RepeatedKeysAreRemovedNotRetriedForever) {
  const auto distinct = UniformKeys(3, KeyStream::kMembers, 1000);
  std::vector<std::uint64_t> keys;
  for (int copy = 0; copy < 3; ++copy) keys.insert(keys.end(), distinct.begin(), distinct.end());
  std::reverse(keys.begin() + 1000, keys.end());
  const auto f = TypeParam::build(keys, StaticParams(keys.size(), 9));
  EXPECT_EQ(CountContained(f, distinct), distinct.size());
  // The first peel must fail (a repeated equation never peels), the second succeeds.
  EXPECT_EQ(f.build_attempts(), 2);
  const Json s = StatsOf(f);
  EXPECT_EQ(s["duplicates_removed"], 2000);
  EXPECT_EQ(s["build_attempts"], 2);
  // Space is charged to the 1000 keys the filter holds, sized for them.
  EXPECT_EQ(f.slots(), TypeParam::SlotsFor(1000));
  EXPECT_DOUBLE_EQ(f.theory().bits_per_key,
                   XorBitsPerKey(1000, f.fingerprint_bits()));
}

TEST(Xor, SlotsFollowThePaper) {
  // floor(1.23 n) + 32, rounded up to a multiple of 3.
  EXPECT_EQ(Xor8::SlotsFor(0), 33u);
  EXPECT_EQ(Xor8::SlotsFor(1), 33u);
  EXPECT_EQ(Xor8::SlotsFor(100), 156u);          // 123 + 32 = 155 -> 156
  EXPECT_EQ(Xor8::SlotsFor(1000000), 1230033u);  // 1230032 -> 1230033
  EXPECT_EQ(Xor8::SlotsFor(1000001), 1230033u);  // floor(1230001.23) + 32
  EXPECT_EQ(Xor8::SlotsFor(10000000), 12300033u);
}

TEST(Xor, BitsPerKeyIsTheFormula) {
  constexpr std::size_t n = 100000;
  const auto keys = UniformKeys(4, KeyStream::kMembers, n);
  for (int k : {4, 7, 8, 12}) {
    const auto f = Xor<0>::build(keys, StaticParams(n, 1, std::ldexp(1.0, -k)));
    ASSERT_EQ(f.fingerprint_bits(), k);
    const double slots = 3 * std::ceil((123.0 * n / 100 + 32) / 3);  // n is a multiple of 100
    EXPECT_EQ(f.slots(), static_cast<std::size_t>(slots));
    EXPECT_NEAR(f.theory().bits_per_key, 1.23 * k + 32.0 * k / n, 1e-12);  // not slots k / n
    EXPECT_EQ(f.size_in_bytes(), static_cast<std::size_t>(std::ceil(slots * k / 8)));
  }
  const auto x8 = Xor8::build(keys, StaticParams(n, 1));
  EXPECT_EQ(x8.size_in_bytes(), Xor8::SlotsFor(n));
  EXPECT_NEAR(x8.theory().bits_per_key, 9.84, 0.01);
  const auto x16 = Xor16::build(keys, StaticParams(n, 1));
  EXPECT_EQ(x16.size_in_bytes(), 2 * Xor16::SlotsFor(n));
}

TEST(Xor, WidthFromParams) {
  FilterParams p = StaticParams(1000, 1);
  EXPECT_EQ(Xor<0>::FingerprintBitsFor(p), 7);  // default 1%
  p.target_fpr = 0.001;
  EXPECT_EQ(Xor<0>::FingerprintBitsFor(p), 10);
  p.target_fpr = 0;
  p.bits_per_key = 10;
  EXPECT_EQ(Xor<0>::FingerprintBitsFor(p), 8);  // floor(10 / 1.23)
  p.target_fpr = 0.5;
  p.bits_per_key = 0;
  EXPECT_EQ(Xor8::FingerprintBitsFor(p), 8);  // fixed width ignores --fpr
}

// FPR against 2^-k with 10^6 non-keys.
TEST(Xor, FalsePositiveRateIsTwoToMinusK) {
  const auto keys = UniformKeys(21, KeyStream::kMembers, 100000);
  const auto negatives = UniformKeys(21, KeyStream::kNonMembers, 1000000);
  for (int k : {1, 4, 7, 8, 12}) {
    ExpectFprIsTwoToMinusK<Xor<0>>(keys, negatives, StaticParams(100000, 2, std::ldexp(1.0, -k)),
                                   k);
  }
  ExpectFprIsTwoToMinusK<Xor8>(keys, negatives, StaticParams(100000, 2), 8);
  ExpectFprIsTwoToMinusK<Xor16>(keys, negatives, StaticParams(100000, 2), 16);
}

TEST(Xor, FailureIsBoundedAndReported) {
  // 0.6 slots per key: no seed can peel this
  filter_tests::ExpectSqueezedBuildsFail<Xor8, Xor<0>>(UniformKeys(8, KeyStream::kMembers, 1000),
                                                        600);
}

TEST(Xor, StatsNameTheBuild) {
  const auto keys = UniformKeys(8, KeyStream::kMembers, 5000);
  const auto f = Xor8::build(keys, StaticParams(5000, 1));
  const Json s = StatsOf(f);
  EXPECT_EQ(s["build_attempts"], f.build_attempts());
  EXPECT_EQ(s["fingerprint_bits"], 8);
  EXPECT_EQ(s["slots"], Xor8::SlotsFor(5000));
}

// The batched lookup at both prefetch depths contains_many chooses between (64 keys ahead from
// kFarBytes, 16 below): the same answers as one-at-a-time lookups, members and not, for key
// counts below either depth, between them and past them (the pipeline's head and tail).
template <class F>
class PeeledBatchedTest : public ::testing::Test {};
using PeeledTypes = ::testing::Types<Xor8, Xor16, BinaryFuse8, BinaryFuse16, BinaryFuse8x4, BinaryFuse16x4>;
TYPED_TEST_SUITE(PeeledBatchedTest, PeeledTypes);

TYPED_TEST(PeeledBatchedTest, BothPrefetchDepthsAnswerAsContains) {
  const auto members = UniformKeys(41, KeyStream::kMembers, 5000);
  const auto f = TypeParam::build(members, StaticParams(members.size(), 6));
  ASSERT_LT(f.size_in_bytes(), TypeParam::kFarBytes) << "contains_many takes the 16-deep path here";
  std::vector<std::uint64_t> queries = UniformKeys(42, KeyStream::kNonMembers, 5000);
  queries.insert(queries.end(), members.begin(), members.end());
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{15}, std::size_t{17}, std::size_t{63},
                            std::size_t{65}, std::size_t{4999}, queries.size()}) {
    const std::span<const std::uint64_t> some(queries.data(), count);
    std::vector<std::uint8_t> expected(count), shallow(count, 2), deep(count, 2), chosen(count, 2);
    std::size_t ones = 0;
    for (std::size_t i = 0; i < count; ++i) ones += expected[i] = f.contains(some[i]) ? 1 : 0;
    EXPECT_EQ(f.template contains_many_ahead<16>(some, shallow), ones) << count;
    EXPECT_EQ(f.template contains_many_ahead<64>(some, deep), ones) << count;
    EXPECT_EQ(f.contains_many(some, chosen), ones) << count;
    EXPECT_EQ(shallow, expected) << count;
    EXPECT_EQ(deep, expected) << count;
    EXPECT_EQ(chosen, expected) << count;
  }
  std::vector<std::uint8_t> out(members.size());
  EXPECT_EQ(f.template contains_many_ahead<64>(members, out), members.size()) << "no false negatives";
}

}  // namespace
}  // namespace amq
