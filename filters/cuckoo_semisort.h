// filters/cuckoo_semisort.h - the semi-sorted cuckoo filter (B. Fan, D. G. Andersen, M. Kaminsky,
// M. Mitzenmacher, "Cuckoo Filter: Practically Better Than Bloom", ACM CoNEXT 2014, section 5.2).
//
// A cuckoo filter with b = 4 slots per bucket (filters/cuckoo.h: its partial-key hashing, its
// eviction walk and its kick statistics are shared from there) whose buckets are stored
// compressed. The order of the four fingerprints in a bucket carries no information, so a bucket
// keeps them sorted; then the four top 4-bit pieces ("nibbles") form a sorted sequence, a
// multiset of four values out of 16, and there are only C(16 + 4 - 1, 4) = 3876 of those: a
// 12-bit code names one, where the nibbles themselves took 16 bits. The other f - 4 bits of each
// fingerprint are stored as they are, in the sorted order.
//
// Layout: m = 2^p buckets of 4f - 4 bits (f odd, so a bucket is whole bytes: 48 bits = 6 bytes
// at f = 13), packed back to back; bits 0..11 hold the nibble code, bits 12 + (f-4)j .. hold slot
// j's low f - 4 bits, j = 0..3 in ascending fingerprint order. Fingerprint 0 marks an empty slot
// (as in cuckoo.h: fingerprints take 1 .. 2^f - 1), so empty slots sort first and a bucket has
// room exactly when slot 0 is 0.
//
// The codec: nibbles n0 <= n1 <= n2 <= n3 are the combination n0 < n1+1 < n2+2 < n3+3 of
// {0..18}, whose rank in the combinatorial number system, C(n0,1) + C(n1+1,2) + C(n2+2,3) +
// C(n3+3,4), is a bijection onto 0..3875. Encoding is that sum (four reads of a 5 x 19 table of
// binomials); decoding reads a table of the 3876 sorted nibble quadruples, 16 bits each. Both are
// built at compile time, once for the program: 7,752 + 190 = 7,942 bytes (statistic
// encode_table_bytes), small enough to stay in L1 beside the table's lines. (A direct encode
// table indexed by the 16 nibble bits would take 128 KiB.) A lookup decodes both buckets into
// four 16-bit lanes of whole fingerprints and compares them at once (the zero-lane test of
// cuckoo.h's BucketMatches); insert, erase and kicks decode, change a slot, re-sort the four
// fingerprints (a five-comparator network) and re-encode.
//
// Theory, load alpha = stored / (4 m), f-bit fingerprints:
//   bits/key = (4f - 4) / (4 alpha) = (f - 1) / alpha: one bit per key less than the plain
//              cuckoo filter with the same f, or the same space as plain cuckoo with f - 1 bits
//              at half its FPR (the paper's "saves one bit per item"). theory() reports it at the
//              requested load, (f - 1) / L, as cuckoo.h does.
//   FPR      <= 2b / 2^f, the paper's bound (every one of the 2b probed slots full); the rate
//              at load alpha is 1 - (1 - 1/(2^f - 1))^(2 b alpha), cuckoo.h's formula (semi-
//              sorting stores the same fingerprints, it only compresses them), which theory()
//              reports.
// cuckoo_semisort13: f = 13, 12 bits per slot, FPR ~ 8 alpha / 8191: FastFilter's
// CuckooSemiSort13 (12.77 bits/key at its 94% load, 0.092%). Sized here as cuckoo12 is: the
// smallest power of two m with 4m >= n / L (--max-load L, default 0.95); --fpr does not change it.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "core/batched.h"
#include "core/filter.h"
#include "core/hashing.h"
#include "core/stat_catalog.h"
#include "filters/cuckoo.h"
#include "filters/theory_formulas.h"

