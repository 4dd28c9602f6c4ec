// filters/bloom_test.cc - the Bloom family's sizing rules, which the conformance suite
// does not see.
#include <gtest/gtest.h>

#include <cmath>

#include "filters/blocked_bloom.h"
#include "filters/bloom.h"
#include "harness/cell/stat_json.h"

namespace amq {
namespace {

TEST(Bloom, SizedFromTheFprTarget) {
  FilterParams p;
  p.capacity = 100000;
  p.target_fpr = 0.01;
  const Bloom bloom(p);
  const Json stats = StatsOf(bloom);
  EXPECT_EQ(stats["hash_probes"].get<int>(), 7);  // round(9.585 * ln 2) = round(6.64)
  const double bits = stats["bits"].get<double>();
  EXPECT_NEAR(bits / p.capacity, std::log2(100.0) / std::log(2.0), 64.0 / p.capacity);
}

TEST(Bloom, SizedFromBitsPerKey) {
  FilterParams p;
  p.capacity = 1000;
  p.bits_per_key = 12;
  const Bloom bloom(p);
  const Json stats = StatsOf(bloom);
  EXPECT_EQ(stats["hash_probes"].get<int>(), 8);  // round(12 ln 2) = round(8.32)
  EXPECT_EQ(stats["bits"].get<std::uint64_t>(), 12032u);  // 12,000 rounded up to 64-bit words
}

TEST(BlockedBloom, TheoryIsMonotoneAndSizingMeetsTheTarget) {
  double previous = 1.0;
  for (double bits = 4; bits <= 24; bits += 2) {
    const double fpr = BlockedBloomFprAtBitsPerKey(bits);
    EXPECT_LT(fpr, previous);
    previous = fpr;
  }
  for (double target : {0.05, 0.01, 0.001}) {
    const double bits = BlockedBloomBitsPerKeyFor(target);
    EXPECT_LE(BlockedBloomFprAtBitsPerKey(bits), target);
    EXPECT_GT(BlockedBloomFprAtBitsPerKey(bits - 0.02), target);
    // Blocking costs space: more than a classic Bloom filter of the same FPR.
    EXPECT_GT(bits, std::log2(1.0 / target) / std::log(2.0));
  }
}

}  // namespace
}  // namespace amq
