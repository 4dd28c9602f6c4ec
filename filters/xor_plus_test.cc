// filters/xor_plus_test.cc - Xor+ filters: membership, the same answers as the XOR filter whose
// slot array they compress, FPR 2^-f, the exact space formula, the zeros the peel order moves
// into block 1, determinism by seed and the bounded failure path.
#include "filters/xor_plus.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/stats.h"
#include "filters/static_test_support.h"
#include "filters/test_params.h"
#include "filters/xor.h"
#include "harness/cell/kernels.h"
#include "harness/cell/stat_json.h"
#include "workloads/uniform.h"

namespace amq {
namespace {

using filter_tests::ExpectFprIsTwoToMinusK;
using filter_tests::StaticParams;

template <class F>
class XorPlusTest : public ::testing::Test {};
using XorPlusTypes = ::testing::Types<XorPlus8, XorPlus16>;
TYPED_TEST_SUITE(XorPlusTest, XorPlusTypes);

template <class F>
constexpr int kBitsOf = F::kName == std::string_view("xor_plus8") ? 8 : 16;

// Slot i of an XOR filter's array (bytes() is the array itself: bytes for xor8, 16-bit words for
// xor16).
template <int kBits>
std::uint64_t XorSlot(const Xor<kBits>& f, std::size_t i) {
  const auto bytes = f.bytes();
  std::uint16_t v = 0;
  std::memcpy(&v, bytes.data() + i * (kBits / 8), kBits / 8);
  return v;
}

// The allocation the header states: bitmap words, rank9 counts, blocks 2 and 3, block 1's
// nonzero slots and one zero.
std::size_t ExpectedBytes(std::size_t block, std::size_t zeros, int bits) {
  const std::size_t bitmap = 8 * ((block + 63) / 64);
  const std::size_t counts = 16 * ((block + 511) / 512);
  return bitmap + counts + bits / 8 * (2 * block + (block - zeros) + 1);
}

TYPED_TEST(XorPlusTest, HoldsEveryKey) {
  for (std::size_t n : {0, 1, 2, 3, 1000, 100000}) {
    const auto keys = UniformKeys(n + 17, KeyStream::kMembers, n);
    const auto f = TypeParam::build(keys, StaticParams(n, 5));
    EXPECT_EQ(CountContained(f, keys), n) << "false negatives at n = " << n;
    std::vector<std::uint8_t> out(keys.size());
    EXPECT_EQ(f.contains_many(keys, out), n) << "batched false negatives at n = " << n;
    EXPECT_GE(f.build_attempts(), 1);
  }
}

// Built in XOR's own peel order, Xor+ holds XOR's slot array with block 1's zeros left out: it
// answers every query as the XOR filter of the same keys and seed does, and leaves out exactly
// the zero slots of that filter's block 1. This checks the bitmap, the rank counts across many
// 512-bit blocks and the compaction against an independent lookup.
TYPED_TEST(XorPlusTest, SameAnswersAsXorInXorsOrder) {
  constexpr int kBits = kBitsOf<TypeParam>;
  for (std::size_t n : {10, 5000, 100000}) {
    const auto keys = UniformKeys(31, KeyStream::kMembers, n);
    const auto negatives = UniformKeys(31, KeyStream::kNonMembers, 1000000);
    const FilterParams p = StaticParams(n, 3);
    const auto plain = Xor<kBits>::build(keys, p);
    const auto plus = TypeParam::build(keys, p, StaticBuildOptions{}, XorPlusPeel::kAsXor);
    ASSERT_EQ(plus.build_attempts(), plain.build_attempts());
    ASSERT_EQ(plus.block_slots(), plain.slots() / 3);
    std::size_t zeros = 0;
    for (std::size_t i = 0; i < plus.block_slots(); ++i) zeros += XorSlot(plain, i) == 0;
    EXPECT_EQ(plus.first_block_zero_slots(), zeros) << "n = " << n;
    std::size_t disagreements = 0, passes = 0;
    for (std::uint64_t q : negatives) {
      disagreements += plus.contains(q) != plain.contains(q);
      passes += plain.contains(q);
    }
    EXPECT_EQ(disagreements, 0u) << "n = " << n;
    EXPECT_GT(passes, 0u) << "the comparison must include false positives";
    std::vector<std::uint8_t> out(negatives.size());
    EXPECT_EQ(plus.contains_many(negatives, out), passes);
  }
}

// The peel that takes block 1 last (the default) leaves most of the spare slots there: 0.65 of
// them at n = 10^5 (0.149 n zeros, FastFilter's Xor+ too leaves 0.149 n in its compressed
// block). XOR's own depth-first order leaves 0.53: its first scan pushes slots in order and the
// stack pops the last first, so block 1 is already peeled late, though not last.
TYPED_TEST(XorPlusTest, BlockOneTakesTheSpareSlots) {
  constexpr std::size_t n = 100000;
  const auto keys = UniformKeys(12, KeyStream::kMembers, n);
  const auto plus = TypeParam::build(keys, StaticParams(n, 4));
  const auto as_xor = TypeParam::build(keys, StaticParams(n, 4), StaticBuildOptions{}, XorPlusPeel::kAsXor);
  const double spare = 3.0 * plus.block_slots() - n;  // slots no key is assigned to
  EXPECT_GT(plus.first_block_zero_slots() / spare, 0.6);
  EXPECT_LT(as_xor.first_block_zero_slots() / spare, 0.6);
  EXPECT_LT(plus.size_in_bytes(), as_xor.size_in_bytes());
}

TYPED_TEST(XorPlusTest, SpaceIsTheFormula) {
  constexpr int kBits = kBitsOf<TypeParam>;
  for (std::size_t n : {0, 1, 1000, 100000}) {
    const auto keys = UniformKeys(4, KeyStream::kMembers, n);
    const auto f = TypeParam::build(keys, StaticParams(n, 1));
    ASSERT_EQ(f.block_slots(), Xor<kBits>::SlotsFor(n) / 3);
    EXPECT_EQ(f.size_in_bytes(), ExpectedBytes(f.block_slots(), f.first_block_zero_slots(), kBits));
    EXPECT_EQ(f.bytes().size(), f.size_in_bytes());
    if (n == 0) {
      EXPECT_EQ(f.theory().bits_per_key, 0.0);
      continue;
    }
    const double z = static_cast<double>(f.first_block_zero_slots());
    const double slots = 1.23 * n + 32;
    EXPECT_NEAR(f.theory().bits_per_key, (kBits * (slots - z) + 1.25 * slots / 3) / n, 1e-9);
    // The allocation rounds the formula's capacity (-1 .. +2 slots), the bitmap to 64-bit words
    // and the counts to 512-bit blocks, and adds one zero slot.
    const double measured = 8.0 * f.size_in_bytes() / n;
    EXPECT_NEAR(measured, f.theory().bits_per_key, (3.0 * kBits + 64 + 128 + kBits) / n) << n;
  }
}

TYPED_TEST(XorPlusTest, FalsePositiveRateIsTwoToMinusF) {
  const auto keys = UniformKeys(21, KeyStream::kMembers, 100000);
  const auto negatives = UniformKeys(21, KeyStream::kNonMembers, 1000000);
  ExpectFprIsTwoToMinusK<TypeParam>(keys, negatives, StaticParams(100000, 2), kBitsOf<TypeParam>);
}

TYPED_TEST(XorPlusTest, SameSeedSameBytes) {
  const auto keys = UniformKeys(6, KeyStream::kMembers, 20000);
  const auto a = TypeParam::build(keys, StaticParams(keys.size(), 11));
  const auto b = TypeParam::build(keys, StaticParams(keys.size(), 11));
  const auto other = TypeParam::build(keys, StaticParams(keys.size(), 12));
  ASSERT_EQ(a.bytes().size(), b.bytes().size());
  EXPECT_TRUE(std::equal(a.bytes().begin(), a.bytes().end(), b.bytes().begin()));
  EXPECT_FALSE(a.bytes().size() == other.bytes().size() &&
               std::equal(a.bytes().begin(), a.bytes().end(), other.bytes().begin()));
  // A copy answers from its own storage.
  const TypeParam copy = a;
  EXPECT_EQ(CountContained(copy, keys), keys.size());
}

TYPED_TEST(XorPlusTest, RepeatedKeysAreRemoved) {
  const auto distinct = UniformKeys(3, KeyStream::kMembers, 1000);
  std::vector<std::uint64_t> keys(distinct.begin(), distinct.end());
  keys.insert(keys.end(), distinct.rbegin(), distinct.rend());
  const auto f = TypeParam::build(keys, StaticParams(keys.size(), 9));
  EXPECT_EQ(CountContained(f, distinct), distinct.size());
  EXPECT_EQ(f.build_attempts(), 2);
  const Json s = StatsOf(f);
  EXPECT_EQ(s["duplicates_removed"], 1000);
  EXPECT_EQ(s["build_attempts"], 2);
  EXPECT_EQ(s["first_block_zero_slots"], f.first_block_zero_slots());
  EXPECT_EQ(s["slots"], Xor8::SlotsFor(1000));
}

TEST(XorPlus, FailureIsBoundedAndReported) {
  // 0.6 slots per key: no seed can peel this.
  filter_tests::ExpectSqueezedBuildsFail<XorPlus8, XorPlus16>(
      UniformKeys(8, KeyStream::kMembers, 1000), 600);
}

}  // namespace
}  // namespace amq
