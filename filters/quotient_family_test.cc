// filters/quotient_family_test.cc - typed suites for what the quotient filters have in common;
// a filter with the capability opts in with one line in the suite's list of types.
//   MergeResize       keyless merge(a, b) and resized_double(): both work from the stored
//                     fingerprints alone, so each must keep every key (no false negative), every
//                     stored copy and the FPR its theory gives; a merge takes the larger table,
//                     grows it when the sum does not fit at the max load, and refuses filters of
//                     different seeds.
//   FingerprintErase  a filter of fingerprints erases by fingerprint: an absent key's erase
//                     succeeds exactly when its fingerprint is stored.
//   OverflowRefusal   a table with fixed overflow room refuses the insert that would pass it and
//                     leaves every byte as it was.
// CMakeLists.txt builds this file into bmi2_tests too, beside rsqf_test.cc and cqf_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <vector>

#include "filters/cqf.h"
#include "filters/quotient.h"
#include "filters/quotient_test_support.h"
#include "filters/rsqf.h"
#include "filters/test_params.h"
#include "harness/cell/stat_json.h"
#include "workloads/uniform.h"

namespace amq {
namespace {

using filter_tests::CopiesStored;
using filter_tests::ExpectFprMatchesTheory;
using filter_tests::Fp;
using filter_tests::Params;
using filter_tests::StoredFingerprints;

template <class F>
class MergeResize : public ::testing::Test {};

using MergeResizeFilters = ::testing::Types<QuotientFilter, Rsqf, Cqf>;
TYPED_TEST_SUITE(MergeResize, MergeResizeFilters, filter_tests::FilterNames);

// A filter of parameters p holding keys; inserts refused count as failures.
template <class F>
F FilledWith(const FilterParams& p, const std::vector<std::uint64_t>& keys) {
  F f(p);
  std::size_t refused = 0;
  for (std::uint64_t k : keys) refused += f.insert(k) ? 0 : 1;
  EXPECT_EQ(refused, 0u) << "inserts refused";
  return f;
}

template <class F>
std::size_t Missing(const F& f, const std::vector<std::uint64_t>& keys) {
  return static_cast<std::size_t>(
      std::count_if(keys.begin(), keys.end(), [&f](std::uint64_t k) { return !f.contains(k); }));
}

// The stored fingerprints as p-bit values (quotient << r | remainder), sorted, once per copy:
// what a merge or resize must keep whatever q and r the table has.
template <class F>
std::vector<std::uint64_t> FingerprintValues(const F& f) {
  std::vector<std::uint64_t> out;
  for (const Fp& fp : StoredFingerprints(f)) {
    out.push_back(fp.first << f.remainder_bits() | fp.second);
  }
  return out;
}

// a and b of parameters p, holding a_keys and b_keys, merged: the table has `growth` more
// quotient bits than the inputs (as many fewer remainder bits), exactly both inputs'
// fingerprints, every key, and the FPR of its theory (against probes of probe_seed).
template <class F>
void ExpectMergeHoldsBoth(const FilterParams& p, const std::vector<std::uint64_t>& a_keys,
                          const std::vector<std::uint64_t>& b_keys, int growth,
                          std::uint64_t probe_seed) {
  const F a = FilledWith<F>(p, a_keys), b = FilledWith<F>(p, b_keys);
  const F m = F::merge(a, b);
  EXPECT_EQ(m.quotient_bits(), a.quotient_bits() + growth);
  EXPECT_EQ(m.remainder_bits(), a.remainder_bits() - growth);
  EXPECT_EQ(CopiesStored(m), CopiesStored(a) + CopiesStored(b));
  EXPECT_EQ(m.Validate(), "");
  std::vector<std::uint64_t> both = FingerprintValues(a);
  const auto from_b = FingerprintValues(b);
  both.insert(both.end(), from_b.begin(), from_b.end());
  std::sort(both.begin(), both.end());
  EXPECT_EQ(FingerprintValues(m), both);
  EXPECT_EQ(Missing(m, a_keys) + Missing(m, b_keys), 0u);
  ExpectFprMatchesTheory(m, UniformKeys(probe_seed, KeyStream::kNonMembers, 1000000));
}

TYPED_TEST(MergeResize, ResizeKeepsEveryKeyAndTheFpr) {
  using F = TypeParam;
  const auto keys = UniformKeys(5, KeyStream::kMembers, 30000);
  const F f = FilledWith<F>(Params(keys.size(), 0.002, 0.95, 5), keys);
  const F g = f.resized_double();
  EXPECT_EQ(g.quotient_bits(), f.quotient_bits() + 1);
  EXPECT_EQ(g.remainder_bits(), f.remainder_bits() - 1);
  EXPECT_EQ(CopiesStored(g), CopiesStored(f));
  EXPECT_EQ(FingerprintValues(g), FingerprintValues(f));
  ASSERT_EQ(g.Validate(), "");
  EXPECT_EQ(Missing(g, keys), 0u);
  EXPECT_DOUBLE_EQ(g.theory().fpr, f.theory().fpr);
  EXPECT_NEAR(g.load_factor(), f.load_factor() / 2, 1e-12);
  ExpectFprMatchesTheory(g, UniformKeys(55, KeyStream::kNonMembers, 1000000));
  // keeps working as a dynamic filter
  const auto more = UniformKeys(6, KeyStream::kMembers, 20000);
  F h = g;
  for (auto k : more) ASSERT_TRUE(h.insert(k));
  for (auto k : keys) ASSERT_TRUE(h.erase(k));
  ASSERT_EQ(h.Validate(), "");
  EXPECT_EQ(Missing(h, more), 0u);
}

TYPED_TEST(MergeResize, MergeAnswersBothInputs) {
  using F = TypeParam;
  // same geometry, and the sum still fits at the max load
  ExpectMergeHoldsBoth<F>(Params(60000, 0.01, F::kDefaultMaxLoad, 77),
                          UniformKeys(7, KeyStream::kMembers, 20000),
                          UniformKeys(8, KeyStream::kMembers, 25000), 0, 78);
}

TYPED_TEST(MergeResize, MergeGrowsWhenTheSumDoesNotFit) {
  using F = TypeParam;
  ExpectMergeHoldsBoth<F>(Params(30000, 0.001, F::kDefaultMaxLoad, 4),
                          UniformKeys(9, KeyStream::kMembers, 30000),
                          UniformKeys(10, KeyStream::kMembers, 30000), 1, 79);
}

// Different seeds cannot merge: their fingerprints are different hashes.
TYPED_TEST(MergeResize, MergeRefusesAnotherSeed) {
  using F = TypeParam;
  const F a(Params(30000, 0.001, F::kDefaultMaxLoad, 4));
  const F c(Params(30000, 0.001, F::kDefaultMaxLoad, 5));
  EXPECT_THROW(F::merge(a, c), std::invalid_argument);
}

template <class F>
class FingerprintErase : public ::testing::Test {};

using FingerprintEraseFilters = ::testing::Types<QuotientFilter, Rsqf, Cqf>;
TYPED_TEST_SUITE(FingerprintErase, FingerprintEraseFilters, filter_tests::FilterNames);

TYPED_TEST(FingerprintErase, EraseOfAbsentKeyReportsFalseUnlessItsFingerprintIsStored) {
  using F = TypeParam;
  const auto keys = UniformKeys(3, KeyStream::kMembers, 2000);
  F f(Params(keys.size(), 0.05, 0, 3));
  std::multiset<Fp> stored;
  for (auto k : keys) {
    ASSERT_TRUE(f.insert(k));
    stored.insert(f.Fingerprint(k));
  }
  std::size_t collisions = 0;
  for (auto k : UniformKeys(3, KeyStream::kNonMembers, 20000)) {
    const Fp fp = f.Fingerprint(k);
    const bool present = stored.count(fp) > 0;
    collisions += present;
    EXPECT_EQ(f.erase(k), present);
    if (present) {
      ASSERT_TRUE(f.insert(k));  // put the colliding copy back
    }
  }
  EXPECT_GT(collisions, 0u);  // the FPR is ~5%: some absent keys collide
  EXPECT_EQ(f.Validate(), "");
}

template <class F>
class OverflowRefusal : public ::testing::Test {};

using OverflowRefusalFilters = ::testing::Types<Rsqf, Cqf>;
TYPED_TEST_SUITE(OverflowRefusal, OverflowRefusalFilters, filter_tests::FilterNames);

TYPED_TEST(OverflowRefusal, FullTableRefusesWithoutChange) {
  using F = TypeParam;
  F f(6, 8, SpreadSeed(4), 0.95);  // 64 canonical + 128 overflow slots
  const auto keys = UniformKeys(4, KeyStream::kMembers, 400);
  std::size_t accepted = 0, refused = 0;
  std::set<std::uint64_t> held;
  for (int round = 0; round < 3; ++round) {  // later rounds add copies (a CQF: counter slots)
    for (auto k : keys) {
      const std::vector<std::uint8_t> before(f.bytes().begin(), f.bytes().end());
      if (f.insert(k)) {
        ++accepted;
        held.insert(k);
      } else {
        ++refused;
        ASSERT_TRUE(std::ranges::equal(before, f.bytes())) << "a refused insert wrote";
      }
    }
  }
  EXPECT_GT(refused, 0u);
  EXPECT_EQ(CopiesStored(f), accepted);
  ASSERT_EQ(f.Validate(), "");
  const Json s = StatsOf(f);
  EXPECT_EQ(f.insert_failures(), refused);
  for (std::uint64_t k : held) ASSERT_TRUE(f.contains(k)) << "false negative";
}

}  // namespace
}  // namespace amq
