// workloads/adversarial_test.cc - the adversarial generators give what they claim: the mixer's
// inverse round-trips, every key of a fixed-bits set has those bits in its hash, LevelDB keys
// have the asked-for LevelDB hash, and no set repeats a key. Whether the claimed bits are the
// ones a filter reads is filters/adversarial_test.cc's question, asked of the filters.
#include "workloads/adversarial.h"

#include <gtest/gtest.h>

#include <unordered_set>

#include "workloads/uniform.h"

namespace amq {
namespace {

// Words whose inverses are easy to get wrong: the extremes, single bits, alternating patterns,
// and a run of uniform words.
std::vector<std::uint64_t> Probes() {
  std::vector<std::uint64_t> words{0, ~0ULL, 0x5555555555555555ULL, 0xaaaaaaaaaaaaaaaaULL};
  for (int bit = 0; bit < 64; ++bit) {
    words.push_back(1ULL << bit);
    words.push_back(~(1ULL << bit));
  }
  for (std::uint64_t key : UniformKeys(3, KeyStream::kMembers, 10000)) words.push_back(key);
  return words;
}

void ExpectDistinct(const std::vector<std::uint64_t>& keys) {
  const std::unordered_set<std::uint64_t> distinct(keys.begin(), keys.end());
  EXPECT_EQ(distinct.size(), keys.size()) << "repeated keys";
}

// Compile time: the inverse is constexpr, so these hold before any test runs.
static_assert(0xff51afd7ed558ccdULL * InverseOdd(0xff51afd7ed558ccdULL) == 1);
static_assert(0xc4ceb9fe1a85ec53ULL * InverseOdd(0xc4ceb9fe1a85ec53ULL) == 1);
static_assert(InverseMurmurMix64(MurmurMix64(0x0123456789abcdefULL)) == 0x0123456789abcdefULL);

TEST(AdversarialInverseMixer, InverseOddIsTheModularInverse) {
  for (std::uint64_t a : Probes()) {
    a |= 1;
    EXPECT_EQ(a * InverseOdd(a), 1u) << std::hex << a;
  }
}

TEST(AdversarialInverseMixer, XorShiftInverseRoundTripsForEveryShift) {
  for (int s = 1; s < 64; ++s) {
    for (std::uint64_t x : {0x0123456789abcdefULL, ~0ULL, 1ULL, 1ULL << 63, 0xf0f0f0f0f0f0f0ULL}) {
      EXPECT_EQ(InverseXorShiftRight(x ^ (x >> s), s), x) << "shift " << s;
    }
  }
}

TEST(AdversarialInverseMixer, RoundTripsBothWays) {
  for (std::uint64_t x : Probes()) {
    EXPECT_EQ(InverseMurmurMix64(MurmurMix64(x)), x) << std::hex << x;
    EXPECT_EQ(MurmurMix64(InverseMurmurMix64(x)), x) << std::hex << x;
  }
}

TEST(AdversarialInverseMixer, KeyWithHashHasThatHashUnderEverySeed) {
  for (std::uint64_t seed : {0ULL, 1ULL, 42ULL, ~0ULL}) {
    const std::uint64_t spread = SpreadSeed(seed);
    for (std::uint64_t h : Probes()) EXPECT_EQ(HashKey(KeyWithHash(h, spread), spread), h);
  }
}

TEST(AdversarialFixedBits, SameHighHashBitsFixesTheTopBits) {
  const std::uint64_t spread = SpreadSeed(7);
  for (int bits : {1, 8, 20, 40, 54}) {
    for (std::uint64_t value : {0ULL, ~0ULL, 0x9e3779b97f4a7c15ULL}) {
      const auto keys = SameHighHashBits(1000, spread, bits, value);
      ASSERT_EQ(keys.size(), 1000u);
      ExpectDistinct(keys);
      for (std::uint64_t key : keys) {
        ASSERT_EQ(HashKey(key, spread) >> (64 - bits), value >> (64 - bits)) << bits << " bits";
      }
    }
  }
}

TEST(AdversarialFixedBits, SameLowHashBitsFixesTheLowBits) {
  const std::uint64_t spread = SpreadSeed(8);
  for (int bits : {1, 12, 32, 54}) {
    for (std::uint64_t value : {0ULL, ~0ULL, 0x0123456789abcdefULL}) {
      const auto keys = SameLowHashBits(1000, spread, bits, value);
      ASSERT_EQ(keys.size(), 1000u);
      ExpectDistinct(keys);
      for (std::uint64_t key : keys) {
        ASSERT_EQ(HashKey(key, spread) & LowBitsMask(bits), value & LowBitsMask(bits));
      }
    }
  }
}

TEST(AdversarialFixedBits, SameHashExceptVariesOnlyTheFreeBits) {
  const std::uint64_t spread = SpreadSeed(9);
  const std::uint64_t free = 0x0000ff000f000000ULL;  // 12 free bits: room for 4096 keys
  const auto keys = SameHashExcept(4096, spread, free, 0x0123456789abcdefULL);
  ExpectDistinct(keys);
  std::unordered_set<std::uint64_t> free_parts;
  for (std::uint64_t key : keys) {
    const std::uint64_t h = HashKey(key, spread);
    ASSERT_EQ(h & ~free, 0x0123456789abcdefULL & ~free);
    free_parts.insert(h & free);
  }
  EXPECT_EQ(free_parts.size(), 4096u) << "every free-bit pattern used once";
  EXPECT_THROW(SameHashExcept(4097, spread, free, 0), std::invalid_argument);
}

TEST(AdversarialFixedBits, FreeBitsLookScrambledNotCounted) {
  // The free field of consecutive keys should not count 0, 1, 2, ...: a filter reading those
  // bits would then see a sequence, a second structure on top of the one under test.
  const std::uint64_t spread = SpreadSeed(10);
  const auto keys = SameHighHashBits(256, spread, 56, 0);
  std::size_t ascending = 0;
  for (std::size_t i = 1; i < keys.size(); ++i) {
    ascending += (HashKey(keys[i], spread) & 0xff) == (HashKey(keys[i - 1], spread) & 0xff) + 1;
  }
  EXPECT_LT(ascending, 16u);
}

TEST(AdversarialFixedBits, ComposedPreimageReachesASecondMix) {
  // An adaptive cuckoo filter's bucket word: MurmurMix64(HashKey(key) + C). Its preimage
  // undoes the outer mix, the add, then the key hash.
  const std::uint64_t spread = SpreadSeed(11), c = 0x9e3779b97f4a7c15ULL;
  const Preimage preimage = [&](std::uint64_t w) {
    return KeyWithHash(InverseMurmurMix64(w) - c, spread);
  };
  const auto keys = KeysWithFixedBits(500, preimage, TopBitsMask(30), 0xdeadbeef00000000ULL, 1);
  ExpectDistinct(keys);
  for (std::uint64_t key : keys) {
    EXPECT_EQ(MurmurMix64(HashKey(key, spread) + c) >> 34, 0xdeadbeef00000000ULL >> 34);
  }
}

TEST(AdversarialFixedBits, RefusesMoreKeysThanTheFreeBitsHold) {
  EXPECT_THROW(SameHighHashBits(17, 0, 60, 0), std::invalid_argument);
  EXPECT_NO_THROW(SameHighHashBits(16, 0, 60, 0));
  EXPECT_THROW(PowerOfTwoMultiples(5, 62), std::invalid_argument);
}

TEST(AdversarialSearch, FindsOnlyAcceptedKeysAndStopsAtItsBound) {
  const auto even = SearchKeys(
      100, 1000, [](std::uint64_t i) { return MurmurMix64(i); },
      [](std::uint64_t k) { return k % 2 == 0; });
  ASSERT_EQ(even.size(), 100u);
  ExpectDistinct(even);
  for (std::uint64_t k : even) EXPECT_EQ(k % 2, 0u);
  EXPECT_THROW(SearchKeys(
                   10, 1000, [](std::uint64_t i) { return i; },
                   [](std::uint64_t) { return false; }),
               std::invalid_argument);
}

TEST(AdversarialLevelDbHash, SolvedKeysHaveTheTargetHash) {
  const std::uint64_t mask = SpreadSeed(12);
  const auto keys = LevelDbKeysWithHashes(
      2000, mask, [](std::size_t i) { return static_cast<std::uint32_t>(i * 2654435761u); }, 5);
  ExpectDistinct(keys);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(LevelDbBloomHash(keys[i] ^ mask), static_cast<std::uint32_t>(i * 2654435761u));
  }
  // One target for all: the full 32-bit collision the leveldb_bloom test builds on.
  for (std::uint64_t key : LevelDbKeysWithHashes(500, mask, [](std::size_t) { return 77u; }, 6)) {
    EXPECT_EQ(LevelDbBloomHash(key ^ mask), 77u);
  }
}

TEST(AdversarialStructuralSets, SizesAndDistinctness) {
  const auto neighbours = OneBitNeighbours(8, 13);
  EXPECT_EQ(neighbours.size(), 8u * 65);
  ExpectDistinct(neighbours);
  for (std::size_t b = 0; b < 8; ++b) {
    for (std::size_t j = 1; j <= 64; ++j) {
      EXPECT_EQ(std::popcount(neighbours[65 * b] ^ neighbours[65 * b + j]), 1);
    }
  }
  const auto two_bit = TwoBitNeighbours({neighbours[0], neighbours[65]});
  EXPECT_EQ(two_bit.size(), 2u * 2016);
  ExpectDistinct(two_bit);
  for (std::uint64_t k : two_bit) {
    const int to_first = std::popcount(k ^ neighbours[0]);
    const int to_second = std::popcount(k ^ neighbours[65]);
    EXPECT_TRUE(to_first == 2 || to_second == 2);
    EXPECT_TRUE(to_first >= 2 && to_second >= 2) << "a base or a one-bit neighbour";
  }
  const auto zero_ones = ZeroOnesNeighbours();
  EXPECT_EQ(zero_ones.size(), 130u);
  ExpectDistinct(zero_ones);
  const auto sequence = SequentialKeys(100, ~0ULL - 49);  // wraps past 2^64 - 1
  ExpectDistinct(sequence);
  EXPECT_EQ(sequence[50], 0u);
  const auto multiples = PowerOfTwoMultiples(2048, 52);
  ExpectDistinct(multiples);
  for (std::uint64_t k : multiples) EXPECT_EQ(k & LowBitsMask(52), 0u);
}

}  // namespace
}  // namespace amq
