// filters/morton_test.cc - what the Morton filter promises beyond the conformance suite: the
// paper's block layout and FastFilter's size at n = 10^6, the alternate bucket's involution,
// biased insertion and the OTA, key orders that break careless code, erase against an oracle,
// and a full filter that refuses cleanly.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <set>
#include <vector>

#include "core/stats.h"
#include "filters/morton.h"
#include "filters/test_params.h"
#include "harness/cell/kernels.h"
#include "workloads/adversarial.h"
#include "workloads/uniform.h"

namespace amq {
namespace {

using filter_tests::Params;

FilterParams MortonSized(std::size_t n, double max_load = 0.0, std::uint64_t seed = 1) {
  return Params(n, 0.01, max_load, seed);
}

TEST(Morton, BlockIsOneCacheLineOfThePapersFields) {
  EXPECT_EQ(sizeof(morton_detail::Block), 64u);
  EXPECT_EQ(46 * 8 + 64 * 2 + 16, 512);
  const Morton filter(MortonSized(1000));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(filter.bytes().data()) % 64, 0u);
}

// A block holding `total` fingerprints (random bytes, nonzero, so a byte moved to the wrong
// place shows) spread over random buckets, random OTA bits, zeros past the last: as the filter
// keeps its blocks.
morton_detail::Block RandomBlock(XorShift64Star& rng, int total) {
  using namespace morton_detail;
  Block b{};
  for (int i = 0; i < total; ++i) b.fsa[i] = static_cast<std::uint8_t>(1 + rng.Next() % 255);
  b.ota = static_cast<std::uint16_t>(rng.Next());
  for (int placed = 0; placed < total;) {
    const int j = static_cast<int>(rng.Next() % kBucketsPerBlock);
    if (BucketCount(b, j) == kBucketCapacity) continue;
    b.fca[j >> 5] += std::uint64_t{1} << (2 * (j & 31));
    ++placed;
  }
  return b;
}

// The counter sum the portable build uses (no popcount instruction) against the popcounts.
TEST(Morton, CounterSumsAgreeWithAndWithoutPopcount) {
  using namespace morton_detail;
  XorShift64Star rng(5);
  for (int i = 0; i < 100000; ++i) {
    const std::uint64_t a = rng.Next(), b = i % 2 ? rng.Next() : 0;
    ASSERT_EQ(CounterSumInPlace(a, b), CounterSumByPopcount(a, b)) << std::hex << a << " " << b;
  }
  EXPECT_EQ(CounterSumInPlace(~std::uint64_t{0}, ~std::uint64_t{0}), 2 * 32 * 3);
  EXPECT_EQ(CounterSumInPlace(0, 0), 0);
}

// The block operations are vector shuffles and masks: each against the plain byte loop it
// replaces, at every fill and every position, the OTA and the counters' other words untouched.
TEST(Morton, BlockOperationsMatchTheirByteByByteDefinitions) {
  using namespace morton_detail;
  XorShift64Star rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    for (int total = 0; total <= kSlotsPerBlock; ++total) {
      const Block b = RandomBlock(rng, total);
      // Where each bucket's run starts: the counts before it, one bucket at a time.
      int start = 0;
      for (int j = 0; j < kBucketsPerBlock; ++j) {
        ASSERT_EQ(BucketStart(b, j), start) << "bucket " << j << ", " << total << " stored";
        start += BucketCount(b, j);
      }
      Owners owner{};
      OwnersOf(b, owner);
      for (int pos = 0, j = 0; j < kBucketsPerBlock; ++j) {
        for (int c = 0; c < BucketCount(b, j); ++c, ++pos) ASSERT_EQ(owner[pos], j) << "position " << pos;
      }
      const int j = static_cast<int>(rng.Next() % kBucketsPerBlock);
      for (int pos = 0; pos <= total; ++pos) {
        if (total < kSlotsPerBlock) {
          // Insert: the bytes from pos up move up one, fp lands at pos.
          Block got = b, want = b;
          const auto fp = static_cast<std::uint8_t>(1 + rng.Next() % 255);
          InsertAt(got, j, pos, fp);
          std::memmove(want.fsa + pos + 1, want.fsa + pos, static_cast<std::size_t>(total - pos));
          want.fsa[pos] = fp;
          want.fca[j >> 5] += std::uint64_t{1} << (2 * (j & 31));
          ASSERT_EQ(std::memcmp(&got, &want, sizeof got), 0) << "insert at " << pos << " of " << total;
        }
        if (pos < total) {
          // Remove: the bytes above pos move down one, the last stored byte becomes zero.
          Block got = b, want = b;
          RemoveAt(got, j, pos);
          std::memmove(want.fsa + pos, want.fsa + pos + 1, static_cast<std::size_t>(total - pos - 1));
          want.fsa[total - 1] = 0;
          want.fca[j >> 5] -= std::uint64_t{1} << (2 * (j & 31));
          ASSERT_EQ(std::memcmp(&got, &want, sizeof got), 0) << "remove at " << pos << " of " << total;
        }
      }
    }
  }
}