namespace amq {

namespace semisort_detail {

inline constexpr int kSlots = 4;          // the paper's semi-sorting needs b = 4
inline constexpr int kNibbleBits = 4;     // the sorted top bits of each fingerprint
inline constexpr int kCodeBits = 12;      // ceil(log2(3876))
inline constexpr int kNibbleMultisets = 3876;  // C(16 + 4 - 1, 4)

// The nibble codec: binomial[k][x] = C(x, k) for the ranks, decode[code] = the four sorted
// nibbles n0 | n1 << 4 | n2 << 8 | n3 << 12.
struct NibbleCodec {
  std::array<std::array<std::uint16_t, 19>, kSlots + 1> binomial{};
  std::array<std::uint16_t, kNibbleMultisets> decode{};

  constexpr std::uint32_t Encode(std::uint32_t n0, std::uint32_t n1, std::uint32_t n2,
                                 std::uint32_t n3) const {
    return binomial[1][n0] + binomial[2][n1 + 1] + binomial[3][n2 + 2] + binomial[4][n3 + 3];
  }
};

constexpr NibbleCodec BuildNibbleCodec() {
  NibbleCodec codec;
  for (int x = 0; x < 19; ++x) {
    std::uint32_t c = 1;  // C(x, 0)
    for (int k = 0; k <= kSlots; ++k) {
      codec.binomial[k][x] = static_cast<std::uint16_t>(k > x ? 0 : c);
      c = k >= x ? 0 : c * (x - k) / (k + 1);
    }
  }
  for (std::uint32_t n3 = 0; n3 < 16; ++n3)
    for (std::uint32_t n2 = 0; n2 <= n3; ++n2)
      for (std::uint32_t n1 = 0; n1 <= n2; ++n1)
        for (std::uint32_t n0 = 0; n0 <= n1; ++n0) {
          codec.decode[codec.Encode(n0, n1, n2, n3)] =
              static_cast<std::uint16_t>(n0 | n1 << 4 | n2 << 8 | n3 << 12);
        }
  return codec;
}

inline constexpr NibbleCodec kCodec = BuildNibbleCodec();
inline constexpr std::size_t kCodecBytes = sizeof(kCodec.binomial) + sizeof(kCodec.decode);

constexpr std::uint64_t kLaneLow = 0x0001000100010001ULL;  // the low bit of each 16-bit lane

inline constexpr StatSpec kEncodeTableBytesStat{
    "encode_table_bytes", "integer", "bytes",
    "semi-sorted cuckoo: the nibble codec's tables (decode: 3876 sorted nibble quadruples; "
    "encode: binomials), built once at compile time and shared by every filter"};
inline constexpr StatSpec kBucketBitsStat{"bucket_bits", "integer", "bits",
                                          "semi-sorted cuckoo: bits per bucket, 4f - 4"};

}  // namespace semisort_detail

// kFingerprintBits: f, odd (a bucket of 4f - 4 bits is then whole bytes) and at most 15 (the
// four fingerprints decode into 16-bit lanes; 4f - 4 <= 56 bits, one unaligned 64-bit load).
template <int kFingerprintBits>
class CuckooSemiSort {
  static_assert(kFingerprintBits >= 5 && kFingerprintBits <= 15 && kFingerprintBits % 2 == 1);
  static constexpr int kLowBits = kFingerprintBits - semisort_detail::kNibbleBits;
  static constexpr int kBucketBits = semisort_detail::kSlots * kFingerprintBits - semisort_detail::kSlots;
  static constexpr std::size_t kBucketBytes = kBucketBits / 8;
  static constexpr std::uint64_t kBucketMask = (1ULL << kBucketBits) - 1;
  static constexpr std::uint64_t kLowMask = (1ULL << kLowBits) - 1;

 public:
  static constexpr int kSlotsPerBucket = semisort_detail::kSlots;
  static constexpr double kDefaultMaxLoad = 0.95;
  static constexpr std::size_t kLookupAhead = 16;  // contains_many: keys prefetched ahead
  static constexpr std::string_view kName =
      kFingerprintBits == 13 ? "cuckoo_semisort13" : "cuckoo_semisort";
  static constexpr bool kFixedWidth = true;
  static constexpr std::string_view kFamily = "cuckoo";
  static constexpr std::string_view kParameters =
      "semi-sorted buckets: 4 fingerprints of f bits in 4f - 4 bits (top nibbles as one of 3876 "
      "sorted multisets); fixed f; --max-load L (default 0.95): buckets = smallest 2^p with "
      "4*2^p >= n/L";

