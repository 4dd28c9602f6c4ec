// filters/vqf.h - vector quotient filter (P. Pandey, A. Conway, J. Durie, M. A. Bender,
// M. Farach-Colton, R. Johnson, "Vector Quotient Filters: Overcoming the Time/Space Trade-Off in
// Filter Design", ACM SIGMOD 2021).
//
// Layout. The table is an array of 64-byte blocks, one cache line each; a block is a small
// quotient filter of its own (the paper's "mini-filter"): s slots of r-bit tags and b buckets,
// with a b + s bit metadata vector that says how many tags each bucket holds, in unary. The two
// geometries are the paper's:
//   vqf8:  r = 8,  s = 48 slots, b = 80 buckets, 128 metadata bits  (16 + 48 bytes)
//   vqf16: r = 16, s = 28 slots, b = 36 buckets,  64 metadata bits  ( 8 + 56 bytes)
// Metadata encoding (ours): reading bit 0 upwards, bucket 0's tags as one 0 each, then a 1 that
// closes bucket 0, then bucket 1's zeros and its 1, ..., the b-th 1 closing bucket b - 1; the
// bits above the last 1 are the free slots, all 0. So bucket q's tags sit in slots
// [select(q - 1) + 1 - q, select(q) - q), select(i) the position of the (i+1)-th one, the
// block holds highest_one + 1 - b tags, and tags are kept in bucket order, each bucket's in
// insertion order. Free slots hold 0, so a block's bytes depend only on what it holds.
//
// Hashing. One 64-bit hash h of the key: block b1 = the top 32 bits scaled to the block count,
// tag = the low r bits, bucket = bits 16..31 scaled to b. The second block is derived from the
// first and the fingerprint (bucket, tag): b2 = (g(bucket, tag) - b1) mod blocks, g a 32-bit
// multiplicative (Fibonacci) hash scaled to the block count. The map b1 -> b2 is an involution,
// so two keys with the same fingerprint and a block in common have the same two blocks, and
// erase may remove either copy of a fingerprint (as partial-key cuckoo hashing does for its
// buckets). An additive offset b1 + g would not be: a copy erased from a shared block could
// belong to a key whose other block is a third one. b2 = b1 happens for about one key in blocks
// (one choice).
//
// Insert (power of two choices, as in the paper): read both blocks' occupancies and put the
// tag into the less full one (the first on a tie), at the end of its bucket: a 0 is inserted
// into the metadata at the bucket's closing 1, and the tags from that slot on move up by one.
// When both blocks are full the insert is refused and counted (insert_failures). Shortcut (the
// authors' code, as FastFilter bundles it, reads the second block only when the first has
// fewer than 12 of its 48 slots free): in vqf8 a key goes to its first block without the second
// being read while the first holds at most 36 tags, so most inserts touch one line. It costs
// balance (random keys; 2026-12-05): filling 10^6-key tables until the first refusal (seeds
// 1-3) stops at load 0.947-0.954 with it against 0.952-0.956 without. Filled to the 0.93 cap
// with it everywhere, 2,000 key sets at each of 71 sizes from 3 to 300 blocks saw 20 tables
// refuse a key (14 at 3 blocks, the largest at 143) against none without it; 10,000 sets at
// each of 15 sizes from 32 to 1,024 blocks, 2 (at 48 and 200 blocks) against none. (An earlier
// sample, with the 64-bit g, saw 59 against 4 at 3 to 300 blocks, none above 57.) So it
// applies from 64 blocks (n of about 2,860 at the cap) up, where a table that refuses a key
// below the cap is about one in 10^4 or rarer, and counts it (vqf_refused_inserts). vqf16 has
// none: its 28-slot blocks lose more (with a three-quarter shortcut, first refusals at
// 0.904-0.910 against a 0.90 cap, and 11 of 2,000 tables of n = 10^4 refusing a key below the
// cap). At n = 10^6 (-march=native) the shortcut took vqf8 inserts from 24.7 to 21.4 ns in a
// plain insert loop, and with the branch-free metadata shift below, amqbench_micro's from 23.7
// to 17.6 ns (medians of three alternating runs).
//
// Lookup: the tag compared with the tags of the bucket in both blocks. On the AVX-512 path a
// block whose 48 (28) tag lanes hold no copy of the tag at all answers no before its bucket's
// slots are located (at the 0.93 cap, about five blocks in six for an absent key). In vqf8 the
// first block is compared first and a match there ends the lookup: with the shortcut most
// members are in their first block, so that branch is mostly right for members as for absent
// keys. (Without the shortcut a member is in either block about as often, and stopping at the
// first made member lookups slower here, 16.6 to 16.8 against 15.2 to 15.8 ns; vqf16 compares
// both blocks before either answer is used.) The members the branch gets wrong are what keeps
// vqf8's member lookups near FastFilter's VQF's time: in a table filled to the cap at n = 10^6,
// 11.3% of members sit in their second block; timed as separate lists, so the predictor learns
// each, members in their first block took 10.3 ns and those in their second 14.3, all of them
// mixed 12.2 (-march=native, out of line, 2026-12-05): about 1.5 ns a lookup goes to the
// mispredictions, which resolve only when the first line arrives. Comparing both lines before
// branching (the wrong branches then go) made every member wait for the second line: 12.0 ns
// for the first-block members; with both blocks' bucket masks computed and no branch at all,
// 16.1-16.4 ns for members and 16.2-16.4 for absent keys, against 12.2-12.4 and 13.0-13.2 with
// the branch (one process, two runs of 11 rounds, 2026-12-05). Erase removes one matching tag
// from the first block that has one (as a cuckoo filter, a key never inserted may remove a
// colliding key's tag).
//
// Theory. A lookup of a non-member compares its tag with every tag in bucket q of its two
// blocks. At load alpha (tags / (s * blocks)) a block holds alpha s tags over b buckets, so each
// bucket holds alpha s / b on average, and each stored tag equals the probe's with probability
// 2^-r:
//   FPR      = 1 - (1 - 2^-r)^(2 alpha s / b)   ~ 2 alpha (s / b) 2^-r
//              (vqf8: 1.2 alpha / 256 = 0.469% alpha; vqf16: 2 (28/36) alpha / 65536)
//   bits/key = 512 / (s alpha)                    (vqf8: 10.67 / alpha; vqf16: 18.29 / alpha)
// This is the paper's accounting: the FPR is the expected number of tags compared (two buckets
// of s / b tags each when full) times 2^-r, and the space is one cache line per s slots, r bits
// of tag plus (b + s) / s metadata bits per slot (vqf8: 2.67, vqf16: 2.29). (Only the paper's
// abstract and front matter were reachable from this session; the expression above is written
// from the layout and the analysis as summarised there, and checked against measurement by the
// conformance suite's binomial band.) theory() reports bits/key at the requested fill limit L,
// 512 / (s L), not from the allocation, so the round-up to whole blocks shows in the measured
// figure.
//
// Sizing: blocks = ceil(n / (s L)), L = --max-load, at most (and by default) 0.93 for vqf8 and
// 0.90 for vqf16. 0.93 is FastFilter's configuration (n / 0.93 slots), which reads 11.47
// bits/key for vqf8 at n = 10^6. The cap is where two choices stop being enough: filling
// 10^6-key tables with random keys until the first refusal (seeds 1-3) the first refusal came
// at load 0.947-0.954 for vqf8 (with the shortcut; 0.952-0.956 without) and 0.909-0.923 for
// vqf16 (28-slot blocks spread more, relative to their size; small vqf16 tables can refuse a
// key below the cap: 1 of 2,000 key sets at n = 100). So the table families' shared
// fill rule, 0.96, would size a VQF that refuses keys; it gets the cap instead. The tag width
// is part of the type (kFixedWidth): --fpr and --bits-per-key do not change it.
//
// Concurrent inserts (core/concurrent_insert.h). The paper's thread-safe VQF locks a key's two
// blocks, in a fixed order, for the whole insert, since choosing the less full one reads both
// (with the shortcut, ours takes both locks still and reads the second only as insert() does).
// Its lock is a bit in each block; ours is InsertLocks' byte per block, outside the block, so
// the layout and the bytes stay the paper's and the sequential insert is untouched. The locks
// are taken in ascending block order (one when b1 = b2) before either occupancy is read; the
// shift then rewrites only the chosen block's own 64 bytes (a whole-line store on the AVX-512
// path, the blocks being aligned lines), so inserts into other blocks never see it. The shared
// counters are added atomically. One thread makes the sequential build's choices in the same
// order, so its bytes equal insert()'s; with more, which of two blocks a key lands in depends
// on the interleaving, but the multiset of (bucket, tag) fingerprints the filter holds does not.
//
// SIMD. With AVX-512 BW and VBMI and BMI2 (chosen once per build by the compiler's flags), a
// lookup compares the tag with the whole 64-byte block in one vector compare and masks the
// result to the bucket's slots, found by pdep/tzcnt select on the metadata; an insert or erase
// moves the tags with one byte (word) permute and a masked blend, and writes the block back in
// one store. Without them, the portable path: a broadword select and scalar loops. Both paths
// are in this header; vqf_avx512_test.cc builds the same filter both ways and requires the same
// bytes and answers.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#if defined(__AVX512BW__) && defined(__AVX512VBMI__) && defined(__BMI2__)
#define AMQ_VQF_HAVE_AVX512 1
#include <immintrin.h>
#endif

