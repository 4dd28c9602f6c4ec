// filters/morton.h - Morton filter (A. D. Breslow and N. S. Jayasena, "Morton Filters: Faster,
// Space-Efficient Cuckoo Filters via Biasing, Compression, and Decoupled Logical Sparsity",
// PVLDB 11(9): 1041-1055, 2018), in the paper's recommended configuration.
//
// A cuckoo filter whose logical table is sparse (buckets of 3 slots, mostly empty) but whose
// memory is dense: each 512-bit block (one cache line) holds
//   FSA  fingerprint storage array: 46 8-bit fingerprints, packed in bucket order;
//   FCA  fullness counter array: 64 2-bit counters, one per logical bucket (0 .. 3 fingerprints);
//   OTA  overflow tracking array: 16 bits.
// 46 x 8 + 64 x 2 + 16 = 512. A bucket's fingerprints start at the sum of the counters before it
// (two popcounts), so the 192 logical slots of a block cost the 46 physical ones only. The
// counters mark occupancy, so a fingerprint may take all 2^f values (no reserved empty value).
//
// A key hashes to one logical bucket (its primary) and an 8-bit fingerprint F. Its alternate is
// found from the bucket and F alone, as the paper's block-local offset:
//   alt(b, F) = (b + (-1)^(b & 1) offset(F)) mod m,  offset(F) = (64 + 4 (F mod 256)) | 1,
// m = 64 x blocks logical buckets. offset is odd and m even, so alt flips b's parity and
// alt(alt(b, F), F) = b: a fingerprint moves to its other bucket without the key. offset >= 64
// puts the alternate 1 to 17 blocks away (at most 1,088 bytes: the same or the next 4 KiB page)
// once m exceeds the largest offset. The paper's form is beta + (F mod OFF_RANGE) with beta =
// 64 buckets; the stride 4 is ours, measured: at n = 10^6 with offsets 65 .. 127 (F mod 64) the
// first insert was refused at load 0.90 - 0.92, with 65 .. 319 (F mod 256) at 0.939 - 0.946,
// and with the stride none was refused up to load 0.97 (two seeds each): alternates only a
// block or two away leave a run of full blocks no way out.
//
// Insert is biased (the paper's "biasing"): the primary bucket when it has a free slot and its
// block a free FSA entry; only then the alternate, and the OTA bit of the primary bucket is set
// (bit (b mod 64) mod 16 of the primary block). When both are full, cuckoo eviction from the
// primary: a fingerprint of the full bucket (or, when the bucket has room but its block does
// not, of the block) moves to its own alternate - one whose alternate has room if any does, else
// one whose alternate block is least full, from a random start - and the homeless fingerprint
// takes its place. Every move out of a bucket sets that bucket's OTA bit, so whichever of its
// two buckets a fingerprint sits in, a lookup from its primary finds the second one flagged.
// After max_kicks moves every move is undone in reverse (the same bytes as before) and the
// insert is refused and counted.
//
// Lookup reads the primary block; only when the fingerprint is not in the primary bucket AND the
// OTA bit is set does it read the alternate block. Erase does the same and removes one copy.
// OTA bits are never cleared: a bit covers four buckets and any number of keys, so clearing it
// on erase could hide another key; a stale bit only costs a second block read.
//
// Theory. lambda = stored / m, the mean fingerprints per logical bucket (46 alpha / 64 at
// physical load alpha = stored / (46 blocks)); o, the share of OTA bits set (a non-key's
// primary bucket is uniform, so o is the chance its lookup reads a second block); sigma, the
// keys sitting in their alternate bucket per logical bucket. A non-key with fingerprint F
// compares against its primary bucket's lambda fingerprints, and when its OTA bit is set
// against the alternate's lambda - among which every key of the same primary bucket that moved
// out with fingerprint F (the alternate depends on F alone, so such a key always lies in the
// bucket the non-key reads): those sigma keys count as if they had stayed. With q = 1 - 2^-f,
//   FPR      = 1 - q^(lambda + sigma) (1 - o + o q^lambda)
//              (the paper's accounting of fingerprint comparisons per negative lookup; without
//              the OTA, reading both buckets, it is the cuckoo filter's 1 - q^(2 lambda):
//              fpr_both_buckets_bound)
//   bits/key = 512 / (46 L) at the requested load L (11.72 at L = 0.95; FastFilter's Morton at
//              n = 10^6 measured 11.72 bits/key and FPR 0.316%, shared/REFERENCE_NUMBERS.md).
// o and sigma have no closed form (they depend on how often blocks overflow, which the eviction
// walk shapes), so theory() reads o from the OTA bits and estimates sigma from the insert's
// own counts (placements in the alternate plus evictions, less erasures found there; an
// eviction that sends a key home is counted as one more away, so sigma is rounded up), as the
// cuckoo filter takes its load from its state. At n = 10^6, L = 0.95 (seeds 1, 2): o = 0.121,
// sigma = 0.037, theory 0.313%, measured 0.313% and 0.317% over 10^6 non-keys.
// Sizing: blocks = ceil(n / (46 L)), at least 1; --max-load L (default 0.95). The width is fixed
// (f = 8): --fpr and --bits-per-key do not change the filter.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "core/batched.h"
#include "core/filter.h"
#include "core/hashing.h"
#include "core/stat_catalog.h"
#include "filters/theory_formulas.h"

