// filters/cuckoo.h - cuckoo filter (B. Fan, D. G. Andersen, M. Kaminsky, M. Mitzenmacher,
// "Cuckoo Filter: Practically Better Than Bloom", ACM CoNEXT 2014).
//
// Layout: m = 2^p buckets of b slots (b = 4 but in cuckoo12_b2 and cuckoo12_b8), each slot an
// f-bit fingerprint (bit-packed; 0 marks an empty slot, so fingerprints take the values
// 1 .. 2^f - 1). A key has two candidate buckets by partial-key cuckoo hashing: i1 from the
// key's hash, i2 = i1 XOR hash(fp), so a fingerprint can move to its other bucket without the
// key. m must be a power of two for the XOR to stay in range and be an involution. hash(fp) = 0
// is mapped to 1 (as in the cuckoo lab of the AMQ survey, "Approximate Membership Filters: Cuckoo,
// Quotient, XOR, Binary Fuse") so the two buckets always differ. hash(fp) takes bits
// 32.. of fp times an odd constant, so tables of up to 2^32 buckets get offsets that depend on
// every fingerprint bit.
//
// Theory, load alpha = stored / (b m):
//   FPR      = 1 - (1 - 1/(2^f - 1))^(2 b alpha)   ~ 2 b alpha / 2^f
//              (a lookup compares against the 2b slots of two buckets, each occupied w.p. alpha)
//   bits/key = f / alpha. theory() reports it at the requested load, f / L: rounding the table
//              up to a power of two of buckets is the allocation's, and the measured f 4m / n
//              shows it (n = 20,000, f = 12, L = 0.95: theory 12.63, measured 19.66 in 2^13
//              buckets, a factor 4 m L / n = 1.56).
// The FPR formula treats the 2b probed slots as independent draws. For f >= 7 it matches
// measurement to within 1%; for f = 4 .. 6 the measured FPR is 1-3% lower (measured with
// 30,000 keys at load 0.916 and 2 * 10^6 negatives), so there it is an upper bound.
// Sizing: --fpr eps gives f = ceil(log2(1/eps)) + ceil(log2(2b)) (the paper's and the AMQ survey's
// rule); --bits-per-key B gives f = floor(B * max_load); --max-load L gives the smallest power of
// two m with 4 m >= n / L (default L = 0.95). cuckoo8/12/16 fix f and ignore --fpr.
//
// Insert (CuckooInsert::kPaper, the paper's Algorithm 1) tries both buckets, then evicts a
// random fingerprint from a random one of the two and pushes it to its alternate bucket, up to
// max_kicks evictions. CuckooInsert::kSurvey is the rule of the AMQ survey's lab (filter name
// cuckoo_survey_insert): it tries bucket i1 only and, when i1 is full, evicts from i1 at once,
// so an insert whose i2 has room still costs a hop; the evicted fingerprint walks on as in the
// paper's rule. Both count one kick per eviction (the survey's "hops"). The rule is a template
// argument: lookups and erasures are the same code for both, and only insert branches on it,
// at compile time. Under either rule, when max_kicks evictions did not place the homeless
// fingerprint the evictions are undone in reverse, so the table is exactly as before and the
// new key is refused (insert returns false): a failed insert never loses an earlier key (the
// survey's lab raises instead and leaves the last evicted fingerprint out).
//
// Concurrent inserts (core/concurrent_insert.h), with lock striping as in MemC3 (B. Fan, D. G.
// Andersen, M. Kaminsky, "MemC3: Compact and Concurrent MemCache with Dumber Caching and Smarter
// Hashing", NSDI 2013) and libcuckoo. A lock guards each 64-byte region of the slot array, not a
// bucket: a slot's get() and set() are an 8-byte load and store from its first byte, so one
// bucket's update reads and rewrites bytes of its neighbours (a 12-bit bucket is 6 bytes), and
// a bucket locks the one or two regions that hold every byte its accesses touch. A key whose
// buckets have room is placed under the locks of both (ascending), as insert() places it. Else,
// as in MemC3, the eviction path is found first and then carried out backwards: the walk of
// Algorithm 1 is taken without writing (each bucket locked only while read) until a bucket has
// room; then, last step first, each fingerprint moves to its other bucket under the locks of
// both buckets, after checking that its slot still holds it and the destination still has room,
// and the first move's slot takes the new fingerprint. Every fingerprint is in one of its two
// buckets at every moment, so a path that another insert changed meanwhile (or that crosses a
// slot twice) is abandoned as it stands, its moves done being valid ones, and searched again. A
// key is refused when its walks meet max_kicks full buckets (moves of abandoned paths included)
// or after 16 abandoned paths, having lost no other key, with no undo; kicks_total counts the
// moves of accepted keys, as insert() does. Nothing serializes inserts but the region locks: the
// random choices come from a generator seeded by the key (rng_ and path_ are insert()'s), the
// counters are atomic adds, and only the first failure's load is recorded under a lock of its
// own. One thread's bytes equal insert()'s until the first eviction; then they differ (other
// random draws, and the walk reads the table unchanged where insert()'s sees its own writes).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "filters/bit_packed.h"
#include "filters/theory_formulas.h"
#include "core/batched.h"
#include "core/concurrent_insert.h"
#include "core/filter.h"
#include "core/stat_catalog.h"
#include "core/hashing.h"

