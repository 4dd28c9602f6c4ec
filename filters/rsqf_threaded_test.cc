// filters/rsqf_threaded_test.cc - the RSQF's and the CQF's concurrent insert mode (region locks,
// RsqfFilterBase::insert_concurrent in filters/rsqf_core.h) on 1, 2, 4 and 8 threads. Both
// layouts are canonical for the multiset they hold (runs sorted, counters encoded one way), so
// a concurrent build must leave the bytes of a sequential build of the keys it accepted: the
// strongest check there is that no shift was lost or done twice. Regions of one and two blocks
// make nearly every cluster cross region edges, so the retry that takes more regions runs
// constantly; kOffsetLimit = 2 saturates offsets, so the walk back over them leaves the held
// regions and the retry from a lower region runs too. The forced-portable twins (kPortable) run
// the portable select; the default core runs PDEP when the build has BMI2 (compile with -mbmi2).
// Built into threaded_tests, which scripts/tsan.sh runs under ThreadSanitizer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <latch>
#include <thread>
#include <vector>

#include "core/concurrent_insert.h"
#include "core/hashing.h"
#include "filters/cqf.h"
#include "filters/rsqf.h"
#include "filters/threaded_test_support.h"

namespace amq {
namespace {

using threaded_test::DistinctKeys;

struct ThreadedBuild {
  std::vector<std::uint8_t> accepted;  // per key: insert_concurrent's answer
  std::uint64_t accepted_count = 0;
};

// Thread t inserts the t-th of `threads` contiguous slices of keys, all threads released at
// once. region_blocks as insert_concurrent takes it.
template <class F>
ThreadedBuild InsertOnThreads(F& filter, const std::vector<std::uint64_t>& keys, int threads,
                              std::uint64_t region_blocks) {
  InsertLocks locks(filter.insert_lock_count(region_blocks));
  ThreadedBuild out;
  out.accepted = threaded_test::InsertOnThreads(
      keys.size(), threads, threaded_test::Slices::kContiguous,
      [&](std::size_t i) { return filter.insert_concurrent(keys[i], locks, region_blocks); });
  for (std::uint8_t a : out.accepted) out.accepted_count += a;
  return out;
}

// The filter after a threaded build against a sequential build of the keys it accepted: no
// false negative, valid structure, counters that add up, the same bytes.
template <class F>
void ExpectLikeSequential(const F& filter, const ThreadedBuild& build,
                          const std::vector<std::uint64_t>& keys, int q, int r, std::uint64_t seed) {
  F sequential(q, r, SpreadSeed(seed), 0.95);
  std::uint64_t false_negatives = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (!build.accepted[i]) continue;
    ASSERT_TRUE(sequential.insert(keys[i])) << "a subset of a table that fits must fit";
    false_negatives += filter.contains(keys[i]) ? 0 : 1;
  }
  EXPECT_EQ(false_negatives, 0u);
  EXPECT_EQ(filter.Validate(), "");
  EXPECT_EQ(filter.insert_failures(), keys.size() - build.accepted_count);
  EXPECT_EQ(filter.load_factor(), sequential.load_factor());
  if constexpr (requires { filter.total(); }) {
    EXPECT_EQ(filter.total(), build.accepted_count);
    EXPECT_EQ(filter.distinct(), sequential.distinct());
  } else {
    EXPECT_EQ(filter.stored(), build.accepted_count);
  }
  EXPECT_TRUE(std::ranges::equal(filter.bytes(), sequential.bytes())) << "bytes differ";
}

// Every thread count and region size on one filter type: n keys at `load` of 2^q.
template <class F>
void LoadOnThreads(int q, int r, double load, std::uint64_t seed,
                   std::initializer_list<std::uint64_t> region_sizes) {
  const auto keys = DistinctKeys(static_cast<std::size_t>(load * (1ULL << q)), seed);
  for (std::uint64_t region_blocks : region_sizes) {
    for (int threads : {1, 2, 4, 8}) {
      SCOPED_TRACE(::testing::Message() << threads << " threads, regions of " << region_blocks
                                        << " blocks, load " << load);
      F filter(q, r, SpreadSeed(seed), 0.95);
      const ThreadedBuild build = InsertOnThreads(filter, keys, threads, region_blocks);
      if (load <= 0.95) {
        EXPECT_EQ(build.accepted_count, keys.size());
      }
      ExpectLikeSequential(filter, build, keys, q, r, seed);
    }
  }
}

constexpr std::uint64_t kModeRegions = Rsqf::kInsertRegionBlocks;

TEST(RsqfThreaded, BytesEqualSequentialAtNinetyPercent) {
  // 2^14 slots: five regions of 64 blocks, so threads share and cross them.
  LoadOnThreads<Rsqf>(14, 8, 0.9, 1, {kModeRegions, 1});
  LoadOnThreads<Rsqf>(13, 13, 0.5, 2, {kModeRegions, 2});  // remainders not byte-wide
}

TEST(RsqfThreaded, PortableTwinBytesEqualSequential) {
  LoadOnThreads<BasicRsqf<255, true>>(13, 7, 0.9, 3, {kModeRegions, 1});
}

// Clusters longer than regions of one block, and offsets saturated at 2: the bounded searches
// want blocks above and below what the insert holds, over and over.
TEST(RsqfThreaded, ClustersAndSaturatedOffsetsCrossTinyRegions) {
  LoadOnThreads<BasicRsqf<2>>(12, 6, 0.97, 4, {1, 2, 3});
  LoadOnThreads<BasicRsqf<2, true>>(11, 10, 0.95, 5, {1});
}

// More keys than slots: inserts are refused once shifts would pass the last overflow slot. A
// refused insert changes nothing, so the accepted ones are all there, and the table is one a
// sequential build of exactly those keys makes.
TEST(RsqfThreaded, FullTableRefusesWithoutLosingKeys) {
  for (int threads : {2, 4, 8}) {
    for (std::uint64_t region_blocks : {std::uint64_t{1}, kModeRegions}) {
      SCOPED_TRACE(::testing::Message() << threads << " threads, regions " << region_blocks);
      const auto keys = DistinctKeys(1200, 6 + threads);  // 2^10 canonical + 128 overflow slots
      BasicRsqf<2> filter(10, 5, SpreadSeed(6), 0.95);
      const ThreadedBuild build = InsertOnThreads(filter, keys, threads, region_blocks);
      EXPECT_LT(build.accepted_count, keys.size());
      ExpectLikeSequential(filter, build, keys, 10, 5, 6);
    }
  }
}

// Eighteen blocks, a region each, eight threads, many rounds: threads meet on the same block edges
// all the time. A window that let a word move spill into a block it does not hold shows here
// (as a race under ThreadSanitizer, or as different bytes) far more often than in big tables.
TEST(RsqfThreaded, EightThreadsOnEighteenBlocks) {
  for (std::uint64_t seed = 20; seed < 30; ++seed) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    const auto keys = DistinctKeys(1000, seed);
    BasicRsqf<2> filter(10, 6, SpreadSeed(seed), 0.95);
    const ThreadedBuild build = InsertOnThreads(filter, keys, 8, 1);
    ASSERT_EQ(build.accepted_count, keys.size());
    ExpectLikeSequential(filter, build, keys, 10, 6, seed);
  }
}

