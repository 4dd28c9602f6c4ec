// filters/blocked_bloom256_test_support.h - the check blocked_bloom256_test.cc (the build's own
// instruction set) and blocked_bloom256_avx2_test.cc (-mavx2: the AVX2 path) share: a filter of
// 50,000 keys holds the bytes the portable formula (BitInWord, the spec's mask) gives, and
// answers every member and 100,000 non-members as that formula does.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/hashing.h"
#include "filters/blocked_bloom256.h"

namespace amq {

inline void ExpectPortableBlockedBloom256Answers() {
  XorShift64Star random(8);
  std::vector<std::uint64_t> keys(50000), others(100000);
  for (std::uint64_t& key : keys) key = random.Next();
  for (std::uint64_t& key : others) key = random.Next();
  FilterParams p;
  p.capacity = keys.size();
  p.target_fpr = 0.01;
  p.seed = 21;
  BlockedBloom256 filter(p);
  for (std::uint64_t key : keys) ASSERT_TRUE(filter.insert(key));

  const std::uint64_t blocks = filter.size_in_bytes() / 32;
  const std::uint64_t seed = SpreadSeed(p.seed);
  std::vector<std::uint32_t> expected(blocks * 8, 0);
  auto block_of = [blocks](std::uint64_t h) { return ((h >> 32) * blocks) >> 32; };
  for (std::uint64_t key : keys) {
    const std::uint64_t h = HashKey(key, seed);
    for (int i = 0; i < 8; ++i) {
      expected[block_of(h) * 8 + i] |= BlockedBloom256::BitInWord(static_cast<std::uint32_t>(h), i);
    }
  }
  const auto bytes = filter.bytes();
  ASSERT_EQ(bytes.size(), expected.size() * 4);
  EXPECT_EQ(std::memcmp(bytes.data(), expected.data(), bytes.size()), 0);

  std::size_t differ = 0, found = 0;
  for (std::uint64_t key : others) {
    const std::uint64_t h = HashKey(key, seed);
    bool portable = true;
    for (int i = 0; i < 8; ++i) {
      const std::uint32_t bit = BlockedBloom256::BitInWord(static_cast<std::uint32_t>(h), i);
      portable &= (expected[block_of(h) * 8 + i] & bit) != 0;
    }
    differ += filter.contains(key) != portable ? 1 : 0;
  }
  for (std::uint64_t key : keys) found += filter.contains(key) ? 1 : 0;
  EXPECT_EQ(differ, 0u) << "non-members answered unlike the portable formula";
  EXPECT_EQ(found, keys.size());
}

}  // namespace amq
