// filters/binary_fuse.h - binary fuse filter (T. M. Graf, D. Lemire, "Binary Fuse Filters: Fast
// and Smaller Than Xor Filters", ACM Journal of Experimental Algorithmics 27, 2022).
//
// Layout: an array of k-bit fingerprints F cut into segments of L = 2^s slots; there are
// S + a - 1 segments for arity a (3 or 4). A key's first position h_0 is uniform over the first
// S segments; position j lies in the j-th segment after h_0's, at h_0's in-segment offset XOR
// j's own L-bit offset from the hash. Keys thus touch a consecutive window of segments, the
// hypergraph is "spatially coupled" and peels at far fewer slots per key than the XOR filter's
// 1.23 (Dietzfelbinger and Walzer). Construction: hash, counting-sort the hashes by h_0's
// segment (so the slot array is touched front to back), then peel (filters/static_common.h)
// and assign in reverse. Retried with the next seed on failure, at most 100 times.
//
// Geometry as functions of n (the paper's Section 4 formulas; n < 2 uses n = 2):
//   3-wise: L = 2^floor(ln n / ln 3.33 + 2.25),
//           size factor = max(1.125, 0.875 + 0.25 ln 10^6 / ln n)
//   4-wise: L = 2^floor(ln n / ln 2.91 - 0.5),
//           size factor = max(1.075, 0.77 + 0.305 ln 600000 / ln n)
//   L is capped at 2^18 (the in-segment offsets take 18-bit fields of the hash);
//   S = max(1, ceil(n * factor / L) - (a - 1)); array = (S + a - 1) L slots.
//   Ours (3-wise) then halves L, down to 256, while S < 32 and S L < 1.12 n: the same
//   n * factor slots in shorter segments, so the segments that carry every key are not too
//   thin. With the paper's L exactly, 97% of first builds failed at n = 11,486 and some key
//   sets got no filter (fuse_detail::GeometryFor says why); binary_fuse8_paper keeps the
//   paper's geometry as the control.
// Theory, n distinct keys, k-bit fingerprints:
//   FPR      = 2^-k
//   bits/key = size factor(n) * k, the paper's factor above (at n = 10^6: 1.125 k for 3-wise,
//              1.075 k for 4-wise). theory() reports this formula; rounding the array up to
//              whole segments is the allocation's, so the measured array * k / n exceeds it by
//              less than L k / n (plus bit packing's last byte), more only for n so small that
//              the array is its minimum of a segments. The stats size_factor (as built) and
//              size_factor_formula show the two factors.
// Sizing: binary_fuse8/16(_4wise) fix k and ignore --fpr. binary_fuse(_4wise): --fpr eps gives
// k = ceil(log2(1/eps)); --bits-per-key B gives k = floor(B / factor(n)); k in 1 .. 32.
// Repeated keys are removed (sort + unique on a copy) after a failed attempt, as in xor.h.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "filters/static_common.h"
#include "filters/theory_formulas.h"
#include "core/batched.h"
#include "core/filter.h"
#include "core/stat_catalog.h"
#include "core/hashing.h"

