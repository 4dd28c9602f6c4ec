// filters/leveldb_bloom_test.cc - LevelDB's Bloom filter policy through our wrapper: no false
// negatives, its sizing, and its FPR against the 32-bit-hash model (and away from the
// classic formula at n = 10^5, where LevelDB's correlated probes cost ~70% more FPR).
#ifdef AMQ_HAVE_LEVELDB

#include "filters/leveldb_bloom.h"

#include <gtest/gtest.h>

#include <cmath>

#include "harness/cell/kernels.h"
#include "core/stats.h"
#include "workloads/uniform.h"
#include "harness/cell/stat_json.h"

namespace amq {
namespace {

FilterParams Params(std::size_t n, std::uint64_t seed) {
  FilterParams p;
  p.capacity = n;
  p.seed = seed;
  p.bits_per_key = 10;
  return p;
}

TEST(LevelDbBloom, HoldsEveryKey) {
  for (std::size_t n : {0, 1, 2, 1000, 100000}) {
    const auto keys = UniformKeys(n + 1, KeyStream::kMembers, n);
    const auto f = LevelDbBloom::build(keys, Params(n, 3));
    EXPECT_EQ(CountContained(f, keys), n) << "false negatives at n = " << n;
  }
}

TEST(LevelDbBloom, SizingFollowsThePolicy) {
  FilterParams p;
  EXPECT_EQ(LevelDbBloom::BitsPerKeyFor(p), 10);  // 1.44 log2(100) = 9.57
  p.target_fpr = 0.001;
  EXPECT_EQ(LevelDbBloom::BitsPerKeyFor(p), 14);  // 1.44 * 9.97 = 14.35
  const auto keys = UniformKeys(1, KeyStream::kMembers, 10000);
  const auto f = LevelDbBloom::build(keys, Params(keys.size(), 1));
  EXPECT_EQ(f.probes(), 6);  // floor(0.69 * 10)
  EXPECT_EQ(f.bits(), 100000u);
  EXPECT_DOUBLE_EQ(f.theory().bits_per_key, (10.0 * 10000 + 8) / 10000);  // + the k byte
  EXPECT_EQ(LevelDbBloom::build(std::span(keys).first(2), Params(2, 1)).bits(), 64u);  // floor
  const Json s = StatsOf(f);
  EXPECT_EQ(s["hash_probes"], 6);
}

void ExpectFprMatchesHash32Model(std::size_t n) {
  constexpr std::size_t kNegatives = 1000000;
  const auto keys = UniformKeys(n, KeyStream::kMembers, n);
  const auto negatives = UniformKeys(n, KeyStream::kNonMembers, kNegatives);
  const auto f = LevelDbBloom::build(keys, Params(n, 2));
  const Interval band = BinomialBand(kNegatives, f.theory().fpr);
  const double fp = static_cast<double>(CountContained(f, negatives));
  EXPECT_GE(fp, band.low) << "n = " << n << ", model " << f.theory().fpr;
  EXPECT_LE(fp, band.high) << "n = " << n << ", model " << f.theory().fpr;
}

TEST(LevelDbBloom, FalsePositiveRateMatchesThe32BitHashModel) {
  ExpectFprMatchesHash32Model(10000);
  ExpectFprMatchesHash32Model(100000);
}

TEST(LevelDbBloom, ClassicFormulaUnderestimatesAtLargeN) {
  // The finding the model documents: at n = 10^5, B = 10, LevelDB's probes are correlated
  // enough that the real FPR is far above (1 - e^(-kn/m))^k = 0.84%.
  constexpr std::size_t n = 100000;
  const auto keys = UniformKeys(5, KeyStream::kMembers, n);
  const auto negatives = UniformKeys(5, KeyStream::kNonMembers, 1000000);
  const auto f = LevelDbBloom::build(keys, Params(n, 2));
  EXPECT_NEAR(f.classic_fpr(), 0.0084, 0.0001);
  const Interval classic_band = BinomialBand(negatives.size(), f.classic_fpr());
  EXPECT_GT(static_cast<double>(CountContained(f, negatives)), classic_band.high);
}

TEST(LevelDbBloom, SeedReachesTheFilter) {
  const auto keys = UniformKeys(7, KeyStream::kMembers, 1000);
  const auto a = LevelDbBloom::build(keys, Params(1000, 1));
  const auto b = LevelDbBloom::build(keys, Params(1000, 2));
  ASSERT_EQ(a.size_in_bytes(), b.size_in_bytes());
  EXPECT_NE(std::memcmp(a.bytes().data(), b.bytes().data(), a.size_in_bytes()), 0);
}

}  // namespace
}  // namespace amq

#endif  // AMQ_HAVE_LEVELDB