#include "core/batched.h"
#include "core/concurrent_insert.h"
#include "core/filter.h"
#include "core/hashing.h"
#include "core/stat_catalog.h"

namespace amq {

// Which block operations a Vqf uses; kVqfBuildPath is the one this build's flags allow.
enum class VqfPath { kPortable, kAvx512 };
#ifdef AMQ_VQF_HAVE_AVX512
inline constexpr VqfPath kVqfBuildPath = VqfPath::kAvx512;
#else
inline constexpr VqfPath kVqfBuildPath = VqfPath::kPortable;
#endif

namespace vqf_detail {

template <int kTagBits>
struct Geometry;
template <>
struct Geometry<8> {
  using Tag = std::uint8_t;
  static constexpr int kSlots = 48, kBuckets = 80, kMetadataWords = 2;
  static constexpr std::string_view kName = "vqf8";
  static constexpr double kMaxLoad = 0.93;
  static constexpr int kShortcutFill = 36;  // three quarters of the slots (see Insert above)
};
template <>
struct Geometry<16> {
  using Tag = std::uint16_t;
  static constexpr int kSlots = 28, kBuckets = 36, kMetadataWords = 1;
  static constexpr std::string_view kName = "vqf16";
  static constexpr double kMaxLoad = 0.90;
  static constexpr int kShortcutFill = -1;  // none (see Insert above)
};

// How the AVX-512 path finds the rank in a vqf8 block's window (Vqf::BucketWindow). kBzhi: the
// ones below bit q counted with BZHI (the high word's index clamped at 0) and taken from q.
// kMaskRow: the zeros below q counted directly, each metadata word ANDN q's row of a table of
// masks (Vqf::kBitsBelow, 80 x 16 bytes), with no clamp and no subtract. contains() takes
// kMaskRow: its out-of-line member lookups took 0.96 [0.94-0.98] of kBzhi's time (amqbench ab,
// 10 rounds, n = 10^6, -march=native), and in one process against FastFilter's VQF 0.94 of its
// time (3 runs of 11 rounds) where kBzhi gave 0.97-0.98 (6 runs; 2026-12-05). The rest keep
// kBzhi: a table in insert took 1.04 of its time (one process, 3 runs), and in contains_many
// absent keys took 1.09 (amqbench ab, 2 x 10 rounds).
enum class WindowRank { kBzhi, kMaskRow };

// The paper's formulas (see the header comment).
inline double Fpr(int tag_bits, int slots, int buckets, double load) {
  const double compared = 2.0 * load * slots / buckets;
  return 1.0 - std::pow(1.0 - std::ldexp(1.0, -tag_bits), compared);
}
inline double BitsPerKey(int slots, double load) { return 512.0 / (slots * load); }

// kSelectInByte[v][r]: position of the (r+1)-th one of the byte v (8 when v has fewer ones).
inline constexpr auto kSelectInByte = [] {
  std::array<std::array<std::uint8_t, 8>, 256> table{};
  for (int v = 0; v < 256; ++v) {
    int rank = 0;
    for (auto& entry : table[v]) entry = 8;
    for (int bit = 0; bit < 8; ++bit) {
      if ((v >> bit) & 1) table[v][rank++] = static_cast<std::uint8_t>(bit);
    }
  }
  return table;
}();

// Position of the (j+1)-th one of x, for 0 <= j < popcount(x); any other j in 0..63 gives
// some value without a loop or branch (callers discard it). Broadword: the bytes' popcounts,
// their prefix sums in one multiply, the byte that holds the answer by comparing every prefix
// with j at once, then the bit within that byte from a table.
inline int SelectPortable(std::uint64_t x, int j) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  std::uint64_t c = x - ((x >> 1) & 0x5555555555555555ULL);
  c = (c & 0x3333333333333333ULL) + ((c >> 2) & 0x3333333333333333ULL);
  c = (c + (c >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
  const std::uint64_t prefix = c * kOnes;  // byte k: ones in bytes 0..k (<= 64, no carry)
  // Byte k's high bit is set when prefix_k <= j: j + 128 - prefix_k >= 128 (no borrows).
  const std::uint64_t at_most_j = ((static_cast<std::uint64_t>(j) * kOnes) | kHigh) - prefix;
  const int byte = std::popcount(at_most_j & kHigh) & 7;
  // Ones in the bytes below `byte`: prefix shifted up one byte, then read at `byte`.
  const int before = static_cast<int>(((prefix << 8) >> (8 * byte)) & 0xff);
  const unsigned bits = static_cast<unsigned>((x >> (8 * byte)) & 0xff);
  return 8 * byte + kSelectInByte[bits][(j - before) & 7];
}

#ifdef AMQ_VQF_HAVE_AVX512
inline int SelectBmi2(std::uint64_t x, int j) {
  return static_cast<int>(_tzcnt_u64(_pdep_u64(std::uint64_t{1} << j, x)));
}
#endif

}  // namespace vqf_detail

template <int kTagBits, VqfPath kPath = kVqfBuildPath>
class Vqf {
  using G = vqf_detail::Geometry<kTagBits>;
  using Tag = typename G::Tag;
#ifndef AMQ_VQF_HAVE_AVX512
  static_assert(kPath == VqfPath::kPortable, "the AVX-512 path needs -mavx512bw -mavx512vbmi -mbmi2");
#endif