namespace amq {

// Which insertion rule a Cuckoo filter follows (see the header comment).
enum class CuckooInsert { kPaper, kSurvey };

namespace cuckoo_detail {
constexpr std::string_view NameFor(int bits, int slots, CuckooInsert rule) {
  if (rule == CuckooInsert::kSurvey) return "cuckoo_survey_insert";
  if (slots == 2) return bits == 12 ? "cuckoo12_b2" : "cuckoo_b2";
  if (slots == 8) return bits == 12 ? "cuckoo12_b8" : "cuckoo_b8";
  switch (bits) {
    case 0: return "cuckoo";
    case 8: return "cuckoo8";
    case 12: return "cuckoo12";
    case 16: return "cuckoo16";
    default: return "cuckoo_fixed";
  }
}

// Partial-key cuckoo hashing, shared by every filter of the family that stores f-bit
// fingerprints in 2^p buckets (Cuckoo here, CuckooSemiSort in filters/cuckoo_semisort.h).
struct IndexFp {
  std::uint64_t index;
  std::uint64_t fp;
};

// Bucket from the hash's low bits, fingerprint from its high bits (ReduceRange reads the
// top), uniform over the nonzero values: independent as long as p + f <= 64.
inline IndexFp IndexAndFingerprint(std::uint64_t key, std::uint64_t spread_seed,
                                   std::uint64_t bucket_mask, int fingerprint_bits) {
  const std::uint64_t h = HashKey(key, spread_seed);
  return {h & bucket_mask, ReduceRange(h, (1ULL << fingerprint_bits) - 1) + 1};
}

// One multiply: the product's bits 32..63 depend on every bit of fp, and this sits on the
// critical path of every lookup (the second bucket's address waits for it).
inline std::uint64_t AltIndex(std::uint64_t index, std::uint64_t fp, std::uint64_t bucket_mask) {
  const std::uint64_t offset = ((fp * 0x9e3779b97f4a7c15ULL) >> 32) & bucket_mask;
  return index ^ (offset ? offset : 1);
}

// The eviction walk of the paper's Algorithm 1, for any bucket layout: from `bucket` (full),
// up to max_kicks times put the homeless fingerprint at a random position of the bucket, take
// the one it displaces to that one's other bucket, and stop when it fits there.
//   swap_in(bucket, position, fp) -> the fingerprint displaced (the layout remembers what
//                                    undo needs),
//   try_place(bucket, fp)         -> true when the bucket had room and now holds fp,
//   undo()                        -> every swap_in of this walk reversed, last first.
// Returns the kicks the insert took, or 0 when it failed: then undo() has run, the table is as
// before and the new fingerprint is dropped, so a failed insert never loses an earlier key.
template <int kSlotsPerBucket, class SwapIn, class TryPlace, class Undo>
int EvictionWalk(std::uint64_t bucket, std::uint64_t fp, int max_kicks, std::uint64_t bucket_mask,
                 XorShift64Star& rng, SwapIn swap_in, TryPlace try_place, Undo undo) {
  std::uint64_t homeless = fp;
  for (int kick = 1; kick <= max_kicks; ++kick) {
    const int position = static_cast<int>(rng.Next() & (kSlotsPerBucket - 1));
    homeless = swap_in(bucket, position, homeless);
    bucket = AltIndex(bucket, homeless, bucket_mask);
    if (try_place(bucket, homeless)) return kick;
  }
  undo();
  return 0;
}

// The statistics every evicting filter of the family reports, declared once.
inline constexpr StatSpec kBucketsStat{"buckets", "integer", "buckets",
                                       "cuckoo: bucket count m (a power of two)"};
inline constexpr StatSpec kKicksMaxStat{"kicks_max", "integer", "count",
                                        "cuckoo: most evictions one insert needed"};
inline constexpr StatSpec kKicksPerInsertStat{"kicks_per_insert", "number", "count",
                                              "cuckoo: kicks_total / successful inserts"};
inline constexpr StatSpec kKicksHistogramStat{
    "kicks_histogram", "object", "inserts",
    "cuckoo: inserts by evictions needed, bins 0, 1, 2, 3-4, 5-8, ... (empty bins left out)"};
inline constexpr StatSpec kFirstFailureLoadStat{
    "first_failure_load", "number|null", "fraction",
    "cuckoo: load factor when the first insert failed, or null"};

// Keys held, inserts placed and refused, and the kicks they took.
class KickLog {
 public:
  bool Placed(int kicks) {
    ++stored_;
    ++inserts_;
    kicks_total_ += kicks;
    kicks_max_ = std::max<std::uint64_t>(kicks_max_, kicks);
    ++histogram_[HistogramBin(kicks)];
    return true;
  }
  bool Refused(double load) {
    ++insert_failures_;
    if (!first_failure_load_) first_failure_load_ = load;
    return false;
  }
  void Erased() { --stored_; }

