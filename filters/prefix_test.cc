// filters/prefix_test.cc - the prefix filter (filters/prefix.h): its pocket dictionaries against
// a multiset, the prefix invariant's bookkeeping, key orders that break careless code, a full
// spare refusing cleanly, and every compare/select path this CPU has giving the portable
// path's bytes and answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <set>
#include <vector>

#include "core/hashing.h"
#include "filters/prefix.h"
#include "workloads/uniform.h"

namespace amq {
namespace {

using prefix_detail::Path;

static_assert(DynamicFilter<PrefixTc> && DynamicFilter<PrefixCuckoo12> &&
              DynamicFilter<PrefixBlockedBloom>);
static_assert(BatchedFilter<PrefixTc> && HasStats<PrefixTc>);
// Incremental, as in the paper: no erase.
static_assert(!ErasableFilter<PrefixTc> && !ErasableFilter<PrefixCuckoo12> &&
              !ErasableFilter<PrefixBlockedBloom>);
static_assert(sizeof(PrefixTc::Pd::Bin) == 32 && alignof(PrefixTc::Pd::Bin) == 32);
static_assert(sizeof(prefix_detail::TwoChoiceSpare<Path::kPortable>::Pd::Bin) == 64);

FilterParams ParamsFor(std::size_t n, std::uint64_t seed = 3) {
  FilterParams p;
  p.capacity = n;
  p.seed = seed;
  return p;
}

// One pocket dictionary against a multiset of (q, r): every (q, r) answered, the maximum, and
// RemoveMax, through random fills to capacity.
template <class Pd>
void CheckPocketDictionary(std::uint64_t seed) {
  XorShift64Star random(seed);
  for (int round = 0; round < 300; ++round) {
    typename Pd::Bin bin;
    std::multiset<int> oracle;
    // Few distinct values in some rounds, so runs and duplicates are long.
    const int spread = round % 3 == 0 ? 6 : Pd::kFingerprints;
    const int base = static_cast<int>(random.Next() % (Pd::kFingerprints - spread + 1));
    for (int i = 0; i < Pd::kCapacity; ++i) {
      const int fp = base + static_cast<int>(random.Next() % spread);
      Pd::Insert(bin, fp >> 8, static_cast<std::uint8_t>(fp));
      oracle.insert(fp);
      ASSERT_EQ(Pd::Count(Pd::Bits(bin)), static_cast<int>(oracle.size()));
      ASSERT_EQ(Pd::MaxFingerprint(bin), *oracle.rbegin());
    }
    for (int fp = 0; fp < Pd::kFingerprints; ++fp) {
      ASSERT_EQ(Pd::Contains(bin, fp >> 8, static_cast<std::uint8_t>(fp)), oracle.count(fp) > 0)
          << "fp " << fp << " round " << round;
    }
    while (!oracle.empty()) {
      ASSERT_EQ(Pd::MaxFingerprint(bin), *oracle.rbegin());
      Pd::RemoveMax(bin);
      oracle.erase(std::prev(oracle.end()));
      ASSERT_EQ(Pd::Count(Pd::Bits(bin)), static_cast<int>(oracle.size()));
    }
    const typename Pd::Bin empty;
    EXPECT_EQ(std::memcmp(bin.bytes, empty.bytes, sizeof(bin.bytes)), 0) << "emptied bin";
  }
}

template <Path kPath>
void CheckPocketDictionaries() {
  CheckPocketDictionary<prefix_detail::PocketDictionary<25, 25, 32, kPath>>(1);
  CheckPocketDictionary<prefix_detail::PocketDictionary<80, 48, 64, kPath>>(2);
}

TEST(PrefixPocketDictionary, AnswersAsAMultisetOnEveryPath) {
  CheckPocketDictionaries<Path::kPortable>();
  if (prefix_detail::CpuRuns(Path::kAvx2)) CheckPocketDictionaries<Path::kAvx2>();
  if (prefix_detail::CpuRuns(Path::kAvx512)) CheckPocketDictionaries<Path::kAvx512>();
}

// A full bin taking smaller fingerprints in place of its maximum (an insert into a full bin):
// it keeps the k smallest, and every path writes the portable path's bytes after each step.
template <int kQ, int kK, int kBytes, Path kPath>
void CheckReplaceMax(std::uint64_t seed) {
  using Portable = prefix_detail::PocketDictionary<kQ, kK, kBytes, Path::kPortable>;
  using Pd = prefix_detail::PocketDictionary<kQ, kK, kBytes, kPath>;
  XorShift64Star random(seed);
  for (int round = 0; round < 200; ++round) {
    typename Portable::Bin expected;
    typename Pd::Bin bin;
    std::multiset<int> oracle;
    // Few distinct values in some rounds, so equal remainders meet.
    const int spread = round % 3 == 0 ? 6 : Pd::kFingerprints;
    const int base = static_cast<int>(random.Next() % (Pd::kFingerprints - spread + 1));
    auto next = [&](int below) { return base + static_cast<int>(random.Next() % below); };
    for (int i = 0; i < Pd::kCapacity; ++i) {
      const int fp = next(spread);
      Portable::Insert(expected, fp >> 8, static_cast<std::uint8_t>(fp));
      Pd::Insert(bin, fp >> 8, static_cast<std::uint8_t>(fp));
      oracle.insert(fp);
      ASSERT_EQ(std::memcmp(expected.bytes, bin.bytes, kBytes), 0) << "insert, round " << round;
    }
    // As in the filter: a bin that forwarded is flagged, and the flag must survive the rewrites.
    Portable::MarkOverflowed(expected);
    Pd::MarkOverflowed(bin);
    for (int step = 0; step < 60 && *oracle.rbegin() > base; ++step) {
      ASSERT_EQ(Pd::MaxOfFull(bin), *oracle.rbegin());
      const int fp = next(*oracle.rbegin() - base);  // below the maximum
      Portable::ReplaceMax(expected, fp >> 8, static_cast<std::uint8_t>(fp));
      Pd::ReplaceMax(bin, fp >> 8, static_cast<std::uint8_t>(fp));
      oracle.erase(std::prev(oracle.end()));
      oracle.insert(fp);
      ASSERT_EQ(std::memcmp(expected.bytes, bin.bytes, kBytes), 0) << "replace, round " << round;
      ASSERT_EQ(Pd::Count(Pd::Bits(bin)), Pd::kCapacity);
      ASSERT_EQ(Pd::MaxFingerprint(bin), *oracle.rbegin());
    }
    EXPECT_EQ(Pd::Overflowed(bin), Pd::kHasFlag);
    for (int fp = 0; fp < Pd::kFingerprints; ++fp) {
      ASSERT_EQ(Pd::Contains(bin, fp >> 8, static_cast<std::uint8_t>(fp)), oracle.count(fp) > 0)
          << "fp " << fp << " round " << round;
    }
  }
}

template <Path kPath>
void CheckReplaceMaxOnPath() {
  if (!prefix_detail::CpuRuns(kPath)) return;
  CheckReplaceMax<25, 25, 32, kPath>(3);
  CheckReplaceMax<80, 48, 64, kPath>(4);
}

TEST(PrefixPocketDictionary, ReplaceMaxKeepsTheSmallestOnEveryPath) {
  CheckReplaceMaxOnPath<Path::kPortable>();
  CheckReplaceMaxOnPath<Path::kAvx2>();
  CheckReplaceMaxOnPath<Path::kAvx512>();
}

TEST(PrefixPocketDictionary, OverflowFlagSurvivesHeaderWrites) {
  using Pd = PrefixTc::Pd;
  typename Pd::Bin bin;
  Pd::Insert(bin, 3, 7);
  Pd::MarkOverflowed(bin);
  Pd::Insert(bin, 24, 255);
  Pd::RemoveMax(bin);
  EXPECT_TRUE(Pd::Overflowed(bin));
  EXPECT_EQ(Pd::OverflowBit(bin), 1u);
  EXPECT_TRUE(Pd::Contains(bin, 3, 7));
  EXPECT_FALSE(Pd::Contains(bin, 24, 255));
  EXPECT_EQ(Pd::MaxFingerprint(bin), 3 * 256 + 7);
}

// Key orders that break careless code: sequential, differing only in the high bits, the
// bit-reversed sequence, and uniform.
std::vector<std::vector<std::uint64_t>> AdversarialOrders(std::size_t n) {
  std::vector<std::vector<std::uint64_t>> orders(4);
  for (std::uint64_t i = 0; i < n; ++i) {
    orders[0].push_back(i);
    orders[1].push_back(i << 44);
    std::uint64_t reversed = 0;
    for (int b = 0; b < 64; ++b) reversed |= ((i >> b) & 1) << (63 - b);
    orders[2].push_back(reversed);
  }
  orders[3] = UniformKeys(17, KeyStream::kMembers, n);
  return orders;
}

template <class F>
void CheckNoFalseNegatives() {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{1000},
                        std::size_t{100000}}) {
    for (const auto& keys : AdversarialOrders(n)) {
      F filter(ParamsFor(n));
      for (std::uint64_t key : keys) ASSERT_TRUE(filter.insert(key)) << F::kName << " n = " << n;
      std::size_t missing = 0;
      for (std::uint64_t key : keys) missing += filter.contains(key) ? 0 : 1;
      EXPECT_EQ(missing, 0u) << F::kName << " n = " << n;
      std::vector<std::uint8_t> out(keys.size());
      EXPECT_EQ(filter.contains_many(keys, out), keys.size());
    }
  }
}