 public:
  static constexpr int kTagWidth = kTagBits;
  static constexpr int kSlots = G::kSlots;
  static constexpr int kBuckets = G::kBuckets;
  static constexpr int kMetadataWords = G::kMetadataWords;
  // The highest fill a table is sized for, and the default (see Sizing above).
  static constexpr double kMaxLoad = G::kMaxLoad;
  static constexpr std::size_t kLookupAhead = 16;  // contains_many: keys prefetched ahead
  // The insert shortcut (see the header comment): a key goes to its first block without the
  // second being read while the first holds at most kShortcutFill tags, in tables of at least
  // kShortcutMinBlocks blocks; -1 for none.
  static constexpr int kShortcutFill = G::kShortcutFill;
  static constexpr std::size_t kShortcutMinBlocks = 64;
  static constexpr std::string_view kName = G::kName;
  static constexpr std::string_view kFamily = "vqf";
  static constexpr bool kFixedWidth = true;
  static constexpr std::string_view kParameters =
      "fixed tag width r (8: 48 slots and 80 buckets per 64-byte block; 16: 28 and 36); "
      "--max-load L (default and cap: 0.93 for r = 8, 0.90 for r = 16): blocks = ceil(n / (slots L))";

  struct alignas(64) Block {
    std::uint64_t metadata[kMetadataWords];
    Tag tags[kSlots];
  };
  static_assert(sizeof(Block) == 64);

  static double MaxLoadOf(const FilterParams& p) {
    return p.max_load > 0 ? std::min(p.max_load, kMaxLoad) : kMaxLoad;
  }
  static std::size_t BlocksFor(const FilterParams& p) {
    const double slots = static_cast<double>(p.capacity) / MaxLoadOf(p);
    return std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(slots / kSlots)));
  }

  explicit Vqf(const FilterParams& p) : Vqf(p, BlocksFor(p)) {}

