// filters/ribbon.h - standard Ribbon filter (P. C. Dillinger, S. Walzer, "Ribbon filter:
// practically smaller than Bloom and Xor", arXiv:2103.02515, 2021).
//
// Layout: a solution matrix Z of m rows (slots) by r columns (result bits), m a multiple of
// the ribbon width w (64 or 128). A key has a start s uniform in [0, m - w], a w-bit
// coefficient row c with bit 0 set, and an r-bit fingerprint fp; it is in the filter iff
//   XOR over t of c_t * Z[s + t]  ==  fp        (an r-bit value, one parity per column).
// Construction solves these n equations over GF(2): banding ("on the fly" Gaussian
// elimination, keys in order of start; at w = 64 the two halves of that order side by side,
// see Banding::Run) leaves each equation as a pivot row at its own slot,
// then back-substitution from the last slot fills Z. Z is stored interleaved column-major:
// for each block of w slots, r words of w bits (column j of those slots), so a query reads
// two adjacent blocks and computes r parities (popcounts).
// Banding fails when a reduced row becomes 0 with a nonzero result, i.e. the equations are
// inconsistent; then the next seed of the schedule is tried, at most 100 times.
//
// Theory, n keys, m slots, r result bits:
//   FPR      = 2^-r  (a non-key's parity vector is independent of its fingerprint)
//   bits/key = r (1 + eps_w): the paper's m = (1 + eps) n slots of r bits, at the overhead eps_w
//              this filter is sized for (below). theory() reports this formula; rounding m up
//              to whole blocks of w slots is the allocation's, so the measured r m / n exceeds
//              it by less than r w / n (more when n (1 + eps_w) is below one whole block).
// Overhead: m = n (1 + eps_w) rounded up to whole blocks, at least one block. The overhead a
// standard Ribbon needs grows slowly with n. Single-attempt banding failures measured here:
// w = 64: eps 0.10 fails 4/50 at n = 10^5 and 1/10 at 10^6, eps 0.12 1/20 at 10^6, eps 0.14
// 0/20 at 10^6 and 1/3 at 10^7; w = 128: eps 0.04 2/10, 0.045 2/30, 0.05 0/30 at 10^6 and 1/3
// at 10^7. Hence eps_64 = 0.14 (`ribbon64`, FastFilter's StandardRibbon64 also measures 7.98
// bits/key at r = 7) and eps_128 = 0.05 (`ribbon`). Sizing: --fpr eps gives
// r = ceil(log2(1/eps)); --bits-per-key B gives r = floor(B / (1 + overhead)); r in 1 .. 32.
// (filters/ribbon_frac.h meets eps itself, with a fractional r, on the same machinery.)
// A repeated key reduces to an all-zero row with a zero result (a redundant equation): it is
// counted in redundant_rows and excluded from n, never a failure.
// Lookups: at w = 64 with AVX-512 F and VPOPCNTDQ (-march=native on this machine) eight columns'
// parities at once, two masked loads, an AND-XOR and one vector popcount per eight columns
// (ParitiesAvx512); otherwise, and at w = 128, with SSE2 (every x86-64 build) eight columns'
// words folded to their parities together (ParitiesSse2); elsewhere column by column
// (ParitiesPortable, which every build keeps: ribbon_avx512_test.cc and ribbon_sse2_test.cc
// require the same parities from it).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#if defined(__AVX512F__) && defined(__AVX512VPOPCNTDQ__)
#include <immintrin.h>
#define AMQ_RIBBON_HAVE_AVX512 1
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#define AMQ_RIBBON_HAVE_SSE2 1
#endif

#include "filters/static_common.h"
#include "filters/theory_formulas.h"
#include "core/batched.h"
#include "core/filter.h"
#include "core/stat_catalog.h"
#include "core/hashing.h"

namespace amq {

namespace ribbon_detail {
using U128 = unsigned __int128;

template <class Row>
inline int CountTrailingZeros(Row x) {
  if constexpr (sizeof(Row) == 8) {
    return std::countr_zero(x);
  } else {
    const auto lo = static_cast<std::uint64_t>(x);
    return lo ? std::countr_zero(lo) : 64 + std::countr_zero(static_cast<std::uint64_t>(x >> 64));
  }
}

template <class Row>
inline std::uint64_t Parity(Row x) {
  if constexpr (sizeof(Row) == 8) {
    return std::popcount(x) & 1;
  } else {
    return std::popcount(static_cast<std::uint64_t>(x) ^ static_cast<std::uint64_t>(x >> 64)) & 1;
  }
}

// The coefficient row: bit 0 forced to 1 (the pivot at the key's start), the rest from odd
// multiples of the hash, whose bits depend on the whole hash.
template <class Row>
inline Row CoefficientsOf(std::uint64_t h) {
  if constexpr (sizeof(Row) == 8) {
    return (h * 0x9e3779b97f4a7c15ULL) | 1;
  } else {
    const std::uint64_t lo = (h * 0x9e3779b97f4a7c15ULL) | 1;
    const std::uint64_t hi = MurmurMix64(h ^ 0xa0761d6478bd642fULL);
    return (static_cast<U128>(hi) << 64) | lo;
  }
}

// The statistics every Ribbon here reports besides the catalog's (core/stat_catalog.h).
inline constexpr StatSpec kOverheadStat{"overhead", "number", "ratio", "Ribbon: slots / n - 1"};
inline constexpr StatSpec kWidthStat{"ribbon_width", "integer", "bits",
                                     "Ribbon: coefficient row width w (64 or 128)"};
inline constexpr StatSpec kRedundantRowsStat{
    "redundant_rows", "integer", "rows", "Ribbon: repeated keys that banding found redundant"};
inline constexpr StatSpec kDependentRowsStat{
    "dependent_rows", "integer", "rows",
    "homogeneous Ribbon: key rows banding reduced to zero (repeated keys and rows in the span of "
    "earlier ones); never a failure"};
inline constexpr StatSpec kSpanShareStat{
    "span_share", "number", "ratio",
    "homogeneous Ribbon: estimated share of non-key rows in the span of the key rows; "
    "FPR = 2^-r + (1 - 2^-r) span_share"};

// The banding matrix: per slot, the pivot row stored there (0 = empty) and its result. Shared
// by every Ribbon layout: banding does not know how many columns a block will keep.
template <class Row, int kWidth>
struct Banding {
  std::vector<Row> rows;
  std::vector<std::uint32_t> results;
  std::vector<std::uint64_t> sorted;
  std::vector<std::uint32_t> offsets;
  std::size_t redundant = 0;

