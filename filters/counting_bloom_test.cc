// filters/counting_bloom_test.cc - the counting Bloom filter's own rules, which the conformance
// suite does not see: sizing (four bits per Bloom position), erase (no false negatives among the
// keys left, the bytes of never having inserted), saturation at 15, and the counter tail the
// overflow claims rest on, measured against m Pr(Bin(nk, 1/m) >= j).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/stats.h"
#include "filters/counting_bloom.h"
#include "filters/test_params.h"
#include "harness/cell/kernels.h"
#include "harness/cell/stat_json.h"
#include "workloads/uniform.h"

namespace amq {
namespace {

FilterParams CountingSized(std::size_t n, double fpr) { return filter_tests::Params(n, fpr, 0.0, 3); }

TEST(CountingBloom, FourBitsPerBloomPosition) {
  const CountingBloom filter(CountingSized(100000, 0.01));
  const Json stats = StatsOf(filter);
  EXPECT_EQ(stats["hash_probes"].get<int>(), 7);  // round(9.585 ln 2), as Bloom's
  const double counters = stats["counters"].get<double>();
  EXPECT_NEAR(counters / 100000, BloomBitsPerKey(0.01), 16.0 / 100000);
  EXPECT_EQ(filter.size_in_bytes() * 8, 4 * stats["counters"].get<std::size_t>());
  EXPECT_DOUBLE_EQ(filter.theory().bits_per_key, 4 * BloomBitsPerKey(0.01));
  FilterParams p;
  p.capacity = 1000;
  p.bits_per_key = 48;  // 12 counters a key
  const Json by_bits = StatsOf(CountingBloom(p));
  EXPECT_EQ(by_bits["counters"].get<std::uint64_t>(), 12000u);
  EXPECT_EQ(by_bits["hash_probes"].get<int>(), 8);  // round(12 ln 2)
}

// Lookups run a compile-time copy for k = 1 .. 16 probes and a loop beyond: at every k from 1 to
// 18 (1.5 to 26 counters a key), every key is found and the FPR of 200,000 non-members lies in
// the binomial band of the Bloom formula at that k.
TEST(CountingBloom, EveryProbeCountFindsEveryKeyAtTheTheorysFpr) {
  const std::size_t n = 4000;
  const auto keys = UniformKeys(5, KeyStream::kMembers, n);
  const auto negatives = UniformKeys(5, KeyStream::kNonMembers, 200000);
  for (int k = 1; k <= 18; ++k) {
    FilterParams p;
    p.capacity = n;
    p.bits_per_key = 4.0 * k / std::log(2.0);  // k / ln 2 counters a key: round(...) = k probes
    p.seed = 3;
    CountingBloom filter(p);
    for (std::uint64_t key : keys) filter.insert(key);
    ASSERT_EQ(StatsOf(filter)["hash_probes"].get<int>(), k);
    EXPECT_EQ(CountContained(filter, keys), n) << "false negatives at k = " << k;
    const Interval band = BinomialBand(negatives.size(), filter.theory().fpr);
    const auto fp = static_cast<double>(CountContained(filter, negatives));
    EXPECT_GE(fp, band.low) << "k = " << k;
    EXPECT_LE(fp, band.high) << "k = " << k;
  }
}

TEST(CountingBloom, ErasedKeysLeaveNoFalseNegativesAndTheirBytesGo) {
  constexpr std::size_t kKeys = 20000;
  const auto keys = UniformKeys(4, KeyStream::kMembers, kKeys);
  const auto others = UniformKeys(4, KeyStream::kNonMembers, 200000);
  CountingBloom filter(CountingSized(kKeys, 0.01));
  CountingBloom half(CountingSized(kKeys, 0.01));
  for (std::uint64_t key : keys) filter.insert(key);
  for (std::size_t i = 1; i < kKeys; i += 2) half.insert(keys[i]);
  // A key never inserted is refused, and changes nothing, unless it is a false positive.
  const std::vector<std::uint8_t> before(filter.bytes().begin(), filter.bytes().end());
  std::size_t refused = 0;
  for (std::size_t i = 0; i < 1000; ++i) {
    if (!filter.contains(others[i])) refused += filter.erase(others[i]) ? 0 : 1;
  }
  EXPECT_GT(refused, 900u);
  EXPECT_TRUE(std::ranges::equal(filter.bytes(), before));

  for (std::size_t i = 0; i < kKeys; i += 2) ASSERT_TRUE(filter.erase(keys[i])) << i;
  std::size_t missing = 0;
  for (std::size_t i = 1; i < kKeys; i += 2) missing += filter.contains(keys[i]) ? 0 : 1;
  EXPECT_EQ(missing, 0u) << "false negatives after erasing the other half";
  // No counter reached 15 at this load, so the filter is exactly one built from the odd keys.
  EXPECT_EQ(StatsOf(filter)["saturated_counters"].get<std::uint64_t>(), 0u);
  EXPECT_TRUE(std::ranges::equal(filter.bytes(), half.bytes()));
  // The erased keys now pass only as non-members do: within the binomial band of theory.
  const std::size_t passed = CountContained(filter, std::span(keys).first(kKeys));
  const Interval band = BinomialBand(kKeys / 2, filter.theory().fpr);
  EXPECT_LE(static_cast<double>(passed - kKeys / 2), band.high);

  for (std::size_t i = 1; i < kKeys; i += 2) ASSERT_TRUE(filter.erase(keys[i]));
  EXPECT_TRUE(std::ranges::all_of(filter.bytes(), [](std::uint8_t b) { return b == 0; }));
}

// One key inserted 20 times: its k counters stop at 15, the 5 k increments past it are counted
// as overflows, and 20 erases leave them at 15 (stuck), so the key is still found.
TEST(CountingBloom, SaturatedCountersStayAt15) {
  CountingBloom filter(CountingSized(1000, 0.01));
  for (int i = 0; i < 20; ++i) filter.insert(77);
  filter.insert(78);
  const Json stats = StatsOf(filter);
  const int k = stats["hash_probes"].get<int>();
  EXPECT_EQ(stats["saturated_counters"].get<std::uint64_t>(), static_cast<std::uint64_t>(k));
  EXPECT_EQ(stats["counter_overflows"].get<std::uint64_t>(), 5u * k);
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(filter.erase(77));
  EXPECT_TRUE(filter.contains(77));
  EXPECT_TRUE(filter.contains(78));
  std::size_t at15 = 0;
  const std::uint64_t counters = stats["counters"].get<std::uint64_t>();
  for (std::uint64_t c = 0; c < counters; ++c) at15 += filter.counter(c) == 15 ? 1 : 0;
  EXPECT_EQ(at15, static_cast<std::size_t>(k));
  EXPECT_TRUE(filter.erase(78));
}

// insert_many pipelines the increments but must leave what insert() leaves key by key, also
// where counters saturate (overloaded 20 times, with a key repeated 30 times besides): the same
// bytes, the same saturated counters and lost increments.
TEST(CountingBloom, BulkInsertsEqualSingleOnesWhereCountersSaturate) {
  constexpr std::size_t kCapacity = 2000;
  std::vector<std::uint64_t> keys = UniformKeys(10, KeyStream::kMembers, 20 * kCapacity);
  keys.insert(keys.begin() + 1000, 30, std::uint64_t{77});
  CountingBloom one_by_one(CountingSized(kCapacity, 0.01)), bulk(CountingSized(kCapacity, 0.01));
  for (std::uint64_t key : keys) one_by_one.insert(key);
  EXPECT_EQ(bulk.insert_many(keys), keys.size());
  const Json a = StatsOf(one_by_one), b = StatsOf(bulk);
  ASSERT_GT(a["counter_overflows"].get<std::uint64_t>(), 0u) << "the test must reach saturation";
  EXPECT_EQ(a["saturated_counters"], b["saturated_counters"]);
  EXPECT_EQ(a["counter_overflows"], b["counter_overflows"]);
  EXPECT_TRUE(std::ranges::equal(one_by_one.bytes(), bulk.bytes()));
  for (std::uint64_t key : keys) ASSERT_TRUE(bulk.contains(key)) << "no false negative";
}

// Overloaded 20 times (nk/m = 13.9 increments a counter), counters reach 15 often enough to
// count: the measured number is m Pr(Bin(nk, 1/m) >= 15), the tail the overflow expectation
// takes at 16, within 4 standard deviations of that many independent counters.
TEST(CountingBloom, SaturatedCountersFollowTheBinomialTail) {
  constexpr std::size_t kCapacity = 2000;
  CountingBloom filter(CountingSized(kCapacity, 0.01));
  for (std::uint64_t key : UniformKeys(9, KeyStream::kMembers, 20 * kCapacity)) filter.insert(key);
  const Json stats = StatsOf(filter);
  const double m = stats["counters"].get<double>();
  const double measured = stats["saturated_counters"].get<double>();
  const double expected = stats["saturated_expected"].get<double>();
  const double sd = std::sqrt(expected * (1 - expected / m));
  EXPECT_GT(expected, 1000);
  EXPECT_NEAR(measured, expected, 4 * sd) << "m " << m;
  EXPECT_GT(stats["counter_overflows"].get<double>(), 0);
}

TEST(CountingBloom, OverflowBoundAtTheOptimalKIsThePapers) {
  // m = n k / ln 2 makes k the optimum, and the bound m (e ln 2 / 16)^16.
  const double n = 1e6, k = 7, m = n * k / std::log(2.0);
  const double paper = m * std::pow(std::exp(1.0) * std::log(2.0) / 16, 16);
  EXPECT_NEAR(CountingBloomOverflowBound(m, n, 7, 16) / paper, 1.0, 1e-12);
  EXPECT_NEAR(paper / m, 1.37e-15, 0.01e-15);
  // The exact expectation lies under the bound, and the tail falls with the level.
  const double exact = CountingBloomCountersAtLeast(m, n, 7, 16);
  EXPECT_GT(exact, 0);
  EXPECT_LT(exact, paper);
  EXPECT_LT(exact, CountingBloomCountersAtLeast(m, n, 7, 15));
  // The Poisson(ln 2) tail from 16, 7.0e-17 a counter (its first term e^-ln2 (ln 2)^16 / 16!
  // is 6.7e-17), to 0.1%: Bin(nk, 1/m) with nk = 7 10^6 is that Poisson to far better.
  double poisson = 0;
  for (int j = 16; j < 40; ++j) poisson += 0.5 * std::pow(std::log(2.0), j) / std::tgamma(j + 1.0);
  EXPECT_NEAR(exact / m / poisson, 1.0, 0.001);
}

}  // namespace
}  // namespace amq
