// filters/gcs.h - Golomb-compressed set (F. Putze, P. Sanders, J. Singler, "Cache-, Hash- and
// Space-Efficient Bloom Filters", ACM Journal of Experimental Algorithmics 14, 2009: the
// Golomb-compressed sequence, their alternative to a Bloom filter for static sets).
//
// Idea: hash the n keys to [0, U) with U about n/eps, sort the hashes, and store the gaps
// between neighbours. A gap is close to geometric with rate p = n/U, so a Golomb code with a
// power-of-two parameter 2^k (a Rice code: the quotient floor(gap / 2^k) in unary, the k low
// bits verbatim) stores it in about log2(1/eps) + 1.5 bits, against the log2(1/eps) + log2(e)
// = log2(1/eps) + 1.44 that a geometric gap's entropy needs and the 1.44 log2(1/eps) of a
// Bloom filter. A lookup hashes the key and decodes gaps until it reaches or passes the hash.
//
// Layout (the block size and the index):
//   buckets  B = max(1, ceil(n / 32)) buckets of W = ceil(32 / eps) hash values each, so
//            U = B W >= n / eps and 32 keys fall in a bucket on average. A key's hash h gives
//            bucket b = floor(h B / 2^64) and, from the low 64 bits of h B, its offset
//            o = floor(lo(h B) W / 2^64) in the bucket (two multiplications, no division);
//            its value is b W + o.
//   stream   bucket after bucket, the offsets of its keys in ascending order as Rice-coded
//            gaps, the first from 0: the quotient as that many 0 bits and a 1 bit, then the k
//            remainder bits, least significant bit first in little-endian bytes. Equal values
//            (keys whose hashes collide) are kept, as gaps of 0, so every key is one code.
//   index    the bit offset in the stream where each bucket starts, for buckets 0 .. B (the
//            last is the stream's end), in groups of G = 32 buckets: a 64-bit base per group
//            (its first bucket's offset) and, per bucket, a w-bit offset from its group's base.
//            A lookup reads its bucket's start and the next bucket's, and decodes only that
//            block: 16 codes on average for a non-key, every code of a bucket at most.
//   Rice k   the k with the fewest expected bits per code at p = eps (theory_formulas.h
//            GcsRiceBitsFor): 7 at eps = 2^-8 (FastFilter's GCS uses 7 there as well), 6 at 1%.
//   offsets  w = ceil(log2(1.5 G 32 c)) bits, c the expected bits per code: room for a group's
//            first G - 1 buckets to take 1.5 times the bits a group of G buckets takes on
//            average (1024 keys, so 1.5 times is ~16 standard deviations away). A group that
//            does not fit fails the attempt, which is retried with the next seed of the static
//            filters' schedule (filters/static_common.h). A repeated key is stored as a gap of
//            0, like a hash collision; when repeats overflow a group, the keys are made
//            distinct after that first failure, as the XOR filter does. BuildFailed after 100
//            attempts.
//
// Theory, n keys, gap rate p = n/U (= eps up to the rounding of B and W), L = 2^k,
// q = e^(-p L) (the chance that L values in a row hold no key):
//   FPR       = 1 - (1 - 1/U)^n ~= n/U <= eps: a non-key's value is uniform in [0, U) and
//               matches when it equals one of the stored values (hash collisions among the
//               keys counted once).
//   code bits = k + 1 + q/(1 - q) per key for one long sequence of geometric gaps (the unary
//               quotient is geometric with ratio q), log2(1/eps) + 1.5 .. 1.6 at the best k.
//               In buckets the gap past each bucket's last key is never coded, which saves
//               about (p L / 32) q/(1 - q)^2 per key: k + 1 + q/(1 - q) - (p L/32) q/(1 - q)^2,
//               9.483 at eps = 2^-8 (k = 7) instead of 9.541, 8.074 at 1% (k = 6). The exact
//               expectation is a sum over the quotient's values (theory_formulas.h
//               GcsUnaryBitsPerBucket); its spread is GcsCodeBitsSd, about 0.45 sqrt(n) bits.
//   index     w/32 + 64/(32 G) = w/32 + 1/16 bits per key (0.5 at eps = 2^-8, where w = 14).
//   bits/key  = code bits + w/32 + 1/16: 9.98 at eps = 2^-8, 8.57 at 1%. theory() reports it
//               at p = eps (GcsBitsPerKey); the measured size adds the rounding of B and W
//               (p = n/U at most eps), the stream's last byte and the index's last group.
// Sizing: --fpr eps (default 1%), 2^-32 <= eps < 1; --bits-per-key is refused (the size
// follows from eps). Keys must leave U = B W below 2^64 (about 2^32 keys at eps = 2^-32).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "filters/static_common.h"
#include "filters/theory_formulas.h"
#include "core/filter.h"
#include "core/hashing.h"
#include "core/stat_catalog.h"

