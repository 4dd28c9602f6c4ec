// filters/ribbon_frac.h - standard Ribbon with fractional result bits per key (P. C. Dillinger,
// S. Walzer, "Ribbon filter: practically smaller than Bloom and Xor", arXiv:2103.02515, 2021;
// the fractional columns are RocksDB's idea, its InterleavedSolutionStorage, here written anew).
//
// Why: filters/ribbon.h rounds the target's log2(1/eps) result bits up to a whole r, so at
// eps = 1% it spends 7 bits per slot and reaches 0.78%. A key only ever checks the columns of
// the blocks it reads, so blocks may keep different numbers of columns: any eps is met with
// the space of a fractional r.
//
// Layout: as in ribbon.h (w = 128, m = n (1 + eps_w) slots in whole blocks of w, a key's start
// s uniform in [0, m - w], Z stored per block as column words), except that blocks
// [0, u) keep lo columns and blocks [u, m / w) keep lo + 1. Block b then begins at word
// b lo + max(0, b - u): no offset table. A key's fingerprint width is the column count of its
// start block; its row spans that block and the next, and since the wider blocks are the last
// ones the next block keeps at least as many columns, so the key checks the first (its width)
// columns of both.
// Construction: every key is banded with the full lo + 1 result bits (ribbon.h's banding, one
// system), and back-substitution computes column lo only while it is in the wider blocks: a
// column-lo value in a narrow block is never read, and the full system's solution, restricted
// to the slots a key reads, satisfies every equation it checks. A narrow-block key's extra
// result bit is a constraint nobody checks; it can only turn a redundant row inconsistent,
// which a linearly dependent row (rare at eps_w = 0.05) already is with probability 1 - 2^-lo.
//
// Theory, target eps, eps_w = 0.05 as for `ribbon`:
//   r* = log2(1/eps) (clamped to 1 .. 32), lo = floor(r*), q = the share of starts in the wide
//   blocks. A non-key starting in a block of k columns matches its k-bit fingerprint with
//   probability 2^-k (its parities are independent of its fingerprint), so
//     FPR = (1 - q) 2^-lo + q 2^-(lo+1) = 2^-lo (1 - q/2),
//   and FPR = eps gives q = 2 - 2^(lo+1) eps, in [0, 1) since 2^lo eps is in (1/2, 1].
//     bits/key = (1 + eps_w)(lo + q).
//   lo + q exceeds r* by 2 - 2^(1-x) - x for x = r* - lo: 0 at whole r*, at most
//   2 - 1/ln 2 - log2(2 ln 2) = 0.086 bits (at x = log2(2 ln 2) = 0.47), the price of mixing
//   2^-lo and 2^-(lo+1) rather than a width in between. At 1%: lo = 6, q = 0.72, 7.056
//   bits/key (ribbon: 7.35 at 0.78%; RocksDB 7.8's Standard128Ribbon measured 7.048 at 0.997%,
//   plots/reference.py, SPACE["rocksdb_ribbon_1pct"]). At a whole r*, q = 0 and the filter is
//   `ribbon`'s, byte for byte (same slots, seeds and fingerprints).
//   --bits-per-key B: r* = B / (1 + eps_w) and q = r* - lo (space is linear in q), so the
//   formula gives B exactly and FPR = 2^-lo (1 - q/2).
// The split is in whole blocks: u = round((1 - q) starts / w), so the share q' of starts in the
// wide blocks differs from q by at most w / (2 starts). theory().fpr is the formula at q' (the
// geometry built); theory().bits_per_key is the formula at the target's q (core/filter.h).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "filters/ribbon.h"
#include "filters/static_common.h"
#include "filters/theory_formulas.h"
#include "core/batched.h"
#include "core/filter.h"
#include "core/hashing.h"
#include "core/stat_catalog.h"

namespace amq {

class RibbonFrac {
  static constexpr int kWidth = 128;
  using Row = ribbon_detail::U128;

 public:
  static constexpr int kRibbonWidth = kWidth;
  static constexpr double kOverhead = Ribbon128::kOverhead;
  static constexpr std::string_view kName = "ribbon_frac";
  static constexpr std::string_view kFamily = "ribbon";
  static constexpr std::string_view kParameters =
      "w = 128; m = n*1.05 rounded up to 128; --fpr eps: lo = floor(log2(1/eps)) columns in "
      "the first blocks, lo+1 in the last, share q = 2 - 2^(lo+1) eps of starts in those; "
      "--bits-per-key B: lo + q = B/1.05; log2(1/eps) in 1..32";

  // The target's column split: lo columns, and the share q of starts that should see lo + 1.
  using Split = RibbonFracSplit;

  static Split SplitFor(const FilterParams& p) {
    return RibbonFracSplitFor(p.fpr_or_default(), p.bits_per_key, kOverhead);
  }

  static std::size_t SlotsFor(std::size_t n, double overhead) {
    return Ribbon128::SlotsFor(n, overhead);
  }

  static RibbonFrac build(std::span<const std::uint64_t> keys, const FilterParams& p) {
    return build(keys, p, StaticBuildOptions{});
  }