  // The block count given directly: the tests' way to build a filter that fills up.
  Vqf(const FilterParams& p, std::size_t blocks)
      : seed_(SpreadSeed(p.seed)),
        max_load_(MaxLoadOf(p)),
        shortcut_fill_(blocks >= kShortcutMinBlocks ? kShortcutFill : -1),
        blocks_(blocks),
        block_count_(blocks) {
    if (blocks == 0 || blocks >= (std::uint64_t{1} << 32)) {
      throw std::invalid_argument("vqf: blocks must be in 1 .. 2^32 - 1");
    }
    for (Block& block : blocks_) block = EmptyBlock();
  }

  bool insert(std::uint64_t key) {
    const Location l = Locate(key);
    Block& first = blocks_[l.first];
    const int fill_first = Occupancy(first);
    if constexpr (kShortcutFill >= 0) {
      if (fill_first <= shortcut_fill_) {
        InsertIntoBlock(first, l.bucket, l.tag, fill_first);
        ++shortcut_inserts_;
        ++stored_;
        return true;
      }
    }
    Block& second = blocks_[l.second];
    const int fill_second = Occupancy(second);
    const bool to_second = fill_second < fill_first;
    if ((to_second ? fill_second : fill_first) == kSlots) {
      ++insert_failures_;
      return false;
    }
    InsertIntoBlock(to_second ? second : first, l.bucket, l.tag, to_second ? fill_second : fill_first);
    second_choice_inserts_ += to_second ? 1 : 0;
    ++stored_;
    return true;
  }

  // The concurrent mode (see the header comment): one lock per block.
  std::size_t insert_lock_count() const { return blocks_.size(); }

  // insert(key) under the locks of its two blocks; any number of threads at once, with the same
  // locks and no other member call overlapping. The counters are added after the unlock, so a
  // waiting insert does not also wait for them. The choice repeats insert()'s rather than
  // sharing a helper, so that insert()'s code (which CI compares) stays as it was.
  bool insert_concurrent(std::uint64_t key, InsertLocks& locks) {
    const Location l = Locate(key);
    std::size_t held[2] = {static_cast<std::size_t>(l.first), static_cast<std::size_t>(l.second)};
    locks.LockAscending(held);
    const int fill_first = Occupancy(blocks_[l.first]);
    const bool shortcut = kShortcutFill >= 0 && fill_first <= shortcut_fill_;
    const int fill_second = shortcut ? kSlots : Occupancy(blocks_[l.second]);
    const bool to_second = fill_second < fill_first;
    const int fill = to_second ? fill_second : fill_first;
    if (fill < kSlots) InsertIntoBlock(blocks_[to_second ? l.second : l.first], l.bucket, l.tag, fill);
    locks.Unlock(held);
    if (fill == kSlots) {
      AtomicAdd<std::uint64_t>(insert_failures_, 1);
      return false;
    }
    if (shortcut) AtomicAdd<std::uint64_t>(shortcut_inserts_, 1);
    if (to_second) AtomicAdd<std::uint64_t>(second_choice_inserts_, 1);
    AtomicAdd<std::uint64_t>(stored_, 1);
    return true;
  }

  bool contains(std::uint64_t key) const {
    const Location l = Locate(key);
    if constexpr (kShortcutFill >= 0) {
      // vqf8 answers from the first block when it can (EitherBucketMatches): the second line's
      // load starts now, not after that answer, since a member in its second block is the
      // branch's usual miss and would wait for both lines one after the other. Against
      // FastFilter's VQF (n = 10^6, -march=native, both out of line, one process; 4 runs of 11
      // rounds with both versions in the process, medians of per-round ratios, 2026-12-04):
      // members 1.11-1.13 of its time against 1.15-1.17 without it, absent keys 0.94-0.95
      // (0.96-0.97). contains_many has its lines prefetched by the pipeline already.
      __builtin_prefetch(&blocks_[l.second]);
    }
    return EitherBucketMatches<vqf_detail::WindowRank::kMaskRow>(l);
  }

  std::size_t contains_many(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
    return PipelinedContains<kLookupAhead>(
        keys, out,
        [this](std::uint64_t key) {
          const Location l = Locate(key);
          __builtin_prefetch(&blocks_[l.first]);
          __builtin_prefetch(&blocks_[l.second]);
          return l;
        },
        [this](const Location& l) { return EitherBucketMatches(l); });
  }

  bool erase(std::uint64_t key) {
    const Location l = Locate(key);
    if (EraseFromBlock(blocks_[l.first], l.bucket, l.tag) ||
        EraseFromBlock(blocks_[l.second], l.bucket, l.tag)) {
      --stored_;
      return true;
    }
    return false;
  }

  std::size_t size_in_bytes() const { return blocks_.size() * sizeof(Block); }
  std::span<const std::uint8_t> bytes() const {
    return {reinterpret_cast<const std::uint8_t*>(blocks_.data()), size_in_bytes()};
  }
  std::uint64_t insert_failures() const { return insert_failures_; }
  double load_factor() const {
    return static_cast<double>(stored_) / (static_cast<double>(blocks_.size()) * kSlots);
  }
  std::size_t blocks() const { return blocks_.size(); }
  std::uint64_t second_choice_inserts() const { return second_choice_inserts_; }
  std::uint64_t shortcut_inserts() const { return shortcut_inserts_; }

  Theory theory() const {
    return {vqf_detail::Fpr(kTagBits, kSlots, kBuckets, load_factor()),
            vqf_detail::BitsPerKey(kSlots, max_load_)};
  }