  // What inserting one equation did: stored it as the pivot row of `slot`, found it redundant
  // (reduced to 0 = 0: a repeated key, or in homogeneous Ribbon any row in the span of the rows
  // before it), or found it inconsistent (reduced to 0 = 1).
  enum class Outcome { kStored, kRedundant, kInconsistent };
  struct Inserted {
    Outcome outcome;
    std::uint64_t slot;  // the pivot slot written, when kStored
  };

  // On-the-fly Gaussian elimination of one equation <c, Z[i ..]> = result, c's bit 0 at slot i:
  // eliminates leading 1s against the pivot rows until c meets an empty slot or vanishes. The
  // reduced row is left in c and result, the slot reached in the answer.
  Inserted Reduce(std::uint64_t i, Row& c, std::uint32_t& result) const {
    for (;;) {
      const Row pivot = rows[i];
      if (pivot == 0) return {Outcome::kStored, i};
      // Both rows have their leading 1 at slot i: eliminate it, move to the next 1.
      c ^= pivot;
      result ^= results[i];
      if (c == 0) return {result != 0 ? Outcome::kInconsistent : Outcome::kRedundant, i};
      const int tz = CountTrailingZeros(c);
      c >>= tz;
      i += tz;
    }
  }

  // Reduce, then store the reduced row as the pivot of the empty slot reached. It writes at
  // most one slot, which was empty: undoing it (Clear) is exact as long as no equation inserted
  // later has been reduced by it (filters/bumped_ribbon.h undoes in reverse order).
  Inserted Insert(std::uint64_t i, Row c, std::uint32_t result) {
    const Inserted done = Reduce(i, c, result);
    if (done.outcome == Outcome::kStored) {
      rows[done.slot] = c;
      results[done.slot] = result;
    }
    return done;
  }

  // A key's right-hand side: its result_bits-wide fingerprint, or 0 for homogeneous Ribbon
  // (result_bits = 0).
  static std::uint32_t ResultOf(std::uint64_t h, int result_bits) {
    return result_bits > 0 ? static_cast<std::uint32_t>(static_detail::FingerprintOf(h, result_bits))
                           : std::uint32_t{0};
  }

  // Whether the row c starting at slot i lies in the span of the rows banded so far.
  bool InSpan(std::uint64_t i, Row c) const {
    std::uint32_t result = 0;
    return Reduce(i, c, result).outcome == Outcome::kRedundant;
  }

  void Clear(std::uint64_t slot) {
    rows[slot] = 0;
    results[slot] = 0;
  }

  // Bands every key's equation with a result_bits-wide fingerprint; false when inconsistent.
  // result_bits = 0 is homogeneous Ribbon: every right-hand side is 0, so no equation can be
  // inconsistent and the run always succeeds.
  //
  // At w = 64 two keys are reduced at once, a step of each in turn: the first half of the
  // sorted keys (the front of the matrix) in one chain, the second half (the back) in the
  // other. One key's reduction is a chain of dependent steps (load the pivot, XOR, count
  // zeros, shift) ending in a branch no predictor gets right, about one a key; alone, each key
  // waited for the last. Two independent chains overlap. Any interleaving is on-the-fly
  // elimination still: a step either XORs the row with the pivot stored at its leading slot
  // (pivots never change once stored) or stores the row in an empty slot, so every row banded
  // lies in the span of the stored pivots, and whether the system is consistent, and its rank
  // (hence `redundant`), do not depend on the order. Which pivot ends up at which slot does,
  // so the solution (and which non-keys pass) is another, equally random one. (Homogeneous
  // Ribbon at n = 10^6 takes 3.2 elimination steps a key.) Whole builds at n = 10^6 (ad hoc,
  // one process per version, alternating, 4 runs each): ribbon64 25.0-25.7 against 27.1-27.4
  // ns a key portable and 22.1-23.0 against 23.8-24.4 with -march=native; homog_ribbon64
  // 29.9-30.6 against 33.3-33.6 portable (with -march=native, together with
  // BackSubstituteBlockAvx512, 24.9-26.5 against 29.0-29.3).
  bool Run(std::span<const std::uint64_t> keys, std::size_t slots, std::uint64_t starts,
           std::uint64_t seed, int result_bits) {
    rows.assign(slots, 0);
    results.assign(slots, 0);
    redundant = 0;
    // Sorting by start (start is monotone in the hash) makes banding walk the matrix
    // front to back; buckets of ~w starts are fine enough for that.
    static_detail::HashAndSortByBucket(keys, seed, std::max<std::uint64_t>(1, starts / kWidth),
                                       offsets, sorted);
    if constexpr (kWidth != 64) {
      // w = 128: one key at a time. Two chains were faster in the portable build (ribbon, n =
      // 10^6, 6 runs: 42.9-44.2 against 46.3-49.0 ns a key) but slower with -march=native
      // (44.2-48.3 against 41.9-44.0, 12 runs), and so was this loop written as one chain of
      // Steps (45.7-46.2, 4 runs).
      for (std::uint64_t h : sorted) {
        const Inserted done =
            Insert(ReduceRange(h, starts), CoefficientsOf<Row>(h), ResultOf(h, result_bits));
        if (done.outcome == Outcome::kInconsistent) return false;  // this seed cannot work
        redundant += done.outcome == Outcome::kRedundant;
      }
      return true;
    }
    const std::size_t n = sorted.size();
    Chain front{0, n / 2}, back{n / 2, n};
    bool front_live = Begin(front, starts, result_bits);
    bool back_live = Begin(back, starts, result_bits);
    while (front_live && back_live) {
      if (!Step(front, front_live, starts, result_bits)) return false;  // this seed cannot work
      if (!Step(back, back_live, starts, result_bits)) return false;
    }
    Chain& rest = front_live ? front : back;
    bool rest_live = front_live || back_live;
    while (rest_live) {
      if (!Step(rest, rest_live, starts, result_bits)) return false;
    }
    return true;
  }

