// filters/quotient_test.cc - the classic quotient filter against a multiset of fingerprints:
// random insert/erase sequences, a completely full table, merging tables whose clusters wrap.
// Merge, resize and erase by fingerprint: the typed suites of quotient_family_test.cc.
#include "filters/quotient.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

#include "core/stats.h"
#include "workloads/uniform.h"
#include "harness/cell/stat_json.h"
#include "filters/quotient_test_support.h"
#include "filters/test_params.h"

namespace amq {
namespace {

using filter_tests::ExpectFprMatchesTheory;
using filter_tests::Fp;
using filter_tests::Params;
using filter_tests::StoredFingerprints;

TEST(QuotientFilter, SizingFollowsTheParameters) {
  QuotientFilter a(Params(1000, 0.01, 0, 1));
  EXPECT_EQ(a.remainder_bits(), 7);  // ceil(log2(100))
  EXPECT_EQ(a.quotient_bits(), 11);  // 2^10 * 0.9 < 1000 <= 2^11 * 0.9
  QuotientFilter b(Params(1000, 0.01, 1.0, 1));
  EXPECT_EQ(b.quotient_bits(), 10);
  FilterParams p = Params(1000, 0, 0.5, 1);
  p.bits_per_key = 24;  // floor(24 * 0.5) - 3
  EXPECT_EQ(QuotientFilter(p).remainder_bits(), 9);
  EXPECT_EQ(QuotientFilter(Params(10, 1e-12, 0, 1)).remainder_bits(), 32);
  EXPECT_EQ(QuotientFilter(Params(10, 0.5, 0, 1)).remainder_bits(), 2);
  EXPECT_EQ(a.size_in_bytes(), (2048u * 10 + 7) / 8);
}

// Random inserts (with duplicate keys) and erases on small tables, where clusters are long and wrap
// around the end; after every step block the table must validate, stream exactly the multiset,
// and hold every live key.
void RandomOps(int q, int r, double fill, std::uint64_t seed) {
  QuotientFilter f(q, r, SpreadSeed(seed), 1.0);
  std::multiset<Fp> expected;
  filter_tests::RandomInsertErase ops(seed, static_cast<std::uint64_t>(fill * (1ULL << q)));
  using Kind = filter_tests::RandomInsertErase::Kind;
  for (int step = 0; step < 6000; ++step) {
    const auto [kind, key] = ops.Next();
    if (kind == Kind::kInsert) {
      ASSERT_TRUE(f.insert(key));
      expected.insert(f.Fingerprint(key));
    } else if (kind == Kind::kErase) {
      ASSERT_TRUE(f.erase(key));
      expected.erase(expected.find(f.Fingerprint(key)));
    }
    if (step % 97 == 0 || step > 5950) {
      ASSERT_EQ(f.Validate(), "") << "step " << step;
      ASSERT_EQ(StoredFingerprints(f), std::vector<Fp>(expected.begin(), expected.end()))
          << "step " << step;
      for (std::uint64_t k : ops.live()) ASSERT_TRUE(f.contains(k)) << "false negative";
    }
  }
  EXPECT_EQ(f.stored(), ops.live().size());
}

TEST(QuotientFilter, RandomInsertEraseMatchesMultiset) {
  RandomOps(6, 4, 0.9, 1);   // 64 slots, 4-bit remainders: many equal fingerprints
  RandomOps(8, 8, 0.95, 2);  // long clusters wrapping past slot 255
  RandomOps(8, 2, 1.0, 3);   // the table fills completely, tiny remainders
  RandomOps(10, 13, 0.75, 4);
}

TEST(QuotientFilter, FillsCompletelyThenRefuses) {
  const std::size_t n = 1024;
  QuotientFilter f(Params(n, 0.01, 1.0, 9));
  ASSERT_EQ(f.slots(), n);
  const auto keys = UniformKeys(9, KeyStream::kMembers, n + 10);
  for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(f.insert(keys[i])) << i;
  EXPECT_EQ(f.load_factor(), 1.0);
  ASSERT_EQ(f.Validate(), "");
  for (std::size_t i = n; i < n + 10; ++i) EXPECT_FALSE(f.insert(keys[i]));
  const Json s = StatsOf(f);
  EXPECT_EQ(f.insert_failures(), 10u);
  for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(f.contains(keys[i]));
  EXPECT_EQ(StoredFingerprints(f).size(), n);
  // a full table still merges its fingerprints back in order
  const auto fps = StoredFingerprints(f);
  EXPECT_TRUE(std::is_sorted(fps.begin(), fps.end()));
  for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(f.erase(keys[i])) << i;
  EXPECT_EQ(f.stored(), 0u);
  ASSERT_EQ(f.Validate(), "");
  for (std::size_t i = 0; i < n; ++i) EXPECT_FALSE(f.contains(keys[i]));
}

// A full table that is one cluster (every slot holds a copy of one key, so the run wraps all the
// way round): erasing must end, though no slot is empty and the pull comes back to where it began
// (it looped forever at capacity 1: filter_ops_fuzz's first finding).
TEST(QuotientFilter, ErasesFromAFullTableThatIsOneCluster) {
  for (int q = 1; q <= 4; ++q) {
    QuotientFilter f(q, 6, SpreadSeed(3), 1.0);
    const std::uint64_t key = 12345;
    for (std::uint64_t i = 0; i < f.slots(); ++i) ASSERT_TRUE(f.insert(key)) << i;
    EXPECT_FALSE(f.insert(key));
    ASSERT_EQ(f.Validate(), "");
    for (std::uint64_t left = f.slots(); left > 0; --left) {
      ASSERT_TRUE(f.contains(key)) << "q = " << q << ", " << left << " copies left";
      ASSERT_TRUE(f.erase(key)) << "q = " << q << ", " << left << " copies left";
      ASSERT_EQ(f.Validate(), "") << "q = " << q << ", " << left - 1 << " copies left";
      ASSERT_EQ(f.stored(), left - 1);
    }
    EXPECT_FALSE(f.contains(key));
  }
}

TEST(QuotientFilter, FprMatchesTheoryAcrossRemainderWidths) {
  for (int r : {2, 5, 10}) {
    QuotientFilter f(14, r, SpreadSeed(r), 0.9);
    const auto keys = UniformKeys(r, KeyStream::kMembers, 14000);
    for (auto k : keys) ASSERT_TRUE(f.insert(k));
    ExpectFprMatchesTheory(f, UniformKeys(r, KeyStream::kNonMembers, 400000));
    // alpha/2^r is the small-alpha form of the exact theory
    const double approx = -std::expm1(-f.load_factor() / (1 << r));
    EXPECT_NEAR(f.theory().fpr, approx, 1e-4 * approx);
  }
}

TEST(QuotientFilter, MergeOfWrappingTablesKeepsOrder) {
  // Small, nearly full tables: clusters wrap past the last slot and the bulk load must fall
  // back to ordinary inserts for the tail.
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    QuotientFilter a(6, 6, SpreadSeed(seed), 1.0), b(6, 6, SpreadSeed(seed), 1.0);
    const auto ka = UniformKeys(seed, KeyStream::kMembers, 40);
    const auto kb = UniformKeys(seed, KeyStream::kNonMembers, 24);
    for (auto k : ka) ASSERT_TRUE(a.insert(k));
    for (auto k : kb) ASSERT_TRUE(b.insert(k));
    const QuotientFilter m = QuotientFilter::merge(a, b);  // 64 fingerprints: 2^6 * 1.0 fits
    ASSERT_EQ(m.quotient_bits(), 6);
    ASSERT_EQ(m.Validate(), "") << seed;
    for (auto k : ka) ASSERT_TRUE(m.contains(k));
    for (auto k : kb) ASSERT_TRUE(m.contains(k));
  }
}

TEST(QuotientFilter, ClusterStatsAreConsistent) {
  QuotientFilter f(Params(50000, 0.01, 0.9, 12));
  for (auto k : UniformKeys(12, KeyStream::kMembers, 50000)) ASSERT_TRUE(f.insert(k));
  const Json s = StatsOf(f);
  EXPECT_EQ(s["metadata_bits_per_slot"], 3);
  EXPECT_GE(s["cluster_length_max"].get<double>(), s["cluster_length_mean"].get<double>());
  EXPECT_GE(s["stretch_length_mean"].get<double>(), s["cluster_length_mean"].get<double>());
  EXPECT_GE(s["cluster_length_mean"].get<double>(), s["run_length_mean"].get<double>());
  EXPECT_LE(s["runs"].get<double>(), 50000);
  // the mean displacement is a sum over 50000 keys: within 25% of Knuth's limit law
  const double knuth = s["displacement_mean_knuth"].get<double>();
  EXPECT_NEAR(s["displacement_mean"].get<double>(), knuth, 0.25 * knuth);
}

}  // namespace
}  // namespace amq
