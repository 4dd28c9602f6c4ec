// filters/counting_bloom_avx512_test.cc - built with -mavx512f -mavx512vl (CMakeLists.txt), so
// CountingBloom's contains() takes its AVX-512 path here (eight probes a gather): its answers
// must be those of contains_portable(), probe by probe, at every k where the rounds of eight
// split differently (one partial round, one full, a full and a partial, ...), over members,
// erased keys and non-members.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/hashing.h"
#include "filters/counting_bloom.h"

namespace amq {
namespace {

TEST(CountingBloomAvx512, AnswersAsThePortablePathAtEveryRoundSplit) {
#if !defined(__AVX512F__)
  GTEST_SKIP() << "compiled without AVX-512";
#else
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "this CPU has no AVX-512 F";
  XorShift64Star random(11);
  std::vector<std::uint64_t> keys(20000), others(200000);
  for (std::uint64_t& key : keys) key = random.Next();
  for (std::uint64_t& key : others) key = random.Next();
  for (int k : {1, 2, 7, 8, 9, 15, 16, 17, 24}) {
    // k / ln 2 counters a key of a third of the keys: filled three times over, the FPR is
    // (7/8)^k, 0.04 to 0.875, so non-members' answers are mixed, not all "no".
    FilterParams p;
    p.capacity = keys.size() / 3;
    p.bits_per_key = 4.0 * k / std::log(2.0);
    p.seed = 5;
    CountingBloom filter(p);
    for (std::uint64_t key : keys) filter.insert(key);
    for (std::size_t i = 0; i < keys.size(); i += 3) ASSERT_TRUE(filter.erase(keys[i]));
    std::size_t members_found = 0, others_found = 0, differ = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const bool simd = filter.contains(keys[i]);
      differ += simd != filter.contains_portable(keys[i]) ? 1 : 0;
      if (i % 3 != 0) members_found += simd ? 1 : 0;
    }
    for (std::uint64_t key : others) {
      const bool simd = filter.contains(key);
      differ += simd != filter.contains_portable(key) ? 1 : 0;
      others_found += simd ? 1 : 0;
    }
    EXPECT_EQ(differ, 0u) << "k = " << k;
    EXPECT_EQ(members_found, keys.size() - (keys.size() + 2) / 3) << "false negatives at k = " << k;
    EXPECT_GT(others_found, 0u) << "k = " << k << ": no positive answer to compare";
    EXPECT_LT(others_found, others.size()) << "k = " << k;
  }
#endif
}

}  // namespace
}  // namespace amq