 private:
  // A run of sorted keys being banded: the next key to take, the end, and the row being
  // reduced (at slot i, with its result so far).
  struct Chain {
    std::size_t next, end;
    std::uint64_t i = 0;
    Row c = 0;
    std::uint32_t result = 0;
  };

  // Takes the chain's next key; false when it has none left.
  bool Begin(Chain& ch, std::uint64_t starts, int result_bits) const {
    if (ch.next == ch.end) return false;
    const std::uint64_t h = sorted[ch.next++];
    ch.i = ReduceRange(h, starts);
    ch.c = CoefficientsOf<Row>(h);
    ch.result = ResultOf(h, result_bits);
    return true;
  }

  // One step of Reduce and Insert for the chain's row: stored at an empty slot, or its leading
  // 1 eliminated against the pivot there. When the row is stored or vanishes the chain takes
  // its next key (live = false when there is none). False when the row vanished with a
  // nonzero result: the equations are inconsistent.
  //
  // This is Reduce's loop body written out again, on purpose. One helper for both (a step that
  // says whether the row goes on and, if not, how it ended) cost more instructions a key in the
  // portable build, which CI's instruction baseline judges: under callgrind at n = 20,000,
  // ribbon64 284.9 -> 292.8, homog_ribbon64 433.7 -> 451.3, bumped_ribbon 669.8 -> 692.1, and
  // bumped_ribbon's portable build took 1.04 of the time (6 alternating runs, 2026-12-05). With
  // -march=native the w = 64 builds took 0.94-0.95 of the time (the same steps in the same
  // order, compiled differently; valgrind cannot count that build's AVX-512 instructions), but
  // the copy is what CI can judge.
  bool Step(Chain& ch, bool& live, std::uint64_t starts, int result_bits) {
    const Row pivot = rows[ch.i];
    if (pivot == 0) {
      rows[ch.i] = ch.c;
      results[ch.i] = ch.result;
    } else {
      ch.c ^= pivot;
      ch.result ^= results[ch.i];
      if (ch.c != 0) {
        const int tz = CountTrailingZeros(ch.c);
        ch.c >>= tz;
        ch.i += tz;
        return true;
      }
      if (ch.result != 0) return false;
      ++redundant;
    }
    live = Begin(ch, starts, result_bits);
    return true;
  }
};

// Bands keys under the attempt seeds of `seed` until one works; throws BuildFailed after
// max_attempts. Sets seed_out to the seed that worked and returns the attempts it took.
template <class Row, int kWidth>
int BandWithRetries(Banding<Row, kWidth>& banding, std::span<const std::uint64_t> keys,
                    std::uint64_t seed, int max_attempts, std::size_t slots, int result_bits,
                    std::string_view name, std::uint64_t& seed_out) {
  for (int attempt = 0; attempt < max_attempts; ++attempt) {
    seed_out = static_detail::AttemptSeed(seed, attempt);
    if (banding.Run(keys, slots, slots - kWidth + 1, seed_out, result_bits)) return attempt + 1;
  }
  throw BuildFailed(std::string(name) + ": banding failed " + std::to_string(max_attempts) +
                    " times for " + std::to_string(keys.size()) + " keys in " +
                    std::to_string(slots) + " slots");
}

// Z from the last slot down: Z[i] = result[i] XOR <row[i], Z[i+1 .. i+w-1]>, per column.
// state[j] holds column j of Z[i .. i+w-1] (bit t = Z[i+t]), so each step is a shift, a
// masked parity and, at a block boundary, a store of the finished block. A block keeps the
// first layout.columns(b) columns at word layout.offset(b); columns a block does not keep are
// not computed, which is right only while every later block keeps at least as many (a key
// reads its start block and the next one). One zero pad block of result_bits words follows:
// queries of the last block read its "next" block.
// An empty slot (row 0) is a free variable. Standard Ribbon sets it to 0, as good as any value
// there. Homogeneous Ribbon (free_seed given) must draw it at random: with every right-hand
// side 0, Z = 0 solves the system and would answer "present" to everything; a uniformly random
// solution makes each column of a non-key's parities a fair coin unless its row lies in the
// span of the key rows.
// One block of back-substitution, slots (block + 1) w - 1 down to block w, over `columns`
// columns of state. kColumns > 0 fixes the count at compile time (then `columns` equals it):
// the r column states stay in registers and the column loop unrolls, where a run-time count
// keeps them in memory, a load and a store per column per slot.
template <int kColumns, class Row, int kWidth>
inline void BackSubstituteBlock(const Banding<Row, kWidth>& b, std::size_t block, int columns,
                                std::optional<std::uint64_t> spread, Row* state) {
  const int count = kColumns > 0 ? kColumns : columns;
  Row local[kColumns > 0 ? kColumns : 1];
  Row* st = kColumns > 0 ? local : state;
  if constexpr (kColumns > 0) std::copy_n(state, kColumns, local);
  for (std::size_t i = (block + 1) * kWidth; i-- > block * kWidth;) {
    const Row row = b.rows[i];
    const std::uint32_t result =
        spread && row == 0 ? static_cast<std::uint32_t>(MurmurMix64(*spread ^ i)) : b.results[i];
#pragma GCC unroll 16
    for (int j = 0; j < count; ++j) {
      const Row shifted = st[j] << 1;
      st[j] = shifted | static_cast<Row>(((result >> j) & 1) ^ Parity(shifted & row));
    }
  }
  if constexpr (kColumns > 0) std::copy_n(local, kColumns, state);
}

// BackSubstituteBlock with 1 to 16 columns dispatched to a compile-time copy, once per block.
template <class Row, int kWidth, int... kCounts>
inline void BackSubstituteBlockDispatched(std::integer_sequence<int, kCounts...>,
                                          const Banding<Row, kWidth>& b, std::size_t block,
                                          int columns, std::optional<std::uint64_t> spread,
                                          Row* state) {
  const bool fixed = ((columns == kCounts + 1 &&
                       (BackSubstituteBlock<kCounts + 1>(b, block, columns, spread, state), true)) ||
                      ...);
  if (!fixed) BackSubstituteBlock<0>(b, block, columns, spread, state);
}

#ifdef AMQ_RIBBON_HAVE_AVX512
// BackSubstituteBlock for w = 64 with eight columns' states in the lanes of a vector (kVectors
// of them for up to 8 kVectors columns). The new bit of column j at slot i is
// result_j XOR parity((state_j << 1) AND row), and (state << 1) AND row has the popcount of
// state AND (row >> 1): so the AND and the popcount start from the old state while its shift
// (XORed with the result bits) is made beside them, and one ternary-logic op merges the two.
// Per slot a chain of three vector ops for eight columns, where the scalar loop issues about
// five instructions a column. Lanes past `columns` are computed but not stored. Ad hoc, one
// banding of 10^6 keys in 1.1 10^6 slots, free variables drawn (homogeneous), 3 runs: r = 8
// 2.95-3.13 against 6.10-6.20 ns a key, r = 13 3.40-4.11 against 13.9-14.7.
template <int kVectors>
inline void BackSubstituteBlockAvx512(const Banding<std::uint64_t, 64>& b, std::size_t block,
                                      int columns, std::optional<std::uint64_t> spread,
                                      std::uint64_t* state) {
  const __m512i one = _mm512_set1_epi64(1);
  const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  __m512i st[kVectors];
  __mmask8 keep[kVectors];
  for (int v = 0; v < kVectors; ++v) {
    const int left = columns - 8 * v;
    keep[v] = static_cast<__mmask8>(left >= 8 ? 0xff : (1U << left) - 1);
    st[v] = _mm512_maskz_loadu_epi64(keep[v], state + 8 * v);
  }
  for (std::size_t i = (block + 1) * 64; i-- > block * 64;) {
    const std::uint64_t row = b.rows[i];
    const std::uint32_t result =
        spread && row == 0 ? static_cast<std::uint32_t>(MurmurMix64(*spread ^ i)) : b.results[i];
    const __m512i row_above = _mm512_set1_epi64(static_cast<long long>(row >> 1));
    const __m512i results = _mm512_set1_epi64(result);
    for (int v = 0; v < kVectors; ++v) {
      const __m512i result_bits = _mm512_and_si512(
          _mm512_srlv_epi64(results, _mm512_add_epi64(lane, _mm512_set1_epi64(8 * v))), one);
      const __m512i shifted = _mm512_xor_si512(_mm512_slli_epi64(st[v], 1), result_bits);
      const __m512i parities = _mm512_popcnt_epi64(_mm512_and_si512(st[v], row_above));
      st[v] = _mm512_ternarylogic_epi64(shifted, parities, one, 0x78);  // shifted ^ (parities & 1)
    }
  }
  for (int v = 0; v < kVectors; ++v) _mm512_mask_storeu_epi64(state + 8 * v, keep[v], st[v]);
}
#endif

// Which back-substitution BackSubstitute runs: the build's best (AVX-512 at w = 64 where the
// build has it, else BackSubstituteBlock) or BackSubstituteBlock always, which tests compare.
enum class SolvePath { kBest, kPortable };

// One block of BackSubstitute on the path kPath chooses.
template <SolvePath kPath, class Row, int kWidth>
inline void BackSubstituteBlockOnPath(const Banding<Row, kWidth>& b, std::size_t block,
                                      int columns, std::optional<std::uint64_t> spread,
                                      Row* state) {
#ifdef AMQ_RIBBON_HAVE_AVX512
  if constexpr (kPath == SolvePath::kBest && kWidth == 64) {
    switch ((columns + 7) / 8) {
      case 1: BackSubstituteBlockAvx512<1>(b, block, columns, spread, state); return;
      case 2: BackSubstituteBlockAvx512<2>(b, block, columns, spread, state); return;
      case 3: BackSubstituteBlockAvx512<3>(b, block, columns, spread, state); return;
      default: BackSubstituteBlockAvx512<4>(b, block, columns, spread, state); return;
    }
  }
#endif
  BackSubstituteBlockDispatched(std::make_integer_sequence<int, 16>{}, b, block, columns, spread,
                                state);
}

// Z from the last slot down: Z[i] = result[i] XOR <row[i], Z[i+1 .. i+w-1]>, per column.
// state[j] holds column j of Z[i .. i+w-1] (bit t = Z[i+t]), so each step is a shift, a
// masked parity and, at a block boundary, a store of the finished block. A block keeps the
// first layout.columns(b) columns at word layout.offset(b); columns a block does not keep are
// not computed, which is right only while every later block keeps at least as many (a key
// reads its start block and the next one). One zero pad block of result_bits words follows:
// queries of the last block read its "next" block.
// An empty slot (row 0) is a free variable. Standard Ribbon sets it to 0, as good as any value
// there. Homogeneous Ribbon (free_seed given) must draw it at random: with every right-hand
// side 0, Z = 0 solves the system and would answer "present" to everything; a uniformly random
// solution makes each column of a non-key's parities a fair coin unless its row lies in the
// span of the key rows.
template <SolvePath kPath = SolvePath::kBest, class Row, int kWidth, class Layout>
std::vector<Row> BackSubstitute(const Banding<Row, kWidth>& b, std::size_t slots,
                                int result_bits, const Layout& layout,
                                std::optional<std::uint64_t> free_seed = std::nullopt) {
  const std::size_t blocks = slots / kWidth;
  std::vector<Row> solution(layout.offset(blocks) + result_bits, 0);
  std::vector<Row> state(result_bits, 0);
  const std::optional<std::uint64_t> spread =
      free_seed ? std::optional<std::uint64_t>(SpreadSeed(*free_seed)) : std::nullopt;
  for (std::size_t block = blocks; block-- > 0;) {
    const int columns = layout.columns(block);
    BackSubstituteBlockOnPath<kPath>(b, block, columns, spread, state.data());
    std::copy_n(state.begin(), columns, solution.begin() + layout.offset(block));
  }
  return solution;
}

// A built Ribbon's solution and how it was reached.
template <class Row>
struct Solved {
  std::vector<Row> words;  // the blocks' column words, then the pad block
  std::uint64_t seed = 0;  // the attempt seed that banded
  int attempts = 0;
  std::size_t redundant = 0;  // rows banding reduced to 0 = 0 (repeated keys; in homogeneous
                              // Ribbon also rows in the span of earlier ones)
};

// Bands (with retries) and back-substitutes: the whole construction, for any layout.
template <class Row, int kWidth, class Layout>
Solved<Row> Solve(std::span<const std::uint64_t> keys, std::uint64_t seed, int max_attempts,
                  std::size_t slots, int result_bits, const Layout& layout, std::string_view name) {
  Banding<Row, kWidth> banding;
  Solved<Row> out;
  out.attempts = BandWithRetries(banding, keys, seed, max_attempts, slots, result_bits, name,
                                 out.seed);
  out.words = BackSubstitute(banding, slots, result_bits, layout);
  out.redundant = banding.redundant;
  return out;
}

// Homogeneous Ribbon's construction: one banding with every right-hand side 0 (it cannot fail)
// and a back-substitution that draws the free variables from the attempt seed. It also
// estimates the share of non-key rows in the span of the key rows (filters/homog_ribbon.h:
// those are the false positives beyond 2^-r), from `span_samples` rows hashed from the seed.
// The sample is stratified: row k starts uniformly at random within the k-th of span_samples
// equal stretches of the starts, so the rows are reduced front to back, as banding walks the
// matrix, rather than at random places in it (where each one missed the caches: at n = 10^6
// builds took 49-55 ns/key with 65536 random rows, 27-33 with none). Each row's start is still uniform over
// all starts, so the share stays an unbiased estimate of p, with no more variance than a
// sample of independent rows.
template <class Row, int kWidth, class Layout>
Solved<Row> SolveHomogeneous(std::span<const std::uint64_t> keys, std::uint64_t seed,
                             std::size_t slots, int result_bits, const Layout& layout,
                             std::size_t span_samples, double& span_share) {
  Banding<Row, kWidth> banding;
  Solved<Row> out;
  out.seed = static_detail::AttemptSeed(seed, 0);
  out.attempts = 1;
  const std::uint64_t starts = slots - kWidth + 1;
  banding.Run(keys, slots, starts, out.seed, /*result_bits=*/0);
  std::size_t in_span = 0;
  const std::uint64_t sample_seed = SpreadSeed(out.seed ^ 0x5a3c'96e1'0f2b'd487ULL);
  // Row k's start: (k + u) starts / span_samples for u = the top 32 bits of a second hash over
  // 2^32, computed as ((k 2^32 + u 2^32) (starts 2^32 / span_samples)) / 2^64, below starts.
  const U128 stretch = span_samples ? (static_cast<U128>(starts) << 32) / span_samples : 0;
  for (std::size_t k = 0; k < span_samples; ++k) {
    const std::uint64_t h = HashKey(k, sample_seed);
    const std::uint64_t position = (static_cast<std::uint64_t>(k) << 32) | (MurmurMix64(h) >> 32);
    const auto start = static_cast<std::uint64_t>((position * stretch) >> 64);
    in_span += banding.InSpan(start, CoefficientsOf<Row>(h));
  }
  span_share = span_samples ? static_cast<double>(in_span) / span_samples : 0.0;
  out.words = BackSubstitute(banding, slots, result_bits, layout, out.seed);
  out.redundant = banding.redundant;
  return out;
}

// The first `columns` parities of a key whose start is at bit o of `block`: its row c covers
// Z[s .. s+w-1], bits o.. of this block's column words and the first o bits of the next
// block's, which start `columns` words later (the next block keeps at least as many).
// kColumns > 0 fixes the count at compile time (then `columns` must equal it): the loop becomes
// straight-line code.
template <class Row, int kWidth, int kColumns = 0>
inline std::uint64_t ParitiesAt(const Row* block, int columns, std::size_t o, Row c) {
  const int count = kColumns > 0 ? kColumns : columns;
  // Shift the row once instead of every column word.
  const Row c_here = c << o;
  const Row c_next = (c >> 1) >> (kWidth - 1 - o);  // two shifts: o = 0 must give 0
  std::uint64_t result = 0;
  // With r known only at run time, unrolled, the r parities overlap (3% faster member lookups
  // at 10^6 keys, w = 64, r = 7).
#pragma GCC unroll 16
  for (int j = 0; j < count; ++j) {
    result |= Parity((block[j] & c_here) ^ (block[count + j] & c_next)) << j;
  }
  return result;
}

// ParitiesAt with the usual column counts (1 to 16) dispatched to a compile-time copy, others to
// the run-time loop: the dispatch is a branch on the filter's own r, taken the same way by every
// lookup, so it predicts; the loop it replaces branched on r inside every lookup.
template <class Row, int kWidth, int... kCounts>
inline std::uint64_t ParitiesDispatched(std::integer_sequence<int, kCounts...>, const Row* block,
                                        int columns, std::size_t o, Row c) {
  std::uint64_t result = 0;
  const bool fixed =
      ((columns == kCounts + 1 &&
        (result = ParitiesAt<Row, kWidth, kCounts + 1>(block, columns, o, c), true)) ||
       ...);
  return fixed ? result : ParitiesAt<Row, kWidth>(block, columns, o, c);
}

template <class Row, int kWidth>
inline std::uint64_t ParitiesPortable(const Row* block, int columns, std::size_t o, Row c) {
  return ParitiesDispatched<Row, kWidth>(std::make_integer_sequence<int, 16>{}, block, columns, o,
                                         c);
}

#ifdef AMQ_RIBBON_HAVE_AVX512
// ParitiesAt for w = 64, eight columns a round: lane j holds column j's word of this block and
// of the next (masked loads: no lane past the r columns is read), ANDed with the row's two
// parts and XORed, and one popcount gives the eight parities in the lanes' low bits. A member's
// lookup computes every parity; column by column that was most of its instructions (about 9 a
// column: two loads, two ANDs, an XOR, a popcount, a mask, a shift and an OR).
inline std::uint64_t ParitiesAvx512(const std::uint64_t* block, int columns, std::size_t o,
                                    std::uint64_t c) {
  const __m512i c_here = _mm512_set1_epi64(static_cast<long long>(c << o));
  const __m512i c_next = _mm512_set1_epi64(static_cast<long long>((c >> 1) >> (63 - o)));
  const __m512i one = _mm512_set1_epi64(1);
  std::uint64_t result = 0;
  for (int j = 0; j < columns; j += 8) {
    const int left = columns - j;
    const auto lanes = static_cast<__mmask8>(left >= 8 ? 0xff : (1U << left) - 1);
    const __m512i here = _mm512_maskz_loadu_epi64(lanes, block + j);
    const __m512i next = _mm512_maskz_loadu_epi64(lanes, block + columns + j);
    const __m512i x = _mm512_xor_si512(_mm512_and_si512(here, c_here), _mm512_and_si512(next, c_next));
    result |= std::uint64_t{_mm512_test_epi64_mask(_mm512_popcnt_epi64(x), one)} << j;
  }
  return result;
}
#endif

#ifdef AMQ_RIBBON_HAVE_SSE2
// ParitiesAt in SSE2 (every x86-64 build has it), eight columns a round. Column by column, a
// parity is a fold of the column's AND-XORed words to one bit and its placement: at w = 128 about
// 21 instructions (four loads, four ANDs, three XORs, two shifts, three XORs, a setnp, a shift,
// an OR), at w = 64 about 14. Here each column's words are ANDed and XORed in a register, and the
// eight columns are folded together, halving the lanes at each step while packing two columns'
// halves into one register, so that every instruction of the fold works on all eight at once.
// ribbon_sse2_test.cc requires the portable path's parities at every column count and offset.

// Bit i: the parity of column i, given the eight columns folded to 64 bits two to a register
// (columns 0 and 1 in p01's low and high lanes, and so on): 64 -> 32 bits (shufps, XOR), 32 ->
// 16 (four columns' folds in the high halves of the 32-bit lanes, four in the low halves), 16 ->
// 1 at bit 15 of every 16-bit lane, then two movmskps read the parities in column order.
// Always inlined: with every Ribbon's lookups calling it (16 column counts each), GCC left it out
// of line in amqbench, 15 instructions more a lookup (CI's callgrind counts, ribbon at r = 7).
[[gnu::always_inline]] inline std::uint64_t ParitiesOfEightSse2(__m128i p01, __m128i p23, __m128i p45,
                                                                __m128i p67) {
  const auto halves_xor = [](__m128i a, __m128i b) {
    const __m128 fa = _mm_castsi128_ps(a), fb = _mm_castsi128_ps(b);
    return _mm_xor_si128(_mm_castps_si128(_mm_shuffle_ps(fa, fb, _MM_SHUFFLE(2, 0, 2, 0))),
                         _mm_castps_si128(_mm_shuffle_ps(fa, fb, _MM_SHUFFLE(3, 1, 3, 1))));
  };
  // 32-bit lanes: columns 0-3, and 4-7.
  const __m128i q0 = halves_xor(p01, p23), q1 = halves_xor(p45, p67);
  // 16-bit halves: column i's fold in the high half of lane i, column 4 + i's in its low half.
  const __m128i a = _mm_xor_si128(q0, _mm_slli_epi32(q0, 16));
  const __m128i b = _mm_xor_si128(q1, _mm_srli_epi32(q1, 16));
  __m128i m = _mm_xor_si128(a, _mm_and_si128(_mm_xor_si128(a, b), _mm_set1_epi32(0xffff)));
  // Each 16-bit half's parity into its top bit.
  m = _mm_xor_si128(m, _mm_slli_epi16(m, 8));
  m = _mm_xor_si128(m, _mm_slli_epi16(m, 4));
  m = _mm_xor_si128(m, _mm_slli_epi16(m, 2));
  m = _mm_xor_si128(m, _mm_slli_epi16(m, 1));
  const auto high = static_cast<std::uint64_t>(_mm_movemask_ps(_mm_castsi128_ps(m)));
  const auto low = static_cast<std::uint64_t>(_mm_movemask_ps(_mm_castsi128_ps(_mm_slli_epi32(m, 16))));
  return high | low << 4;
}

// w = 128: a column's two 128-bit words in one register; two columns' halves unpacked and XORed
// give ParitiesOfEightSse2's 64-bit folds. A group's missing columns are zero words, whose
// parities are 0.
template <int kColumns = 0>
inline std::uint64_t ParitiesSse2At(const U128* block, int columns, std::size_t o, U128 c) {
  const int count = kColumns > 0 ? kColumns : columns;
  const U128 row_here = c << o;
  const U128 row_next = (c >> 1) >> (127 - o);  // two shifts: o = 0 must give 0
  const auto as_vector = [](U128 x) {
    return _mm_set_epi64x(static_cast<long long>(x >> 64), static_cast<long long>(x));
  };
  const __m128i c_here = as_vector(row_here), c_next = as_vector(row_next);
  const auto* here = reinterpret_cast<const __m128i*>(block);
  const auto* next = reinterpret_cast<const __m128i*>(block + count);
  const auto unpack_xor = [](__m128i a, __m128i b) {
    return _mm_xor_si128(_mm_unpacklo_epi64(a, b), _mm_unpackhi_epi64(a, b));
  };
  std::uint64_t result = 0;
#pragma GCC unroll 4
  for (int g = 0; g < count; g += 8) {
    __m128i v[8];
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      v[j] = g + j < count ? _mm_xor_si128(_mm_and_si128(_mm_load_si128(here + g + j), c_here),
                                           _mm_and_si128(_mm_load_si128(next + g + j), c_next))
                           : _mm_setzero_si128();
    }
    result |= ParitiesOfEightSse2(unpack_xor(v[0], v[1]), unpack_xor(v[2], v[3]),
                                  unpack_xor(v[4], v[5]), unpack_xor(v[6], v[7]))
              << g;
  }
  return result;
}

// w = 64: the column words are adjacent, so one 16-byte load holds two columns' words, already
// ParitiesOfEightSse2's pairs once ANDed and XORed. A count's last odd column takes an 8-byte load
// (the next block's words end at column count - 1: nothing past them is read).
template <int kColumns = 0>
inline std::uint64_t ParitiesSse2At(const std::uint64_t* block, int columns, std::size_t o, std::uint64_t c) {
  const int count = kColumns > 0 ? kColumns : columns;
  const __m128i c_here = _mm_set1_epi64x(static_cast<long long>(c << o));
  const __m128i c_next = _mm_set1_epi64x(static_cast<long long>((c >> 1) >> (63 - o)));
  const std::uint64_t* next = block + count;
  const auto pair = [&](int j) {  // columns j and j + 1 of the block
    if (j >= count) return _mm_setzero_si128();
    const auto load = [&](const std::uint64_t* p) {
      return j + 1 < count ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(p))
                           : _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    };
    return _mm_xor_si128(_mm_and_si128(load(block + j), c_here), _mm_and_si128(load(next + j), c_next));
  };
  std::uint64_t result = 0;
#pragma GCC unroll 4
  for (int g = 0; g < count; g += 8) {
    result |= ParitiesOfEightSse2(pair(g), pair(g + 2), pair(g + 4), pair(g + 6)) << g;
  }
  return result;
}

// The usual column counts (1 to 16) dispatched to a compile-time copy, as ParitiesDispatched.
template <class Row, int... kCounts>
inline std::uint64_t ParitiesSse2Dispatched(std::integer_sequence<int, kCounts...>, const Row* block,
                                            int columns, std::size_t o, Row c) {
  std::uint64_t result = 0;
  const bool fixed =
      ((columns == kCounts + 1 && (result = ParitiesSse2At<kCounts + 1>(block, columns, o, c), true)) ||
       ...);
  return fixed ? result : ParitiesSse2At(block, columns, o, c);
}

template <class Row>
inline std::uint64_t ParitiesSse2(const Row* block, int columns, std::size_t o, Row c) {
  return ParitiesSse2Dispatched<Row>(std::make_integer_sequence<int, 16>{}, block, columns, o, c);
}
#endif

// The r parities of a lookup: the SIMD path where the build has one (AVX-512 for w = 64 where
// the build targets it, else SSE2), else the portable.
template <class Row, int kWidth>
inline std::uint64_t Parities(const Row* block, int columns, std::size_t o, Row c) {
#if defined(AMQ_RIBBON_HAVE_AVX512)
  if constexpr (kWidth == 64) {
    return ParitiesAvx512(block, columns, o, c);
  } else {
    return ParitiesSse2(block, columns, o, c);
  }
#elif defined(AMQ_RIBBON_HAVE_SSE2)
  return ParitiesSse2(block, columns, o, c);
#else
  return ParitiesPortable<Row, kWidth>(block, columns, o, c);
#endif
}

// The layout of a Ribbon whose every block keeps all r columns.
struct AllColumns {
  int r;
  int columns(std::size_t) const { return r; }
  std::size_t offset(std::size_t block) const { return block * r; }
};

// Starts loading every cache line of a lookup's 2 columns words (two adjacent blocks).
template <class Row>
inline void PrefetchBlocks(const Row* block, int columns) {
  const auto* first = reinterpret_cast<const char*>(block);
  const auto* last = reinterpret_cast<const char*>(block + 2 * columns) - 1;
  for (const char* line = first; line < last; line += 64) __builtin_prefetch(line);
  __builtin_prefetch(last);
}
}  // namespace ribbon_detail

