// filters/quotient_test.cc - the classic quotient filter against a multiset of fingerprints:
// random insert/erase sequences, a completely full table, merge and resize without the keys.
#include "filters/quotient.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <utility>
#include <vector>

#include "harness/cell/kernels.h"
#include "core/stats.h"
#include "workloads/uniform.h"
#include "harness/cell/stat_json.h"
#include "filters/test_params.h"

namespace amq {
namespace {

using Fp = std::pair<std::uint64_t, std::uint64_t>;

using filter_tests::Params;

std::vector<Fp> Stored(const QuotientFilter& f) {
  std::vector<Fp> out;
  f.for_each_fingerprint([&](std::uint64_t q, std::uint64_t r) { out.emplace_back(q, r); });
  return out;
}

std::size_t CountFalsePositives(const QuotientFilter& f, std::size_t probes, std::uint64_t seed) {
  return CountContained(f, UniformKeys(seed, KeyStream::kNonMembers, probes));
}

void ExpectFprMatchesTheory(const QuotientFilter& f, std::size_t probes, std::uint64_t seed) {
  const std::size_t fp = CountFalsePositives(f, probes, seed);
  const Interval band = BinomialBand(probes, f.theory().fpr);
  EXPECT_GE(static_cast<double>(fp), band.low) << "theory " << f.theory().fpr;
  EXPECT_LE(static_cast<double>(fp), band.high) << "theory " << f.theory().fpr;
}

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
  std::multiset<std::uint64_t> live;
  XorShift64Star rng(seed);
  const std::uint64_t target = static_cast<std::uint64_t>(fill * (1ULL << q));
  std::vector<std::uint64_t> pool;
  for (int step = 0; step < 6000; ++step) {
    const std::uint64_t dice = rng.Next() % 100;
    const bool grow = live.size() < target && (dice < 55 || live.empty());
    if (grow) {
      // a third of inserts add a key already inserted
      const std::uint64_t key =
          (!pool.empty() && dice % 3 == 0) ? pool[rng.Next() % pool.size()] : rng.Next();
      pool.push_back(key);
      ASSERT_TRUE(f.insert(key));
      expected.insert(f.Fingerprint(key));
      live.insert(key);
    } else if (!live.empty()) {
      auto it = live.begin();
      std::advance(it, rng.Next() % std::min<std::size_t>(live.size(), 64));
      ASSERT_TRUE(f.erase(*it));
      expected.erase(expected.find(f.Fingerprint(*it)));
      live.erase(it);
    }
    if (step % 97 == 0 || step > 5950) {
      ASSERT_EQ(f.Validate(), "") << "step " << step;
      ASSERT_EQ(Stored(f), std::vector<Fp>(expected.begin(), expected.end())) << "step " << step;
      for (std::uint64_t key : live) ASSERT_TRUE(f.contains(key)) << "false negative";
    }
  }
  EXPECT_EQ(f.stored(), live.size());
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
  EXPECT_EQ(Stored(f).size(), n);
  // a full table still merges its fingerprints back in order
  const auto fps = Stored(f);
  EXPECT_TRUE(std::is_sorted(fps.begin(), fps.end()));
  for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(f.erase(keys[i])) << i;
  EXPECT_EQ(f.stored(), 0u);
  ASSERT_EQ(f.Validate(), "");
  for (std::size_t i = 0; i < n; ++i) EXPECT_FALSE(f.contains(keys[i]));
}

TEST(QuotientFilter, EraseOfAbsentKeyReportsFalseUnlessItsFingerprintIsStored) {
  const auto keys = UniformKeys(3, KeyStream::kMembers, 2000);
  QuotientFilter f(Params(keys.size(), 0.05, 0, 3));
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
      stored.erase(stored.find(fp));
      ASSERT_TRUE(f.insert(k));  // put the colliding copy back
      stored.insert(fp);
    }
  }
  EXPECT_GT(collisions, 0u);  // the FPR is ~5%: some absent keys collide
  EXPECT_EQ(f.Validate(), "");
}

TEST(QuotientFilter, FprMatchesTheoryAcrossRemainderWidths) {
  for (int r : {2, 5, 10}) {
    QuotientFilter f(14, r, SpreadSeed(r), 0.9);
    const auto keys = UniformKeys(r, KeyStream::kMembers, 14000);
    for (auto k : keys) ASSERT_TRUE(f.insert(k));
    ExpectFprMatchesTheory(f, 400000, r);
    // alpha/2^r is the small-alpha form of the exact theory
    const double approx = -std::expm1(-f.load_factor() / (1 << r));
    EXPECT_NEAR(f.theory().fpr, approx, 1e-4 * approx);
  }
}