// The smallest table (q = 6: three blocks) on eight threads: one region, or three of a block.
TEST(RsqfThreaded, SmallestTable) {
  LoadOnThreads<Rsqf>(6, 4, 0.9, 7, {kModeRegions, 1});
}

TEST(RsqfThreaded, LockCountCoversTheTable) {
  Rsqf f(14, 8, SpreadSeed(1), 0.95);
  const std::uint64_t blocks = f.core().total_slots() / 64;  // 2^14 + 256 slots: 260 blocks
  EXPECT_EQ(f.insert_lock_count(), (blocks + 63) / 64);
  EXPECT_EQ(f.insert_lock_count(1), blocks);
  static_assert(ConcurrentInsertFilter<Rsqf> && ConcurrentInsertFilter<Cqf>);
}

TEST(CqfThreaded, DistinctKeysBytesEqualSequential) {
  LoadOnThreads<Cqf>(14, 8, 0.9, 8, {kModeRegions, 1});
  LoadOnThreads<BasicCqf<2, true>>(12, 6, 0.95, 9, {1, 2});
}

// Copies of keys spread over the threads: entries grow counters (digits, the 0 marker) while
// other threads shift runs past them. Counts add up whatever the interleaving, so the bytes
// still equal a sequential build's.
TEST(CqfThreaded, CountersFromManyThreadsEqualSequential) {
  const auto distinct = DistinctKeys(1000, 10);
  std::vector<std::uint64_t> keys;
  for (std::size_t i = 0; i < distinct.size(); ++i) {
    const std::size_t copies = i % 7 == 0 ? 40 : 1 + i % 3;  // counts 1..3 and 40 (digits)
    keys.insert(keys.end(), copies, distinct[i]);
  }
  // Shuffled, so the copies of a key land in several threads' slices.
  std::vector<std::uint64_t> shuffled = keys;
  XorShift64Star rng(10);
  for (std::size_t i = shuffled.size() - 1; i > 0; --i) std::swap(shuffled[i], shuffled[rng.Next() % (i + 1)]);
  for (std::uint64_t region_blocks : {std::uint64_t{1}, kModeRegions}) {
    for (int threads : {1, 2, 4, 8}) {
      SCOPED_TRACE(::testing::Message() << threads << " threads, regions " << region_blocks);
      BasicCqf<2> filter(12, 4, SpreadSeed(10), 0.95);  // r = 4: short digits, ~2/3 full
      const ThreadedBuild build = InsertOnThreads(filter, shuffled, threads, region_blocks);
      ASSERT_EQ(build.accepted_count, shuffled.size());
      ExpectLikeSequential(filter, build, shuffled, 12, 4, 10);
      for (std::size_t i = 0; i < distinct.size(); i += 7) {
        EXPECT_GE(filter.count(distinct[i]), 40u);
      }
    }
  }
}

}  // namespace
}  // namespace amq