TEST(PrefixFilter, NoFalseNegativesInAdversarialOrders) {
  CheckNoFalseNegatives<PrefixTc>();
  CheckNoFalseNegatives<PrefixCuckoo12>();
  CheckNoFalseNegatives<PrefixBlockedBloom>();
}

// Repeated keys and an oracle: a key inserted twice is still found, and the count of keys the
// filter took equals the inserts.
TEST(PrefixFilter, RepeatedKeysAgainstASetOracle) {
  // A repeated key is stored again (the paper's insert does not look first), and its copies
  // share a bin, so bins fill faster than Poisson: capacity for twice the distinct keys.
  XorShift64Star random(5);
  PrefixTc filter(ParamsFor(40000));
  std::set<std::uint64_t> oracle;
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t key = random.Next() % 10000;  // about two copies of each
    ASSERT_TRUE(filter.insert(key));
    oracle.insert(key);
  }
  for (std::uint64_t key : oracle) ASSERT_TRUE(filter.contains(key)) << key;
}

// The spare holds what the bins forwarded; its share is the Poisson expectation
// E[(X - 25)^+] / lambda (5.86% at FastFilter's 0.95 bin load) within a few standard deviations.
TEST(PrefixFilter, SpareTakesTheExpectedOverflow) {
  constexpr std::size_t kKeys = 200000;
  const auto keys = UniformKeys(9, KeyStream::kMembers, kKeys);
  PrefixTc filter(ParamsFor(kKeys));
  for (std::uint64_t key : keys) ASSERT_TRUE(filter.insert(key));
  const double bins = static_cast<double>(filter.bins());
  const auto o = prefix_detail::PoissonBinOccupancy(kKeys / bins, 25);
  EXPECT_NEAR(o.overflow / (kKeys / bins), 0.0586, 0.002);
  const double expected = bins * o.overflow, sd = std::sqrt(bins * o.overflow_var);
  EXPECT_NEAR(static_cast<double>(filter.keys_to_spare()), expected, 5 * sd);
  EXPECT_EQ(filter.insert_failures(), 0u);
  // Non-members reach the spare w.p. E[(X - 24) / (X + 1); X > 25].
  const auto negatives = UniformKeys(9, KeyStream::kNonMembers, 400000);
  for (std::uint64_t key : negatives) (void)filter.contains(key);
  const double p = o.query_to_spare, q = negatives.size();
  EXPECT_NEAR(static_cast<double>(filter.lookups_to_spare()), p * q, 5 * std::sqrt(q * p * (1 - p)));
}

