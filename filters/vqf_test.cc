// filters/vqf_test.cc - the vector quotient filter: a block's bytes against the layout written
// out by hand (metadata in unary, tags in bucket order), both geometries' sizes, zero false
// negatives under key orders that break careless hashing (sequential, high bits only,
// bit-reversed), insert/erase sequences against a std::multiset oracle, a full filter refusing
// cleanly, the FPR against the paper's formula, the statistics, and the build's own path against
// the portable one.
#include "filters/vqf.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <vector>

#include "core/stats.h"
#include "filters/test_params.h"
#include "filters/vqf_test_support.h"
#include "harness/cell/kernels.h"
#include "workloads/uniform.h"

namespace amq {
namespace {

using filter_tests::Params;

template <class F>
class VqfTest : public ::testing::Test {};
using Geometries = ::testing::Types<Vqf8, Vqf16, Vqf<8, VqfPath::kPortable>, Vqf<16, VqfPath::kPortable>>;
TYPED_TEST_SUITE(VqfTest, Geometries);

std::vector<std::uint64_t> VqfSequentialKeys(std::size_t n) {
  std::vector<std::uint64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = i;
  return keys;
}
std::vector<std::uint64_t> VqfHighBitsOnlyKeys(std::size_t n) {
  std::vector<std::uint64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = static_cast<std::uint64_t>(i) << 44;
  return keys;
}
std::vector<std::uint64_t> VqfBitReversedKeys(std::size_t n) {
  std::vector<std::uint64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t x = i, r = 0;
    for (int b = 0; b < 64; ++b, x >>= 1) r = (r << 1) | (x & 1);
    keys[i] = r;
  }
  return keys;
}

TEST(Vqf, BlocksAreOneCacheLineAndSizedAsFastFilter) {
  static_assert(sizeof(Vqf8::Block) == 64 && sizeof(Vqf16::Block) == 64);
  // The paper's geometries: b + s metadata bits and s r-bit tags fill 512 bits exactly.
  static_assert(Vqf8::kBuckets + Vqf8::kSlots + 8 * Vqf8::kSlots == 512);
  static_assert(Vqf16::kBuckets + Vqf16::kSlots + 16 * Vqf16::kSlots == 512);
  // FastFilter's VQF at 10^6 keys: n / 0.93 slots in 48-slot blocks, 11.47 bits/key.
  const Vqf8 f(Params(1000000, 0, 0));
  EXPECT_EQ(f.blocks(), 22402u);
  EXPECT_NEAR(8.0 * f.size_in_bytes() / 1e6, 11.47, 0.005);
  EXPECT_NEAR(f.theory().bits_per_key, 512.0 / (48 * 0.93), 1e-12);
  EXPECT_NEAR(Vqf16(Params(1000000, 0, 0)).theory().bits_per_key, 512.0 / (28 * 0.90), 1e-12);
}

// The portable select against the obvious loop, over every rank of random words.
TEST(Vqf, PortableSelectFindsEveryOne) {
  XorShift64Star random(3);
  for (int trial = 0; trial < 2000; ++trial) {
    std::uint64_t x = random.Next();
    if (trial % 3 == 0) x &= random.Next();
    if (trial == 0) x = ~0ULL;
    int j = 0;
    for (int bit = 0; bit < 64; ++bit) {
      if ((x >> bit) & 1) {
        ASSERT_EQ(vqf_detail::SelectPortable(x, j), bit) << std::hex << x << " rank " << j;
        ++j;
      }
    }
  }
}

// One block, keys inserted into it, and the bytes it must hold written out from the layout:
// each bucket's tags as zeros closed by a one, tags in bucket order, insertion order within.
template <class F>
void ExpectVqfLayout(std::size_t keys) {
  const F probe(Params(1, 0, 0), 1);
  F f(Params(1, 0, 0), 1);
  std::map<int, std::vector<std::uint64_t>> by_bucket;
  std::size_t held = 0;
  for (std::uint64_t i = 0; i < keys; ++i) {
    const auto l = probe.Locate(i * 0x9e3779b97f4a7c15ULL);
    EXPECT_EQ(l.first, 0u);
    EXPECT_EQ(l.second, 0u);
    const bool placed = f.insert(i * 0x9e3779b97f4a7c15ULL);
    EXPECT_EQ(placed, held < static_cast<std::size_t>(F::kSlots));
    if (placed) {
      by_bucket[l.bucket].push_back(l.tag);
      ++held;
    }
  }
  typename F::Block expected{};
  std::vector<bool> metadata;
  int slot = 0;
  for (int q = 0; q < F::kBuckets; ++q) {
    for (std::uint64_t tag : by_bucket[q]) {
      metadata.push_back(false);
      expected.tags[slot++] = static_cast<std::remove_reference_t<decltype(expected.tags[0])>>(tag);
    }
    metadata.push_back(true);
  }
  for (std::size_t bit = 0; bit < metadata.size(); ++bit) {
    if (metadata[bit]) expected.metadata[bit / 64] |= std::uint64_t{1} << (bit % 64);
  }
  ASSERT_EQ(f.bytes().size(), 64u);
  EXPECT_EQ(std::memcmp(f.bytes().data(), &expected, 64), 0) << keys << " keys";
  EXPECT_EQ(F::Occupancy(*reinterpret_cast<const typename F::Block*>(f.bytes().data())),
            static_cast<int>(held));
  EXPECT_EQ(f.Validate(), "");
  EXPECT_EQ(f.insert_failures(), keys - held);
}

TYPED_TEST(VqfTest, OneBlockHoldsTheLayout) {
  for (std::size_t keys : {0, 1, 2, 5, 20, TypeParam::kSlots - 1, TypeParam::kSlots,
                           TypeParam::kSlots + 7}) {
    ExpectVqfLayout<TypeParam>(keys);
  }
}

TYPED_TEST(VqfTest, NoFalseNegativesUnderAdversarialKeyOrders) {
  constexpr std::size_t kKeys = 50000;
  const std::vector<std::vector<std::uint64_t>> orders = {
      VqfSequentialKeys(kKeys), VqfHighBitsOnlyKeys(kKeys), VqfBitReversedKeys(kKeys),
      UniformKeys(9, KeyStream::kMembers, kKeys)};
  for (std::size_t o = 0; o < orders.size(); ++o) {
    TypeParam f(Params(kKeys, 0, 0, 3));
    std::size_t refused = 0;
    for (std::uint64_t key : orders[o]) refused += f.insert(key) ? 0 : 1;
    EXPECT_EQ(refused, 0u) << "order " << o;
    EXPECT_EQ(CountContained(f, orders[o]), kKeys) << "order " << o;
    EXPECT_EQ(f.Validate(), "");
    // Non-members of the same pattern pass at the theory's rate.
    const auto negatives = UniformKeys(o + 1, KeyStream::kNonMembers, 200000);
    const Interval band = BinomialBand(negatives.size(), f.theory().fpr);
    const auto fp = static_cast<double>(CountContained(f, negatives));
    EXPECT_GE(fp, band.low) << "order " << o;
    EXPECT_LE(fp, band.high) << "order " << o;
  }
}

// Random inserts and erases against a multiset of what the filter holds: every held key is
// found after every step, erasing what is held succeeds, and the blocks stay well formed.
TYPED_TEST(VqfTest, InsertEraseSequencesAgainstAnOracle) {
  constexpr std::size_t kCapacity = 4000;
  TypeParam f(Params(kCapacity, 0, 0.9, 5));
  std::multiset<std::uint64_t> held;
  XorShift64Star random(17);
  std::vector<std::uint64_t> pool = UniformKeys(4, KeyStream::kMembers, 3000);
  for (int step = 0; step < 60000; ++step) {
    const std::uint64_t key = pool[random.Next() % pool.size()];
    if (random.Next() % 3 != 0 || held.empty()) {
      if (f.insert(key)) held.insert(key);  // duplicates are kept as copies
    } else {
      const auto it = held.find(key);
      if (it != held.end()) {
        ASSERT_TRUE(f.erase(key)) << "step " << step;
        held.erase(it);
      }
    }
    if (step % 5000 == 0) {
      for (std::uint64_t k : held) ASSERT_TRUE(f.contains(k)) << "step " << step;
      ASSERT_EQ(f.Validate(), "") << "step " << step;
    }
  }
  for (std::uint64_t k : held) ASSERT_TRUE(f.contains(k));
  EXPECT_NEAR(f.load_factor(), static_cast<double>(held.size()) / (f.blocks() * TypeParam::kSlots), 1e-12);
  // Erasing everything leaves the bytes of an empty filter.
  while (!held.empty()) {
    ASSERT_TRUE(f.erase(*held.begin()));
    held.erase(held.begin());
  }
  const TypeParam empty(Params(kCapacity, 0, 0.9, 5));
  ASSERT_EQ(f.size_in_bytes(), empty.size_in_bytes());
  EXPECT_EQ(std::memcmp(f.bytes().data(), empty.bytes().data(), f.size_in_bytes()), 0);
}

// Two blocks: the filter takes 2s keys at most, then refuses, counts each refusal, keeps every
// key it took, and takes a key again once one is erased.
TYPED_TEST(VqfTest, FullFilterRefusesCleanly) {
  TypeParam f(Params(100, 0, 0, 2), 2);
  std::vector<std::uint64_t> accepted;
  std::uint64_t refused = 0;
  for (std::uint64_t key : UniformKeys(2, KeyStream::kMembers, 400)) {
    if (f.insert(key)) {
      accepted.push_back(key);
    } else {
      ++refused;
    }
  }
  EXPECT_EQ(accepted.size(), 2u * TypeParam::kSlots);
  EXPECT_EQ(f.insert_failures(), refused);
  EXPECT_EQ(CountContained(f, accepted), accepted.size());
  EXPECT_EQ(f.Validate(), "");
  EXPECT_DOUBLE_EQ(f.load_factor(), 1.0);
  ASSERT_TRUE(f.erase(accepted.front()));
  EXPECT_TRUE(f.insert(accepted.front()));  // its block has a free slot again
  EXPECT_EQ(f.Validate(), "");
}

// The paper's FPR at the load reached, within a binomial band; the default fill is reached
// without refusals at 2 * 10^5 keys.
TYPED_TEST(VqfTest, FalsePositiveRateFollowsTheFormula) {
  constexpr std::size_t kKeys = 200000;
  const auto keys = UniformKeys(31, KeyStream::kMembers, kKeys);
  const auto built = Build<TypeParam>(keys, Params(kKeys, 0, 0, 8));
  EXPECT_TRUE(built.failed.empty());
  const double alpha = built.filter.load_factor();
  EXPECT_GT(alpha, TypeParam::kMaxLoad - 0.01);
  const double expected = vqf_detail::Fpr(TypeParam::kTagWidth, TypeParam::kSlots, TypeParam::kBuckets, alpha);
  EXPECT_DOUBLE_EQ(built.filter.theory().fpr, expected);
  const auto negatives = UniformKeys(31, KeyStream::kNonMembers, TypeParam::kSlots == 48 ? 2000000 : 10000000);
  const Interval band = BinomialBand(negatives.size(), expected);
  const auto fp = static_cast<double>(CountContained(built.filter, negatives));
  EXPECT_GE(fp, band.low);
  EXPECT_LE(fp, band.high);
}

TYPED_TEST(VqfTest, StatisticsDescribeTheFill) {
  constexpr std::size_t kKeys = 20000;
  const auto keys = UniformKeys(12, KeyStream::kMembers, kKeys);
  const auto built = Build<TypeParam>(keys, Params(kKeys, 0, 0, 4));
  const TypeParam& f = built.filter;
  Stats stats;
  f.add_stats(stats);
  std::map<std::string, StatValue> by_name;
  for (const auto& [name, value] : stats.items()) by_name[std::string(name)] = value;
  EXPECT_EQ(std::get<std::uint64_t>(by_name["vqf_blocks"].value), f.blocks());
  EXPECT_DOUBLE_EQ(std::get<double>(by_name["vqf_block_fill_mean"].value), f.load_factor());
  const double fill_max = std::get<double>(by_name["vqf_block_fill_max"].value);
  EXPECT_GE(fill_max, f.load_factor());
  EXPECT_LE(fill_max, 1.0);
  // Two choices: of the inserts that read both blocks, a large share goes to the second (it is
  // strictly less full about half the time once blocks differ), none refused at the default
  // fill. With the shortcut (vqf8) most keys go to their first block unread: every one while
  // blocks are at most three quarters full, which is most of the way to 0.93.
  const auto shortcut = std::get<std::uint64_t>(by_name["vqf_shortcut_inserts"].value);
  const auto second = std::get<std::uint64_t>(by_name["vqf_second_choice_inserts"].value);
  EXPECT_EQ(shortcut, f.shortcut_inserts());
  if constexpr (TypeParam::kShortcutFill >= 0) {
    EXPECT_GT(shortcut, kKeys / 2);
  } else {
    EXPECT_EQ(shortcut, 0u);
  }
  const std::uint64_t two_choice = kKeys - shortcut;
  EXPECT_GT(second, two_choice / 4);
  EXPECT_LT(second, two_choice * 3 / 4);
  EXPECT_EQ(std::get<std::uint64_t>(by_name["vqf_refused_inserts"].value), 0u);
}

// The shortcut applies from kShortcutMinBlocks blocks up, and only while the first block holds
// at most kShortcutFill tags: under that many blocks every insert reads both.
TYPED_TEST(VqfTest, ShortcutOnlyInTablesOfEnoughBlocks) {
  const auto keys = UniformKeys(13, KeyStream::kMembers, 40 * TypeParam::kSlots);
  for (const std::size_t blocks : {TypeParam::kShortcutMinBlocks - 1, TypeParam::kShortcutMinBlocks}) {
    TypeParam f(Params(keys.size(), 0, 0, 6), blocks);
    // Three fifths on average: most blocks stay at or below the shortcut's three quarters.
    const std::size_t fill = blocks * TypeParam::kSlots * 3 / 5;
    for (std::size_t i = 0; i < fill; ++i) ASSERT_TRUE(f.insert(keys[i]));
    const bool takes_shortcut = TypeParam::kShortcutFill >= 0 && blocks >= TypeParam::kShortcutMinBlocks;
    if (takes_shortcut) {
      // Each block at most three quarters full takes its keys unread: all of them but those
      // that found their first block past kShortcutFill.
      EXPECT_GT(f.shortcut_inserts(), fill * 9 / 10) << blocks << " blocks";
      EXPECT_LT(f.second_choice_inserts(), fill / 10) << blocks << " blocks";
    } else {
      EXPECT_EQ(f.shortcut_inserts(), 0u) << blocks << " blocks";
      EXPECT_GT(f.second_choice_inserts(), fill / 4) << blocks << " blocks";
    }
    EXPECT_EQ(CountContained(f, std::span(keys).first(fill)), fill);
    EXPECT_EQ(f.Validate(), "");
  }
}

TYPED_TEST(VqfTest, BuildPathAnswersAsThePortablePath) {
  using Portable = Vqf<TypeParam::kTagWidth, VqfPath::kPortable>;
  vqf_tests::ExpectSamePaths<TypeParam, Portable>(5000, 5000 / TypeParam::kSlots, 41);
}

}  // namespace
}  // namespace amq