  // A key's two blocks, bucket and tag; public so tests can aim keys at one block.
  struct Location {
    std::uint64_t first = 0, second = 0;
    int bucket = 0;
    Tag tag = 0;
  };
  Location Locate(std::uint64_t key) const {
    const std::uint64_t h = HashKey(key, seed_);
    const std::uint64_t n = block_count_;
    Location l;
    l.first = ((h >> 32) * n) >> 32;
    l.tag = static_cast<Tag>(h);
    l.bucket = static_cast<int>((((h >> 16) & 0xffff) * kBuckets) >> 16);
    // The second block depends on the first and the fingerprint (bucket, tag) only, through
    // b2 = (g(fingerprint) - b1) mod blocks, an involution: two keys with one fingerprint and a
    // block in common have the same pair, so erase may take either copy (as in a cuckoo filter).
    // g is Fibonacci hashing of the fingerprint in 32 bits (it has at most 22), scaled to the
    // block count. With a 64-bit multiplier and a 128-bit product instead, vqf8 member lookups
    // took 1.02-1.06 of FastFilter's VQF's time against 0.97-0.98 (n = 10^6, -march=native, out
    // of line, one process, 3 runs of 11 rounds, medians of per-round ratios, 2026-12-05).
    const std::uint32_t fingerprint = (static_cast<std::uint32_t>(l.bucket) << kTagBits) | l.tag;
    const std::uint64_t g = (static_cast<std::uint64_t>((fingerprint + 1) * 0x9e3779b9u) * n) >> 32;
    l.second = g >= l.first ? g - l.first : g + n - l.first;
    return l;
  }

  // The lookup (see Lookup in the header comment). With the insert shortcut most members sit in
  // their first block, so stopping at a match there is the branch's usual outcome for members
  // and absent keys alike. Without it (vqf16) a member is in either block about as often, so no
  // branch depends on which: both lines are compared, and the one branch is whether either
  // holds the tag anywhere (no for almost every absent key, yes for every member).
  template <vqf_detail::WindowRank kRank = vqf_detail::WindowRank::kBzhi>
  bool EitherBucketMatches(const Location& l) const {
    const Block& first = blocks_[l.first];
    const Block& second = blocks_[l.second];
    if constexpr (kShortcutFill >= 0) {
      return BucketMatches<kRank>(first, l.bucket, l.tag) != 0 ||
             BucketMatches<kRank>(second, l.bucket, l.tag) != 0;
    } else {
#ifdef AMQ_VQF_HAVE_AVX512
      if constexpr (kPath == VqfPath::kAvx512) {
        const std::uint64_t in_first = SlotsEqualTo(first, l.tag), in_second = SlotsEqualTo(second, l.tag);
        if ((in_first | in_second) == 0) return false;
        return ((in_first & BucketMask(first, l.bucket)) | (in_second & BucketMask(second, l.bucket))) != 0;
      }
#endif
      return (BucketMatches(first, l.bucket, l.tag) | BucketMatches(second, l.bucket, l.tag)) != 0;
    }
  }

  // Tags a block holds: the zeros below its last one.
  static int Occupancy(const Block& block) {
    const std::uint64_t top = block.metadata[kMetadataWords - 1];
    return 64 * (kMetadataWords - 1) + 63 - std::countl_zero(top) + 1 - kBuckets;
  }

  // "" when every block has exactly b ones in its metadata and zeros in its free slots.
  std::string Validate() const {
    std::uint64_t held = 0;
    for (std::size_t i = 0; i < blocks_.size(); ++i) {
      const Block& block = blocks_[i];
      int ones = 0;
      for (int w = 0; w < kMetadataWords; ++w) ones += std::popcount(block.metadata[w]);
      if (ones != kBuckets) return "block " + std::to_string(i) + ": metadata has " + std::to_string(ones) + " ones";
      const int fill = Occupancy(block);
      if (fill < 0 || fill > kSlots) return "block " + std::to_string(i) + ": occupancy out of range";
      for (int s = fill; s < kSlots; ++s) {
        if (block.tags[s] != 0) return "block " + std::to_string(i) + ": a free slot is not zero";
      }
      held += fill;
    }
    if (held != stored_) return "blocks hold " + std::to_string(held) + " tags, counted " + std::to_string(stored_);
    return "";
  }

  static constexpr StatSpec kStats[] = {
      stat::kFingerprintBits,
      stat::kSlots,
      {"vqf_blocks", "integer", "blocks", "VQF: 64-byte blocks (mini-filters)"},
      {"vqf_block_fill_mean", "number", "fraction", "VQF: mean over blocks of tags held / slots per block"},
      {"vqf_block_fill_max", "number", "fraction", "VQF: the fullest block's tags held / slots per block"},
      {"vqf_full_blocks", "integer", "blocks", "VQF: blocks with every slot taken"},
      {"vqf_shortcut_inserts", "integer", "inserts",
       "VQF: inserts placed in the key's first block without reading the second (the first held at most "
       "three quarters of its slots)",
       OverTrials::kSum},
      {"vqf_second_choice_inserts", "integer", "inserts",
       "VQF: inserts placed in the key's second block (it was strictly less full)", OverTrials::kSum},
      {"vqf_refused_inserts", "integer", "inserts",
       "VQF: inserts refused because both of the key's blocks were full", OverTrials::kSum}};

  void add_stats(Stats& s) const {
    int fullest = 0;
    std::uint64_t full = 0;
    for (const Block& block : blocks_) {
      const int fill = Occupancy(block);
      fullest = std::max(fullest, fill);
      full += fill == kSlots ? 1 : 0;
    }
    s.put("fingerprint_bits", kTagBits);
    s.put("slots", blocks_.size() * kSlots);
    s.put("vqf_blocks", blocks_.size());
    s.put("vqf_block_fill_mean", load_factor());
    s.put("vqf_block_fill_max", static_cast<double>(fullest) / kSlots);
    s.put("vqf_full_blocks", full);
    s.put("vqf_shortcut_inserts", shortcut_inserts_);
    s.put("vqf_second_choice_inserts", second_choice_inserts_);
    s.put("vqf_refused_inserts", insert_failures_);
  }