// kHomogeneous: homogeneous Ribbon (filters/homog_ribbon.h describes it), the same layout and
// lookups with every right-hand side 0.
template <int kWidth, bool kHomogeneous = false>
class Ribbon {
  static_assert(kWidth == 64 || kWidth == 128);
  using Row = std::conditional_t<kWidth == 64, std::uint64_t, ribbon_detail::U128>;

 public:
  static constexpr int kRibbonWidth = kWidth;
  static constexpr double kOverhead = kWidth == 64 ? 0.14 : 0.05;
  static constexpr std::string_view kName =
      kHomogeneous ? (kWidth == 128 ? "homog_ribbon128" : "homog_ribbon64")
                   : (kWidth == 128 ? "ribbon" : "ribbon64");
  static constexpr std::string_view kFamily = "ribbon";
  // Micro-benchmarked at FastFilter's HomogRibbon64_8 (r = 8); the standard Ribbons at the 1%
  // target (r = 7, its StandardRibbon64_7). harness/cell/micro_size.h.
  static constexpr double kMicroTargetFpr = kHomogeneous ? 1.0 / 256 : 0.0;
  static constexpr std::string_view kParameters =
      kHomogeneous
          ? "homogeneous; w = 64; m = n*(1 + (4 + r/4)/w) rounded up to w; --fpr eps: "
            "r = ceil(log2(1/eps)); --bits-per-key B: the largest r with r (1 + (4 + r/4)/w) <= B; "
            "r in 1..32"
      : kWidth == 64 ? "w = 64; m = n*1.14 rounded up to 64; --fpr eps: r = ceil(log2(1/eps)); "
                       "--bits-per-key B: r = floor(B/1.14); r in 1..32"
                     : "w = 128; m = n*1.05 rounded up to 128; --fpr eps: r = ceil(log2(1/eps)); "
                       "--bits-per-key B: r = floor(B/1.05); r in 1..32";

