// filters/rocksdb_filters_test.cc - RocksDB's FastLocalBloom and Standard128Ribbon through the
// SST + DB::Get route of filters/rocksdb_filters.h: no false negatives, RocksDB's sizing as
// read back from the filter block, FPR inside a binomial band of each model, one seed giving
// one filter block, and the private directory removed with the filter.
#ifdef AMQ_HAVE_ROCKSDB

#include "filters/rocksdb_filters.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "harness/cell/kernels.h"
#include "core/stats.h"
#include "workloads/uniform.h"
#include "harness/cell/stat_json.h"

namespace amq {
namespace {

FilterParams Bits(std::size_t n, double bits, std::uint64_t seed) {
  FilterParams p;
  p.capacity = n;
  p.bits_per_key = bits;
  p.seed = seed;
  return p;
}

template <class F>
class RocksDbFilters : public ::testing::Test {};
using Both = ::testing::Types<RocksDbBloom, RocksDbRibbon>;
struct Names {
  template <class F>
  static std::string GetName(int) {
    return std::string(F::kName);
  }
};
TYPED_TEST_SUITE(RocksDbFilters, Both, Names);

TYPED_TEST(RocksDbFilters, HoldsEveryKey) {
  for (std::size_t n : {0, 1, 2, 1000, 100000}) {
    const auto keys = UniformKeys(n + 9, KeyStream::kMembers, n);
    const auto f = TypeParam::build(keys, Bits(n, 10, 4));
    EXPECT_EQ(CountContained(f, keys), n) << "false negatives at n = " << n;
  }
}

TYPED_TEST(RocksDbFilters, SameSeedSameFilterBlock) {
  const auto keys = UniformKeys(3, KeyStream::kMembers, 5000);
  const auto a = TypeParam::build(keys, Bits(keys.size(), 10, 1));
  const auto b = TypeParam::build(keys, Bits(keys.size(), 10, 1));
  const auto c = TypeParam::build(keys, Bits(keys.size(), 10, 2));
  ASSERT_EQ(a.size_in_bytes(), b.size_in_bytes());
  ASSERT_EQ(a.bytes().size(), a.size_in_bytes());
  EXPECT_EQ(std::memcmp(a.bytes().data(), b.bytes().data(), a.size_in_bytes()), 0);
  ASSERT_EQ(a.size_in_bytes(), c.size_in_bytes());
  EXPECT_NE(std::memcmp(a.bytes().data(), c.bytes().data(), a.size_in_bytes()), 0);
  EXPECT_NE(a.directory(), b.directory());
}

TYPED_TEST(RocksDbFilters, RemovesItsDirectory) {
  const auto keys = UniformKeys(2, KeyStream::kMembers, 100);
  std::string dir;
  {
    const auto f = TypeParam::build(keys, Bits(keys.size(), 10, 1));
    dir = f.directory();
    EXPECT_TRUE(std::filesystem::is_directory(dir));
    const auto copy = f;  // copies share the DB; the last one removes it
  }
  EXPECT_FALSE(std::filesystem::exists(dir));
}

TYPED_TEST(RocksDbFilters, RecordsWhatItUsed) {
  const auto keys = UniformKeys(2, KeyStream::kMembers, 1000);
  const auto f = TypeParam::build(keys, FilterParams{.capacity = 1000, .target_fpr = 0.01});
  const Json s = StatsOf(f);
  EXPECT_EQ(s["rocksdb_version"], "7.8.3");
  EXPECT_DOUBLE_EQ(s["bits_per_key_equivalent"].template get<double>(), 1.44 * std::log2(100.0));
  EXPECT_EQ(s["filter_entries"], 1002);  // the two sentinels are entries too
  EXPECT_DOUBLE_EQ(TypeParam::BitsPerKeyFor(FilterParams{}), 10.0);
}

// FastLocalBloom: ceil(N B / 512) 64-byte blocks + a 5-byte trailer, k by RocksDB's
// millibits rule.
TEST(RocksDbBloom, SizingFollowsRocksDb) {
  const auto keys = UniformKeys(1, KeyStream::kMembers, 10000);
  const auto f = RocksDbBloom::build(keys, Bits(keys.size(), 10, 1));
  EXPECT_EQ(f.built_as(), "fast_local_bloom");
  EXPECT_EQ(f.probes(), 6);
  EXPECT_EQ(f.size_in_bytes(), 196u * 64 + 5);        // ceil(10002 * 10000 / 512000) = 196
  EXPECT_EQ(f.bytes()[f.size_in_bytes() - 5], 0xff);  // the new-Bloom marker
  EXPECT_DOUBLE_EQ(f.theory().bits_per_key, (10.0 * 10002 + 40) / 10000);  // before the blocks
  EXPECT_EQ(RocksDbBloom::build(keys, Bits(keys.size(), 8, 1)).probes(), 5);
  EXPECT_EQ(RocksDbBloom::build(keys, Bits(keys.size(), 12, 1)).probes(), 8);
}

// Ribbon: sized to the FPR of a B-bits/key FastLocalBloom, about 7.1 bits/key at B = 10; a
// handful of keys gets the Bloom fallback, which the trailer reports and theory follows.
TEST(RocksDbRibbon, SizingFollowsRocksDb) {
  const auto keys = UniformKeys(1, KeyStream::kMembers, 100000);
  const auto f = RocksDbRibbon::build(keys, Bits(keys.size(), 10, 1));
  EXPECT_EQ(f.built_as(), "standard128_ribbon");
  EXPECT_EQ(f.bytes()[f.size_in_bytes() - 5], 0xfe);  // the Ribbon marker
  EXPECT_EQ(f.ribbon_upper_columns(), 7);
  EXPECT_GT(f.ribbon_lower_blocks(), 0u);  // some blocks have 6 columns: r is fractional
  const double measured = 8.0 * static_cast<double>(f.size_in_bytes()) / keys.size();
  EXPECT_GT(measured, 6.9);
  EXPECT_LT(measured, 7.3);
  const auto tiny = RocksDbRibbon::build(std::span(keys).first(2), Bits(2, 10, 1));
  EXPECT_EQ(tiny.built_as(), "fast_local_bloom");
  EXPECT_EQ(tiny.probes(), 6);
}

// The occupancy-law model against the textbook per-block formula at n = 10^6, B = 10 (N =
// 10^6 + 2 entries, 19532 blocks, k = 6): the block's fill varies, so the textbook value is
// 0.8% low; 0.966% is what independent probes give in simulation (see the header).
TEST(RocksDbBloom, ModelCountsTheFillVariance) {
  const double model = rocksdb_detail::LocalBloomFpr(1000002, 19532, 6);
  EXPECT_NEAR(model, 0.009663, 0.000005);
  double textbook = 0;
  const double lambda = 1000002.0 / 19532;
  for (int j = 0; j < 200; ++j) {
    const double pois = std::exp(j * std::log(lambda) - lambda - std::lgamma(j + 1.0));
    textbook += pois * std::pow(1 - std::pow(1 - 1.0 / 512, 6 * j), 6);
  }
  EXPECT_NEAR(textbook, 0.00957, 0.00001);
}

template <class F>
void ExpectFprInBand(std::size_t n, double bits) {
  constexpr std::size_t kNegatives = 1000000;
  const auto keys = UniformKeys(n + 1, KeyStream::kMembers, n);
  const auto negatives = UniformKeys(n + 1, KeyStream::kNonMembers, kNegatives);
  const auto f = F::build(keys, Bits(n, bits, 5));
  const double model = f.theory().fpr;
  const Interval band = BinomialBand(kNegatives, model);
  const double fp = static_cast<double>(CountContained(f, negatives));
  EXPECT_GE(fp, band.low) << F::kName << " B = " << bits << ", model " << model;
  EXPECT_LE(fp, band.high) << F::kName << " B = " << bits << ", model " << model;
}

TEST(RocksDbBloom, FalsePositiveRateMatchesTheModel) {
  ExpectFprInBand<RocksDbBloom>(100000, 10);  // k = 6, ~0.96%
  ExpectFprInBand<RocksDbBloom>(100000, 5);   // k = 3, ~9%: far from the 1% regime
}

TEST(RocksDbRibbon, FalsePositiveRateMatchesTheModel) {
  ExpectFprInBand<RocksDbRibbon>(100000, 10);  // 6-7 result bits
  ExpectFprInBand<RocksDbRibbon>(100000, 16);  // ~11 result bits, ~0.05%
}

}  // namespace
}  // namespace amq

#endif  // AMQ_HAVE_ROCKSDB