namespace amq {

class Gcs {
  static_assert(std::endian::native == std::endian::little, "the stream is read as little-endian words");

 public:
  static constexpr std::string_view kName = "gcs";
  static constexpr std::string_view kFamily = "gcs";
  // Micro-benchmarked at FastFilter's GCS configuration (eps = 2^-8, Rice k = 7), so the two
  // decode codes of the same length. harness/cell/micro_size.h.
  static constexpr double kMicroTargetFpr = 1.0 / 256;
  static constexpr std::string_view kParameters =
      "--fpr eps (2^-32 .. <1): B = max(1, ceil(n/32)) buckets of ceil(32/eps) hash values; Rice k "
      "minimising k + 1/(1 - (1-eps)^2^k); bucket offsets in groups of 32, ceil(log2(1.5*1024*c)) "
      "bits each; --bits-per-key refused";

  // What eps fixes before any key is seen.
  struct Geometry {
    double fpr = 0.01;     // the target eps
    int rice_bits = 0;     // k
    int offset_bits = 0;   // w
  };

  static Geometry GeometryFor(const FilterParams& p) {
    if (p.bits_per_key > 0) {
      throw std::invalid_argument("gcs: sized by --fpr only (its bits/key follow from eps)");
    }
    // 0 means "not given" (the default 1%); anything else must be a usable eps (not NaN).
    const double eps = p.target_fpr == 0 ? p.fpr_or_default() : p.target_fpr;
    if (!(eps >= std::ldexp(1.0, -32) && eps < 1.0)) {
      throw std::invalid_argument("gcs: --fpr must lie in [2^-32, 1), got " + std::to_string(eps));
    }
    Geometry g;
    g.fpr = eps;
    g.rice_bits = GcsRiceBitsFor(eps);
    g.offset_bits = GcsOffsetBitsFor(GcsCodeBitsPerKey(eps, g.rice_bits, kGcsKeysPerBucket / eps));
    return g;
  }

  static Gcs build(std::span<const std::uint64_t> keys, const FilterParams& p) {
    return build(keys, p, StaticBuildOptions{});
  }

  // options.max_attempts bounds the retries; options.slots_override has no meaning here.
  static Gcs build(std::span<const std::uint64_t> keys, const FilterParams& p,
                   const StaticBuildOptions& options) {
    Gcs f;
    f.geometry_ = GeometryFor(p);
    std::vector<std::uint64_t> distinct;
    for (int attempt = 0; attempt < options.max_attempts; ++attempt) {
      f.seed_ = static_detail::AttemptSeed(p.seed, attempt);
      f.attempts_ = attempt + 1;
      if (f.Encode(keys)) return f;
      if (attempt == 0 && distinct.empty()) {
        distinct = static_detail::DistinctKeys(keys);
        f.duplicates_ = keys.size() - distinct.size();
        if (f.duplicates_ > 0) keys = distinct;
      }
    }
    throw BuildFailed("gcs: a group of buckets overflowed its " +
                      std::to_string(f.geometry_.offset_bits) + "-bit offsets " +
                      std::to_string(options.max_attempts) + " times for " +
                      std::to_string(keys.size()) + " keys");
  }