// Space at FastFilter's n = 10^6 configuration, from the allocation: 42,106 bins (10.78
// bits/key) plus each spare.
TEST(PrefixFilter, SizedAsFastFiltersConfigurations) {
  constexpr std::size_t kKeys = 1000000;
  const PrefixTc tc(ParamsFor(kKeys));
  const PrefixCuckoo12 cf(ParamsFor(kKeys));
  const PrefixBlockedBloom bbf(ParamsFor(kKeys));
  EXPECT_EQ(tc.bins(), 42106u);
  EXPECT_EQ(tc.bin_bytes(), 42106u * 32);
  // Two-choice spare: E / 0.95 = 61,718 keys at 48 * 0.935 per bin: 1,376 bins of 64 bytes.
  EXPECT_EQ(tc.spare().size_in_bytes(), 1376u * 64);
  // cuckoo12 spare: the same 61,718 keys at load 0.96 fit 2^14 buckets of four 12-bit slots.
  EXPECT_EQ(cf.spare().buckets(), 16384u);
  // blocked Bloom spare: 2 E / 0.95 = 123,437 keys at 256/24 bits per key, in 64-byte blocks.
  EXPECT_EQ(bbf.spare().size_in_bytes(), 2572u * 64);
  const double bits_tc = 8.0 * tc.size_in_bytes() / kKeys;
  EXPECT_NEAR(bits_tc, tc.theory().bits_per_key, 0.01);
}

