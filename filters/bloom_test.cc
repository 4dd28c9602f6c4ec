// filters/bloom_test.cc - the Bloom family's sizing rules, which the conformance suite
// does not see.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

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

// contains_many's two stages (the first three probes, then the rest only where those are set)
// answer as contains() does, for every k, with k <= 3 (no second stage) among them, and for
// batches shorter than, equal to and longer than the pipeline.
TEST(Bloom, BatchedLookupsAnswerAsSingleOnesForEveryK) {
  std::mt19937_64 rng(7);
  std::vector<std::uint64_t> keys(3000), queries(6000);
  for (auto& k : keys) k = rng();
  for (std::size_t i = 0; i < queries.size(); ++i) queries[i] = i % 2 ? keys[i / 2] : rng();
  for (double bits_per_key : {1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 10.0, 12.0, 17.0}) {
    FilterParams p;
    p.capacity = keys.size();
    p.bits_per_key = bits_per_key;
    Bloom bloom(p);
    for (const auto k : keys) bloom.insert(k);
    const int probes = StatsOf(bloom)["hash_probes"].get<int>();
    for (const std::size_t length : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{8},
                                     std::size_t{15}, std::size_t{16}, std::size_t{17}, queries.size()}) {
      const std::span<const std::uint64_t> batch(queries.data(), length);
      std::vector<std::uint8_t> out(length, 2);
      const std::size_t ones = bloom.contains_many(batch, out);
      std::size_t expected_ones = 0;
      for (std::size_t i = 0; i < length; ++i) {
        const bool single = bloom.contains(batch[i]);
        expected_ones += single ? 1 : 0;
        ASSERT_EQ(out[i], single ? 1 : 0) << "k = " << probes << ", batch of " << length << ", query " << i;
      }
      EXPECT_EQ(ones, expected_ones) << "k = " << probes << ", batch of " << length;
    }
    for (const auto k : keys) ASSERT_TRUE(bloom.contains(k)) << "k = " << probes;
  }
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