  // Offsets ascend within the bucket: decode until the first one that reaches the key's. Every
  // code that lies whole in the 57-bit window loaded at pos is decoded from that one register:
  // from one code to the next the chain is a trailing-zero count and a shift, where a load per
  // code (contains_code_by_code) put a load's latency on it too. A code that crosses the window
  // reloads it at the code; one longer than a window (LongGap) is read apart.
  bool contains(std::uint64_t key) const {
    const Located l = Locate(key);
    std::uint64_t pos = BucketStart(l.bucket);
    const std::uint64_t end = BucketStart(l.bucket + 1);
    const int k = geometry_.rice_bits;
    const std::uint64_t remainder_mask = RemainderMask();
    std::uint64_t value = 0;
    while (pos < end) {
      std::uint64_t window = Window(pos);
      std::uint64_t at = pos;  // where the next code starts
      for (;;) {
        if (at >= end) return false;
        const int quotient = window != 0 ? std::countr_zero(window) : 64;
        const std::uint64_t length = static_cast<std::uint64_t>(quotient + 1 + k);
        if (at - pos + length > kWindowBits) break;
        value += (static_cast<std::uint64_t>(quotient) << k) | ((window >> (quotient + 1)) & remainder_mask);
        if (value >= l.offset) return value == l.offset;
        window >>= length;
        at += length;
      }
      if (at == pos) {
        value += LongGap(at);
        if (value >= l.offset) return value == l.offset;
      }
      pos = at;
    }
    return false;
  }

  // The same answer one code and one load at a time: the reference the windowed decoding is
  // tested against (gcs_test.cc).
  bool contains_code_by_code(std::uint64_t key) const {
    const Located l = Locate(key);
    std::uint64_t pos = BucketStart(l.bucket);
    const std::uint64_t end = BucketStart(l.bucket + 1);
    std::uint64_t value = 0;
    while (pos < end) {
      value += NextGap(pos);
      if (value >= l.offset) return value == l.offset;
    }
    return false;
  }

  std::size_t size_in_bytes() const { return storage_.size() - kPadBytes; }
  std::span<const std::uint8_t> bytes() const { return {storage_.data(), size_in_bytes()}; }

  Theory theory() const {
    if (keys_ == 0) return {0.0, 0.0};
    return {GcsFpr(static_cast<double>(keys_), static_cast<double>(HashRange())),
            GcsBitsPerKey(geometry_.fpr)};
  }

  int rice_bits() const { return geometry_.rice_bits; }
  int offset_bits() const { return geometry_.offset_bits; }
  std::uint64_t buckets() const { return buckets_; }
  std::uint64_t bucket_width() const { return width_; }
  std::uint64_t hash_range() const { return HashRange(); }
  std::size_t keys() const { return keys_; }
  std::uint64_t code_bits() const { return code_bits_; }  // the stream, unrounded
  std::size_t index_bytes() const { return stream_byte_; }
  int build_attempts() const { return attempts_; }

  // The stream's expected bits per key for the geometry built: gap rate p = n/U, buckets of W.
  double code_bits_per_key_expected() const {
    return keys_ ? GcsCodeBitsPerKey(GapRate(), geometry_.rice_bits, static_cast<double>(width_)) : 0.0;
  }
  // Its standard deviation, in bits of the whole stream (theory_formulas.h GcsCodeBitsSd).
  double code_bits_sd() const {
    return keys_ ? GcsCodeBitsSd(static_cast<double>(keys_), static_cast<double>(buckets_), GapRate(),
                                 geometry_.rice_bits)
                 : 0.0;
  }

  static constexpr StatSpec kStats[] = {
      stat::kBuildAttempts,
      stat::kDuplicatesRemoved,
      {"rice_bits", "integer", "bits", "gcs: Rice parameter k, remainder bits per gap"},
      {"offset_bits", "integer", "bits", "gcs: w, bits per bucket offset in the index"},
      {"gcs_buckets", "integer", "buckets", "gcs: B = max(1, ceil(n/32)) buckets, each decoded whole at most"},
      {"hash_range", "number", "values", "gcs: U = B ceil(32/eps), the range the keys hash to"},
      {"code_bits_per_key", "number", "bits/key", "gcs: Rice-coded gaps (the stream) per key, measured"},
      {"code_bits_per_key_expected", "number", "bits/key",
       "gcs: the stream's expected bits per key at gap rate n/U in buckets of W values"},
      {"code_bits_per_key_sd", "number", "bits/key",
       "gcs: standard deviation of code_bits_per_key about its expectation (GcsCodeBitsSd / n)"},
      {"index_bits_per_key", "number", "bits/key", "gcs: bucket offsets and group bases per key"},
  };

