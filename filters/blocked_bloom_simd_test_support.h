// filters/blocked_bloom_simd_test_support.h - the check the instruction-set tests of
// BlockedBloom share (blocked_bloom_avx2_test.cc, blocked_bloom_avx512_test.cc): each is
// compiled with its own -m flags, so BlockedBloom takes that path there, and the bytes it writes
// must be the ones the portable formula, written out here, gives. It keeps to the filters floor
// (scripts/check_layers.py): keys from core's generator, inserts and lookups by hand.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/hashing.h"
#include "filters/blocked_bloom.h"

namespace amq {

inline void ExpectPortableBlockedBloomBytes() {
  XorShift64Star random(8);
  std::vector<std::uint64_t> keys(50000);
  for (std::uint64_t& key : keys) key = random.Next();
  FilterParams p;
  p.capacity = keys.size();
  p.target_fpr = 0.01;
  p.seed = 21;
  BlockedBloom filter(p);
  for (std::uint64_t key : keys) ASSERT_TRUE(filter.insert(key));

  // The portable formula, written out here: block from the hash's high bits, one bit per
  // 64-bit word from the low 32 bits times the word's salt, cut to 6 bits.
  static constexpr std::uint32_t kSalt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                             0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};
  const std::size_t blocks = filter.size_in_bytes() / 64;
  std::vector<std::uint64_t> expected(blocks * 8, 0);
  const std::uint64_t seed = SpreadSeed(p.seed);
  for (std::uint64_t key : keys) {
    const std::uint64_t h = HashKey(key, seed);
    const std::size_t block = ReduceRange(h, blocks);
    for (int i = 0; i < 8; ++i) {
      expected[block * 8 + i] |= 1ULL << ((static_cast<std::uint32_t>(h) * kSalt[i]) >> 26);
    }
  }
  const auto bytes = filter.bytes();
  ASSERT_EQ(bytes.size(), expected.size() * 8);
  EXPECT_EQ(std::memcmp(bytes.data(), expected.data(), bytes.size()), 0);
  std::size_t found = 0;
  for (std::uint64_t key : keys) found += filter.contains(key) ? 1 : 0;
  EXPECT_EQ(found, keys.size());
}

}  // namespace amq