  // The overhead eps this filter is sized for at r result bits: fixed for standard Ribbon;
  // homogeneous Ribbon's grows with r (filters/homog_ribbon.h).
  static constexpr double OverheadFor(int r) {
    if constexpr (kHomogeneous) {
      return HomogRibbonOverhead(r, kWidth);
    } else {
      return kOverhead;
    }
  }

  static int ResultBitsFor(const FilterParams& p) {
    int r = 0;
    if (p.bits_per_key <= 0) {
      r = static_cast<int>(std::ceil(std::log2(1.0 / p.fpr_or_default())));
    } else if constexpr (kHomogeneous) {
      while (r < 32 && RibbonBitsPerKey(r + 1, OverheadFor(r + 1)) <= p.bits_per_key) ++r;
    } else {
      r = static_cast<int>(std::floor(p.bits_per_key / (1 + kOverhead)));
    }
    return std::clamp(r, 1, 32);
  }

  static std::size_t SlotsFor(std::size_t n, double overhead) {
    const auto wanted =
        static_cast<std::size_t>(std::ceil(static_cast<double>(n) * (1 + overhead)));
    return std::max<std::size_t>(1, (wanted + kWidth - 1) / kWidth) * kWidth;
  }

  static Ribbon build(std::span<const std::uint64_t> keys, const FilterParams& p) {
    return build(keys, p, StaticBuildOptions{});
  }