  // The same records from insert_concurrent on several threads: relaxed atomic adds, and a
  // compare-exchange for the maximum.
  bool PlacedConcurrent(int kicks) {
    AtomicAdd<std::uint64_t>(stored_, 1);
    AtomicAdd<std::uint64_t>(inserts_, 1);
    AtomicAdd<std::uint64_t>(histogram_[HistogramBin(kicks)], 1);
    if (kicks == 0) return true;
    AtomicAdd<std::uint64_t>(kicks_total_, kicks);
    std::atomic_ref<std::uint64_t> max(kicks_max_);
    std::uint64_t seen = max.load(std::memory_order_relaxed);
    while (seen < static_cast<std::uint64_t>(kicks) &&
           !max.compare_exchange_weak(seen, kicks, std::memory_order_relaxed)) {
    }
    return true;
  }
  // The caller serializes these (first_failure_load_ is a plain optional) but not PlacedConcurrent.
  bool RefusedConcurrent(std::uint64_t slots) {
    ++insert_failures_;
    if (!first_failure_load_) {
      const std::uint64_t stored =
          std::atomic_ref<std::uint64_t>(stored_).load(std::memory_order_relaxed);
      first_failure_load_ = static_cast<double>(stored) / slots;
    }
    return false;
  }

  std::uint64_t stored() const { return stored_; }
  std::uint64_t insert_failures() const { return insert_failures_; }

  // stat::kKicksTotal and the four from kKicksMaxStat on.
  void add_stats(Stats& s) const {
    s.put("kicks_total", kicks_total_);
    s.put("kicks_max", kicks_max_);
    s.put("kicks_per_insert", inserts_ ? static_cast<double>(kicks_total_) / inserts_ : 0.0);
    StatValue::Counts histogram;
    for (std::size_t b = 0; b < histogram_.size(); ++b) {
      if (histogram_[b]) histogram.emplace_back(HistogramLabel(b), histogram_[b]);
    }
    s.put("kicks_histogram", histogram);
    s.put("first_failure_load", first_failure_load_);
  }

 private:
  // Histogram bins: 0, 1, 2, 3-4, 5-8, 9-16, ... (powers of two).
  static std::size_t HistogramBin(int kicks) {
    return kicks == 0 ? 0 : 1 + static_cast<std::size_t>(std::bit_width(static_cast<unsigned>(kicks - 1)));
  }
  static std::string HistogramLabel(std::size_t bin) {
    if (bin <= 2) return std::to_string(bin);
    const unsigned lo = (1u << (bin - 2)) + 1, hi = 1u << (bin - 1);
    return std::to_string(lo) + "-" + std::to_string(hi);
  }

