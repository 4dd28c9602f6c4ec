// filters/blocked_bloom256_test.cc - the Parquet split-block Bloom filter: its bytes are the ones
// the Parquet specification's algorithm gives, computed here from the spec's description, byte
// by byte; its sizing meets the target; the build's own path answers as the portable formula.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "filters/blocked_bloom256.h"
#include "filters/blocked_bloom256_test_support.h"
#include "harness/cell/stat_json.h"

namespace amq {
namespace {

// The spec's salts, written again from the specification (not taken from the filter).
constexpr std::uint32_t kSpecSalt[8] = {0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d,
                                        0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31};

// The spec's algorithm over a little-endian byte array: block ((h >> 32) z) >> 32 of z 32-byte
// blocks; in word i (bytes 4i .. 4i + 3 of the block) bit (lo32(h) salt[i] mod 2^32) >> 27.
std::vector<std::uint8_t> SpecBytes(std::span<const std::uint64_t> hashes, std::uint64_t z) {
  std::vector<std::uint8_t> bytes(z * 32, 0);
  for (std::uint64_t h : hashes) {
    const std::uint64_t block = ((h >> 32) * z) >> 32;
    const std::uint32_t x = static_cast<std::uint32_t>(h);
    for (int i = 0; i < 8; ++i) {
      const std::uint32_t bit = static_cast<std::uint32_t>(x * kSpecSalt[i]) >> 27;
      bytes[block * 32 + 4 * i + bit / 8] |= static_cast<std::uint8_t>(1u << (bit % 8));
    }
  }
  return bytes;
}

BlockedBloom256 TenBlocks() {
  FilterParams p;
  p.capacity = 10;
  p.bits_per_key = 256;  // 2,560 bits: exactly 10 blocks
  return BlockedBloom256(p);
}

TEST(BlockedBloom256, HoldsTheBytesOfTheParquetAlgorithm) {
  const std::vector<std::uint64_t> hashes = {0x0000000000000000ULL, 0xffffffff00000001ULL,
                                             0x123456789abcdef0ULL, 0x8000000080000000ULL,
                                             0xdeadbeefcafebabeULL, 0x0123456700000007ULL};
  BlockedBloom256 filter = TenBlocks();
  ASSERT_EQ(filter.size_in_bytes(), 320u);
  for (std::uint64_t h : hashes) filter.insert_hash(h);
  const std::vector<std::uint8_t> expected = SpecBytes(hashes, 10);
  const auto bytes = filter.bytes();
  ASSERT_EQ(bytes.size(), expected.size());
  for (std::size_t i = 0; i < bytes.size(); ++i) EXPECT_EQ(bytes[i], expected[i]) << "byte " << i;
  for (std::uint64_t h : hashes) EXPECT_TRUE(filter.contains_hash(h));
}

// Two hashes worked by hand from the spec: h = 0 is block 0 with x = 0, bit 0 of every word;
// h = 0xffffffff00000001 is the last block ((2^32 - 1) z >> 32 = z - 1) with x = 1, so word i's
// bit is salt[i] >> 27, the salt's top five bits: 8, 8, 17, 20, 14, 5, 19, 11.
TEST(BlockedBloom256, TwoHashesWorkedByHand) {
  BlockedBloom256 filter = TenBlocks();
  filter.insert_hash(0);
  filter.insert_hash(0xffffffff00000001ULL);
  const auto bytes = filter.bytes();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(bytes[4 * i], 1) << "block 0, word " << i;
  const int bits[8] = {8, 8, 17, 20, 14, 5, 19, 11};
  std::size_t set = 0;
  for (std::uint8_t b : bytes) set += std::popcount(b);
  EXPECT_EQ(set, 16u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(bytes[9 * 32 + 4 * i + bits[i] / 8], 1 << (bits[i] % 8)) << "block 9, word " << i;
  }
}

// insert(key) is insert_hash of the key's HashKey under the filter's spread seed.
TEST(BlockedBloom256, KeysAreHashedThenInsertedAsHashes) {
  BlockedBloom256 by_key = TenBlocks(), by_hash = TenBlocks();
  for (std::uint64_t key = 1; key <= 40; ++key) {
    by_key.insert(key);
    by_hash.insert_hash(HashKey(key, SpreadSeed(0)));
  }
  EXPECT_TRUE(std::ranges::equal(by_key.bytes(), by_hash.bytes()));
}

TEST(BlockedBloom256, TheoryIsMonotoneAndSizingMeetsTheTarget) {
  for (double target : {0.05, 0.01, 0.001}) {
    const double bits = SplitBlockBitsPerKeyFor(target, kParquetBloomShape);
    EXPECT_LE(SplitBlockFprAtBitsPerKey(bits, kParquetBloomShape), target);
    EXPECT_GT(SplitBlockFprAtBitsPerKey(bits - 0.02, kParquetBloomShape), target);
    // Half the block, more variance between blocks: more bits than the 512-bit layout.
    EXPECT_GT(bits, BlockedBloomBitsPerKeyFor(target));
  }
  FilterParams p;
  p.capacity = 100000;
  p.target_fpr = 0.01;
  const BlockedBloom256 filter(p);
  EXPECT_EQ(filter.theory().bits_per_key, SplitBlockBitsPerKeyFor(0.01, kParquetBloomShape));
  const Json stats = StatsOf(filter);
  EXPECT_EQ(stats["blocks_256bit"].get<std::uint64_t>(),
            static_cast<std::uint64_t>(std::ceil(std::ceil(filter.theory().bits_per_key * 100000) / 256)));
}

TEST(BlockedBloom256, ThisBuildsPathAnswersAsThePortableFormula) {
  ExpectPortableBlockedBloom256Answers();
}

}  // namespace
}  // namespace amq