  static Ribbon build(std::span<const std::uint64_t> keys, const FilterParams& p,
                      const StaticBuildOptions& options) {
    Ribbon f;
    f.r_ = ResultBitsFor(p);
    f.slots_ = options.slots_override ? (options.slots_override + kWidth - 1) / kWidth * kWidth
                                      : SlotsFor(keys.size(), OverheadFor(f.r_));
    f.starts_ = f.slots_ - kWidth + 1;
    if constexpr (kHomogeneous) {
      f.solved_ = ribbon_detail::SolveHomogeneous<Row, kWidth>(
          keys, p.seed, f.slots_, f.r_, ribbon_detail::AllColumns{f.r_}, HomogRibbonSpanSamples(keys.size()),
          f.span_share_);
    } else {
      f.solved_ = ribbon_detail::Solve<Row, kWidth>(keys, p.seed, options.max_attempts, f.slots_,
                                                    f.r_, ribbon_detail::AllColumns{f.r_}, kName);
    }
    f.keys_ = keys.size() - f.solved_.redundant;
    return f;
  }

  bool contains(std::uint64_t key) const { return ContainsHash(HashKey(key, solved_.seed)); }
  // contains() through the portable parities in every build (ribbon_sse2_test.cc,
  // ribbon_avx512_test.cc).
  bool contains_portable(std::uint64_t key) const {
    return ContainsHash<true>(HashKey(key, solved_.seed));
  }

