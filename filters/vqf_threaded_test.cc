// filters/vqf_threaded_test.cc - the VQF's concurrent insert mode (core/concurrent_insert.h):
// 1, 2, 4 and 8 threads insert disjoint slices of one key set into one filter (load 0.9, and a
// filter too small for the keys, down to a single block whose two choices are the same block).
// After the join, every accepted key is found, the filter holds exactly the accepted keys'
// (bucket, tag) fingerprints (which of its two blocks a key lands in depends on the
// interleaving, its fingerprint does not), the counters agree with the answers, and a refused
// key's two blocks are both full. One thread makes insert()'s choices in insert()'s order: the
// same bytes. The assertions hold for every interleaving; nothing is timed. Run under
// ThreadSanitizer in CI, and built without AVX-512 flags (the portable path; the AVX-512 path's
// concurrent mode is in vqf_avx512_test.cc).
#include "filters/vqf.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "core/concurrent_insert.h"
#include "core/hashing.h"
#include "filters/test_params.h"
#include "filters/threaded_test_support.h"

namespace amq {
namespace {

using filter_tests::Params;

static_assert(ConcurrentInsertFilter<Vqf8> && ConcurrentInsertFilter<Vqf16>);

template <class F>
class VqfThreadedTest : public ::testing::Test {};
using Geometries = ::testing::Types<Vqf8, Vqf16>;
TYPED_TEST_SUITE(VqfThreadedTest, Geometries, filter_tests::FilterNames);

constexpr int kThreadCounts[] = {1, 2, 4, 8};

using threaded_test::RandomKeys;

// Thread t inserts keys [t n / T, (t + 1) n / T) in order, sharing one InsertLocks; the answer
// for each key (1: accepted).
template <class F>
std::vector<std::uint8_t> InsertOnThreads(F& f, const std::vector<std::uint64_t>& keys, int threads) {
  InsertLocks locks(f.insert_lock_count());
  return threaded_test::InsertOnThreads(keys.size(), threads, threaded_test::Slices::kContiguous,
                                        [&](std::size_t i) { return f.insert_concurrent(keys[i], locks); });
}

// Every (bucket, tag) the blocks hold, read from the bytes by the layout (Validate checks it).
template <class F>
std::vector<std::pair<int, std::uint64_t>> HeldFingerprints(const F& f) {
  std::vector<std::pair<int, std::uint64_t>> held;
  const auto* blocks = reinterpret_cast<const typename F::Block*>(f.bytes().data());
  for (std::size_t b = 0; b < f.blocks(); ++b) {
    const typename F::Block& block = blocks[b];
    int bucket = 0, slot = 0;
    for (int bit = 0; bucket < F::kBuckets; ++bit) {
      if ((block.metadata[bit / 64] >> (bit % 64)) & 1) {
        ++bucket;
      } else {
        held.emplace_back(bucket, block.tags[slot++]);
      }
    }
  }
  std::sort(held.begin(), held.end());
  return held;
}

// What a concurrent build must show whatever the interleaving; returns the keys refused.
template <class F>
std::size_t ExpectConsistentBuild(const F& f, const std::vector<std::uint64_t>& keys,
                                  const std::vector<std::uint8_t>& accepted, int threads) {
  std::vector<std::pair<int, std::uint64_t>> expected;
  std::size_t missing = 0, refused = 0, refused_with_room = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto l = f.Locate(keys[i]);
    const auto* blocks = reinterpret_cast<const typename F::Block*>(f.bytes().data());
    if (accepted[i]) {
      expected.emplace_back(l.bucket, l.tag);
      missing += f.contains(keys[i]) ? 0 : 1;
    } else {
      // Refused: both blocks were full then, and an insert-only filter's blocks never empty.
      ++refused;
      refused_with_room += F::Occupancy(blocks[l.first]) == F::kSlots &&
                                   F::Occupancy(blocks[l.second]) == F::kSlots
                               ? 0
                               : 1;
    }
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(missing, 0u) << threads << " threads: false negatives";
  EXPECT_EQ(refused_with_room, 0u) << threads << " threads";
  EXPECT_EQ(f.Validate(), "") << threads << " threads";
  EXPECT_EQ(f.insert_failures(), refused) << threads << " threads";
  const std::size_t stored = keys.size() - refused;
  EXPECT_DOUBLE_EQ(f.load_factor(), static_cast<double>(stored) / (static_cast<double>(f.blocks()) * F::kSlots));
  EXPECT_LE(f.second_choice_inserts(), stored);
  EXPECT_TRUE(HeldFingerprints(f) == expected) << threads << " threads: held fingerprints differ from the accepted keys'";
  return refused;
}

// Load 0.9 (vqf16's cap): every thread count holds each accepted key, and one thread builds
// what insert() builds, byte for byte and counter for counter.
TYPED_TEST(VqfThreadedTest, DisjointSlicesAtLoadNinetyLoseNothing) {
  constexpr std::size_t kKeys = 20000;
  const auto keys = RandomKeys(kKeys, 11);
  TypeParam sequential(Params(kKeys, 0, 0.9, 7));
  for (std::uint64_t key : keys) sequential.insert(key);
  for (int threads : kThreadCounts) {
    TypeParam f(Params(kKeys, 0, 0.9, 7));
    const auto accepted = InsertOnThreads(f, keys, threads);
    ExpectConsistentBuild(f, keys, accepted, threads);
    EXPECT_GT(f.load_factor(), 0.89) << threads << " threads";
    // Of the inserts that read both blocks (all but the shortcut's, vqf8's), many take the second.
    EXPECT_GT(f.second_choice_inserts(), (kKeys - f.shortcut_inserts()) / 4) << threads << " threads";
    if constexpr (TypeParam::kShortcutFill >= 0) {
      EXPECT_GT(f.shortcut_inserts(), kKeys / 2) << threads << " threads";
    }
    if (threads == 1) {
      ASSERT_EQ(f.size_in_bytes(), sequential.size_in_bytes());
      EXPECT_EQ(std::memcmp(f.bytes().data(), sequential.bytes().data(), f.size_in_bytes()), 0);
      EXPECT_EQ(f.insert_failures(), sequential.insert_failures());
      EXPECT_EQ(f.second_choice_inserts(), sequential.second_choice_inserts());
      EXPECT_EQ(f.shortcut_inserts(), sequential.shortcut_inserts());
      EXPECT_DOUBLE_EQ(f.load_factor(), sequential.load_factor());
    }
  }
}

// Far more keys than slots, so most inserts are refused while others contend for the same
// few locks. One block: every key's two blocks are that one (its lock taken once), and it
// ends exactly full. Four: refusals never cost an accepted key.
TYPED_TEST(VqfThreadedTest, FullFilterRefusesWithoutLosingEarlierKeys) {
  constexpr std::size_t kKeys = 20000;
  const auto keys = RandomKeys(kKeys, 23);
  for (std::size_t blocks : {std::size_t{1}, std::size_t{4}}) {
    for (int threads : kThreadCounts) {
      TypeParam f(Params(kKeys, 0, 0, 3), blocks);
      const auto accepted = InsertOnThreads(f, keys, threads);
      const std::size_t refused = ExpectConsistentBuild(f, keys, accepted, threads);
      EXPECT_GE(refused, kKeys - blocks * TypeParam::kSlots) << blocks << " blocks, " << threads << " threads";
      if (blocks == 1) {
        EXPECT_DOUBLE_EQ(f.load_factor(), 1.0) << threads << " threads";
      }
    }
  }
}

}  // namespace
}  // namespace amq