  std::uint64_t stored_ = 0;
  std::uint64_t inserts_ = 0;
  std::uint64_t kicks_total_ = 0;
  std::uint64_t kicks_max_ = 0;
  std::array<std::uint64_t, 24> histogram_{};
  std::uint64_t insert_failures_ = 0;
  std::optional<double> first_failure_load_;
};
}  // namespace cuckoo_detail

// kFixedBits = 0: the fingerprint width comes from FilterParams at run time (4 .. 32 bits).
// kSlots: slots per bucket, b. The paper's and the AMQ survey's filter has b = 4; b = 2 and 8 exist
// to set kicks against load beside the load thresholds known for two-choice cuckoo hashing with
// buckets of b slots (the cuckoo_load experiment): about 0.897 for b = 2, 0.980 for b = 4 and
// above 0.99 for b = 8 (Cain, Sanders and Wormald, SODA 2007; Fernholz and Ramachandran, SODA
// 2007). Space and FPR change with b as the formulas below say (2b slots are compared).
// kRule: the insertion rule; kSurvey exists as the FPR-sized b = 4 filter only (the survey's
// lab), so its one name stays unique.
template <int kFixedBits, int kSlots = 4, CuckooInsert kRule = CuckooInsert::kPaper>
class Cuckoo {
  static_assert(kFixedBits == 0 || (kFixedBits >= 4 && kFixedBits <= 32));
  static_assert(kSlots == 2 || kSlots == 4 || kSlots == 8);
  static_assert(kRule == CuckooInsert::kPaper || (kFixedBits == 0 && kSlots == 4));

 public:
  static constexpr int kSlotsPerBucket = kSlots;
  static constexpr double kDefaultMaxLoad = 0.95;
  static constexpr std::size_t kLookupAhead = 16;  // contains_many: keys prefetched ahead
  static constexpr std::string_view kName = cuckoo_detail::NameFor(kFixedBits, kSlots, kRule);
  // The width is part of the type (cuckoo12, xor8): --fpr does not change the filter.
  static constexpr bool kFixedWidth = kFixedBits != 0;
  // The survey's rule is a family of its own, so the family selectors of the suites (cuckoo
  // beside bloom, xor, ...) keep measuring the paper's filter alone.
  static constexpr std::string_view kFamily = kRule == CuckooInsert::kSurvey ? "cuckoo_survey" : "cuckoo";
  static constexpr std::string_view kParameters =
      kRule == CuckooInsert::kSurvey
          ? "the AMQ survey's insert (i1 only, then evict from i1); --fpr eps: f = ceil(log2(1/eps)) + 3; "
            "--bits-per-key B: f = floor(B*L); f in 4..32; --max-load L (default 0.95): buckets = smallest 2^p >= n/(4L)"
      : kFixedBits ? "fixed f, b slots per bucket; --max-load L (default 0.95): buckets = smallest 2^p with b*2^p >= n/L"
                   : "--fpr eps: f = ceil(log2(1/eps)) + 3; --bits-per-key B: f = floor(B*L); "
                     "f in 4..32; --max-load L (default 0.95): buckets = smallest 2^p >= n/(4L)";

  static double MaxLoadOf(const FilterParams& p) {
    return p.max_load > 0 ? p.max_load : kDefaultMaxLoad;
  }

  static int FingerprintBitsFor(const FilterParams& p) {
    if constexpr (kFixedBits != 0) {
      return kFixedBits;
    } else {
      const int f = p.bits_per_key > 0
                        ? static_cast<int>(std::floor(p.bits_per_key * MaxLoadOf(p)))
                        : CuckooFingerprintBitsFor(p.fpr_or_default(), kSlotsPerBucket);
      return std::clamp(f, 4, 32);
    }
  }

  // The smallest power of two m (at least 2: two distinct candidate buckets) with b m >= n / L.
  static std::uint64_t BucketsFor(const FilterParams& p) {
    return CuckooBucketsFor(static_cast<double>(p.capacity), MaxLoadOf(p), kSlotsPerBucket, 2);
  }

  explicit Cuckoo(const FilterParams& p) : Cuckoo(p, BucketsFor(p)) {}