  static double MaxLoadOf(const FilterParams& p) {
    return p.max_load > 0 ? p.max_load : kDefaultMaxLoad;
  }
  static std::uint64_t BucketsFor(const FilterParams& p) {
    return CuckooBucketsFor(static_cast<double>(p.capacity), MaxLoadOf(p), kSlotsPerBucket, 2);
  }

  // The paper's space and FPR bound (header comment).
  static double BitsPerKey(double load) { return TableBitsPerKey(kFingerprintBits - 1, load); }
  static double FprBound() { return 2.0 * kSlotsPerBucket / std::ldexp(1.0, kFingerprintBits); }

  explicit CuckooSemiSort(const FilterParams& p) : CuckooSemiSort(p, BucketsFor(p)) {}

  // The bucket count given directly (a power of two, at least 2): the tests' way to fill a
  // small table on purpose. theory() still follows p.
  CuckooSemiSort(const FilterParams& p, std::uint64_t buckets)
      : max_load_(MaxLoadOf(p)),
        seed_(SpreadSeed(p.seed)),
        max_kicks_(p.max_kicks),
        rng_(p.seed ^ 0x6b69636bULL) {
    if (buckets < 2 || !std::has_single_bit(buckets)) {
      throw std::invalid_argument("cuckoo_semisort: buckets must be a power of two >= 2");
    }
    bucket_mask_ = buckets - 1;
    // 8 bytes of padding: every bucket is read and written as one unaligned 64-bit word.
    bytes_.assign(buckets * kBucketBytes + 8, 0);
  }

  bool insert(std::uint64_t key) {
    const auto [i1, fp] = IndexAndFingerprint(key);
    const std::uint64_t i2 = AltIndex(i1, fp);
    if (TryPlace(i1, fp) || TryPlace(i2, fp)) return log_.Placed(0);
    path_.clear();
    const int kicks = cuckoo_detail::EvictionWalk<kSlotsPerBucket>(
        (rng_.Next() & 1) ? i1 : i2, fp, max_kicks_, bucket_mask_, rng_,
        [this](std::uint64_t bucket, int position, std::uint64_t homeless) {
          const std::uint64_t word = LoadBucket(bucket);
          path_.push_back({bucket, word});
          Fingerprints fps = Unpack(word);
          const std::uint64_t evicted = fps[position];
          fps[position] = static_cast<std::uint16_t>(homeless);
          StoreBucket(bucket, Pack(fps));
          return evicted;
        },
        [this](std::uint64_t bucket, std::uint64_t homeless) { return TryPlace(bucket, homeless); },
        [this] {
          for (auto it = path_.rbegin(); it != path_.rend(); ++it) StoreBucket(it->bucket, it->word);
        });
    return kicks > 0 ? log_.Placed(kicks) : log_.Refused(load_factor());
  }

  // Both buckets decoded and compared before either answer is used, as cuckoo.h does.
  bool contains(std::uint64_t key) const {
    const auto [i1, fp] = IndexAndFingerprint(key);
    return (BucketMatches(i1, fp) | BucketMatches(AltIndex(i1, fp), fp)) != 0;
  }

  std::size_t contains_many(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
    return PipelinedContains<kLookupAhead>(
        keys, out,
        [this](std::uint64_t key) {
          const cuckoo_detail::IndexFp first = IndexAndFingerprint(key);
          const CandidateBuckets c{first.index, AltIndex(first.index, first.fp), first.fp};
          PrefetchBucket(c.first);
          PrefetchBucket(c.second);
          return c;
        },
        [this](const CandidateBuckets& c) {
          return (BucketMatches(c.first, c.fp) | BucketMatches(c.second, c.fp)) != 0;
        });
  }

  bool erase(std::uint64_t key) {
    const auto [i1, fp] = IndexAndFingerprint(key);
    if (EraseFrom(i1, fp) || EraseFrom(AltIndex(i1, fp), fp)) {
      log_.Erased();
      return true;
    }
    return false;
  }