// FastFilter's Morton at n = 10^6: 11.72 bits/key (shared/REFERENCE_NUMBERS.md, section 2).
TEST(Morton, SizedLikeFastFiltersMortonAtAMillionKeys) {
  const Morton filter(MortonSized(1000000));
  EXPECT_EQ(filter.blocks(), 22884u);  // ceil(10^6 / (46 x 0.95))
  const double bits_per_key = filter.size_in_bytes() * 8.0 / 1e6;
  EXPECT_NEAR(bits_per_key, 11.72, 0.005);
  EXPECT_NEAR(filter.theory().bits_per_key, 512.0 / (46 * 0.95), 1e-12);
  EXPECT_EQ(Morton(MortonSized(0)).blocks(), 1u);
  EXPECT_EQ(Morton(MortonSized(46, 1.0)).blocks(), 1u);
  EXPECT_EQ(Morton(MortonSized(47, 1.0)).blocks(), 2u);
}

TEST(Morton, ReachesItsDefaultLoadWithoutRefusals) {
  for (std::uint64_t seed : {1, 2, 3}) {
    const auto keys = UniformKeys(seed, KeyStream::kMembers, 200000);
    const auto built = Build<Morton>(keys, MortonSized(keys.size(), 0.0, seed));
    EXPECT_TRUE(built.failed.empty()) << built.failed.size() << " refused, seed " << seed;
    EXPECT_EQ(CountContained(built.filter, keys), keys.size());
    EXPECT_NEAR(built.filter.load_factor(), 0.95, 0.001);
  }
}

// The counters and FSA agree: a lookup of every stored key finds it, and the block counts add up
// to the keys stored (checked through the public bytes: FSA, OTA, FCA in that order).
TEST(Morton, CountersAddUpToTheKeysStored) {
  const auto keys = UniformKeys(4, KeyStream::kMembers, 30000);
  const auto built = Build<Morton>(keys, MortonSized(keys.size()));
  std::uint64_t counted = 0;
  const auto bytes = built.filter.bytes();
  for (std::size_t b = 0; b < built.filter.blocks(); ++b) {
    morton_detail::Block block;
    std::memcpy(&block, bytes.data() + 64 * b, 64);
    const int total = morton_detail::BlockCount(block);
    ASSERT_LE(total, 46);
    for (int i = total; i < 46; ++i) ASSERT_EQ(block.fsa[i], 0) << "unused FSA byte not zero";
    counted += static_cast<std::uint64_t>(total);
  }
  EXPECT_EQ(counted, keys.size());
}

TEST(Morton, SecondBlockOnlyWhenTheOtaSaysSo) {
  // At load 0.5 blocks rarely fill, so few keys leave their primary bucket.
  const auto keys = UniformKeys(5, KeyStream::kMembers, 20000);
  const auto negatives = UniformKeys(5, KeyStream::kNonMembers, 200000);
  const auto built = Build<Morton>(keys, MortonSized(keys.size(), 0.5));
  Stats before;
  built.filter.add_stats(before);
  const double share = built.filter.ota_set_share();
  EXPECT_LT(share, 0.05);
  const std::uint64_t start = built.filter.second_block_lookups();
  CountContained(built.filter, negatives);
  const double read_second = static_cast<double>(built.filter.second_block_lookups() - start);
  // A non-key reads a second block with probability `share` (less its primary-bucket hits).
  const Interval band = BinomialBand(negatives.size(), share);
  EXPECT_LE(read_second, band.high);
  EXPECT_GE(read_second, band.low * 0.99);
}

TEST(Morton, BiasedInsertionKeepsMostKeysInTheirPrimaryBucket) {
  const auto keys = UniformKeys(6, KeyStream::kMembers, 100000);
  const auto built = Build<Morton>(keys, MortonSized(keys.size()));
  Stats stats;
  built.filter.add_stats(stats);
  std::uint64_t secondary = 0;
  double ota = 0;
  for (const auto& [name, value] : stats.items()) {
    if (name == "secondary_placements") secondary = std::get<std::uint64_t>(value.value);
    if (name == "ota_bits_set_share") ota = std::get<double>(value.value);
  }
  // At load 0.95 a minority of keys overflow; most land in their primary bucket.
  EXPECT_GT(secondary, 0u);
  EXPECT_LT(secondary, keys.size() / 4);
  EXPECT_GT(ota, 0.0);
  EXPECT_LT(ota, 0.5);
  // The OTA makes the FPR smaller than reading both buckets would.
  EXPECT_LT(built.filter.theory().fpr, MortonFpr(8, keys.size() / (64.0 * built.filter.blocks()), 1.0, 0.0));
}

