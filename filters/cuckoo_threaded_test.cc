// filters/cuckoo_threaded_test.cc - the cuckoo filter's concurrent insert mode (filters/cuckoo.h,
// core/concurrent_insert.h): 1, 2, 4 and 8 threads insert interleaved slices of one key set into
// one filter at load 0.95 (0.85 for b = 2, below its threshold of about 0.9), into tables far
// too small for the keys (a third of the inserts meet max_kicks full buckets and are refused),
// and into tables of a few 64-byte lock regions where every insert meets the others.
// After the join: no accepted key is missing, the table holds exactly the accepted keys'
// fingerprints (each a (bucket pair, fingerprint) that a move never changes; which of its two
// buckets holds one depends on the interleaving), so a refused insert lost no other key and
// left nothing behind, and the counters agree with the answers. One thread's bytes equal
// insert()'s until the first eviction, after which its random draws are its own. Every assertion
// holds for every interleaving; nothing is timed. Run under ThreadSanitizer in CI.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "core/concurrent_insert.h"
#include "core/hashing.h"
#include "filters/cuckoo.h"
#include "filters/test_params.h"
#include "filters/threaded_test_support.h"

namespace amq {
namespace {

using filter_tests::Params;

constexpr int kThreadCounts[] = {1, 2, 4, 8};

using threaded_test::RandomKeys;

// Thread t inserts keys t, t + T, t + 2T, ...: the threads meet in the same buckets from the
// start. The answer for each key (1: accepted).
template <class F>
std::vector<std::uint8_t> InsertOnThreads(F& f, const std::vector<std::uint64_t>& keys, int threads) {
  InsertLocks locks(f.insert_lock_count());
  return threaded_test::InsertOnThreads(keys.size(), threads, threaded_test::Slices::kInterleaved,
                                        [&](std::size_t i) { return f.insert_concurrent(keys[i], locks); });
}

// A stored fingerprint as moves leave it: the lower of its two buckets, and its value.
using Held = std::pair<std::uint64_t, std::uint64_t>;

// Every nonzero slot of the table, read from its bytes (f-bit fields end to end).
template <class F>
std::vector<Held> HeldFingerprints(const F& f) {
  const auto bytes = f.bytes();
  const int width = f.fingerprint_bits();
  const std::uint64_t mask = f.buckets() - 1;
  std::vector<Held> held;
  for (std::uint64_t slot = 0; slot < f.buckets() * F::kSlotsPerBucket; ++slot) {
    std::uint64_t fp = 0;
    for (int b = 0; b < width; ++b) {
      const std::uint64_t bit = slot * width + b;
      fp |= static_cast<std::uint64_t>((bytes[bit / 8] >> (bit % 8)) & 1) << b;
    }
    if (fp == 0) continue;
    const std::uint64_t bucket = slot / F::kSlotsPerBucket;
    held.emplace_back(std::min(bucket, cuckoo_detail::AltIndex(bucket, fp, mask)), fp);
  }
  std::sort(held.begin(), held.end());
  return held;
}

// What HeldFingerprints must read after the keys whose answer was 1 went in.
template <class F>
std::vector<Held> ExpectedFingerprints(const F& f, const FilterParams& p,
                                       const std::vector<std::uint64_t>& keys,
                                       const std::vector<std::uint8_t>& accepted) {
  const std::uint64_t mask = f.buckets() - 1;
  std::vector<Held> held;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (!accepted[i]) continue;
    const auto [i1, fp] =
        cuckoo_detail::IndexAndFingerprint(keys[i], SpreadSeed(p.seed), mask, f.fingerprint_bits());
    held.emplace_back(std::min(i1, cuckoo_detail::AltIndex(i1, fp, mask)), fp);
  }
  std::sort(held.begin(), held.end());
  return held;
}

StatValue StatOf(const Stats& stats, std::string_view name) {
  for (const auto& [n, value] : stats.items()) {
    if (n == name) return value;
  }
  ADD_FAILURE() << "no statistic " << name;
  return {};
}

// Everything the contract promises after the join, for any interleaving: the accepted keys are
// found, the table holds their fingerprints and nothing else, and the counters are those of a
// sequential build that made the same answers. Returns the keys accepted.
template <class F>
std::size_t ExpectConsistent(const F& f, const FilterParams& p,
                             const std::vector<std::uint64_t>& keys,
                             const std::vector<std::uint8_t>& accepted, int threads) {
  std::size_t stored = 0, false_negatives = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    stored += accepted[i];
    if (accepted[i] && !f.contains(keys[i])) ++false_negatives;
  }
  EXPECT_EQ(false_negatives, 0u) << threads << " threads";
  EXPECT_TRUE(HeldFingerprints(f) == ExpectedFingerprints(f, p, keys, accepted))
      << threads << " threads: a fingerprint lost, duplicated or left behind by a refused insert";
  EXPECT_EQ(f.insert_failures(), keys.size() - stored) << threads << " threads";
  EXPECT_EQ(f.load_factor(), static_cast<double>(stored) / (f.buckets() * F::kSlotsPerBucket));

