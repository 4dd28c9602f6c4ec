// filters/conformance_test.cc - the typed suite every filter in filters/all.h must pass:
// no false negatives at n = 0, 1, 2, 1000, 100000; measured FPR inside a binomial band
// around the filter's own theory; and the same seed building the same filter.
#include <gtest/gtest.h>

#include <cstring>

#include "filters/all.h"
#include "filters/test_params.h"
#include "harness/cell/kernels.h"
#include "core/stats.h"
#include "workloads/uniform.h"

namespace amq {
namespace {

template <class F>
class Conformance : public ::testing::Test {};

using AllTypes = Rebind<AllFilters, ::testing::Types>::type;
TYPED_TEST_SUITE(Conformance, AllTypes, filter_tests::FilterNames);

FilterParams ParamsFor(std::size_t n, std::uint64_t seed) {
  FilterParams p;
  p.capacity = n;
  p.target_fpr = 0.01;
  p.seed = seed;
  return p;
}

TYPED_TEST(Conformance, NoFalseNegatives) {
  for (std::size_t n : {0, 1, 2, 1000, 100000}) {
    const auto keys = UniformKeys(42 + n, KeyStream::kMembers, n);
    const auto built = Build<TypeParam>(keys, ParamsFor(n, 7));
    EXPECT_TRUE(built.failed.empty()) << n << " keys: " << built.failed.size() << " refused";
    std::size_t missing = 0;
    for (std::uint64_t key : keys) missing += built.filter.contains(key) ? 0 : 1;
    EXPECT_EQ(missing, 0u) << "false negatives at n = " << n;
  }
}

TYPED_TEST(Conformance, FalsePositiveRateMatchesTheory) {
  constexpr std::size_t kKeys = 100000, kNegatives = 1000000;
  const auto keys = UniformKeys(1, KeyStream::kMembers, kKeys);
  const auto negatives = UniformKeys(1, KeyStream::kNonMembers, kNegatives);
  const auto built = Build<TypeParam>(keys, ParamsFor(kKeys, 3));
  const std::size_t false_positives = CountContained(built.filter, negatives);
  // The micro-benchmarks' out-of-line loop (FastFilter's kind of call) answers as the inlined one.
  EXPECT_EQ(CountContainedOutOfLine(built.filter, negatives), false_positives);
  const double theory = built.filter.theory().fpr;
  const Interval band = BinomialBand(kNegatives, theory);
  EXPECT_GE(static_cast<double>(false_positives), band.low) << "theory FPR " << theory;
  EXPECT_LE(static_cast<double>(false_positives), band.high) << "theory FPR " << theory;
}

// A batched path must answer exactly as contains() does, key by key, for members and
// non-members, at batch sizes that are and are not multiples of the filter's internal group.
TYPED_TEST(Conformance, BatchedLookupsAnswerAsSingleOnes) {
  if constexpr (!BatchedFilter<TypeParam>) {
    GTEST_SKIP() << TypeParam::kName << " has no contains_many";
  } else {
    constexpr std::size_t kKeys = 20000;
    const auto keys = UniformKeys(5, KeyStream::kMembers, kKeys);
    const auto built = Build<TypeParam>(keys, ParamsFor(kKeys, 11));
    std::vector<std::uint64_t> queries = UniformKeys(5, KeyStream::kNonMembers, kKeys);
    queries.insert(queries.end(), keys.begin(), keys.end());
    for (std::size_t length : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{33},
                               std::size_t{1000}, queries.size()}) {
      const std::span<const std::uint64_t> batch(queries.data() + (queries.size() - length) / 2, length);
      std::vector<std::uint8_t> out(length, 2);
      const std::size_t ones = built.filter.contains_many(batch, out);
      std::size_t expected_ones = 0, differ = 0;
      for (std::size_t i = 0; i < length; ++i) {
        const bool single = built.filter.contains(batch[i]);
        expected_ones += single ? 1 : 0;
        differ += out[i] != (single ? 1 : 0) ? 1 : 0;
      }
      EXPECT_EQ(differ, 0u) << "batch of " << length;
      EXPECT_EQ(ones, expected_ones) << "batch of " << length;
    }
  }
}

// insert_many's prefetching pipeline sets the bits insert() sets: the same bytes for every
// batch length, including those shorter than the pipeline's distance.
TYPED_TEST(Conformance, BulkInsertsGiveTheBytesOfSingleOnes) {
  if constexpr (!BulkInsertFilter<TypeParam>) {
    GTEST_SKIP() << TypeParam::kName << " has no insert_many";
  } else {
    const auto keys = UniformKeys(6, KeyStream::kMembers, 20000);
    for (std::size_t length : {std::size_t{0}, std::size_t{1}, std::size_t{15}, std::size_t{17},
                               std::size_t{1000}, keys.size()}) {
      const std::span<const std::uint64_t> batch(keys.data(), length);
      TypeParam bulk(ParamsFor(keys.size(), 11));
      TypeParam single(ParamsFor(keys.size(), 11));
      EXPECT_EQ(bulk.insert_many(batch), length);
      for (std::uint64_t key : batch) single.insert(key);
      const auto a = bulk.bytes(), b = single.bytes();
      EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end())) << "batch of " << length;
      EXPECT_EQ(CountContained(bulk, batch), length) << "batch of " << length;
    }
  }
}

TYPED_TEST(Conformance, SameSeedSameFilter) {
  const auto keys = UniformKeys(5, KeyStream::kMembers, 20000);
  const auto probes = UniformKeys(5, KeyStream::kNonMembers, 200000);
  const auto a = Build<TypeParam>(keys, ParamsFor(keys.size(), 11));
  const auto b = Build<TypeParam>(keys, ParamsFor(keys.size(), 11));
  const auto other = Build<TypeParam>(keys, ParamsFor(keys.size(), 12));
  ASSERT_EQ(a.filter.size_in_bytes(), b.filter.size_in_bytes());
  const std::span<const std::uint8_t> x = a.filter.bytes(), y = b.filter.bytes(),
                                      z = other.filter.bytes();
  ASSERT_EQ(x.size(), y.size());
  EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size()), 0) << "same seed, different bytes";
  EXPECT_FALSE(x.size() == z.size() && std::memcmp(x.data(), z.data(), x.size()) == 0)
      << "the seed does not reach the hash";
  std::size_t disagreements = 0;
  for (std::uint64_t q : probes) disagreements += a.filter.contains(q) != b.filter.contains(q);
  EXPECT_EQ(disagreements, 0u);
}

// Every statistic a filter reports is one it declares in kStats (core/filter.h), so the schema
// (harness/run/schema.h) documents it; a filter with statistics declares each name once.
TYPED_TEST(Conformance, ReportsOnlyDeclaredStatistics) {
  if constexpr (HasStats<TypeParam>) {
    const auto keys = UniformKeys(13, KeyStream::kMembers, 2000);
    const auto built = Build<TypeParam>(keys, ParamsFor(keys.size(), 13));
    Stats stats;
    built.filter.add_stats(stats);
    for (const auto& [name, value] : stats.items()) {
      bool declared = false;
      for (const StatSpec& spec : TypeParam::kStats) declared = declared || spec.name == name;
      EXPECT_TRUE(declared) << TypeParam::kName << " reports '" << name << "' without declaring it";
    }
  } else {
    GTEST_SKIP() << TypeParam::kName << " reports no statistics";
  }
}

}  // namespace
}  // namespace amq