// Key orders that break careless code: consecutive keys, keys that differ only in their high
// bits, bit-reversed counters. Every key found, FPR within the band around theory.
TEST(Morton, AdversarialKeyOrdersHaveNoFalseNegatives) {
  constexpr std::size_t n = 50000;
  std::vector<std::vector<std::uint64_t>> orders(3);
  for (std::uint64_t i = 0; i < n; ++i) {
    orders[0].push_back(1000000 + i);
    orders[1].push_back((i + 1) << 40);
    orders[2].push_back(filter_tests::ReverseBits(i + 1));
  }
  const auto negatives = UniformKeys(7, KeyStream::kNonMembers, 300000);
  for (const auto& keys : orders) {
    const auto built = Build<Morton>(keys, MortonSized(n));
    EXPECT_TRUE(built.failed.empty());
    EXPECT_EQ(CountContained(built.filter, keys), n);
    const std::set<std::uint64_t> members(keys.begin(), keys.end());
    std::size_t fp = 0, queried = 0;
    for (std::uint64_t q : negatives) {
      if (members.count(q)) continue;
      ++queried;
      fp += built.filter.contains(q) ? 1 : 0;
    }
    const Interval band = BinomialBand(queried, built.filter.theory().fpr);
    EXPECT_LE(static_cast<double>(fp), band.high);
    EXPECT_GE(static_cast<double>(fp), band.low);
  }
}

// The offset is odd and the bucket count even: alt(alt(b)) = b, and alt(b) is in another block
// once m exceeds the largest offset, 1085.
TEST(Morton, AlternateBucketIsAnInvolutionIntoAnotherBlock) {
  for (std::uint64_t blocks : {1, 2, 3, 17, 18, 1000}) {
    const Morton filter(MortonSized(0), blocks);
    const std::uint64_t m = filter.buckets();
    for (std::uint64_t b = 0; b < m; b += (m > 2000 ? 7 : 1)) {
      for (std::uint64_t fp = 0; fp < 256; ++fp) {
        const std::uint64_t alt = filter.alternate_bucket(b, fp);
        ASSERT_LT(alt, m);
        ASSERT_EQ(filter.alternate_bucket(alt, fp), b) << blocks << " blocks";
        ASSERT_NE(alt, b);
        // At most 17 blocks away (modulo m), and in another block once m > 1085 + 64.
        const std::uint64_t distance = std::min((alt + m - b) % m, (b + m - alt) % m);
        ASSERT_LE(distance, 1085u);
        if (m > 1085 + 64) {
          ASSERT_NE(alt / 64, b / 64);
        }
      }
    }
  }
}

// The keys whose hash has a fixed bucket (top bits) and fixed fingerprint (low 8 bits).
std::vector<std::uint64_t> KeysInOneBucket(const Morton& filter, std::uint64_t seed, bool same_fp,
                                          std::size_t n) {
  const std::uint64_t spread = SpreadSeed(seed);
  std::vector<std::uint64_t> keys;
  const std::uint64_t top = 0x5a5a5a5a5a5a5a5aULL & ~((std::uint64_t{1} << 40) - 1);
  const std::uint64_t want = ReduceRange(top, filter.buckets());
  for (std::uint64_t i = 0; keys.size() < n; ++i) {
    const std::uint64_t h = top | (i << 8) | (same_fp ? 0x3c : (i & 0xff));
    if (ReduceRange(h, filter.buckets()) != want) continue;
    keys.push_back(KeyWithHash(h, spread));
  }
  return keys;
}

TEST(Morton, OneBucketAndFingerprintHoldsExactlyTwoBuckets) {
  Morton filter(MortonSized(10000, 0.0, 3));
  const auto keys = KeysInOneBucket(filter, 3, true, 50);
  std::size_t accepted = 0;
  for (std::uint64_t k : keys) accepted += filter.insert(k) ? 1 : 0;
  EXPECT_EQ(accepted, 6u);  // 3 in the primary bucket, 3 in the alternate
  EXPECT_EQ(filter.inserts_refused(), keys.size() - 6);
  for (std::uint64_t k : keys) EXPECT_TRUE(filter.contains(k));
}