  Stats stats;
  f.add_stats(stats);
  const StatValue histogram = StatOf(stats, "kicks_histogram");
  std::uint64_t binned = 0;
  for (const auto& [bin, count] : std::get<StatValue::Counts>(histogram.value)) binned += count;
  EXPECT_EQ(binned, stored) << threads << " threads: every accepted insert is in one bin";
  EXPECT_LE(std::get<std::uint64_t>(StatOf(stats, "kicks_max").value),
            static_cast<std::uint64_t>(p.max_kicks));
  const StatValue first_failure = StatOf(stats, "first_failure_load");
  EXPECT_EQ(std::holds_alternative<double>(first_failure.value), stored < keys.size())
      << threads << " threads";
  return stored;
}

// Every geometry the family has: the fixed widths with b = 2, 4, 8, the run-time width (13 bits
// here: buckets of 52 bits, so most start mid-byte) and the survey's insertion rule.
template <class F>
class CuckooThreadedTest : public ::testing::Test {
 protected:
  static FilterParams ParamsFor(std::size_t n, std::uint64_t seed) {
    return Params(n, 0.001, 0.95, seed);  // Cuckoo<0>: f = 10 + 3
  }
  // 0.95 with b = 4 and 8, where the threshold is 0.98 and above; b = 2's is about 0.9.
  static constexpr double kLoad = F::kSlotsPerBucket == 2 ? 0.85 : 0.95;
};
using Geometries = ::testing::Types<Cuckoo<12>, Cuckoo<0>, Cuckoo<12, 2>, Cuckoo<12, 8>,
                                    Cuckoo<0, 4, CuckooInsert::kSurvey>>;
TYPED_TEST_SUITE(CuckooThreadedTest, Geometries, filter_tests::FilterNames);

static_assert(ConcurrentInsertFilter<Cuckoo<12>> && ConcurrentInsertFilter<Cuckoo<0>>);

// 2^16 slots filled to kLoad (62,259 keys for b = 4) on 1, 2, 4 and 8 threads. Below the
// threshold no walk comes near max_kicks = 500 (insert() refuses none of these keys either), so
// no key is refused, whatever the interleaving.
TYPED_TEST(CuckooThreadedTest, EveryKeyFoundAtHighLoadOnAnyThreadCount) {
  constexpr std::uint64_t kBuckets = (1 << 16) / TypeParam::kSlotsPerBucket;
  const auto n = static_cast<std::size_t>(this->kLoad * kBuckets * TypeParam::kSlotsPerBucket);
  const auto keys = RandomKeys(n, 21);
  const FilterParams p = this->ParamsFor(n, 4);
  TypeParam sequential(p, kBuckets);
  for (std::uint64_t key : keys) ASSERT_TRUE(sequential.insert(key));
  for (int threads : kThreadCounts) {
    TypeParam f(p, kBuckets);
    const auto accepted = InsertOnThreads(f, keys, threads);
    EXPECT_EQ(ExpectConsistent(f, p, keys, accepted, threads), n) << threads << " threads";
  }
}

// 2,048 slots and 1.5 times as many keys, max_kicks 100: about a third of the inserts are
// refused after walks of 100 full buckets, while the other threads move fingerprints about. Every
// refusal must leave the table holding exactly the accepted keys.
TYPED_TEST(CuckooThreadedTest, RefusedInsertsLoseNoKeyWhenTheTableIsFull) {
  constexpr std::uint64_t kBuckets = 2048 / TypeParam::kSlotsPerBucket;
  constexpr std::size_t kSlots = kBuckets * TypeParam::kSlotsPerBucket;
  const auto keys = RandomKeys(kSlots * 3 / 2, 22);
  FilterParams p = this->ParamsFor(kSlots, 5);
  p.max_kicks = 100;
  for (int threads : kThreadCounts) {
    TypeParam f(p, kBuckets);
    const auto accepted = InsertOnThreads(f, keys, threads);
    const std::size_t stored = ExpectConsistent(f, p, keys, accepted, threads);
    EXPECT_LE(stored, kSlots);
    EXPECT_GT(f.load_factor(), this->kLoad - 0.05)
        << threads << " threads: refused before the table was full";
  }
}