namespace amq {

// kOurs: the paper's array with segments shortened where its middle would be too thin
// (fuse_detail::GeometryFor); kPaper: the paper's geometry exactly, kept beside it so the
// build_failures experiment shows what the change fixed (binary_fuse8_paper).
enum class FuseSizing { kOurs, kPaper };

namespace fuse_detail {
constexpr std::string_view NameFor(int bits, int arity, FuseSizing sizing) {
  if (sizing == FuseSizing::kPaper) return "binary_fuse8_paper";
  if (arity == 3) {
    return bits == 8 ? "binary_fuse8" : bits == 16 ? "binary_fuse16" : "binary_fuse";
  }
  return bits == 8    ? "binary_fuse8_4wise"
         : bits == 16 ? "binary_fuse16_4wise"
                      : "binary_fuse_4wise";
}

struct Geometry {
  std::uint32_t segment_length = 1;
  std::uint32_t segment_count = 1;  // S: segments a first position can fall in
  std::size_t slots = 0;
  double formula_factor = 0;
};

// The slots of an array of whole segments of `length` holding at least `capacity` slots.
inline Geometry SegmentsFor(std::size_t capacity, std::uint32_t length, int arity) {
  Geometry g;
  g.segment_length = length;
  const std::size_t segments = (capacity + length - 1) / length;
  g.segment_count = static_cast<std::uint32_t>(
      segments > static_cast<std::size_t>(arity - 1) ? segments - (arity - 1) : 1);
  g.slots = static_cast<std::size_t>(g.segment_count + arity - 1) * length;
  return g;
}

// The paper's geometry, exactly (Section 4's L and size factor).
inline Geometry PaperGeometryFor(std::size_t n, int arity) {
  const double nd = static_cast<double>(std::max<std::size_t>(n, 2));
  const double log_n = std::log(nd);
  const int shift = arity == 3 ? static_cast<int>(std::floor(log_n / std::log(3.33) + 2.25))
                               : static_cast<int>(std::floor(log_n / std::log(2.91) - 0.5));
  const double factor = BinaryFuseSizeFactor(n, arity);
  const auto capacity = static_cast<std::size_t>(std::llround(static_cast<double>(n) * factor));
  Geometry g = SegmentsFor(capacity, 1u << std::clamp(shift, 0, 18), arity);
  g.formula_factor = factor;
  return g;
}

// What the filter builds: the paper's array, with shorter segments where the paper's leaves
// the middle too thin (3-wise only). A key's a positions fall in a consecutive segments, so
// the S segments a first position can take carry all n keys at S L / n slots per key, while
// the array's factor (S + a - 1) L / n also counts the a - 1 lightly loaded end segments. Just
// past a step of the paper's L, S is small and rounding n * factor up to whole segments can add
// almost nothing: S L / n drops far below the factor and most first builds fail. Measured with
// the paper's geometry (binary_fuse8_paper; build_failures, 100 key sets per n, 64 n per
// doubling from 100 to 10^5): 97% of first builds failed at n = 11,486 (30 attempts on
// average, up to 99 of the 100 allowed, and key sets that got no filter at all), 87% at
// n = 37,399, 74% at n = 3,528; each such n had few segments (S < 32) and S L / n < 1.12.
// There L is halved: the array stays (n * factor rounded up to a shorter segment never grows)
// and S doubles, which thickens the middle. Elsewhere the paper's L stands, for measured
// reasons: below L = 512 a halved L failed more often than the paper's (n = 100 to 300), and
// at large S long segments are what peels (n ~ 10^6: L = 2048 failed most first builds where
// the paper's 8192 never did; at n = 672,717 the 4-wise filter failed all 5 first builds at
// L = 1024, 4 key sets getting no filter, and none at the paper's 4096). The 4-wise geometry is
// the paper's.
inline constexpr double kMinMiddleFactor3 = 1.12;
inline constexpr std::uint32_t kFewSegments = 32;
inline constexpr std::uint32_t kShortestHalvedSegment = 256;

inline Geometry GeometryFor(std::size_t n, int arity) {
  Geometry g = PaperGeometryFor(n, arity);
  if (arity != 3) return g;
  const auto capacity = static_cast<std::size_t>(
      std::llround(static_cast<double>(n) * g.formula_factor));
  while (g.segment_count < kFewSegments && g.segment_length / 2 >= kShortestHalvedSegment &&
         static_cast<double>(g.segment_count) * g.segment_length < kMinMiddleFactor3 * n) {
    const double factor = g.formula_factor;
    g = SegmentsFor(capacity, g.segment_length / 2, arity);
    g.formula_factor = factor;
  }
  return g;
}

}  // namespace fuse_detail

// Construction, slot array and lookups: PeeledFilterBase (filters/static_common.h).
template <int kFixedBits, int kArity, FuseSizing kSizing = FuseSizing::kOurs>
class BinaryFuse
    : public PeeledFilterBase<BinaryFuse<kFixedBits, kArity, kSizing>, kFixedBits, kArity> {
  static_assert(kArity == 3 || kArity == 4);
  static_assert(kSizing == FuseSizing::kOurs || (kFixedBits == 8 && kArity == 3),
                "the paper-sized control exists as binary_fuse8_paper only");
  using Shared = PeeledFilterBase<BinaryFuse, kFixedBits, kArity>;
  using Shared::bits_;
  using Shared::fingerprints_;
  using Shared::keys_;
  using Shared::slots_;

 public:
  static constexpr std::string_view kName = fuse_detail::NameFor(kFixedBits, kArity, kSizing);
  // The width is part of the type (cuckoo12, xor8): --fpr does not change the filter.
  static constexpr bool kFixedWidth = kFixedBits != 0;
  // The control has a family of its own, so the family selectors of the space, speed and
  // FPR experiments do not take it; build_failures names it.
  static constexpr std::string_view kFamily =
      kSizing == FuseSizing::kPaper ? "binary_fuse_paper" : "binary_fuse";

  static fuse_detail::Geometry GeometryFor(std::size_t n) {
    return kSizing == FuseSizing::kPaper ? fuse_detail::PaperGeometryFor(n, kArity)
                                         : fuse_detail::GeometryFor(n, kArity);
  }
  static constexpr std::string_view kParameters =
      kFixedBits ? "fixed k; segment length and size factor from n (Graf-Lemire 2022)"
                 : "--fpr eps: k = ceil(log2(1/eps)); --bits-per-key B: k = floor(B/factor(n)); "
                   "k in 1..32; segment length and size factor from n (Graf-Lemire 2022)";

  static int FingerprintBitsFor(const FilterParams& p, std::size_t n) {
    if constexpr (kFixedBits != 0) {
      return kFixedBits;
    } else {
      const double factor = GeometryFor(n).formula_factor;
      const int k = p.bits_per_key > 0
                        ? static_cast<int>(std::floor(p.bits_per_key / factor))
                        : static_cast<int>(std::ceil(std::log2(1.0 / p.fpr_or_default())));
      return std::clamp(k, 1, 32);
    }
  }

  static BinaryFuse build(std::span<const std::uint64_t> keys, const FilterParams& p) {
    return build(keys, p, StaticBuildOptions{});
  }

  static BinaryFuse build(std::span<const std::uint64_t> keys, const FilterParams& p,
                          const StaticBuildOptions& options) {
    BinaryFuse f;
    f.bits_ = FingerprintBitsFor(p, keys.size());
    // Each attempt: the segments for these keys, and their hashes sorted by first segment.
    std::vector<std::uint64_t> sorted;
    std::vector<std::uint32_t> offsets;
    const auto lay_out = [&](std::span<const std::uint64_t> attempt_keys) {
      f.SetGeometry(GeometryFor(attempt_keys.size()), options.slots_override);
      static_detail::HashAndSortByBucket(attempt_keys, f.seed_, f.segment_count_, offsets, sorted);
      return std::span<std::uint64_t>(sorted);
    };
    Shared::BuildByPeeling(f, keys, p.seed, options, lay_out);
    return f;
  }

  std::uint32_t segment_length() const { return segment_length_; }
  double size_factor() const { return keys_ ? static_cast<double>(slots_) / keys_ : 0.0; }

  // The paper's size factor at n times k, whatever the segments rounded the array to.
  Theory theory() const {
    return {FingerprintFpr(bits_), keys_ ? BinaryFuseBitsPerKey(formula_factor_, bits_) : 0.0};
  }

  // The statistics add_stats reports (core/filter.h).
  static constexpr StatSpec kStats[] = {
      stat::kBuildAttempts,
      stat::kFingerprintBits,
      stat::kSlots,
      {"segment_length", "integer", "slots", "binary fuse: slots per segment"},
      {"segment_count", "integer", "count", "binary fuse: segments"},
      {"size_factor", "number", "ratio", "binary fuse: slots / n as built"},
      {"size_factor_formula", "number", "ratio", "binary fuse: the paper's size factor at this n"},
      stat::kDuplicatesRemoved};

  void add_stats(Stats& s) const {
    s.put("build_attempts", this->attempts_);
    s.put("fingerprint_bits", bits_);
    s.put("slots", slots_);
    s.put("segment_length", segment_length_);
    s.put("segment_count", segment_count_);
    s.put("size_factor", size_factor());
    s.put("size_factor_formula", formula_factor_);
    s.put("duplicates_removed", this->duplicates_);
  }

 private:
  friend Shared;  // calls Positions and Probe
  using typename Shared::Located;

  bool Probe(const Located& l) const {
    std::uint64_t v = l.fingerprint;
    for (int j = 0; j < kArity; ++j) v ^= fingerprints_.get(l.positions[j]);
    return v == 0;
  }

  void SetGeometry(const fuse_detail::Geometry& g, std::size_t slots_override) {
    segment_length_ = g.segment_length;
    segment_mask_ = g.segment_length - 1;
    segment_count_ = g.segment_count;
    formula_factor_ = g.formula_factor;
    if (slots_override) {
      // Test hook: squeeze the same segment length into about slots_override slots.
      const std::size_t segments = slots_override / segment_length_;
      segment_count_ =
          static_cast<std::uint32_t>(segments > kArity - 1 ? segments - (kArity - 1) : 1);
    }
    slots_ = static_cast<std::size_t>(segment_count_ + kArity - 1) * segment_length_;
    first_range_ = static_cast<std::uint64_t>(segment_count_) * segment_length_;
  }

  // h_0 = multiply-shift of the hash into the first S segments (its top bits). Position j sits
  // j segments further at h_0's offset XOR an L-bit field: bits 18.., 0.. and (4-wise) 32.. of
  // the hash for j = 1, 2, 3, disjoint from each other while L <= 2^14 (n below about 1.5 *
  // 10^7 for 4-wise) and from the top bits h_0 uses at n = 10^6. Until 2026-12-04 the 4-wise
  // third field was an odd multiple's top bits: a multiply on every lookup. The shifted field
  // built first time at n = 2 * 10^7, 5 * 10^7 (3 key sets each) and 1.4 * 10^8 (2; L = 2^17),
  // and over the default suite's build_failures n (100 to 10^7) it failed 2.4% of first builds
  // on average against 2.3% (worst n: 22% against 19%; none gave up).
  // With the folded fingerprint (static_detail::FoldedFingerprintOf) a 4-wise key's low k bits
  // of fingerprint equal those of its offsets 2 XOR 3 (k <= log2 L), a function of its
  // positions. That would matter only if one slot table met it for every key; none can, since
  // every middle segment is some keys' first, third and fourth (the first's slot would have to
  // be constant over the segment, the third's vary with it). Measured FPR: FoldedFingerprintOf.
  void Positions(std::uint64_t h, std::array<std::uint32_t, kArity>& p) const {
    const auto h0 = static_cast<std::uint32_t>(ReduceRange(h, first_range_));
    p[0] = h0;
    p[1] = (h0 + segment_length_) ^ (static_cast<std::uint32_t>(h >> 18) & segment_mask_);
    p[2] = (h0 + 2 * segment_length_) ^ (static_cast<std::uint32_t>(h) & segment_mask_);
    if constexpr (kArity == 4) {
      p[3] = (h0 + 3 * segment_length_) ^ (static_cast<std::uint32_t>(h >> 32) & segment_mask_);
    }
  }

  std::uint32_t segment_length_ = 1;
  std::uint32_t segment_mask_ = 0;
  std::uint32_t segment_count_ = 1;
  std::uint64_t first_range_ = 1;
  double formula_factor_ = 0;
};

using BinaryFuse8 = BinaryFuse<8, 3>;
using BinaryFuse16 = BinaryFuse<16, 3>;
using BinaryFuse8x4 = BinaryFuse<8, 4>;
using BinaryFuse16x4 = BinaryFuse<16, 4>;
using BinaryFuse8Paper = BinaryFuse<8, 3, FuseSizing::kPaper>;

}  // namespace amq