  void add_stats(Stats& s) const {
    const double n = keys_ ? static_cast<double>(keys_) : 1.0;
    s.put("build_attempts", attempts_);
    s.put("duplicates_removed", duplicates_);
    s.put("rice_bits", geometry_.rice_bits);
    s.put("offset_bits", geometry_.offset_bits);
    s.put("gcs_buckets", buckets_);
    s.put("hash_range", static_cast<double>(HashRange()));
    s.put("code_bits_per_key", static_cast<double>(code_bits_) / n);
    s.put("code_bits_per_key_expected", code_bits_per_key_expected());
    s.put("code_bits_per_key_sd", code_bits_sd() / n);
    s.put("index_bits_per_key", 8.0 * static_cast<double>(stream_byte_) / n);
  }

 private:
  // Bytes of zeros past the stream, so an 8-byte load at any of its bytes stays in bounds.
  static constexpr std::size_t kPadBytes = 8;
  // An 8-byte load at byte pos / 8, shifted by pos % 8, holds at least 57 bits from pos.
  static constexpr int kWindowBits = 57;

  struct Located {
    std::uint64_t bucket;
    std::uint64_t offset;
  };

  // Bucket from the high word of h B, offset from its low word: the two together are the
  // value floor(h B W / 2^64) would give, up to rounding, without a division.
  Located Locate(std::uint64_t key) const {
    const std::uint64_t h = HashKey(key, seed_);
    const unsigned __int128 product = static_cast<unsigned __int128>(h) * buckets_;
    return {static_cast<std::uint64_t>(product >> 64),
            ReduceRange(static_cast<std::uint64_t>(product), width_)};
  }

  std::uint64_t HashRange() const { return buckets_ * width_; }
  double GapRate() const { return static_cast<double>(keys_) / static_cast<double>(HashRange()); }

  std::uint64_t Load(std::size_t byte) const {
    std::uint64_t word;
    std::memcpy(&word, storage_.data() + byte, sizeof word);
    return word;
  }

  std::uint64_t BucketStart(std::uint64_t b) const {
    const std::uint64_t group = b / kGcsBucketsPerGroup;
    const std::uint64_t bit = b * static_cast<std::uint64_t>(geometry_.offset_bits);
    const std::uint64_t relative =
        (Load(offsets_byte_ + bit / 8) >> (bit % 8)) & ((1ULL << geometry_.offset_bits) - 1);
    return Load(group * 8) + relative;
  }

  std::uint64_t Window(std::uint64_t pos) const { return Load(stream_byte_ + pos / 8) >> (pos % 8); }

  // Decodes the gap whose code starts at bit pos and moves pos past it.
  std::uint64_t NextGap(std::uint64_t& pos) const {
    const int k = geometry_.rice_bits;
    const std::uint64_t x = Window(pos);
    if (x != 0) {
      const int quotient = std::countr_zero(x);
      if (quotient + 1 + k <= kWindowBits) {
        pos += static_cast<std::uint64_t>(quotient + 1 + k);
        return (static_cast<std::uint64_t>(quotient) << k) | ((x >> (quotient + 1)) & RemainderMask());
      }
    }
    return LongGap(pos);
  }

  // A code longer than one window (a quotient near 57 - k, which a geometric quotient of
  // ratio ~0.6 reaches with probability ~1e-10 at k = 7): the zeros a window at a time.
  std::uint64_t LongGap(std::uint64_t& pos) const {
    std::uint64_t quotient = 0;
    for (;;) {
      const std::uint64_t x = Window(pos);
      if (x == 0) {
        quotient += kWindowBits;
        pos += kWindowBits;
        continue;
      }
      const int zeros = std::countr_zero(x);
      quotient += static_cast<std::uint64_t>(zeros);
      pos += static_cast<std::uint64_t>(zeros) + 1;
      break;
    }
    const std::uint64_t remainder = Window(pos) & RemainderMask();
    pos += static_cast<std::uint64_t>(geometry_.rice_bits);
    return (quotient << geometry_.rice_bits) | remainder;
  }

  std::uint64_t RemainderMask() const { return (1ULL << geometry_.rice_bits) - 1; }

  // Appends bits to 64-bit words, least significant first.
  class BitWriter {
   public:
    void Zeros(std::uint64_t count) { pos_ += count; }
    void Bits(std::uint64_t value, int count) {
      if (count == 0) return;
      Reserve(pos_ + static_cast<std::uint64_t>(count));
      const std::uint64_t shift = pos_ % 64;
      words_[pos_ / 64] |= value << shift;
      if (shift + static_cast<std::uint64_t>(count) > 64) words_[pos_ / 64 + 1] |= value >> (64 - shift);
      pos_ += static_cast<std::uint64_t>(count);
    }
    std::uint64_t position() const { return pos_; }
    const std::vector<std::uint64_t>& words() { Reserve(pos_); return words_; }