  // A lookup reads 2 r words from two adjacent blocks (2 r w / 8 bytes, 112 at w = 64, r = 7,
  // so two or three cache lines): the pipeline (core/batched.h) prefetches every line of that
  // span for the next 8 keys while it probes this one.
  std::size_t contains_many(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
    return PipelinedContains<8>(
        keys, out,
        [this](std::uint64_t key) {
          const std::uint64_t h = HashKey(key, solved_.seed);
          ribbon_detail::PrefetchBlocks(&solved_.words[ReduceRange(h, starts_) / kWidth * r_], r_);
          return h;
        },
        [this](std::uint64_t h) { return ContainsHash(h); });
  }

  std::size_t size_in_bytes() const { return slots_ / 8 * r_; }  // m r bits; not the pad block
  std::span<const std::uint8_t> bytes() const {
    return {reinterpret_cast<const std::uint8_t*>(solved_.words.data()), size_in_bytes()};
  }
  int result_bits() const { return r_; }
  std::size_t slots() const { return slots_; }
  int build_attempts() const { return solved_.attempts; }
  double overhead() const { return keys_ ? static_cast<double>(slots_) / keys_ - 1 : 0.0; }
  // Homogeneous: key rows that banding reduced to 0 (repeated keys and linearly dependent rows).
  std::size_t redundant_rows() const { return solved_.redundant; }
  // Homogeneous: the estimated share of non-key rows in the span of the key rows.
  double span_share() const { return span_share_; }