  std::size_t size_in_bytes() const { return buckets() * kBucketBytes; }
  std::span<const std::uint8_t> bytes() const { return {bytes_.data(), size_in_bytes()}; }
  std::uint64_t insert_failures() const { return log_.insert_failures(); }  // inserts refused
  double load_factor() const {
    return static_cast<double>(log_.stored()) / static_cast<double>(buckets() * kSlotsPerBucket);
  }
  int fingerprint_bits() const { return kFingerprintBits; }
  std::uint64_t buckets() const { return bucket_mask_ + 1; }

  // The four fingerprints of a bucket, ascending (0: empty): what the tests read the table by.
  std::array<std::uint16_t, semisort_detail::kSlots> bucket_fingerprints(std::uint64_t bucket) const {
    return Unpack(LoadBucket(bucket));
  }

  Theory theory() const {
    return {CuckooFpr(kFingerprintBits, load_factor(), kSlotsPerBucket), BitsPerKey(max_load_)};
  }

  static constexpr StatSpec kStats[] = {
      stat::kFingerprintBits,           cuckoo_detail::kBucketsStat,
      stat::kSlotsPerBucket,            semisort_detail::kBucketBitsStat,
      semisort_detail::kEncodeTableBytesStat, stat::kKicksTotal,
      cuckoo_detail::kKicksMaxStat,     cuckoo_detail::kKicksPerInsertStat,
      cuckoo_detail::kKicksHistogramStat, cuckoo_detail::kFirstFailureLoadStat};

  void add_stats(Stats& s) const {
    s.put("fingerprint_bits", kFingerprintBits);
    s.put("buckets", buckets());
    s.put("slots_per_bucket", kSlotsPerBucket);
    s.put("bucket_bits", kBucketBits);
    s.put("encode_table_bytes", semisort_detail::kCodecBytes);
    log_.add_stats(s);
  }

 private:
  using Fingerprints = std::array<std::uint16_t, semisort_detail::kSlots>;
  struct CandidateBuckets {
    std::uint64_t first;
    std::uint64_t second;
    std::uint64_t fp;
  };
  struct SavedBucket {
    std::uint64_t bucket;
    std::uint64_t word;
  };

  cuckoo_detail::IndexFp IndexAndFingerprint(std::uint64_t key) const {
    return cuckoo_detail::IndexAndFingerprint(key, seed_, bucket_mask_, kFingerprintBits);
  }
  std::uint64_t AltIndex(std::uint64_t index, std::uint64_t fp) const {
    return cuckoo_detail::AltIndex(index, fp, bucket_mask_);
  }

  const std::uint8_t* BucketAddress(std::uint64_t bucket) const {
    return bytes_.data() + bucket * kBucketBytes;
  }
  // Both lines LoadBucket's 8-byte load may read: a 6-byte bucket at an even offset runs over
  // its line at offsets 58, 60 and 62 (as cuckoo.h's PrefetchBucket says, where the second
  // prefetch took cuckoo12's batched lookups at 2^26 from about 30 to 23 ns a key).
  void PrefetchBucket(std::uint64_t bucket) const {
    __builtin_prefetch(BucketAddress(bucket));
    __builtin_prefetch(BucketAddress(bucket) + 7);
  }
  std::uint64_t LoadBucket(std::uint64_t bucket) const {
    std::uint64_t word;
    std::memcpy(&word, BucketAddress(bucket), sizeof word);
    return word & kBucketMask;
  }
  // Rewrites the 64-bit word at the bucket's start; the bytes past the bucket are written back
  // unchanged.
  void StoreBucket(std::uint64_t bucket, std::uint64_t bits) {
    std::uint8_t* at = bytes_.data() + bucket * kBucketBytes;
    std::uint64_t word;
    std::memcpy(&word, at, sizeof word);
    word = (word & ~kBucketMask) | bits;
    std::memcpy(at, &word, sizeof word);
  }