  // The bucket count given directly (a power of two, at least 2) instead of BucketsFor(p): the
  // tests' way to mis-size a table on purpose. Everything else, theory() included, follows p.
  Cuckoo(const FilterParams& p, std::uint64_t buckets)
      : fingerprint_bits_(FingerprintBitsFor(p)),
        max_load_(MaxLoadOf(p)),
        seed_(SpreadSeed(p.seed)),
        max_kicks_(p.max_kicks),
        rng_(p.seed ^ 0x6b69636bULL) {
    if (buckets < 2 || !std::has_single_bit(buckets)) {
      throw std::invalid_argument("cuckoo: buckets must be a power of two >= 2");
    }
    bucket_mask_ = buckets - 1;
    slots_ = Slots(buckets * kSlotsPerBucket, fingerprint_bits_);
  }

  bool insert(std::uint64_t key) {
    const auto [i1, fp] = IndexAndFingerprint(key);
    std::uint64_t bucket = i1;  // where the first eviction happens
    if constexpr (kRule == CuckooInsert::kPaper) {
      const std::uint64_t i2 = AltIndex(i1, fp);
      if (TryPlace(i1, fp) || TryPlace(i2, fp)) return log_.Placed(0);
      bucket = (rng_.Next() & 1) ? i1 : i2;
    } else {
      if (TryPlace(i1, fp)) return log_.Placed(0);  // i2 is not tried: the survey's rule
    }

    // Walk an eviction chain, remembering each slot's previous fingerprint for the undo.
    path_.clear();
    const int kicks = cuckoo_detail::EvictionWalk<kSlotsPerBucket>(
        bucket, fp, max_kicks_, bucket_mask_, rng_,
        [this](std::uint64_t b, int position, std::uint64_t homeless) {
          const std::uint64_t slot = b * kSlotsPerBucket + position;
          const std::uint64_t evicted = slots_.get(slot);
          slots_.set(slot, homeless);
          path_.push_back({slot, evicted});
          return evicted;
        },
        [this](std::uint64_t b, std::uint64_t homeless) { return TryPlace(b, homeless); },
        [this] {
          for (auto it = path_.rbegin(); it != path_.rend(); ++it) slots_.set(it->slot, it->previous);
        });
    return kicks > 0 ? log_.Placed(kicks) : log_.Refused(load_factor());
  }

  // The concurrent mode (see the header comment): a lock per 64-byte region of the slot array,
  // and the last one for the first failure's record.
  std::size_t insert_lock_count() const { return FailureLock() + 1; }

  // insert(key) on any number of threads at once, with the same locks and no other member call
  // overlapping. At most max_kicks moves per key, as in insert(), over all its paths: refused
  // when a walk meets that many full buckets, or after kMaxPathAttempts abandoned paths (changed
  // by other inserts before this one could carry them out, or crossing a slot twice).
  bool insert_concurrent(std::uint64_t key, InsertLocks& locks) {
    const auto [i1, fp] = IndexAndFingerprint(key);
    const std::uint64_t i2 = AltIndex(i1, fp);
    XorShift64Star rng(key ^ seed_);
    std::vector<Eviction> path;  // Eviction::previous: the fingerprint the walk read there
    int kicks = 0;
    for (int attempt = 0; attempt < kMaxPathAttempts; ++attempt) {
      if (PlaceConcurrent(i1, i2, fp, locks)) return log_.PlacedConcurrent(kicks);
      std::uint64_t bucket = i1;
      if constexpr (kRule == CuckooInsert::kPaper) bucket = (rng.Next() & 1) ? i1 : i2;
      const std::optional<std::uint64_t> room =
          FindPath(bucket, max_kicks_ - kicks, rng, path, locks);
      if (!room) break;
      const MovedPath moved = MovePath(path, *room, fp, locks);
      kicks += moved.moves;
      if (moved.placed) return log_.PlacedConcurrent(kicks);
    }
    locks.lock(FailureLock());
    log_.RefusedConcurrent(slots_.size());
    locks.unlock(FailureLock());
    return false;
  }

  // Both buckets are read and compared before either answer is used: no branch on the first
  // bucket, whose outcome is unpredictable for present keys (a key sits in either bucket).
  bool contains(std::uint64_t key) const {
    const auto [i1, fp] = IndexAndFingerprint(key);
    return (BucketMatches(i1, fp) | BucketMatches(AltIndex(i1, fp), fp)) != 0;
  }