  // r (1 + eps) whatever the blocks rounded m to; no keys, no bits per key.
  Theory theory() const {
    const double bits = keys_ ? RibbonBitsPerKey(r_, OverheadFor(r_)) : 0.0;
    if constexpr (kHomogeneous) {
      return {HomogRibbonFpr(r_, span_share_), bits};
    } else {
      return {FingerprintFpr(r_), bits};
    }
  }

  // The statistics add_stats reports (core/filter.h).
  static constexpr auto kStats = [] {
    if constexpr (kHomogeneous) {
      return std::array{stat::kBuildAttempts,           stat::kFingerprintBits,
                        stat::kSlots,                   ribbon_detail::kOverheadStat,
                        ribbon_detail::kWidthStat,      ribbon_detail::kDependentRowsStat,
                        ribbon_detail::kSpanShareStat};
    } else {
      return std::array{stat::kBuildAttempts,      stat::kFingerprintBits,
                        stat::kSlots,              ribbon_detail::kOverheadStat,
                        ribbon_detail::kWidthStat, ribbon_detail::kRedundantRowsStat};
    }
  }();

  void add_stats(Stats& s) const {
    s.put("build_attempts", solved_.attempts);
    s.put("fingerprint_bits", r_);
    s.put("slots", slots_);
    s.put("overhead", overhead());
    s.put("ribbon_width", kWidth);
    s.put(kHomogeneous ? "dependent_rows" : "redundant_rows", solved_.redundant);
    if constexpr (kHomogeneous) s.put("span_share", span_share_);
  }

 private:
  // Standard: the r parities equal the key's fingerprint. Homogeneous: they are all 0.
  template <bool kPortable = false>
  bool ContainsHash(std::uint64_t h) const {
    const std::uint64_t s = ReduceRange(h, starts_);
    const Row* block = &solved_.words[s / kWidth * r_];
    const Row c = ribbon_detail::CoefficientsOf<Row>(h);
    const std::uint64_t parities =
        kPortable ? ribbon_detail::ParitiesPortable<Row, kWidth>(block, r_, s % kWidth, c)
                  : ribbon_detail::Parities<Row, kWidth>(block, r_, s % kWidth, c);
    if constexpr (kHomogeneous) {
      return parities == 0;
    } else {
      return parities == static_detail::FingerprintOf(h, r_);
    }
  }

  int r_ = 7;
  std::size_t slots_ = 0;
  std::uint64_t starts_ = 1;
  std::size_t keys_ = 0;
  double span_share_ = 0.0;  // homogeneous only
  ribbon_detail::Solved<Row> solved_;
};

using Ribbon64 = Ribbon<64>;
using Ribbon128 = Ribbon<128>;

}  // namespace amq