TEST(QuotientFilter, ResizeKeepsEveryKeyAndTheFpr) {
  const auto keys = UniformKeys(5, KeyStream::kMembers, 30000);
  QuotientFilter f(Params(keys.size(), 0.002, 0.95, 5));
  for (auto k : keys) ASSERT_TRUE(f.insert(k));
  const QuotientFilter g = f.resized_double();
  EXPECT_EQ(g.quotient_bits(), f.quotient_bits() + 1);
  EXPECT_EQ(g.remainder_bits(), f.remainder_bits() - 1);
  EXPECT_EQ(g.stored(), f.stored());
  ASSERT_EQ(g.Validate(), "");
  for (auto k : keys) ASSERT_TRUE(g.contains(k));
  EXPECT_DOUBLE_EQ(g.theory().fpr, f.theory().fpr);
  EXPECT_NEAR(g.load_factor(), f.load_factor() / 2, 1e-12);
  ExpectFprMatchesTheory(g, 1000000, 55);
  // keeps working as a dynamic filter
  const auto more = UniformKeys(6, KeyStream::kMembers, 20000);
  QuotientFilter h = g;
  for (auto k : more) ASSERT_TRUE(h.insert(k));
  for (auto k : keys) ASSERT_TRUE(h.erase(k));
  ASSERT_EQ(h.Validate(), "");
  for (auto k : more) ASSERT_TRUE(h.contains(k));
}

TEST(QuotientFilter, MergeAnswersBothInputs) {
  const auto a_keys = UniformKeys(7, KeyStream::kMembers, 20000);
  const auto b_keys = UniformKeys(8, KeyStream::kMembers, 25000);
  // same geometry, and the sum still fits at the max load
  QuotientFilter a(Params(60000, 0.01, 0.9, 77)), b(Params(60000, 0.01, 0.9, 77));
  for (auto k : a_keys) ASSERT_TRUE(a.insert(k));
  for (auto k : b_keys) ASSERT_TRUE(b.insert(k));
  const QuotientFilter m = QuotientFilter::merge(a, b);
  EXPECT_EQ(m.quotient_bits(), a.quotient_bits());
  EXPECT_EQ(m.remainder_bits(), a.remainder_bits());
  EXPECT_EQ(m.stored(), a.stored() + b.stored());
  ASSERT_EQ(m.Validate(), "");
  std::vector<Fp> both = Stored(a);
  const auto sb = Stored(b);
  both.insert(both.end(), sb.begin(), sb.end());
  std::sort(both.begin(), both.end());
  EXPECT_EQ(Stored(m), both);
  for (auto k : a_keys) ASSERT_TRUE(m.contains(k));
  for (auto k : b_keys) ASSERT_TRUE(m.contains(k));
  ExpectFprMatchesTheory(m, 1000000, 78);
}

TEST(QuotientFilter, MergeGrowsWhenTheSumDoesNotFit) {
  const auto a_keys = UniformKeys(9, KeyStream::kMembers, 30000);
  const auto b_keys = UniformKeys(10, KeyStream::kMembers, 30000);
  QuotientFilter a(Params(30000, 0.001, 0.9, 4)), b(Params(30000, 0.001, 0.9, 4));
  for (auto k : a_keys) ASSERT_TRUE(a.insert(k));
  for (auto k : b_keys) ASSERT_TRUE(b.insert(k));
  const QuotientFilter m = QuotientFilter::merge(a, b);
  EXPECT_EQ(m.quotient_bits(), a.quotient_bits() + 1);
  EXPECT_EQ(m.remainder_bits(), a.remainder_bits() - 1);
  ASSERT_EQ(m.Validate(), "");
  for (auto k : a_keys) ASSERT_TRUE(m.contains(k));
  for (auto k : b_keys) ASSERT_TRUE(m.contains(k));
  ExpectFprMatchesTheory(m, 1000000, 79);
  // different seeds cannot merge: their fingerprints are different hashes
  QuotientFilter c(Params(30000, 0.001, 0.9, 5));
  EXPECT_THROW(QuotientFilter::merge(a, c), std::invalid_argument);
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