 private:
  static constexpr std::uint64_t LowMask(int bits) {
    return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  }

  // b ones (every bucket closed, none holding a tag), then s free zeros; every tag 0.
  static Block EmptyBlock() {
    Block block{};
    for (int w = 0; w < kMetadataWords; ++w) {
      block.metadata[w] = LowMask(std::clamp(kBuckets - 64 * w, 0, 64));
    }
    return block;
  }

  static int Select64(std::uint64_t x, int j) {
#ifdef AMQ_VQF_HAVE_AVX512
    if constexpr (kPath == VqfPath::kAvx512) return vqf_detail::SelectBmi2(x, j);
#endif
    return vqf_detail::SelectPortable(x, j);
  }

  // Bucket q's slots, [start, end): end = select(q) - q, start = select(q - 1) + 1 - q, with
  // select(i) the position of the metadata's (i+1)-th one. Bucket q closes at or after bit q and
  // at most s bits later, so the 64-bit window from bit q holds it: with k ones below bit q, it
  // is the window's (q - k + 1)-th one. Window positions are slot numbers there (exactly q ones
  // lie below any of bucket q's bits). Bucket q - 1's closing one is the highest one of the
  // window below end, found by a leading-zero count rather than a second select; when there is
  // none it lies below the window (buckets before q end there), and start = 0, which is also
  // what 64 - countl_zero(0) gives. One window, one select, and no branch on which metadata
  // word holds the answer (as unpredictable as the key); the portable path's one branch, in
  // BucketWindow, is on which word the window starts in, known from the key's hash alone.
  static void BucketSlots(const Block& block, int q, int& start, int& end) {
    int rank;
    const std::uint64_t window = BucketWindow(block, q, rank);
    end = Select64(window, rank);
    start = 64 - std::countl_zero(window & ((std::uint64_t{1} << end) - 1));
  }

#ifdef AMQ_VQF_HAVE_AVX512
  // Row q: the two metadata words' bits below bit q.
  static constexpr auto kBitsBelow = [] {
    std::array<std::array<std::uint64_t, 2>, kBuckets> masks{};
    for (int q = 0; q < kBuckets; ++q) {
      masks[q][0] = q >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << q) - 1;
      masks[q][1] = q <= 64 ? 0 : (std::uint64_t{1} << (q - 64)) - 1;
    }
    return masks;
  }();
#endif

  // The metadata from bit q up, and the rank of bucket q's closing one in it (the window's
  // (rank+1)-th one): BucketSlots' first half, and all BucketMask needs. Only the bits up to
  // that closing one are the callers' concern (it lies at most s bits above q).
  template <vqf_detail::WindowRank kRank = vqf_detail::WindowRank::kBzhi>
  static std::uint64_t BucketWindow(const Block& block, int q, int& rank) {
#ifdef AMQ_VQF_HAVE_AVX512
    if constexpr (kPath == VqfPath::kAvx512 && kMetadataWords == 2) {
      // No branch on which word holds bit q, which the portable path below takes (for 64 of
      // the 80 buckets, as unpredictable as the key): the ones below bit q are counted with
      // BZHI in both words (an index of 64 or more keeps the whole word, so only the high
      // word's index needs clamping), and the window is the eight bytes from byte q / 8,
      // shifted by q % 8: 57 bits from q, past bucket q's closing one (at most s = 48 bits up).
      // Above the metadata's 128 bits it holds tag bytes, which lie above that closing one.
      // vqf8 member lookups at n = 10^6 (-march=native, out of line, one process, against
      // FastFilter's VQF): 1.03 of its time against 1.05 with the branch (2 runs of 11 rounds,
      // medians of per-round ratios, 2026-12-05).
      // The rank is the number of zeros below bit q (the tags of the buckets before it):
      // kMaskRow counts them with ANDN against q's row of masks (see WindowRank).
      if constexpr (kRank == vqf_detail::WindowRank::kMaskRow) {
        const std::array<std::uint64_t, 2>& below = kBitsBelow[q];
        rank = std::popcount(~block.metadata[0] & below[0]) +
               std::popcount(~block.metadata[1] & below[1]);
      } else {
        const unsigned high_index = q >= 64 ? static_cast<unsigned>(q - 64) : 0u;
        const int below = std::popcount(_bzhi_u64(block.metadata[0], static_cast<unsigned>(q))) +
                          std::popcount(_bzhi_u64(block.metadata[1], high_index));
        rank = q - below;
      }
      std::uint64_t bytes;
      std::memcpy(&bytes, reinterpret_cast<const unsigned char*>(&block) + (q >> 3), sizeof bytes);
      return bytes >> (q & 7);
    }
#endif
    // The metadata holds b ones in all, so the ones below bit q are b less those at or above
    // it, which the shifted metadata holds: no mask for the bits below q.
    std::uint64_t window;
    int ones_above;
    if constexpr (kMetadataWords == 1) {
      window = block.metadata[0] >> q;
      ones_above = std::popcount(window);
    } else if (q < 64) {
      // Two words, and a branch on which one q is in: a 128-bit shift by q compiles to a
      // double shift and two conditional moves, slower here than this branch, which is taken
      // for 64 of the 80 buckets and resolved as soon as the key is hashed, before the block
      // arrives (vqf8 member lookups, n = 10^6, -march=native, out of line, against
      // FastFilter's VQF in one process: 1.04-1.05 of its time against 1.08 with the 128-bit
      // shift, 4 runs of 11 rounds, 2026-12-04; fewer instructions in the portable build too).
      // (word1 << 1) << (63 - q) is word1 << (64 - q) without the undefined shift by 64 at q = 0.
      const std::uint64_t low_part = block.metadata[0] >> q;
      window = low_part | ((block.metadata[1] << 1) << (63 - q));
      ones_above = std::popcount(low_part) + std::popcount(block.metadata[1]);
    } else {
      window = block.metadata[1] >> (q - 64);
      ones_above = std::popcount(window);
    }
    rank = q - (kBuckets - ones_above);
    return window;
  }

  // Slots [start, end) as a bit mask; end <= s < 64.
  static std::uint64_t SlotMask(int start, int end) {
    return ((std::uint64_t{1} << end) - 1) & (~std::uint64_t{0} << start);
  }

  // Nonzero when bucket q of the block holds tag: on the AVX-512 path the bit of every slot of
  // the bucket holding it, on the portable path 1.
  template <vqf_detail::WindowRank kRank = vqf_detail::WindowRank::kBzhi>
  static std::uint64_t BucketMatches(const Block& block, int q, Tag tag) {
#ifdef AMQ_VQF_HAVE_AVX512
    if constexpr (kPath == VqfPath::kAvx512) {
      const std::uint64_t equal = SlotsEqualTo(block, tag);
      if (equal == 0) return 0;
      return equal & BucketMask<kRank>(block, q);
    }
#endif
    int start, end;
    BucketSlots(block, q, start, end);
    std::uint64_t found = 0;
    for (int s = start; s < end; ++s) found |= block.tags[s] == tag ? 1 : 0;
    return found;
  }

  // Bucket q's slots as a bit mask. With BMI2, as the difference of two one-hot words: the
  // closing one's bit (pdep of bit rank into the window) less the start's, which is the same
  // select in the window shifted up one with a one put under it, (window << 1) | 1: its
  // (rank+1)-th one is the bit above bucket q - 1's closing one, or bit 0 when that one lies
  // below the window. The shift drops only bit 63, above every slot. Two pdeps and a subtract
  // in place of a select, a leading-zero count and two masks.
  template <vqf_detail::WindowRank kRank = vqf_detail::WindowRank::kBzhi>
  static std::uint64_t BucketMask(const Block& block, int q) {
#ifdef AMQ_VQF_HAVE_AVX512
    if constexpr (kPath == VqfPath::kAvx512) {
      int rank;
      const std::uint64_t window = BucketWindow<kRank>(block, q, rank);
      const std::uint64_t bit = std::uint64_t{1} << rank;
      return _pdep_u64(bit, window) - _pdep_u64(bit, (window << 1) | 1);
    }
#endif
    int start, end;
    BucketSlots(block, q, start, end);
    return SlotMask(start, end);
  }