// A refused insert leaves every byte as it was, and every key accepted before is still found.
TEST(Morton, FullFilterRefusesCleanlyAndCounts) {
  FilterParams p = MortonSized(0, 0.0, 9);
  p.max_kicks = 100;
  for (std::uint64_t blocks : {1, 2, 5}) {
    Morton filter(p, blocks);
    const auto keys = UniformKeys(9 + blocks, KeyStream::kMembers, 46 * blocks * 2);
    std::vector<std::uint64_t> accepted;
    std::size_t refused = 0;
    for (std::uint64_t k : keys) {
      const std::vector<std::uint8_t> before(filter.bytes().begin(), filter.bytes().end());
      if (filter.insert(k)) {
        accepted.push_back(k);
      } else {
        ++refused;
        ASSERT_TRUE(std::equal(before.begin(), before.end(), filter.bytes().begin()))
            << "a refused insert changed the filter";
      }
    }
    EXPECT_GT(refused, 0u);
    EXPECT_EQ(filter.inserts_refused(), refused);
    EXPECT_LE(accepted.size(), 46 * blocks);
    EXPECT_GE(accepted.size(), 46 * blocks * 9 / 10) << blocks << " blocks";
    EXPECT_EQ(CountContained(filter, accepted), accepted.size());
  }
}

// Inserts and erasures in random order against a std::set of the keys held: every held key is
// found after every step, every erase of a held key succeeds, and erasing all leaves zero bytes
// but for OTA bits (never cleared).
TEST(Morton, InsertEraseSequencesMatchASetOracle) {
  constexpr std::size_t n = 20000;
  Morton filter(MortonSized(n, 0.0, 4));
  const auto pool = UniformKeys(11, KeyStream::kMembers, 2 * n);
  std::set<std::uint64_t> held;
  XorShift64Star rng(17);
  for (int step = 0; step < 200000; ++step) {
    const std::uint64_t key = pool[rng.Next() % pool.size()];
    const bool want_insert = held.size() < n * 0.93 && (rng.Next() & 3) != 0;
    if (want_insert && !held.count(key)) {
      ASSERT_TRUE(filter.insert(key)) << "step " << step;
      held.insert(key);
    } else if (held.count(key)) {
      ASSERT_TRUE(filter.erase(key)) << "step " << step;
      held.erase(key);
    }
    if (step % 20000 == 0) {
      std::size_t missing = 0;
      for (std::uint64_t k : held) missing += filter.contains(k) ? 0 : 1;
      ASSERT_EQ(missing, 0u) << "step " << step;
    }
  }
  for (std::uint64_t k : held) ASSERT_TRUE(filter.contains(k));
  for (std::uint64_t k : held) ASSERT_TRUE(filter.erase(k));
  EXPECT_EQ(filter.load_factor(), 0.0);
  const auto bytes = filter.bytes();
  for (std::size_t b = 0; b < filter.blocks(); ++b) {
    for (std::size_t i = 0; i < 64; ++i) {
      if (i == 46 || i == 47) continue;  // the OTA
      ASSERT_EQ(bytes[64 * b + i], 0) << "block " << b << " byte " << i;
    }
  }
}

TEST(Morton, EraseOfTheOtherKeyWithTheSameFingerprintLeavesOneCopy) {
  Morton filter(MortonSized(1000, 0.0, 3));
  const auto keys = KeysInOneBucket(filter, 3, true, 2);
  ASSERT_TRUE(filter.insert(keys[0]));
  ASSERT_TRUE(filter.insert(keys[1]));
  EXPECT_TRUE(filter.erase(keys[0]));
  EXPECT_TRUE(filter.contains(keys[1]));
  EXPECT_TRUE(filter.erase(keys[1]));
  EXPECT_FALSE(filter.erase(keys[1]));
  EXPECT_FALSE(filter.contains(keys[1]));
}

TEST(Morton, FprNearTheoryAtFastFiltersLoad) {
  const auto keys = UniformKeys(8, KeyStream::kMembers, 200000);
  const auto negatives = UniformKeys(8, KeyStream::kNonMembers, 2000000);
  const auto built = Build<Morton>(keys, MortonSized(keys.size()));
  const double fp = static_cast<double>(CountContained(built.filter, negatives));
  const Interval band = BinomialBand(negatives.size(), built.filter.theory().fpr);
  EXPECT_GE(fp, band.low) << built.filter.theory().fpr;
  EXPECT_LE(fp, band.high) << built.filter.theory().fpr;
}

}  // namespace
}  // namespace amq