  static RibbonFrac build(std::span<const std::uint64_t> keys, const FilterParams& p,
                          const StaticBuildOptions& options) {
    RibbonFrac f;
    f.target_ = SplitFor(p);
    f.slots_ = options.slots_override ? (options.slots_override + kWidth - 1) / kWidth * kWidth
                                      : SlotsFor(keys.size(), kOverhead);
    f.starts_ = f.slots_ - kWidth + 1;
    const std::size_t blocks = f.slots_ / kWidth;
    std::size_t narrow = blocks;
    if (f.target_.upper_share > 0) {
      const double wanted = (1 - f.target_.upper_share) * static_cast<double>(f.starts_) / kWidth;
      narrow = std::min(blocks, static_cast<std::size_t>(std::llround(wanted)));
    }
    f.layout_ = {f.target_.lower, narrow};
    f.result_bits_ = f.target_.lower + (narrow < blocks ? 1 : 0);
    f.solved_ = ribbon_detail::Solve<Row, kWidth>(keys, p.seed, options.max_attempts, f.slots_,
                                                  f.result_bits_, f.layout_, kName);
    f.keys_ = keys.size() - f.solved_.redundant;
    return f;
  }

  bool contains(std::uint64_t key) const { return ContainsHash(HashKey(key, solved_.seed)); }
  // contains() through the portable parities in every build (ribbon_sse2_test.cc).
  bool contains_portable(std::uint64_t key) const {
    return ContainsHash<true>(HashKey(key, solved_.seed));
  }

  // As ribbon.h's: prefetch the 2 k words of the two blocks a lookup reads.
  std::size_t contains_many(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
    return PipelinedContains<8>(
        keys, out,
        [this](std::uint64_t key) {
          const std::uint64_t h = HashKey(key, solved_.seed);
          const std::size_t block = ReduceRange(h, starts_) / kWidth;
          ribbon_detail::PrefetchBlocks(&solved_.words[layout_.offset(block)],
                                        layout_.columns(block));
          return h;
        },
        [this](std::uint64_t h) { return ContainsHash(h); });
  }

  // Every block's columns, not the pad block.
  std::size_t size_in_bytes() const { return layout_.offset(slots_ / kWidth) * (kWidth / 8); }
  std::span<const std::uint8_t> bytes() const {
    return {reinterpret_cast<const std::uint8_t*>(solved_.words.data()), size_in_bytes()};
  }
  std::size_t slots() const { return slots_; }
  int build_attempts() const { return solved_.attempts; }
  int lower_columns() const { return layout_.lower; }
  // Columns of the widest blocks: lo + 1, or lo when no block is wide (a whole log2(1/eps)).
  int result_bits() const { return result_bits_; }
  std::size_t narrow_blocks() const { return layout_.upper_start; }
  // q': the share of starts [0, m - w] that fall in the wide blocks.
  double upper_share() const {
    const std::size_t narrow_starts = std::min<std::size_t>(layout_.upper_start * kWidth, starts_);
    return static_cast<double>(starts_ - narrow_starts) / static_cast<double>(starts_);
  }
  double overhead() const { return keys_ ? static_cast<double>(slots_) / keys_ - 1 : 0.0; }

  Theory theory() const {
    return {RibbonFracFpr(layout_.lower, upper_share()),
            keys_ ? RibbonFracBitsPerKey(target_.lower, target_.upper_share, kOverhead) : 0.0};
  }

  // The statistics add_stats reports (core/filter.h).
  static constexpr StatSpec kStats[] = {
      stat::kBuildAttempts,
      stat::kFingerprintBits,
      stat::kSlots,
      ribbon_detail::kOverheadStat,
      ribbon_detail::kWidthStat,
      ribbon_detail::kRedundantRowsStat,
      stat::kRibbonColumns,
      stat::kRibbonBlocksWithOneColumnLess,
      {"ribbon_upper_share", "number", "ratio",
       "ribbon_frac: share q of key starts in the wider blocks; FPR = 2^-lo (1 - q/2)"}};

  void add_stats(Stats& s) const {
    s.put("build_attempts", solved_.attempts);
    // Stored bits per slot, the blocks' column counts averaged.
    s.put("fingerprint_bits", 8.0 * static_cast<double>(size_in_bytes()) / slots_);
    s.put("slots", slots_);
    s.put("overhead", overhead());
    s.put("ribbon_width", kWidth);
    s.put("redundant_rows", solved_.redundant);
    s.put("ribbon_columns", result_bits_);
    s.put("ribbon_blocks_with_one_column_less",
          result_bits_ > layout_.lower ? layout_.upper_start : 0);
    s.put("ribbon_upper_share", upper_share());
  }

 private:
  // Blocks [0, upper_start) keep `lower` columns, the rest lower + 1.
  struct SplitColumns {
    int lower = 7;
    std::size_t upper_start = 0;
    int columns(std::size_t block) const { return lower + (block >= upper_start ? 1 : 0); }
    std::size_t offset(std::size_t block) const {
      return block * lower + (block > upper_start ? block - upper_start : 0);
    }
  };

  template <bool kPortable = false>
  bool ContainsHash(std::uint64_t h) const {
    const std::uint64_t s = ReduceRange(h, starts_);
    const std::size_t block = s / kWidth;
    const int k = layout_.columns(block);
    // The key's fingerprint is the low k bits of the result it was banded with.
    const std::uint64_t fingerprint =
        static_detail::FingerprintOf(h, result_bits_) & ((std::uint64_t{1} << k) - 1);
    const Row* words = &solved_.words[layout_.offset(block)];
    const Row c = ribbon_detail::CoefficientsOf<Row>(h);
    return (kPortable ? ribbon_detail::ParitiesPortable<Row, kWidth>(words, k, s % kWidth, c)
                      : ribbon_detail::Parities<Row, kWidth>(words, k, s % kWidth, c)) == fingerprint;
  }

  Split target_;
  SplitColumns layout_;
  int result_bits_ = 7;
  std::size_t slots_ = 0;
  std::uint64_t starts_ = 1;
  std::size_t keys_ = 0;
  ribbon_detail::Solved<Row> solved_;
};

}  // namespace amq