#ifdef AMQ_VQF_HAVE_AVX512
  // Bit i set when slot i holds tag (free slots hold 0): one compare over the whole line, the
  // metadata lanes shifted out.
  static std::uint64_t SlotsEqualTo(const Block& block, Tag tag) {
    const __m512i line = _mm512_load_si512(&block);
    if constexpr (kTagBits == 8) {
      return _mm512_cmpeq_epi8_mask(line, _mm512_set1_epi8(static_cast<char>(tag))) >> 16;
    } else {
      return _mm512_cmpeq_epi16_mask(line, _mm512_set1_epi16(static_cast<short>(tag))) >> 4;
    }
  }
#endif

  // A 0 inserted at bit pos of the metadata: the bits from pos up move up by one (the top bit,
  // a free slot's 0 when the block is not full, falls off). With two words, as one 128-bit
  // word: no branch on which word pos is in (as unpredictable as the key).
  static void InsertZeroBit(std::uint64_t (&md)[kMetadataWords], int pos) {
    if constexpr (kMetadataWords == 2) {
      using U128 = unsigned __int128;
      const U128 word = (static_cast<U128>(md[1]) << 64) | md[0];
      const U128 below = (U128{1} << pos) - 1;
      const U128 out = (word & below) | ((word & ~below) << 1);
      md[0] = static_cast<std::uint64_t>(out);
      md[1] = static_cast<std::uint64_t>(out >> 64);
      return;
    }
    std::uint64_t& w = md[kMetadataWords - 1];
    w = (w & LowMask(pos)) | ((w & ~LowMask(pos)) << 1);
  }
  // The bit at pos removed: the bits above it move down by one, a 0 enters at the top.
  static void RemoveBit(std::uint64_t (&md)[kMetadataWords], int pos) {
    if constexpr (kMetadataWords == 2) {
      using U128 = unsigned __int128;
      const U128 word = (static_cast<U128>(md[1]) << 64) | md[0];
      const U128 below = (U128{1} << pos) - 1;
      const U128 out = (word & below) | ((word >> 1) & ~below);
      md[0] = static_cast<std::uint64_t>(out);
      md[1] = static_cast<std::uint64_t>(out >> 64);
      return;
    }
    std::uint64_t& w = md[kMetadataWords - 1];
    w = (w & LowMask(pos)) | ((w >> 1) & ~LowMask(pos));
  }

  // The block holds `fill` < s tags; tag joins the end of bucket q.
  static void InsertIntoBlock(Block& block, int q, Tag tag, int fill) {
    int rank;
    const std::uint64_t window = BucketWindow(block, q, rank);
    const int slot = Select64(window, rank);
    const int closing = slot + q;
    std::uint64_t md[kMetadataWords];
    std::memcpy(md, block.metadata, sizeof(md));
    InsertZeroBit(md, closing);
#ifdef AMQ_VQF_HAVE_AVX512
    if constexpr (kPath == VqfPath::kAvx512) {
      // Lanes above the slot take their lower neighbour (a permute by one lane), the slot takes
      // the tag, the metadata lanes take the new metadata: one 64-byte store.
      (void)fill;
      const __m512i line = _mm512_load_si512(&block);
      __m512i out;
      if constexpr (kTagBits == 8) {
        const int lane = 16 + slot;
        const __m512i up = _mm512_permutexvar_epi8(ShiftIndex<-1>(), line);
        out = _mm512_mask_blend_epi8(~LowMask(lane + 1), line, up);
        out = _mm512_mask_set1_epi8(out, std::uint64_t{1} << lane, static_cast<char>(tag));
        out = _mm512_inserti32x4(out, _mm_set_epi64x(static_cast<long long>(md[1]), static_cast<long long>(md[0])), 0);
      } else {
        const int lane = 4 + slot;
        const __m512i up = _mm512_permutexvar_epi16(ShiftIndex<-1>(), line);
        out = _mm512_mask_blend_epi16(static_cast<__mmask32>(~LowMask(lane + 1)), line, up);
        out = _mm512_mask_set1_epi16(out, static_cast<__mmask32>(1u << lane), static_cast<short>(tag));
        out = _mm512_mask_set1_epi64(out, 1, static_cast<long long>(md[0]));
      }
      _mm512_store_si512(&block, out);
      return;
    }
#endif
    std::memmove(&block.tags[slot + 1], &block.tags[slot], sizeof(Tag) * (fill - slot));
    block.tags[slot] = tag;
    std::memcpy(block.metadata, md, sizeof(md));
  }

  // Removes one copy of tag from bucket q; false when the bucket has none.
  static bool EraseFromBlock(Block& block, int q, Tag tag) {
    const std::uint64_t found = BucketMatches(block, q, tag);
    if (found == 0) return false;
    int slot;
    if constexpr (kPath == VqfPath::kAvx512) {
      slot = std::countr_zero(found);  // the mask's lowest set bit is the first match
    } else {
      int end;
      BucketSlots(block, q, slot, end);  // the portable answer is 0 or 1: find the slot
      while (block.tags[slot] != tag) ++slot;
    }
    const int fill = Occupancy(block);
    std::uint64_t md[kMetadataWords];
    std::memcpy(md, block.metadata, sizeof(md));
    RemoveBit(md, slot + q);  // the slot's 0 sits after q closing ones
#ifdef AMQ_VQF_HAVE_AVX512
    if constexpr (kPath == VqfPath::kAvx512) {
      const __m512i line = _mm512_load_si512(&block);
      __m512i out;
      if constexpr (kTagBits == 8) {
        const int lane = 16 + slot, last = 16 + fill - 1;
        const __m512i down = _mm512_permutexvar_epi8(ShiftIndex<1>(), line);
        out = _mm512_mask_blend_epi8(~LowMask(lane), line, down);
        out = _mm512_mask_set1_epi8(out, std::uint64_t{1} << last, 0);
        out = _mm512_inserti32x4(out, _mm_set_epi64x(static_cast<long long>(md[1]), static_cast<long long>(md[0])), 0);
      } else {
        const int lane = 4 + slot, last = 4 + fill - 1;
        const __m512i down = _mm512_permutexvar_epi16(ShiftIndex<1>(), line);
        out = _mm512_mask_blend_epi16(static_cast<__mmask32>(~LowMask(lane)), line, down);
        out = _mm512_mask_set1_epi16(out, static_cast<__mmask32>(1u << last), 0);
        out = _mm512_mask_set1_epi64(out, 1, static_cast<long long>(md[0]));
      }
      _mm512_store_si512(&block, out);
      return true;
    }
#endif
    std::memmove(&block.tags[slot], &block.tags[slot + 1], sizeof(Tag) * (fill - 1 - slot));
    block.tags[fill - 1] = 0;
    std::memcpy(block.metadata, md, sizeof(md));
    return true;
  }