   private:
    void Reserve(std::uint64_t bits) {
      if (words_.size() * 64 < bits) words_.resize(std::max<std::size_t>(2 * words_.size(), (bits + 63) / 64));
    }
    std::vector<std::uint64_t> words_;
    std::uint64_t pos_ = 0;
  };

  // One attempt under seed_: false when a group's offsets overflow w bits.
  bool Encode(std::span<const std::uint64_t> keys) {
    const std::uint64_t n = keys.size();
    const double width = std::ceil(kGcsKeysPerBucket / geometry_.fpr);
    buckets_ = std::max<std::uint64_t>(1, (n + kGcsKeysPerBucket - 1) / kGcsKeysPerBucket);
    if (width >= 0x1p63 || static_cast<double>(buckets_) * width >= 0x1p64) {
      throw std::invalid_argument("gcs: " + std::to_string(n) + " keys at eps = " +
                                  std::to_string(geometry_.fpr) + " need a hash range past 2^64");
    }
    width_ = static_cast<std::uint64_t>(width);

    // Value b W + o sorts by bucket, then offset.
    std::vector<std::uint64_t> values(n);
    for (std::size_t i = 0; i < n; ++i) {
      const Located l = Locate(keys[i]);
      values[i] = l.bucket * width_ + l.offset;
    }
    std::sort(values.begin(), values.end());

    std::vector<std::uint64_t> starts(buckets_ + 1);
    BitWriter stream;
    const int k = geometry_.rice_bits;
    std::size_t i = 0;
    for (std::uint64_t b = 0; b < buckets_; ++b) {
      starts[b] = stream.position();
      std::uint64_t previous = 0;
      for (; i < n && values[i] / width_ == b; ++i) {
        const std::uint64_t offset = values[i] % width_;
        const std::uint64_t gap = offset - previous;
        previous = offset;
        stream.Zeros(gap >> k);
        stream.Bits(((gap & RemainderMask()) << 1) | 1, k + 1);  // the quotient's 1, then the remainder
      }
    }
    starts[buckets_] = stream.position();

    const int w = geometry_.offset_bits;
    for (std::uint64_t b = 0; b <= buckets_; ++b) {
      if (starts[b] - starts[b / kGcsBucketsPerGroup * kGcsBucketsPerGroup] >= (1ULL << w)) return false;
    }

    // storage_: group bases, bucket offsets (w bits each), the stream, the padding.
    const std::uint64_t groups = buckets_ / kGcsBucketsPerGroup + 1;
    offsets_byte_ = groups * 8;
    stream_byte_ = offsets_byte_ + ((buckets_ + 1) * static_cast<std::uint64_t>(w) + 7) / 8;
    code_bits_ = stream.position();
    storage_.assign(stream_byte_ + (code_bits_ + 7) / 8 + kPadBytes, 0);
    for (std::uint64_t g = 0; g < groups; ++g) {
      std::memcpy(storage_.data() + g * 8, &starts[g * kGcsBucketsPerGroup], 8);
    }
    for (std::uint64_t b = 0; b <= buckets_; ++b) {
      const std::uint64_t relative = starts[b] - starts[b / kGcsBucketsPerGroup * kGcsBucketsPerGroup];
      const std::uint64_t bit = b * static_cast<std::uint64_t>(w);
      std::uint64_t word = Load(offsets_byte_ + bit / 8);
      word |= relative << (bit % 8);
      std::memcpy(storage_.data() + offsets_byte_ + bit / 8, &word, sizeof word);
    }
    if (code_bits_ > 0) std::memcpy(storage_.data() + stream_byte_, stream.words().data(), (code_bits_ + 7) / 8);
    keys_ = n;
    return true;
  }

  Geometry geometry_;
  std::uint64_t seed_ = 0;
  std::uint64_t buckets_ = 1;
  std::uint64_t width_ = 1;
  std::uint64_t offsets_byte_ = 0;
  std::uint64_t stream_byte_ = 0;
  std::uint64_t code_bits_ = 0;
  std::size_t keys_ = 0;
  std::size_t duplicates_ = 0;
  int attempts_ = 0;
  std::vector<std::uint8_t> storage_;
};

}  // namespace amq