namespace amq {

namespace morton_detail {

inline constexpr int kFingerprintBits = 8;
inline constexpr int kSlotsPerBlock = 46;     // FSA entries
inline constexpr int kBucketsPerBlock = 64;   // FCA counters
inline constexpr int kBucketCapacity = 3;     // a 2-bit counter's largest value
inline constexpr int kOtaBits = 16;
inline constexpr int kBlockBits = 512;
// offset(F) = (64 + 4 (F mod 256)) | 1: 65 .. 1085 buckets, 1 to 17 blocks away.
inline constexpr std::uint64_t kOffsetRange = 256;
inline constexpr std::uint64_t kOffsetStride = 4;
inline constexpr std::uint64_t kLargestOffset = (kBucketsPerBlock + (kOffsetRange - 1) * kOffsetStride) | 1;

// One cache line. The FSA comes first so that an 8-byte load at any bucket start (<= 45) stays
// inside the block; the bytes past the bucket are masked off.
struct alignas(64) Block {
  std::uint8_t fsa[kSlotsPerBlock];
  std::uint16_t ota;
  std::uint64_t fca[2];  // bucket j's counter: bits 2(j mod 32) .. +1 of word j / 32
};
static_assert(sizeof(Block) * 8 == kBlockBits);

inline constexpr std::uint64_t kOddBits = 0xAAAAAAAAAAAAAAAAULL;  // high bit of each counter
inline constexpr std::uint64_t kByteLow = 0x0101010101010101ULL;
inline constexpr std::uint64_t kByteHigh = 0x8080808080808080ULL;

// Sum of the 2-bit counters in a and b. With a popcount instruction, four of them; without
// one (the portable build: std::popcount becomes a library call there) the counters are added
// in place, pairs into 4-bit fields (at most 6 + 6), those into bytes (at most 24), and the
// bytes by one multiply (at most 192, one byte). The two agree on every input
// (morton_test.cc tests both on random words); the build uses one.
inline int CounterSumByPopcount(std::uint64_t a, std::uint64_t b) {
  return std::popcount(a) + std::popcount(a & kOddBits) + std::popcount(b) + std::popcount(b & kOddBits);
}
inline int CounterSumInPlace(std::uint64_t a, std::uint64_t b) {
  constexpr std::uint64_t kPairs = 0x3333333333333333ULL, kNibbles = 0x0f0f0f0f0f0f0f0fULL;
  const std::uint64_t nibbles = (a & kPairs) + ((a >> 2) & kPairs) + (b & kPairs) + ((b >> 2) & kPairs);
  const std::uint64_t bytes = (nibbles & kNibbles) + ((nibbles >> 4) & kNibbles);
  return static_cast<int>((bytes * kByteLow) >> 56);
}
inline int CounterSum(std::uint64_t a, std::uint64_t b) {
#ifdef __POPCNT__
  return CounterSumByPopcount(a, b);
#else
  return CounterSumInPlace(a, b);
#endif
}

// Fingerprints stored in buckets 0 .. j-1 of the block: where bucket j's run starts.
// Both words' counters below j, masked without a branch on which word j is in (half the
// buckets each way: the branch mispredicted on half the inserts, cachegrind's model).
inline int BucketStart(const Block& b, int j) {
  const std::uint64_t below = (std::uint64_t{1} << (2 * (j & 31))) - 1;
  const std::uint64_t in_second = std::uint64_t{0} - static_cast<std::uint64_t>(j >> 5);  // ~0 for j >= 32
  return CounterSum(b.fca[0] & (below | in_second), b.fca[1] & below & in_second);
}
inline int BucketCount(const Block& b, int j) {
  return static_cast<int>((b.fca[j >> 5] >> (2 * (j & 31))) & 3);
}
inline int BlockCount(const Block& b) { return CounterSum(b.fca[0], b.fca[1]); }

// Whether fp is among the `count` (<= 3) bytes at `start`: one load, the zero-byte test on
// bytes XOR fp. A borrow only runs upward from a byte that is zero, so a flag within the low
// `count` bytes means one of them equals fp.
inline bool RunHas(const Block& b, int start, int count, std::uint64_t fp) {
  std::uint64_t word;
  std::memcpy(&word, reinterpret_cast<const unsigned char*>(&b) + start, 8);
  const std::uint64_t x = word ^ (fp * kByteLow);
  const std::uint64_t run = (std::uint64_t{1} << (8 * count)) - 1;
  return ((x - kByteLow) & ~x & kByteHigh & run) != 0;
}

inline bool BucketHas(const Block& b, int j, std::uint64_t fp) {
  return RunHas(b, BucketStart(b, j), BucketCount(b, j), fp);
}

inline bool OtaBit(const Block& b, int j) { return (b.ota >> (j & (kOtaBits - 1))) & 1; }

// Putting a fingerprint in or taking one out moves the FSA bytes above it by one. The block's
// first 48 bytes (the FSA and the OTA) as three 16-byte vectors (GCC/Clang vector extensions:
// SSE2 on any x86-64, wider where the build allows): each output lane takes its own byte, the
// byte one below or above (a constant two-vector shuffle), or the new fingerprint, chosen by
// comparing a constant lane index with pos: no branch, no call. memmove of the total - pos
// bytes above was a library call whose branches on the length mispredicted. With it, with
// BucketStart's branch on the word and OwnersOf's on the counts, an insert at n = 10^6
// mispredicted 2.1 branches (cachegrind's model, -mavx2; FastFilter's Morton 0.5), 0.19 after
// the three, and took 30.4-31.1 ns against FastFilter's 23.3-24.1, 17.1-17.5 after
// (scripts/fastfilter_warm_builds, -march=native, 2026-12-05; README, "Warm with warm").
using Bytes16 = std::uint8_t __attribute__((vector_size(16)));
inline constexpr int kFsaVectors = 3;
static_assert(16 * kFsaVectors == kSlotsPerBlock + 2 && offsetof(Block, ota) == kSlotsPerBlock);
inline constexpr Bytes16 kLaneIndex[kFsaVectors] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31},
    {32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47}};