#ifdef AMQ_VQF_HAVE_AVX512
  // The permute that gives tag lane i the contents of lane i + kDelta (clamped to the line; the
  // clamped ends are masked off by the callers). kDelta = -1 moves tags up, +1 down.
  template <int kDelta>
  static __m512i ShiftIndex() {
    constexpr int kLanes = 64 / static_cast<int>(sizeof(Tag));
    alignas(64) static constexpr std::array<Tag, kLanes> kIndex = [] {
      std::array<Tag, kLanes> index{};
      for (int i = 0; i < kLanes; ++i) index[i] = static_cast<Tag>(std::clamp(i + kDelta, 0, kLanes - 1));
      return index;
    }();
    return _mm512_load_si512(kIndex.data());
  }
#endif

  std::uint64_t seed_;
  double max_load_;
  int shortcut_fill_;  // kShortcutFill, or -1 in tables under kShortcutMinBlocks blocks
  std::vector<Block> blocks_;
  // blocks_.size(), kept beside it so that Locate reads one word rather than the vector's two
  // pointers (and a subtract and a shift) on every lookup.
  std::uint64_t block_count_;
  std::uint64_t stored_ = 0;
  std::uint64_t insert_failures_ = 0;
  std::uint64_t second_choice_inserts_ = 0;
  std::uint64_t shortcut_inserts_ = 0;
};

using Vqf8 = Vqf<8>;
using Vqf16 = Vqf<16>;

}  // namespace amq
