// filters/bumped_ribbon_test.cc - bumped Ribbon (BuRR, w = 64): membership at n = 0 .. 10^5 in
// every layer and the fallback, FPR 2^-r overall and in the later layers, the space formula
// (r slots + 2 bits per bucket) exact, the overhead it was tuned to, determinism by seed,
// repeated keys, parameters clamped.
#include "filters/bumped_ribbon.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/stats.h"
#include "filters/static_test_support.h"
#include "filters/test_params.h"
#include "harness/cell/kernels.h"
#include "harness/cell/stat_json.h"
#include "workloads/uniform.h"

namespace amq {
namespace {

using filter_tests::ExpectFprIsTwoToMinusK;
using filter_tests::StaticParams;
constexpr std::uint64_t kBucketSlots = bumped_ribbon_detail::kBucketSlots;

TEST(BumpedRibbon, HoldsEveryKey) {
  for (std::size_t n : {0, 1, 2, 3, 127, 255, 256, 1000, 100000}) {
    const auto keys = UniformKeys(n + 3, KeyStream::kMembers, n);
    for (int r : {1, 7, 8, 13, 32}) {
      const auto f = BumpedRibbon::build(keys, StaticParams(n, 5, std::ldexp(1.0, -r)));
      ASSERT_EQ(f.result_bits(), r);
      EXPECT_EQ(CountContained(f, keys), n) << "false negatives at n = " << n << ", r = " << r;
      EXPECT_GE(f.build_attempts(), 1);
      // Fewer keys than one bucket go straight to the standard Ribbon.
      EXPECT_EQ(f.layers() > 0, n >= kBucketSlots) << "n = " << n;
    }
  }
  // n = 0: nothing stored, nothing answered.
  const auto empty = BumpedRibbon::build({}, StaticParams(0, 1));
  EXPECT_EQ(empty.size_in_bytes(), 0u);
  EXPECT_EQ(CountContained(empty, UniformKeys(1, KeyStream::kNonMembers, 1000)), 0u);
}

// Every layer and the fallback hold keys at 10^5 (load 1.08: 3 or 4 layers; load 2: half of
// each layer's keys bumped, so 4 layers leave thousands to the fallback), and answer all of
// theirs. LayerOf routes a key as contains() does; the counts match the layers' own.
TEST(BumpedRibbon, EveryLayerAnswersItsKeys) {
  const auto keys = UniformKeys(11, KeyStream::kMembers, 100000);
  for (double load : {BumpedRibbon::kLoad, 2.0}) {
    const auto f = BumpedRibbon::BuildAtLoad(keys, StaticParams(keys.size(), 3, 0.004),
                                             StaticBuildOptions{}, load);
    ASSERT_GE(f.layers(), 3) << "load " << load;
    std::vector<std::size_t> routed(f.layers() + 1, 0), found(f.layers() + 1, 0);
    for (std::uint64_t key : keys) {
      const int l = f.LayerOf(key);
      ++routed[l];
      found[l] += f.contains(key);
    }
    for (int l = 0; l < f.layers(); ++l) {
      EXPECT_GT(routed[l], 0u) << "layer " << l + 1 << ", load " << load;
      EXPECT_EQ(routed[l], f.layer_keys(l)) << "layer " << l + 1;
    }
    EXPECT_EQ(routed[f.layers()], f.fallback_keys());
    EXPECT_EQ(found, routed) << "a layer lost keys, load " << load;
    EXPECT_DOUBLE_EQ(f.bumped_share(), 1.0 - static_cast<double>(routed[0]) / keys.size());
    if (load == 2.0) {
      EXPECT_EQ(f.layers(), 4);
      EXPECT_GT(f.fallback_keys(), 1000u);
      EXPECT_GT(f.fallback_slots(), 0u);
    }
  }
}

// Overall FPR 2^-r (one r-bit check per non-key), and the non-keys routed past layer 1 (to
// layers answering ~7% of queries) also see 2^-r there.
TEST(BumpedRibbon, FprIsTwoToMinusR) {
  const auto keys = UniformKeys(21, KeyStream::kMembers, 100000);
  const auto negatives = UniformKeys(21, KeyStream::kNonMembers, 1000000);
  for (int r : {1, 4, 8, 12}) {
    ExpectFprIsTwoToMinusK<BumpedRibbon>(keys, negatives,
                                         StaticParams(keys.size(), 2, std::ldexp(1.0, -r)), r);
  }
  const auto f = BumpedRibbon::build(keys, StaticParams(keys.size(), 2, std::ldexp(1.0, -4)));
  std::size_t later = 0, fp = 0;
  for (std::uint64_t key : negatives) {
    if (f.LayerOf(key) == 0) continue;
    ++later;
    fp += f.contains(key);
  }
  ASSERT_GT(later, 30000u);
  const Interval band = BinomialBand(later, 1.0 / 16);
  EXPECT_GE(static_cast<double>(fp), band.low);
  EXPECT_LE(static_cast<double>(fp), band.high);
}

// bits = r (sum m_l + m_f) + 2 sum B_l, m_l = B_l b + w; size_in_bytes rounds each layer's
// thresholds to whole bytes only. Layer 1 has n / (1.08 b) buckets, each later one its
// predecessor's bumped keys / (1.08 b).
TEST(BumpedRibbon, SpaceIsRTimesSlotsPlusTwoBitsPerBucket) {
  for (std::size_t n : {1000, 100000}) {
    const auto keys = UniformKeys(4, KeyStream::kMembers, n);
    for (int r : {4, 8, 13}) {
      const auto f = BumpedRibbon::build(keys, StaticParams(n, 1, std::ldexp(1.0, -r)));
      std::size_t bytes = f.fallback_slots() * r / 8, slots = f.fallback_slots();
      std::uint64_t buckets = 0;
      std::size_t arriving = n;
      for (int l = 0; l < f.layers(); ++l) {
        EXPECT_EQ(f.layer_buckets(l), BumpedRibbon::BucketsFor(arriving, BumpedRibbon::kLoad));
        EXPECT_EQ(f.layer_slots(l), f.layer_buckets(l) * kBucketSlots + 64);
        bytes += f.layer_slots(l) * r / 8 + (f.layer_buckets(l) + 3) / 4;
        slots += f.layer_slots(l);
        buckets += f.layer_buckets(l);
        arriving -= f.layer_keys(l);
      }
      EXPECT_EQ(arriving, f.fallback_keys());
      EXPECT_EQ(f.slots(), slots);
      EXPECT_EQ(f.size_in_bytes(), bytes);
      EXPECT_EQ(f.threshold_bits(), 2 * buckets);
      EXPECT_DOUBLE_EQ(f.theory().bits_per_key,
                       (static_cast<double>(r) * slots + 2.0 * buckets) / n);
      EXPECT_LE(f.size_in_bytes() * 8.0 / n - f.theory().bits_per_key, 6.0 * f.layers() / n);
    }
  }
}

// The overhead the configuration was chosen for: at 10^5 keys, r = 8, well under 1% (0.1-0.5%
// is the paper's range at w = 64), against standard ribbon64's 14%.
TEST(BumpedRibbon, OverheadIsUnderHalfAPercentAtTenToTheFive) {
  const auto keys = UniformKeys(5, KeyStream::kMembers, 100000);
  for (std::uint64_t seed : {1, 2, 3}) {
    const auto f = BumpedRibbon::build(keys, StaticParams(keys.size(), seed, 0.00390625));
    ASSERT_EQ(f.result_bits(), 8);
    const double overhead = f.size_in_bytes() * 8.0 / keys.size() / 8 - 1;
    EXPECT_LT(overhead, 0.005) << "seed " << seed;
    EXPECT_GT(overhead, 0.0) << "seed " << seed;
    EXPECT_NEAR(f.threshold_bits_per_key(), 2.0 / kBucketSlots / BumpedRibbon::kLoad, 0.002);
  }
}

TEST(BumpedRibbon, RepeatedKeysAreRedundantRows) {
  auto keys = UniformKeys(3, KeyStream::kMembers, 5000);
  const std::vector<std::uint64_t> distinct = keys;
  keys.insert(keys.end(), distinct.begin(), distinct.begin() + 500);
  const auto f = BumpedRibbon::build(keys, StaticParams(keys.size(), 1, 0.01));
  EXPECT_EQ(CountContained(f, distinct), distinct.size());
  EXPECT_GE(f.redundant_rows(), 1u);
  EXPECT_LE(f.redundant_rows(), 500u);
}

TEST(BumpedRibbon, SameSeedSameBytes) {
  const auto keys = UniformKeys(6, KeyStream::kMembers, 20000);
  const auto a = BumpedRibbon::build(keys, StaticParams(keys.size(), 7, 0.004));
  const auto b = BumpedRibbon::build(keys, StaticParams(keys.size(), 7, 0.004));
  const auto c = BumpedRibbon::build(keys, StaticParams(keys.size(), 8, 0.004));
  EXPECT_TRUE(std::ranges::equal(a.bytes(), b.bytes()));
  EXPECT_EQ(a.layers(), b.layers());
  EXPECT_FALSE(std::ranges::equal(a.bytes(), c.bytes()));
}

TEST(BumpedRibbon, StatsSayWhatWasBuilt) {
  const auto keys = UniformKeys(9, KeyStream::kMembers, 100000);
  const auto f = BumpedRibbon::build(keys, StaticParams(keys.size(), 1, 0.00390625));
  const Json s = StatsOf(f);
  EXPECT_EQ(s["build_attempts"], f.build_attempts());
  EXPECT_EQ(s["fingerprint_bits"], 8);
  EXPECT_EQ(s["slots"], f.slots());
  EXPECT_EQ(s["ribbon_width"], 64);
  EXPECT_EQ(s["bumping_layers"], f.layers());
  EXPECT_DOUBLE_EQ(s["bumped_share"].get<double>(), f.bumped_share());
  EXPECT_DOUBLE_EQ(s["threshold_bits_per_key"].get<double>(), f.threshold_bits_per_key());
  EXPECT_EQ(s["layer_keys"]["1"], f.layer_keys(0));
  EXPECT_EQ(s["layer_keys"]["fallback"], f.fallback_keys());
}

TEST(BumpedRibbon, ParametersAreClampedToWholeResultBits) {
  FilterParams p = StaticParams(1000, 1);
  EXPECT_EQ(BumpedRibbon::ResultBitsFor(p), 7);  // default 1%
  p.target_fpr = 0.00390625;
  EXPECT_EQ(BumpedRibbon::ResultBitsFor(p), 8);
  p.target_fpr = 0.9;  // above 1/2: one result bit at least
  EXPECT_EQ(BumpedRibbon::ResultBitsFor(p), 1);
  p.target_fpr = 1e-30;  // at most 32 result bits
  EXPECT_EQ(BumpedRibbon::ResultBitsFor(p), 32);
  p.target_fpr = 0;
  p.bits_per_key = 8.02;  // r (1 + 0.0025) <= B
  EXPECT_EQ(BumpedRibbon::ResultBitsFor(p), 8);
  p.bits_per_key = 8.01;
  EXPECT_EQ(BumpedRibbon::ResultBitsFor(p), 7);
  p.bits_per_key = 0.5;
  EXPECT_EQ(BumpedRibbon::ResultBitsFor(p), 1);
  // Loads outside 0.5 .. 2 are clamped: 100 keys per start would bump nearly everything.
  const auto keys = UniformKeys(2, KeyStream::kMembers, 10000);
  const auto high = BumpedRibbon::BuildAtLoad(keys, StaticParams(keys.size(), 1),
                                              StaticBuildOptions{}, 100.0);
  const auto two = BumpedRibbon::BuildAtLoad(keys, StaticParams(keys.size(), 1),
                                             StaticBuildOptions{}, 2.0);
  EXPECT_TRUE(std::ranges::equal(high.bytes(), two.bytes()));
  EXPECT_EQ(CountContained(high, keys), keys.size());
}

}  // namespace
}  // namespace amq