// The OTA's two bytes, lanes 14 and 15 of the last vector: always kept.
inline constexpr Bytes16 kOtaLanes[kFsaVectors] = {
    {}, {}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}};
// __builtin_shufflevector(x, y, i...) (GCC 12 and Clang) takes lane i of x's 16 lanes followed
// by y's: each lane gets the byte one below it (x's last lane, then y's first 15) or one above.
inline Bytes16 OneBelow(Bytes16 lower, Bytes16 v) {
  return __builtin_shufflevector(lower, v, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
}
inline Bytes16 OneAbove(Bytes16 v, Bytes16 upper) {
  return __builtin_shufflevector(v, upper, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
}
// For the last vector: byte 45's neighbour above is the OTA, so a zero comes in there instead.
inline Bytes16 OneAboveLast(Bytes16 v) {
  return __builtin_shufflevector(v, Bytes16{}, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 16, 16);
}

// The block's first 48 bytes in and out, one 16-byte copy per vector: one memcpy of all 48
// compiled to rep movsl with -mavx2 (a microcoded copy on every insert).
inline void LoadFsa(const Block& b, Bytes16 (&v)[kFsaVectors]) {
  for (int k = 0; k < kFsaVectors; ++k) std::memcpy(&v[k], reinterpret_cast<const unsigned char*>(&b) + 16 * k, 16);
}
inline void StoreFsa(Block& b, const Bytes16 (&v)[kFsaVectors]) {
  for (int k = 0; k < kFsaVectors; ++k) std::memcpy(reinterpret_cast<unsigned char*>(&b) + 16 * k, &v[k], 16);
}

// fp placed at FSA position pos (a position of bucket j's run, or its end); the block has a free
// FSA byte, so byte 45 (zero) is the one pushed out.
inline void InsertAt(Block& b, int j, int pos, std::uint8_t fp) {
  Bytes16 v[kFsaVectors];
  LoadFsa(b, v);
  const Bytes16 below[kFsaVectors] = {OneBelow(Bytes16{}, v[0]), OneBelow(v[0], v[1]),
                                      OneBelow(v[1], v[2])};
  const Bytes16 at = Bytes16{} + static_cast<std::uint8_t>(pos);
  const Bytes16 value = Bytes16{} + fp;
  for (int k = 0; k < kFsaVectors; ++k) {
    const auto keep = reinterpret_cast<Bytes16>(kLaneIndex[k] < at) | kOtaLanes[k];
    const auto put = reinterpret_cast<Bytes16>(kLaneIndex[k] == at);
    v[k] = (v[k] & keep) | (value & put) | (below[k] & ~(keep | put));
  }
  StoreFsa(b, v);
  b.fca[j >> 5] += std::uint64_t{1} << (2 * (j & 31));
}
// The fingerprint at FSA position pos (in bucket j's run) removed; the freed byte zeroed so a
// filter's bytes depend on its contents only (the bytes past the last stored one are zero, and a
// zero comes in above byte 45).
inline void RemoveAt(Block& b, int j, int pos) {
  Bytes16 v[kFsaVectors];
  LoadFsa(b, v);
  const Bytes16 above[kFsaVectors] = {OneAbove(v[0], v[1]), OneAbove(v[1], v[2]),
                                      OneAboveLast(v[2])};
  const Bytes16 at = Bytes16{} + static_cast<std::uint8_t>(pos);
  for (int k = 0; k < kFsaVectors; ++k) {
    const auto keep = reinterpret_cast<Bytes16>(kLaneIndex[k] < at) | kOtaLanes[k];
    v[k] = (v[k] & keep) | (above[k] & ~keep);
  }
  StoreFsa(b, v);
  b.fca[j >> 5] -= std::uint64_t{1} << (2 * (j & 31));
}

// owner[pos] = the bucket whose run holds FSA position pos, for every stored position. Each
// bucket writes three bytes from its run's start and advances by its count (the next bucket
// overwrites what was not its own), so the loop has no branch on the counts; hence the spare
// bytes (a full block's empty buckets write 46 .. 48).
using Owners = std::array<std::uint8_t, kSlotsPerBlock + kBucketCapacity>;
inline void OwnersOf(const Block& b, Owners& owner) {
  int pos = 0;
  for (int j = 0; j < kBucketsPerBlock; ++j) {
    for (int c = 0; c < kBucketCapacity; ++c) owner[pos + c] = static_cast<std::uint8_t>(j);
    pos += BucketCount(b, j);
  }
}

}  // namespace morton_detail

// FPR 1 - q^(lambda + sigma) (1 - o + o q^lambda), q = 1 - 2^-f (see the header comment).
inline double MortonFpr(int fingerprint_bits, double fingerprints_per_bucket, double ota_set_share,
                        double moved_per_bucket) {
  const double codes = std::ldexp(1.0, fingerprint_bits);
  const double miss = std::exp(FingerprintMissLog(fingerprints_per_bucket, 1.0, codes));
  const double moved_miss = std::exp(FingerprintMissLog(moved_per_bucket, 1.0, codes));
  return 1.0 - miss * moved_miss * (1.0 - ota_set_share + ota_set_share * miss);
}

// bits/key 512 / (46 L).
inline double MortonBitsPerKey(double max_load) {
  return TableBitsPerKey(static_cast<double>(morton_detail::kBlockBits) / morton_detail::kSlotsPerBlock,
                         max_load);
}

class Morton {
  using Block = morton_detail::Block;

 public:
  static constexpr std::string_view kName = "morton";
  static constexpr std::string_view kFamily = "morton";
  static constexpr bool kFixedWidth = true;
  static constexpr std::string_view kParameters =
      "fixed: 512-bit blocks of 46 8-bit fingerprints, 64 buckets of 3 (2-bit counters), a 16-bit "
      "OTA; --max-load L (default 0.95): blocks = ceil(n / (46 L)); --fpr, --bits-per-key ignored";
  static constexpr double kDefaultMaxLoad = 0.95;
  // amqbench_micro sizes it at FastFilter's Morton load (11.72 bits/key at 10^6 keys), not 0.96.
  static constexpr double kMicroMaxLoad = kDefaultMaxLoad;
  static constexpr std::size_t kLookupAhead = 16;  // contains_many: keys prefetched ahead

  static double MaxLoadOf(const FilterParams& p) {
    return p.max_load > 0 ? std::min(p.max_load, 1.0) : kDefaultMaxLoad;
  }
  static std::uint64_t BlocksFor(const FilterParams& p) {
    const double slots = static_cast<double>(p.capacity) / MaxLoadOf(p);
    const auto blocks = static_cast<std::uint64_t>(std::ceil(slots / morton_detail::kSlotsPerBlock));
    return std::max<std::uint64_t>(blocks, 1);
  }

  explicit Morton(const FilterParams& p) : Morton(p, BlocksFor(p)) {}

  // The block count given directly: the tests' way to build a filter that fills up.
  Morton(const FilterParams& p, std::uint64_t blocks)
      : max_load_(MaxLoadOf(p)),
        seed_(SpreadSeed(p.seed)),
        max_kicks_(p.max_kicks),
        rng_(p.seed ^ 0x6d6f72746f6eULL),
        blocks_(std::max<std::uint64_t>(blocks, 1)),
        buckets_(blocks_.size() * morton_detail::kBucketsPerBlock),
        wrap_((morton_detail::kLargestOffset / buckets_ + 1) * buckets_) {}

  bool insert(std::uint64_t key) {
    using namespace morton_detail;
    const auto [primary, fp] = BucketAndFingerprint(key);
    if (HasRoom(primary)) return Placed(primary, fp, 0);
    const std::uint64_t alternate = AltBucket(primary, fp);
    if (HasRoom(alternate)) {
      SetOta(primary);
      ++secondary_placements_;
      ++in_alternate_;
      return Placed(alternate, fp, 0);
    }

    // Both full: evict, starting from the primary bucket (the new key lands where lookups look
    // first), remembering every move so a failure can be undone.
    path_.clear();
    std::uint64_t bucket = primary;
    std::uint8_t homeless = fp;
    for (int kick = 1; kick <= max_kicks_; ++kick) {
      Block& block = BlockOf(bucket);
      const int j = static_cast<int>(bucket % kBucketsPerBlock);
      Move move;
      move.bucket = bucket;
      move.ota_before = block.ota;
      // The candidates: the full bucket's run, or (the bucket has room, its block does not)
      // the whole block. One that can move straight into its alternate is taken first, found
      // from a random start; otherwise a random one walks on.
      const bool bucket_full = BucketCount(block, j) == kBucketCapacity;
      const int first = bucket_full ? BucketStart(block, j) : 0;
      const int candidates = bucket_full ? kBucketCapacity : kSlotsPerBlock;
      const int offset = static_cast<int>(RandomBelow(static_cast<std::uint64_t>(candidates)));
      move.victim_pos = first + offset;
      Owners owner;  // the bucket of each FSA position
      if (bucket_full) {
        owner.fill(static_cast<std::uint8_t>(j));
      } else {
        OwnersOf(block, owner);
      }
      int least_fill = kSlotsPerBlock + 1;
      for (int c = 0; c < candidates; ++c) {
        const int pos = first + (offset + c) % candidates;
        const int fill = FillOf(AltBucket(bucket - j + owner[pos], block.fsa[pos]));
        if (fill < least_fill) {
          least_fill = fill;
          move.victim_pos = pos;
          if (fill < kSlotsPerBlock) break;
        }
      }
      move.victim_j = owner[move.victim_pos];
      move.victim = block.fsa[move.victim_pos];
      RemoveAt(block, move.victim_j, move.victim_pos);
      move.placed_pos = BucketStart(block, j) + BucketCount(block, j);
      InsertAt(block, j, move.placed_pos, homeless);
      const std::uint64_t victim_bucket = bucket - j + static_cast<std::uint64_t>(move.victim_j);
      block.ota |= static_cast<std::uint16_t>(1u << (move.victim_j & (kOtaBits - 1)));
      path_.push_back(move);
      homeless = move.victim;
      bucket = AltBucket(victim_bucket, homeless);
      if (HasRoom(bucket)) return Placed(bucket, homeless, kick);
    }
    // Undo in reverse: each block is then exactly as it was after the move being undone.
    for (auto it = path_.rbegin(); it != path_.rend(); ++it) {
      Block& block = BlockOf(it->bucket);
      const int j = static_cast<int>(it->bucket % kBucketsPerBlock);
      RemoveAt(block, j, it->placed_pos);
      InsertAt(block, it->victim_j, it->victim_pos, it->victim);
      block.ota = it->ota_before;
    }
    ++inserts_refused_;
    return false;
  }

  // The primary block answers most lookups alone: the alternate is read only when the primary
  // bucket lacks the fingerprint and its OTA bit says a fingerprint left it.
  bool contains(std::uint64_t key) const {
    const auto [primary, fp] = BucketAndFingerprint(key);
    return InPrimaryOrFlagged(primary, fp);
  }

  std::size_t contains_many(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
    return PipelinedContains<kLookupAhead>(
        keys, out,
        [this](std::uint64_t key) {
          const BucketFp c = BucketAndFingerprint(key);
          __builtin_prefetch(&blocks_[c.bucket / morton_detail::kBucketsPerBlock]);
          return c;
        },
        [this](const BucketFp& c) { return InPrimaryOrFlagged(c.bucket, c.fp); });
  }

  bool erase(std::uint64_t key) {
    using namespace morton_detail;
    const auto [primary, fp] = BucketAndFingerprint(key);
    if (EraseFrom(primary, fp)) return true;
    if (!OtaBit(BlockOf(primary), static_cast<int>(primary % kBucketsPerBlock)) ||
        !EraseFrom(AltBucket(primary, fp), fp)) {
      return false;
    }
    if (in_alternate_ > 0) --in_alternate_;
    return true;
  }

  std::size_t size_in_bytes() const { return blocks_.size() * sizeof(Block); }
  std::span<const std::uint8_t> bytes() const {
    return {reinterpret_cast<const std::uint8_t*>(blocks_.data()), size_in_bytes()};
  }
  double load_factor() const {
    return static_cast<double>(stored_) / (static_cast<double>(blocks_.size()) * morton_detail::kSlotsPerBlock);
  }
  std::uint64_t blocks() const { return blocks_.size(); }
  // The other bucket of fingerprint fp stored in `bucket` (public for the tests).
  std::uint64_t alternate_bucket(std::uint64_t bucket, std::uint64_t fp) const {
    return AltBucket(bucket, fp);
  }
  std::uint64_t buckets() const { return buckets_; }
  std::uint64_t inserts_refused() const { return inserts_refused_; }
  std::uint64_t second_block_lookups() const { return second_block_lookups_; }

  // Share of OTA bits set: the chance a non-key's lookup reads a second block.
  double ota_set_share() const {
    std::uint64_t set = 0;
    for (const Block& b : blocks_) set += static_cast<std::uint64_t>(std::popcount(b.ota));
    return static_cast<double>(set) / (static_cast<double>(blocks_.size()) * morton_detail::kOtaBits);
  }

  Theory theory() const {
    const double per_bucket = static_cast<double>(stored_) / static_cast<double>(buckets_);
    return {MortonFpr(morton_detail::kFingerprintBits, per_bucket, ota_set_share(),
                      static_cast<double>(in_alternate_) / static_cast<double>(buckets_)),
            MortonBitsPerKey(max_load_)};
  }

  static constexpr StatSpec kStats[] = {
      stat::kFingerprintBits,
      {"morton_blocks", "integer", "blocks", "Morton: 512-bit blocks (46 fingerprints, 64 buckets, 16 OTA bits each)"},
      {"block_fill_mean", "number", "fraction", "Morton: fingerprints stored / (46 blocks), the physical load"},
      {"blocks_full_share", "number", "fraction", "Morton: share of blocks whose 46 fingerprint slots are all used"},
      {"ota_bits_set_share", "number", "fraction",
       "Morton: share of overflow-tracking bits set = share of non-member lookups that read a second block"},
      {"secondary_placements", "integer", "keys",
       "Morton: inserts placed in their alternate bucket because the primary bucket or block was full"},
      {"evictions_total", "integer", "count", "Morton: fingerprints moved to their alternate bucket by eviction",
       OverTrials::kSum},
      {"evictions_max", "integer", "count", "Morton: most evictions one insert needed"},
      {"second_block_lookups", "integer", "lookups",
       "Morton: lookups (and erasures) that read a second block: primary bucket missed, its OTA bit set",
       OverTrials::kSum},
      {"inserts_refused", "integer", "keys", "Morton: inserts refused after max_kicks evictions (filter full)",
       OverTrials::kSum},
      {"keys_in_alternate_estimate", "integer", "keys",
       "Morton: keys in their alternate bucket, rounded up (alternate placements + evictions - erasures found there)"},
      {"fpr_both_buckets_bound", "number", "probability",
       "Morton: the FPR if every lookup read both buckets (no OTA), 1 - (1 - 2^-f)^(2 lambda)"}};

  void add_stats(Stats& s) const {
    using namespace morton_detail;
    s.put("fingerprint_bits", kFingerprintBits);
    s.put("morton_blocks", blocks_.size());
    s.put("block_fill_mean", load_factor());
    std::uint64_t full = 0;
    for (const Block& b : blocks_) full += BlockCount(b) == kSlotsPerBlock ? 1 : 0;
    s.put("blocks_full_share", static_cast<double>(full) / static_cast<double>(blocks_.size()));
    s.put("ota_bits_set_share", ota_set_share());
    s.put("secondary_placements", secondary_placements_);
    s.put("evictions_total", evictions_total_);
    s.put("evictions_max", evictions_max_);
    s.put("second_block_lookups", second_block_lookups_);
    s.put("inserts_refused", inserts_refused_);
    const double per_bucket = static_cast<double>(stored_) / static_cast<double>(buckets_);
    s.put("keys_in_alternate_estimate", in_alternate_);
    s.put("fpr_both_buckets_bound", MortonFpr(kFingerprintBits, per_bucket, 1.0, 0.0));
  }

 private:
  struct BucketFp {
    std::uint64_t bucket;
    std::uint8_t fp;
  };
  // One eviction: the homeless fingerprint went to the end of `bucket`'s run at placed_pos, after
  // `victim` left FSA position victim_pos of bucket victim_j in the same block.
  struct Move {
    std::uint64_t bucket = 0;
    int placed_pos = 0;
    int victim_j = 0;
    int victim_pos = 0;
    std::uint8_t victim = 0;
    std::uint16_t ota_before = 0;
  };

  // Bucket from the hash's top bits (ReduceRange), fingerprint from its low 8 bits.
  BucketFp BucketAndFingerprint(std::uint64_t key) const {
    const std::uint64_t h = HashKey(key, seed_);
    return {ReduceRange(h, buckets_), static_cast<std::uint8_t>(h)};
  }

  // (b + (-1)^(b&1) offset(F)) mod m. wrap_ is a multiple of m above every offset, so the odd
  // case never goes below zero; past 2 x 1086 buckets one subtraction reduces either sum.
  std::uint64_t AltBucket(std::uint64_t bucket, std::uint64_t fp) const {
    using namespace morton_detail;
    const std::uint64_t offset = (kBucketsPerBlock + (fp & (kOffsetRange - 1)) * kOffsetStride) | 1;
    std::uint64_t alt = (bucket & 1) ? bucket + wrap_ - offset : bucket + offset;
    if (alt >= buckets_) alt -= buckets_;
    if (alt >= buckets_) alt %= buckets_;  // small filters only
    return alt;
  }

  bool InPrimaryOrFlagged(std::uint64_t primary, std::uint8_t fp) const {
    using namespace morton_detail;
    const Block& block = BlockOf(primary);
    const int j = static_cast<int>(primary % kBucketsPerBlock);
    if (BucketHas(block, j, fp)) return true;
    if (!OtaBit(block, j)) return false;
    ++second_block_lookups_;  // the rare path only: no store on a one-block lookup
    const std::uint64_t alt = AltBucket(primary, fp);
    return BucketHas(BlockOf(alt), static_cast<int>(alt % kBucketsPerBlock), fp);
  }

  Block& BlockOf(std::uint64_t bucket) { return blocks_[bucket / morton_detail::kBucketsPerBlock]; }
  const Block& BlockOf(std::uint64_t bucket) const {
    return blocks_[bucket / morton_detail::kBucketsPerBlock];
  }

  bool HasRoom(std::uint64_t bucket) const {
    using namespace morton_detail;
    const Block& block = BlockOf(bucket);
    return BucketCount(block, static_cast<int>(bucket % kBucketsPerBlock)) < kBucketCapacity &&
           BlockCount(block) < kSlotsPerBlock;
  }

  // How full a bucket's block is for a fingerprint moving in: its count, or 46 when the bucket
  // itself is full (no room either way).
  int FillOf(std::uint64_t bucket) const {
    using namespace morton_detail;
    const Block& block = BlockOf(bucket);
    return BucketCount(block, static_cast<int>(bucket % kBucketsPerBlock)) == kBucketCapacity
               ? kSlotsPerBlock
               : BlockCount(block);
  }

  void SetOta(std::uint64_t bucket) {
    BlockOf(bucket).ota |=
        static_cast<std::uint16_t>(1u << (bucket % morton_detail::kBucketsPerBlock % morton_detail::kOtaBits));
  }

  bool EraseFrom(std::uint64_t bucket, std::uint8_t fp) {
    using namespace morton_detail;
    Block& block = BlockOf(bucket);
    const int j = static_cast<int>(bucket % kBucketsPerBlock);
    const int start = BucketStart(block, j), count = BucketCount(block, j);
    for (int i = 0; i < count; ++i) {
      if (block.fsa[start + i] == fp) {
        RemoveAt(block, j, start + i);
        --stored_;
        return true;
      }
    }
    return false;
  }

  bool Placed(std::uint64_t bucket, std::uint8_t fp, int kicks) {
    using namespace morton_detail;
    Block& block = BlockOf(bucket);
    const int j = static_cast<int>(bucket % kBucketsPerBlock);
    InsertAt(block, j, BucketStart(block, j) + BucketCount(block, j), fp);
    ++stored_;
    in_alternate_ += static_cast<std::uint64_t>(kicks);
    evictions_total_ += static_cast<std::uint64_t>(kicks);
    evictions_max_ = std::max<std::uint64_t>(evictions_max_, static_cast<std::uint64_t>(kicks));
    return true;
  }

  // Uniform in [0, n) from the generator's top 32 bits.
  std::uint64_t RandomBelow(std::uint64_t n) { return ((rng_.Next() >> 32) * n) >> 32; }

  double max_load_;
  std::uint64_t seed_;
  int max_kicks_;
  XorShift64Star rng_;
  std::vector<Block> blocks_;
  std::uint64_t buckets_;
  std::uint64_t wrap_;
  std::vector<Move> path_;
  std::uint64_t stored_ = 0;
  std::uint64_t secondary_placements_ = 0;
  std::uint64_t in_alternate_ = 0;  // sigma x m, rounded up (see the header comment)
  std::uint64_t evictions_total_ = 0;
  std::uint64_t evictions_max_ = 0;
  std::uint64_t inserts_refused_ = 0;
  // Counted inside const lookups: statistics only, never read by a lookup.
  mutable std::uint64_t second_block_lookups_ = 0;
};

}  // namespace amq