  // The bucket's fingerprints in four 16-bit lanes, slot j in lane j. The nibbles n3 n2 n1 n0
  // and the low parts are each spread to 16 bits apart in two steps: the upper pair of slots
  // moves to bits 32.., then each pair splits. The nibbles (4 bits apart) can move with
  // shift-or-mask, their old places falling outside the mask; the low parts (kLowBits apart)
  // would overlap their new places, so each step masks before it shifts.
  static std::uint64_t Lanes(std::uint64_t word) {
    std::uint64_t nibbles = semisort_detail::kCodec.decode[word & ((1u << semisort_detail::kCodeBits) - 1)];
    nibbles = (nibbles | nibbles << 24) & 0x000000ff000000ffULL;
    nibbles = (nibbles | nibbles << 12) & 0x000f000f000f000fULL;
    const std::uint64_t lows = word >> semisort_detail::kCodeBits;
    constexpr std::uint64_t kPair = (1ULL << (2 * kLowBits)) - 1;
    constexpr std::uint64_t kEvenLanes = kLowMask | kLowMask << 32;
    const std::uint64_t pairs = (lows & kPair) | ((lows >> (2 * kLowBits)) & kPair) << 32;
    const std::uint64_t spread = (pairs & kEvenLanes) | ((pairs >> kLowBits) & kEvenLanes) << 16;
    return spread | nibbles << kLowBits;
  }

  // Nonzero when the bucket holds fp (never 0): (x - low) & ~x & high is nonzero exactly when
  // some 16-bit lane of x is zero, i.e. some slot equals fp.
  std::uint64_t BucketMatches(std::uint64_t bucket, std::uint64_t fp) const {
    const std::uint64_t x = Lanes(LoadBucket(bucket)) ^ (fp * semisort_detail::kLaneLow);
    return (x - semisort_detail::kLaneLow) & ~x & (semisort_detail::kLaneLow << 15);
  }

  static Fingerprints Unpack(std::uint64_t word) {
    const std::uint64_t lanes = Lanes(word);
    return {static_cast<std::uint16_t>(lanes), static_cast<std::uint16_t>(lanes >> 16),
            static_cast<std::uint16_t>(lanes >> 32), static_cast<std::uint16_t>(lanes >> 48)};
  }

  // Sorts the four (a five-comparator network) and encodes them.
  static std::uint64_t Pack(Fingerprints fps) {
    auto order = [&fps](int a, int b) {
      if (fps[b] < fps[a]) std::swap(fps[a], fps[b]);
    };
    order(0, 1);
    order(2, 3);
    order(0, 2);
    order(1, 3);
    order(1, 2);
    std::uint64_t word = semisort_detail::kCodec.Encode(fps[0] >> kLowBits, fps[1] >> kLowBits,
                                                       fps[2] >> kLowBits, fps[3] >> kLowBits);
    for (int j = 0; j < semisort_detail::kSlots; ++j) {
      word |= (fps[j] & kLowMask) << (semisort_detail::kCodeBits + kLowBits * j);
    }
    return word;
  }

  // Slot 0 holds the smallest fingerprint, so the bucket has room exactly when it is 0.
  bool TryPlace(std::uint64_t bucket, std::uint64_t fp) {
    Fingerprints fps = Unpack(LoadBucket(bucket));
    if (fps[0] != 0) return false;
    fps[0] = static_cast<std::uint16_t>(fp);
    StoreBucket(bucket, Pack(fps));
    return true;
  }

  bool EraseFrom(std::uint64_t bucket, std::uint64_t fp) {
    Fingerprints fps = Unpack(LoadBucket(bucket));
    for (auto& slot : fps) {
      if (slot == fp) {
        slot = 0;
        StoreBucket(bucket, Pack(fps));
        return true;
      }
    }
    return false;
  }

  double max_load_;
  std::uint64_t seed_;
  int max_kicks_;
  XorShift64Star rng_;
  std::uint64_t bucket_mask_ = 1;
  std::vector<std::uint8_t> bytes_;
  std::vector<SavedBucket> path_;
  cuckoo_detail::KickLog log_;
};

using CuckooSemiSort13 = CuckooSemiSort<13>;

}  // namespace amq