// Four buckets of 1 byte (b = 2, f = 4) up to 64 buckets: the whole table is one or a few lock
// regions, and every bucket's 8-byte accesses overlap several neighbours. Threads contend for
// the same regions and abandon each other's paths; the table must still hold exactly what they
// were told went in.
TEST(CuckooThreaded, TinyTablesUnderContentionHoldExactlyTheAcceptedKeys) {
  for (int f : {4, 7, 13}) {
    for (std::uint64_t buckets : {4u, 64u}) {
      FilterParams p = Params(buckets * 2, 0, 0.95, 6);
      p.bits_per_key = (f + 0.5) / 0.95;  // floor(B * L) = f
      p.max_kicks = 50;
      const auto keys = RandomKeys(buckets * 2 * 4, 23 + f);
      for (int threads : kThreadCounts) {
        Cuckoo<0, 2> filter(p, buckets);
        ASSERT_EQ(filter.fingerprint_bits(), f);
        const auto accepted = InsertOnThreads(filter, keys, threads);
        ExpectConsistent(filter, p, keys, accepted, threads);
      }
    }
  }
}

template <class F>
std::uint64_t KicksTotal(const F& f) {
  Stats stats;
  f.add_stats(stats);
  return std::get<std::uint64_t>(StatOf(stats, "kicks_total").value);
}

// One thread places a key that needs no eviction where insert() does (the first free slot of
// i1, then of i2), so the keys before insert()'s first eviction give insert()'s bytes.
TYPED_TEST(CuckooThreadedTest, OneThreadHasTheSequentialBytesUntilTheFirstEviction) {
  constexpr std::uint64_t kBuckets = 1 << 12;
  const auto keys = RandomKeys(kBuckets * TypeParam::kSlotsPerBucket, 24);
  const FilterParams p = this->ParamsFor(keys.size(), 7);
  TypeParam probe(p, kBuckets);
  std::size_t before_eviction = 0;  // keys insert() placed before its first eviction
  for (; KicksTotal(probe) == 0; ++before_eviction)
    ASSERT_TRUE(probe.insert(keys[before_eviction]));
  ASSERT_GT(--before_eviction, 100u) << "the first eviction came too early to compare anything";
  const std::vector<std::uint64_t> prefix(keys.begin(), keys.begin() + before_eviction);
  TypeParam sequential(p, kBuckets), concurrent(p, kBuckets);
  for (std::uint64_t key : prefix) ASSERT_TRUE(sequential.insert(key));
  ASSERT_EQ(InsertOnThreads(concurrent, prefix, 1), std::vector<std::uint8_t>(prefix.size(), 1));
  const auto a = sequential.bytes(), b = concurrent.bytes();
  ASSERT_EQ(a.size(), b.size());
  EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin()));
}

// Past the first eviction the random draws come from a generator seeded by the key, not
// insert()'s: one thread's bytes differ from insert()'s but are the same on every run, and hold
// the same fingerprints.
TYPED_TEST(CuckooThreadedTest, OneThreadBuildsTheSameBytesEveryRun) {
  constexpr std::uint64_t kBuckets = 1 << 12;
  const auto n = static_cast<std::size_t>(this->kLoad * kBuckets * TypeParam::kSlotsPerBucket);
  const auto keys = RandomKeys(n, 25);
  const FilterParams p = this->ParamsFor(n, 8);
  TypeParam sequential(p, kBuckets), first(p, kBuckets), second(p, kBuckets);
  for (std::uint64_t key : keys) ASSERT_TRUE(sequential.insert(key));
  ASSERT_EQ(InsertOnThreads(first, keys, 1), std::vector<std::uint8_t>(n, 1));
  ASSERT_EQ(InsertOnThreads(second, keys, 1), std::vector<std::uint8_t>(n, 1));
  const auto a = first.bytes(), b = second.bytes();
  EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin()));
  EXPECT_TRUE(HeldFingerprints(first) == HeldFingerprints(sequential));
}

}  // namespace
}  // namespace amq