  // Both buckets of a key prefetched kLookupAhead keys before they are compared: the pipeline
  // of core/batched.h, which the other families' batched lookups use too.
  std::size_t contains_many(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
    return PipelinedContains<kLookupAhead>(
        keys, out,
        [this](std::uint64_t key) {
          const IndexFp first = IndexAndFingerprint(key);
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

  std::size_t size_in_bytes() const { return slots_.size_in_bytes(); }
  std::span<const std::uint8_t> bytes() const { return {slots_.data(), slots_.size_in_bytes()}; }
  std::uint64_t insert_failures() const { return log_.insert_failures(); }  // inserts refused
  double load_factor() const { return static_cast<double>(log_.stored()) / slots_.size(); }
  int fingerprint_bits() const { return fingerprint_bits_; }
  std::uint64_t buckets() const { return bucket_mask_ + 1; }

  Theory theory() const {
    // f / L at the requested load, not f / alpha.
    return {CuckooFpr(fingerprint_bits_, load_factor(), kSlotsPerBucket),
            TableBitsPerKey(fingerprint_bits_, max_load_)};
  }

  // The statistics add_stats reports (core/filter.h).
  static constexpr StatSpec kStats[] = {
      stat::kFingerprintBits,         cuckoo_detail::kBucketsStat,
      stat::kSlotsPerBucket,          stat::kKicksTotal,
      cuckoo_detail::kKicksMaxStat,   cuckoo_detail::kKicksPerInsertStat,
      cuckoo_detail::kKicksHistogramStat, cuckoo_detail::kFirstFailureLoadStat};

  void add_stats(Stats& s) const {
    s.put("fingerprint_bits", fingerprint_bits_);
    s.put("buckets", buckets());
    s.put("slots_per_bucket", kSlotsPerBucket);
    log_.add_stats(s);
  }

 private:
  using Slots = BitPackedArray<kFixedBits>;
  struct Eviction {
    std::uint64_t slot;
    std::uint64_t previous;
  };
  using IndexFp = cuckoo_detail::IndexFp;
  struct CandidateBuckets {
    std::uint64_t first;
    std::uint64_t second;
    std::uint64_t fp;
  };

  IndexFp IndexAndFingerprint(std::uint64_t key) const {
    return cuckoo_detail::IndexAndFingerprint(key, seed_, bucket_mask_, Width());
  }
  std::uint64_t AltIndex(std::uint64_t index, std::uint64_t fp) const {
    return cuckoo_detail::AltIndex(index, fp, bucket_mask_);
  }

  // Nonzero when the bucket holds fp. A bucket that one unaligned 64-bit load covers (b f bits
  // plus its start's offset in its byte) is compared at once with the "has a zero lane" trick
  // on bucket XOR (fp in every lane): (x - low) & ~x & high flags a lane only if some lane at
  // or below it is zero, so the word is nonzero exactly when some lane equals fp. A fixed
  // width makes every shift and mask a constant.
  std::uint64_t BucketMatches(std::uint64_t bucket, std::uint64_t fp) const {
    const int f = Width();
    const int bits = kSlotsPerBucket * f;
    const std::uint64_t base = bucket * kSlotsPerBucket;
    if (BucketInOneLoad(bits)) {
      const std::uint64_t lane_low = LaneLowBits(f);
      const std::uint64_t lanes = bits == 64 ? ~0ULL : (1ULL << bits) - 1;
      std::uint64_t bucket_bits;
      if constexpr (kThirtyTwoBitBuckets) {
        // A 4-byte load of the 4-byte-aligned bucket, never the 8 bytes that run over the line
        // for the last bucket of each line.
        std::uint32_t word;
        std::memcpy(&word, slots_.data() + base * f / 8, sizeof word);
        bucket_bits = word;
      } else {
        bucket_bits = slots_.get_bits(base * f, bits);
      }
      const std::uint64_t x = bucket_bits ^ (fp * lane_low);
      return ((x - lane_low) & ~x & (lane_low << (f - 1))) & lanes;
    }
    std::uint64_t found = 0;
    for (int s = 0; s < kSlotsPerBucket; ++s) found |= slots_.get(base + s) == fp ? 1 : 0;
    return found;
  }

  // Fixed 32-bit buckets (four 8-bit fingerprints, cuckoo8): read with a 4-byte load.
  static constexpr bool kThirtyTwoBitBuckets = kFixedBits > 0 && kSlotsPerBucket * kFixedBits == 32;

  // Whether one 8-byte load from a bucket's first byte holds all its `bits` bits. A start is a
  // multiple of bits, so its in-byte offset is a multiple of bits' lowest set bit: at most 8
  // minus that bit, or 0 when bits is a multiple of 8. (Not std::gcd: GCC leaves its loop in
  // the lookup even when both operands are constants.)
  static constexpr bool BucketInOneLoad(int bits) {
    const int lowest_bit = bits & -bits;
    return bits + (lowest_bit >= 8 ? 0 : 8 - lowest_bit) <= 64;
  }

  // The lines BucketMatches reads: the bucket's first byte's, and the line of the last byte its
  // 8-byte loads touch, which is the next line when a load runs over the line's end (with
  // 12-bit fingerprints a 6-byte bucket at any even offset: its load crosses at offsets 58, 60
  // and 62, 3 buckets in 32). Without the second prefetch such a load waited for its second line
  // unannounced: cuckoo12's batched lookups at n = 2^26 (portable) took 29.2-31.1 ns a key,
  // with it 22.3-24.0 (an ad-hoc A/B of both versions in one process, 3 rounds each, members and
  // non-members, 2026-12-04). When both bytes share a line the second prefetch costs an
  // instruction and nothing else.
  void PrefetchBucket(std::uint64_t bucket) const {
    const int f = Width();
    const std::uint64_t base = bucket * kSlotsPerBucket;
    const std::uint64_t last_load = BucketInOneLoad(kSlotsPerBucket * f) ? base * f : (base + kSlotsPerBucket - 1) * f;
    __builtin_prefetch(slots_.data() + base * f / 8);
    // Buckets of whole 64-bit words (cuckoo16) start 8-byte aligned, and 32-bit ones (cuckoo8)
    // are read by a 4-byte load: neither's load crosses a line.
    if constexpr (kFixedBits == 0 || ((kSlotsPerBucket * kFixedBits) % 64 != 0 && !kThirtyTwoBitBuckets)) {
      __builtin_prefetch(slots_.data() + last_load / 8 + 7);
    }
  }

  int Width() const { return kFixedBits ? kFixedBits : fingerprint_bits_; }

  // A one in the lowest bit of each of the b lanes of f bits.
  static constexpr std::uint64_t LaneLowBits(int f) {
    std::uint64_t low = 0;
    for (int s = 0; s < kSlotsPerBucket; ++s) low |= 1ULL << (s * f);
    return low;
  }

  bool TryPlace(std::uint64_t bucket, std::uint64_t fp) {
    const std::uint64_t base = bucket * kSlotsPerBucket;
    for (int s = 0; s < kSlotsPerBucket; ++s) {
      if (slots_.get(base + s) == 0) {
        slots_.set(base + s, fp);
        return true;
      }
    }
    return false;
  }

  // The concurrent mode's locks. Region r holds bytes [64 r, 64 r + 64) of the slot array. A
  // get() or set() of slot i loads or stores the 8 bytes from byte i f / 8, so a bucket's
  // accesses touch the bytes from its first slot's first byte to its last slot's first byte + 7:
  // at most 7 * 32 / 8 + 8 = 36 bytes, in one region or two.
  static constexpr int kRegionShift = 6;
  static constexpr int kMaxPathAttempts = 16;

  std::array<std::size_t, 2> RegionsOf(std::uint64_t bucket) const {
    const std::uint64_t first_slot = bucket * kSlotsPerBucket;
    const std::uint64_t last_slot = first_slot + kSlotsPerBucket - 1;
    return {static_cast<std::size_t>((first_slot * Width() / 8) >> kRegionShift),
            static_cast<std::size_t>((last_slot * Width() / 8 + 7) >> kRegionShift)};
  }
  std::size_t FailureLock() const { return RegionsOf(bucket_mask_)[1] + 1; }

  // The regions of kBuckets buckets, locked in ascending order while it lives.
  template <std::size_t kBuckets>
  class HeldBuckets {
   public:
    HeldBuckets(const Cuckoo& filter, InsertLocks& locks,
                std::array<std::uint64_t, kBuckets> buckets)
        : locks_(locks) {
      for (std::size_t i = 0; i < kBuckets; ++i) {
        const auto r = filter.RegionsOf(buckets[i]);
        regions_[2 * i] = r[0];
        regions_[2 * i + 1] = r[1];
      }
      locks_.LockAscending(regions_);
    }
    ~HeldBuckets() { locks_.Unlock(regions_); }
    HeldBuckets(const HeldBuckets&) = delete;
    HeldBuckets& operator=(const HeldBuckets&) = delete;

   private:
    InsertLocks& locks_;
    std::array<std::size_t, 2 * kBuckets> regions_;
  };

  // insert()'s placement without a kick, under the locks of the buckets it reads.
  bool PlaceConcurrent(std::uint64_t i1, std::uint64_t i2, std::uint64_t fp, InsertLocks& locks) {
    if constexpr (kRule == CuckooInsert::kPaper) {
      const HeldBuckets<2> held(*this, locks, {i1, i2});
      return TryPlace(i1, fp) || TryPlace(i2, fp);
    } else {
      const HeldBuckets<1> held(*this, locks, {i1});
      return TryPlace(i1, fp);
    }
  }

  bool HasRoom(std::uint64_t bucket) const {
    const std::uint64_t base = bucket * kSlotsPerBucket;
    for (int s = 0; s < kSlotsPerBucket; ++s) {
      if (slots_.get(base + s) == 0) return true;
    }
    return false;
  }

  // The eviction walk without its writes: from `bucket`, a random slot's fingerprint leads to its
  // other bucket, until a bucket has room (returned; `path` holds the slots walked through and
  // what they held) or `budget` slots are on the path (nullopt). One bucket locked at a time.
  std::optional<std::uint64_t> FindPath(std::uint64_t bucket, int budget, XorShift64Star& rng,
                                        std::vector<Eviction>& path, InsertLocks& locks) const {
    path.clear();
    for (;;) {
      std::uint64_t slot = 0, fp = 0;
      {
        const HeldBuckets<1> held(*this, locks, {bucket});
        if (HasRoom(bucket)) return bucket;
        if (path.size() >= static_cast<std::size_t>(std::max(budget, 0))) return std::nullopt;
        slot = bucket * kSlotsPerBucket + (rng.Next() & (kSlotsPerBucket - 1));
        fp = slots_.get(slot);
      }
      path.push_back({slot, fp});
      bucket = AltIndex(bucket, fp);
    }
  }

  struct MovedPath {
    int moves;
    bool placed;  // fp is in the table
  };

  // Carries out FindPath's path backwards: the last fingerprint moves into `room`, the one
  // before it into the slot just emptied, and so on, and fp into the first slot. A move checks,
  // under both buckets' locks, that the slot still holds the fingerprint the walk read and that
  // the destination has room; when another insert (or this path's own earlier move, where it
  // crosses a slot twice) has changed either, the path stops there, every fingerprint still in
  // one of its two buckets.
  MovedPath MovePath(const std::vector<Eviction>& path, std::uint64_t room, std::uint64_t fp,
                     InsertLocks& locks) {
    if (path.empty()) {
      const HeldBuckets<1> held(*this, locks, {room});
      return {0, TryPlace(room, fp)};
    }
    std::uint64_t to = room;
    int moves = 0;
    for (std::size_t j = path.size(); j-- > 0;) {
      const std::uint64_t from = path[j].slot / kSlotsPerBucket;
      const HeldBuckets<2> held(*this, locks, {from, to});
      const std::uint64_t moving = path[j].previous;
      if (slots_.get(path[j].slot) != moving || !TryPlace(to, moving)) return {moves, false};
      slots_.set(path[j].slot, j == 0 ? fp : 0);
      ++moves;
      to = from;
    }
    return {moves, true};
  }

  bool EraseFrom(std::uint64_t bucket, std::uint64_t fp) {
    const std::uint64_t base = bucket * kSlotsPerBucket;
    for (int s = 0; s < kSlotsPerBucket; ++s) {
      if (slots_.get(base + s) == fp) {
        slots_.set(base + s, 0);
        return true;
      }
    }
    return false;
  }

  int fingerprint_bits_;
  double max_load_;
  std::uint64_t seed_;
  int max_kicks_;
  XorShift64Star rng_;
  std::uint64_t bucket_mask_ = 1;
  Slots slots_;
  std::vector<Eviction> path_;
  cuckoo_detail::KickLog log_;
};

}  // namespace amq
