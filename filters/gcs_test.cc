// filters/gcs_test.cc - the Golomb-compressed set: no false negatives (n = 0, 1 and up), the FPR
// 1 - (1 - 1/U)^n in a binomial band, the Rice-coded stream's length against its expectation
// within 4 standard deviations, the index's size exactly, the Rice parameter, determinism by
// seed, refused parameters and the bounded failure path.
#include "filters/gcs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/stats.h"
#include "filters/test_params.h"
#include "harness/cell/kernels.h"
#include "harness/cell/stat_json.h"
#include "workloads/uniform.h"

namespace amq {
namespace {

using filter_tests::StaticParams;

TEST(Gcs, HoldsEveryKey) {
  for (double eps : {0.5, 0.01, 1.0 / 256, std::ldexp(1.0, -20)}) {
    for (std::size_t n : {0, 1, 2, 3, 31, 32, 33, 1000, 100000}) {
      const auto keys = UniformKeys(n + 3, KeyStream::kMembers, n);
      const Gcs f = Gcs::build(keys, StaticParams(n, 5, eps));
      EXPECT_EQ(CountContained(f, keys), n) << "false negatives at n = " << n << ", eps = " << eps;
      EXPECT_EQ(f.keys(), n);
      EXPECT_EQ(f.build_attempts(), 1);
    }
  }
}

// contains() decodes a window of codes per load; contains_code_by_code one code per load. They
// must agree on members and non-members at every Rice parameter: k = 0 (eps = 1/2, many codes
// per window), k = 7 (eps = 2^-8) and k = 29 (eps = 2^-30: one code per window, most crossing
// its end).
TEST(Gcs, WindowedDecodingAnswersAsCodeByCode) {
  for (double eps : {0.5, 1.0 / 256, std::ldexp(1.0, -30)}) {
    const std::size_t n = 20000;
    const auto keys = UniformKeys(11, KeyStream::kMembers, n);
    const Gcs f = Gcs::build(keys, StaticParams(n, 5, eps));
    std::size_t disagreements = 0, positives = 0;
    for (std::uint64_t key : keys) disagreements += f.contains(key) != f.contains_code_by_code(key);
    for (std::uint64_t key : UniformKeys(11, KeyStream::kNonMembers, 200000)) {
      const bool answer = f.contains(key);
      disagreements += answer != f.contains_code_by_code(key);
      positives += answer;
    }
    EXPECT_EQ(disagreements, 0u) << "eps = " << eps << ", k = " << f.rice_bits();
    if (eps == 0.5) {
      EXPECT_GT(positives, 50000u);  // both answers occur among the non-members
    }
  }
}

TEST(Gcs, EmptySetHoldsNothing) {
  const Gcs f = Gcs::build({}, StaticParams(0, 1, 0.01));
  const auto negatives = UniformKeys(2, KeyStream::kNonMembers, 10000);
  EXPECT_EQ(CountContained(f, negatives), 0u);
  EXPECT_EQ(f.theory().fpr, 0.0);
  EXPECT_EQ(f.theory().bits_per_key, 0.0);
  EXPECT_EQ(f.buckets(), 1u);
  EXPECT_EQ(f.code_bits(), 0u);
  // One group base and the offsets of bucket 0 and of the end.
  EXPECT_EQ(f.size_in_bytes(), 8u + (2u * f.offset_bits() + 7) / 8);
}

TEST(Gcs, OneKey) {
  const std::vector<std::uint64_t> key = {0x1234567890abcdefULL};
  const Gcs f = Gcs::build(key, StaticParams(1, 3, 1.0 / 256));
  EXPECT_TRUE(f.contains(key[0]));
  EXPECT_EQ(f.buckets(), 1u);
  EXPECT_EQ(f.bucket_width(), 32u * 256);
  // U = 8192: one stored value among 8192.
  EXPECT_DOUBLE_EQ(f.theory().fpr, 1.0 / 8192);
  const auto negatives = UniformKeys(3, KeyStream::kNonMembers, 100000);
  const Interval band = BinomialBand(negatives.size(), f.theory().fpr);
  const auto fp = static_cast<double>(CountContained(f, negatives));
  EXPECT_GE(fp, band.low);
  EXPECT_LE(fp, band.high);
  // One code of k + 1 + quotient bits.
  EXPECT_GE(f.code_bits(), static_cast<std::uint64_t>(f.rice_bits() + 1));
}

// k minimises the expected bits: FastFilter's GCS uses k = 7 at 2^-8 (found by experiment).
TEST(Gcs, RiceParameterIsTheBestForEps) {
  EXPECT_EQ(GcsRiceBitsFor(1.0 / 256), 7);
  EXPECT_EQ(GcsRiceBitsFor(0.01), 6);
  EXPECT_EQ(GcsRiceBitsFor(std::ldexp(1.0, -16)), 15);
  for (double eps : {0.3, 0.0625, 0.01, 0.001, std::ldexp(1.0, -20), std::ldexp(1.0, -32)}) {
    const int k = GcsRiceBitsFor(eps);
    const double width = kGcsKeysPerBucket / eps;
    const double bits = GcsCodeBitsPerKey(eps, k, width);
    if (k > 0) {
      EXPECT_LT(bits, GcsCodeBitsPerKey(eps, k - 1, width)) << eps;
    }
    EXPECT_LE(bits, GcsCodeBitsPerKey(eps, k + 1, width)) << eps;
    // log2(1/eps) + log2(e) is the entropy of a geometric gap; the Rice code is within 0.2 of it.
    EXPECT_GT(bits, std::log2(1 / eps) + 1.3) << eps;
    EXPECT_LT(bits, std::log2(1 / eps) + 1.65) << eps;
  }
  EXPECT_EQ(Gcs::GeometryFor(StaticParams(0, 1, 1.0 / 256)).offset_bits, 14);
}

// The FPR for the range built, with 10^6 non-keys, within the 5-sigma binomial band; and
// n/U at most eps.
TEST(Gcs, FalsePositiveRateMatchesTheory) {
  constexpr std::size_t n = 100000;
  const auto keys = UniformKeys(21, KeyStream::kMembers, n);
  const auto negatives = UniformKeys(21, KeyStream::kNonMembers, 1000000);
  for (double eps : {0.0625, 0.01, 1.0 / 256, 0.001, 1.0 / 4096}) {
    const Gcs f = Gcs::build(keys, StaticParams(n, 2, eps));
    const double fpr = f.theory().fpr;
    EXPECT_LE(fpr, eps);
    EXPECT_GT(fpr, eps * (1 - eps));  // collisions take ~eps/2 of n/U; n/U is eps here
    const Interval band = BinomialBand(negatives.size(), fpr);
    const auto fp = static_cast<double>(CountContained(f, negatives));
    EXPECT_GE(fp, band.low) << "eps " << eps;
    EXPECT_LE(fp, band.high) << "eps " << eps;
  }
}

// The stream within 4 standard deviations of its expected length (GcsCodeBitsSd: ~0.45 sqrt(n)
// bits), the index exactly its layout, and the whole within rounding of theory().
TEST(Gcs, SpaceIsTheRiceExpectationPlusTheIndex) {
  for (std::size_t n : {100000, 1000000}) {
    const auto keys = UniformKeys(9, KeyStream::kMembers, n);
    for (double eps : {0.0625, 0.01, 1.0 / 256, 0.001, std::ldexp(1.0, -16)}) {
      if (n == 1000000 && eps != 1.0 / 256) continue;
      const Gcs f = Gcs::build(keys, StaticParams(n, 4, eps));
      const double expected = f.code_bits_per_key_expected() * static_cast<double>(n);
      const double tolerance = 4 * f.code_bits_sd();
      EXPECT_NEAR(static_cast<double>(f.code_bits()), expected, tolerance)
          << "n = " << n << ", eps = " << eps << ": " << f.code_bits() / double(n) << " bits/key against "
          << expected / double(n);
      // The index: a 64-bit base per group of 32 buckets, w bits per bucket 0 .. B.
      const std::uint64_t groups = f.buckets() / kGcsBucketsPerGroup + 1;
      EXPECT_EQ(f.index_bytes(), groups * 8 + ((f.buckets() + 1) * f.offset_bits() + 7) / 8);
      EXPECT_EQ(f.size_in_bytes(), f.index_bytes() + (f.code_bits() + 7) / 8);
      // theory() is the formula at p = eps, in buckets of 32/eps values: here the built geometry
      // exactly (n a multiple of 32, 32/eps whole), so the whole differs from it by the stream's
      // spread, the group of the end offset (64 bits), that offset (w bits) and the last byte.
      ASSERT_EQ(f.hash_range(), static_cast<std::uint64_t>(n / eps));
      const double measured = 8.0 * static_cast<double>(f.size_in_bytes()) / static_cast<double>(n);
      const double rounding_bits = 64.0 + f.offset_bits() + 8.0;
      EXPECT_NEAR(measured, f.theory().bits_per_key, (tolerance + rounding_bits) / static_cast<double>(n))
          << "n = " << n << ", eps = " << eps;
    }
  }
}

TEST(Gcs, SameSeedSameBytes) {
  const auto keys = UniformKeys(7, KeyStream::kMembers, 20000);
  const Gcs a = Gcs::build(keys, StaticParams(keys.size(), 11, 0.01));
  const Gcs b = Gcs::build(keys, StaticParams(keys.size(), 11, 0.01));
  const Gcs c = Gcs::build(keys, StaticParams(keys.size(), 12, 0.01));
  ASSERT_EQ(a.size_in_bytes(), b.size_in_bytes());
  EXPECT_TRUE(std::equal(a.bytes().begin(), a.bytes().end(), b.bytes().begin()));
  EXPECT_FALSE(c.size_in_bytes() == a.size_in_bytes() &&
               std::equal(a.bytes().begin(), a.bytes().end(), c.bytes().begin()));
}

TEST(Gcs, BadParametersAreRefused) {
  const auto keys = UniformKeys(1, KeyStream::kMembers, 100);
  for (double eps : {1.0, 1.5, -0.1, std::ldexp(1.0, -33), std::nan("")}) {
    EXPECT_THROW(Gcs::build(keys, StaticParams(100, 1, eps)), std::invalid_argument) << eps;
  }
  FilterParams by_bits = StaticParams(100, 1);
  by_bits.bits_per_key = 10;
  EXPECT_THROW(Gcs::build(keys, by_bits), std::invalid_argument);
  EXPECT_NO_THROW(Gcs::build(keys, StaticParams(100, 1, std::ldexp(1.0, -32))));
}

// Repeated keys are stored as gaps of 0 (like colliding hashes), 8 bits each at k = 7: one key
// 3000 times puts 24,000 bits in one bucket, past the 2^14 of a group's offsets. The first attempt
// fails, the copies are removed, the second holds the 1000 distinct keys; allowed one attempt,
// the build throws.
TEST(Gcs, RepeatedKeysAreRemovedAfterAFailedAttempt) {
  const auto distinct = UniformKeys(3, KeyStream::kMembers, 1000);
  std::vector<std::uint64_t> keys = distinct;
  keys.insert(keys.end(), 3000, distinct[17]);
  const Gcs f = Gcs::build(keys, StaticParams(keys.size(), 9, 1.0 / 256));
  EXPECT_EQ(CountContained(f, distinct), distinct.size());
  EXPECT_EQ(f.build_attempts(), 2);
  EXPECT_EQ(f.keys(), 1000u);
  const Json s = StatsOf(f);
  EXPECT_EQ(s["duplicates_removed"], 3000);
  EXPECT_EQ(s["build_attempts"], 2);

  StaticBuildOptions once;
  once.max_attempts = 1;
  EXPECT_THROW(Gcs::build(keys, StaticParams(keys.size(), 9, 1.0 / 256), once), BuildFailed);
  // A few repeats fit: they cost a code each and no attempt.
  std::vector<std::uint64_t> some = distinct;
  some.insert(some.end(), 10, distinct[17]);
  const Gcs g = Gcs::build(some, StaticParams(some.size(), 9, 1.0 / 256));
  EXPECT_EQ(g.build_attempts(), 1);
  EXPECT_EQ(g.keys(), 1010u);
  EXPECT_EQ(CountContained(g, distinct), distinct.size());
}

TEST(Gcs, StatsDescribeTheLayout) {
  const auto keys = UniformKeys(8, KeyStream::kMembers, 64000);
  const Gcs f = Gcs::build(keys, StaticParams(keys.size(), 1, 1.0 / 256));
  const Json s = StatsOf(f);
  EXPECT_EQ(s["rice_bits"], 7);
  EXPECT_EQ(s["offset_bits"], 14);
  EXPECT_EQ(s["gcs_buckets"], 2000);
  EXPECT_DOUBLE_EQ(s["hash_range"].get<double>(), 2000.0 * 8192);
  EXPECT_DOUBLE_EQ(s["code_bits_per_key"].get<double>(), f.code_bits() / 64000.0);
  EXPECT_DOUBLE_EQ(s["index_bits_per_key"].get<double>(), 8.0 * f.index_bytes() / 64000.0);
  EXPECT_NEAR(s["code_bits_per_key_expected"].get<double>(), 9.4832, 1e-4);
}

}  // namespace
}  // namespace amq
