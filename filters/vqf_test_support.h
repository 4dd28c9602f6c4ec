// filters/vqf_test_support.h - the check vqf_test.cc and vqf_avx512_test.cc share: two VQFs
// with the same seed and geometry taken through the same inserts, lookups and erases (member
// keys, non-members, keys aimed at a few blocks until they refuse) must hold the same bytes and
// give the same answers at every step. vqf_avx512_test.cc pairs the AVX-512 path with the
// portable one; vqf_test.cc pairs the build's own path with the portable one.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/hashing.h"
#include "filters/vqf.h"

namespace amq::vqf_tests {

template <class A, class B>
void ExpectSameBytes(const A& a, const B& b, const char* step) {
  const auto x = a.bytes(), y = b.bytes();
  ASSERT_EQ(x.size(), y.size()) << step;
  EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size()), 0) << "bytes differ after " << step;
}

// Inserts, lookups and erases on both filters, comparing after each phase; `blocks` small
// enough that the last inserts are refused, so a full block's shifts are exercised too.
template <class A, class B>
void ExpectSamePaths(std::size_t keys, std::size_t blocks, std::uint64_t seed) {
  FilterParams p;
  p.capacity = keys;
  p.seed = seed;
  A a(p, blocks);
  B b(p, blocks);
  XorShift64Star random(seed);
  std::vector<std::uint64_t> members;
  for (std::size_t i = 0; i < keys; ++i) {
    const std::uint64_t key = random.Next();
    const bool in_a = a.insert(key), in_b = b.insert(key);
    ASSERT_EQ(in_a, in_b) << "insert " << i;
    if (in_a) members.push_back(key);
  }
  ExpectSameBytes(a, b, "inserts");
  EXPECT_EQ(a.insert_failures(), b.insert_failures());
  EXPECT_EQ(a.Validate(), "");
  EXPECT_EQ(b.Validate(), "");

  std::size_t differ = 0, missing = 0;
  for (std::uint64_t key : members) missing += a.contains(key) && b.contains(key) ? 0 : 1;
  for (std::size_t i = 0; i < 4 * keys; ++i) {
    const std::uint64_t q = random.Next();
    differ += a.contains(q) != b.contains(q) ? 1 : 0;
  }
  EXPECT_EQ(missing, 0u);
  EXPECT_EQ(differ, 0u);

  // Erase every other member, then refill with new keys: shifts down, then up again.
  for (std::size_t i = 0; i < members.size(); i += 2) {
    ASSERT_EQ(a.erase(members[i]), b.erase(members[i]));
  }
  ExpectSameBytes(a, b, "erases");
  for (std::size_t i = 0; i < keys / 2; ++i) {
    const std::uint64_t key = random.Next();
    ASSERT_EQ(a.insert(key), b.insert(key));
  }
  ExpectSameBytes(a, b, "refill");
  for (std::size_t i = 1; i < members.size(); i += 2) {
    EXPECT_TRUE(a.contains(members[i]));
    EXPECT_TRUE(b.contains(members[i]));
  }
  EXPECT_EQ(a.Validate(), "");
  EXPECT_EQ(b.Validate(), "");
}

}  // namespace amq::vqf_tests