// A spare that cannot take a forwarded key refuses the insert and leaves the bins as they were;
// every key taken before is still found. The blocked Bloom spare never refuses.
template <class F>
void CheckFullFilterRefusesCleanly(bool can_refuse) {
  constexpr std::size_t kCapacity = 2000;
  F filter(ParamsFor(kCapacity, 11));
  const auto keys = UniformKeys(21, KeyStream::kMembers, 20 * kCapacity);
  std::vector<std::uint64_t> taken;
  std::size_t refused = 0;
  for (std::uint64_t key : keys) {
    const std::vector<std::uint8_t> before(filter.bytes().begin(), filter.bytes().end());
    if (filter.insert(key)) {
      taken.push_back(key);
    } else {
      ++refused;
      ASSERT_TRUE(std::equal(before.begin(), before.end(), filter.bytes().begin()))
          << "a refused insert changed the bins";
    }
  }
  EXPECT_EQ(refused, filter.insert_failures());
  EXPECT_EQ(refused > 0, can_refuse) << F::kName;
  for (std::uint64_t key : taken) ASSERT_TRUE(filter.contains(key));
}

TEST(PrefixFilter, FullSpareRefusesCleanly) {
  CheckFullFilterRefusesCleanly<PrefixTc>(true);
  CheckFullFilterRefusesCleanly<PrefixCuckoo12>(true);
  CheckFullFilterRefusesCleanly<PrefixBlockedBloom>(false);
}

// Every path this CPU runs writes the portable path's bytes, bins and spare, and answers alike.
template <PrefixSpare kSpare, Path kPath>
void CheckPathMatchesPortable() {
  if (!prefix_detail::CpuRuns(kPath)) return;
  constexpr std::size_t kKeys = 100000;
  const auto keys = UniformKeys(31, KeyStream::kMembers, kKeys);
  auto queries = UniformKeys(31, KeyStream::kNonMembers, 300000);
  queries.insert(queries.end(), keys.begin(), keys.end());
  PrefixFilter<kSpare, Path::kPortable> portable(ParamsFor(kKeys));
  PrefixFilter<kSpare, kPath> simd(ParamsFor(kKeys));
  for (std::uint64_t key : keys) ASSERT_EQ(portable.insert(key), simd.insert(key));
  const auto a = portable.bytes(), b = simd.bytes();
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size()), 0);
  const auto sa = portable.spare_bytes(), sb = simd.spare_bytes();
  ASSERT_EQ(sa.size(), sb.size());
  EXPECT_EQ(std::memcmp(sa.data(), sb.data(), sa.size()), 0);
  std::size_t differ = 0;
  for (std::uint64_t q : queries) differ += portable.contains(q) != simd.contains(q) ? 1 : 0;
  EXPECT_EQ(differ, 0u);
  EXPECT_EQ(portable.lookups_to_spare(), simd.lookups_to_spare());
}

TEST(PrefixFilter, SimdPathsAnswerAsThePortableOne) {
  CheckPathMatchesPortable<PrefixSpare::kTwoChoice, Path::kAvx2>();
  CheckPathMatchesPortable<PrefixSpare::kTwoChoice, Path::kAvx512>();
  CheckPathMatchesPortable<PrefixSpare::kCuckoo12, Path::kAvx2>();
  CheckPathMatchesPortable<PrefixSpare::kCuckoo12, Path::kAvx512>();
  CheckPathMatchesPortable<PrefixSpare::kBlockedBloom, Path::kAvx2>();
  CheckPathMatchesPortable<PrefixSpare::kBlockedBloom, Path::kAvx512>();
  // The build's own choice is one of them.
  EXPECT_TRUE(prefix_detail::CpuRuns(prefix_detail::kBuildPath));
}

// Measured FPR against theory at n = 10^5: lambda / 6400 for the fingerprints of the bin's keys
// (kept or forwarded) and the spare's own false positives.
TEST(PrefixFilter, FalsePositiveRateNearTheory) {
  constexpr std::size_t kKeys = 100000, kNegatives = 1000000;
  const auto keys = UniformKeys(41, KeyStream::kMembers, kKeys);
  const auto negatives = UniformKeys(41, KeyStream::kNonMembers, kNegatives);
  PrefixCuckoo12 filter(ParamsFor(kKeys));
  for (std::uint64_t key : keys) ASSERT_TRUE(filter.insert(key));
  std::size_t fp = 0;
  for (std::uint64_t key : negatives) fp += filter.contains(key) ? 1 : 0;
  const double theory = filter.theory().fpr;
  EXPECT_NEAR(theory, 0.00381, 0.0001);
  EXPECT_NEAR(static_cast<double>(fp), theory * kNegatives, 5 * std::sqrt(theory * kNegatives));
}

}  // namespace
}  // namespace amq
