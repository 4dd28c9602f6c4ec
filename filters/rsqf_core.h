// filters/rsqf_core.h - the block layout and run machinery shared by the rank-and-select
// quotient filter (filters/rsqf.h) and the counting quotient filter (filters/cqf.h), after
// P. Pandey, M. A. Bender, R. Johnson, R. Patro, "A General-Purpose Counting Filter: Making
// Every Bit Count", SIGMOD 2017.
//
// Layout: 2^q canonical slots plus overflow slots at the end (no wrap-around), in blocks of 64
// slots. A block is 17 + 8r bytes, interleaved so one lookup touches one or two cache lines:
//   byte 0        offset: slots at the start of this block used by runs of quotients in
//                 earlier blocks (the paper's O_i, as a count), saturated at kOffsetLimit
//   bytes 1..8    occupieds bitmap: bit j set iff some stored fingerprint has quotient 64i + j
//   bytes 9..16   runends bitmap: bit j set iff slot 64i + j is the last slot of a run
//   bytes 17..    64 remainders of r bits, bit-packed (8r bytes)
// Metadata: (64 + 64 + 8) / 64 = 2.125 bits per slot. Runs appear in quotient order, the k-th
// set occupieds bit owning the k-th set runends bit; a run of quotient x starts at
// max(x, end of the previous run + 1).
//
// RunEndUpTo(x) - where the last run of a quotient <= x ends - is one rank and one select:
// d = popcount(occupieds of x's block up to x), then the d-th runend at or after
// block start + offset. select is PDEP + TZCNT with BMI2 (compiled in when __BMI2__ is defined,
// i.e. -march=native on a BMI2 CPU) and a portable byte-table select otherwise; both are
// exposed below so the tests can check them against each other.
//
// Offsets wider than 8 bits: a stored offset equal to kOffsetLimit (255) means "255 or more";
// the true value is then recomputed from the nearest earlier unsaturated block (one rank and
// select per block in between). At the 95% default load the offset exceeds 255 with
// probability ~1e-12 per block (M/D/1 queue tail), so only near-full tables pay; the tests
// instantiate kOffsetLimit = 2 to run the fallback constantly.
//
// Overflow: 64 + 1.5 sqrt(2^q) slots, rounded up to whole blocks (0.15% at 2^20). A fingerprint
// that would need a slot past the end is refused (insert returns false); nothing is lost.
//
// RsqfFilterBase, at the end, is the part of the two filters above the core that they share.
#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "filters/quotient_common.h"
#include "core/batched.h"
#include "core/concurrent_insert.h"
#include "core/filter.h"
#include "filters/theory_formulas.h"
#include "core/hashing.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define AMQ_RSQF_X86 1
#endif

namespace amq {
namespace rsqf_detail {

// SWAR popcount: what Popcount compiles to without -mpopcnt, and what the portable core
// (kPortable) always uses, so the tests run the fallback on any CPU.
inline int PopcountPortable(std::uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
  return static_cast<int>((x * 0x0101010101010101ULL) >> 56);
}

inline int Popcount(std::uint64_t x) {
#if defined(__POPCNT__)
  return std::popcount(x);
#else
  // Without -mpopcnt, std::popcount is a libgcc call; the SWAR count inlines.
  return PopcountPortable(x);
#endif
}

// kSelectInByte[b][k]: position of the k-th (0-based) set bit of byte b, 8 if none.
struct SelectTable {
  std::uint8_t pos[256][8];
  constexpr SelectTable() : pos() {
    for (int b = 0; b < 256; ++b) {
      int k = 0;
      for (int i = 0; i < 8; ++i) pos[b][i] = 8;
      for (int i = 0; i < 8; ++i) {
        if (b >> i & 1) pos[b][k++] = static_cast<std::uint8_t>(i);
      }
    }
  }
};
inline constexpr SelectTable kSelectTable{};

// Position of the k-th (0-based) set bit of x, or 64 if x has at most k set bits.
inline int SelectPortable(std::uint64_t x, int k) {
  for (int byte = 0; byte < 8; ++byte, x >>= 8) {
    const unsigned b = x & 0xff;
    const int c = PopcountPortable(b);
    if (k < c) return 8 * byte + kSelectTable.pos[b][k];
    k -= c;
  }
  return 64;
}

#if defined(AMQ_RSQF_X86) && (defined(__GNUC__) || defined(__clang__))
#define AMQ_RSQF_HAVE_BMI2_SELECT 1
// PDEP deposits a single 1 at the k-th set bit of x; TZCNT reads its position. Compiled for
// BMI2 whatever the build flags, so a test can run it when the CPU has BMI2.
__attribute__((target("bmi,bmi2"))) inline int SelectBmi2(std::uint64_t x, int k) {
  if (k >= 64) return 64;
  return static_cast<int>(_tzcnt_u64(_pdep_u64(1ULL << k, x)));
}
inline bool CpuHasBmi2() { return __builtin_cpu_supports("bmi2"); }
#endif

// The select the filters call: BMI2 when the build targets it, portable otherwise.
inline int Select(std::uint64_t x, int k) {
#if defined(__BMI2__)
  return static_cast<int>(_tzcnt_u64(_pdep_u64(1ULL << k, x)));
#else
  return SelectPortable(x, k);
#endif
}

inline constexpr bool kSelectIsBmi2 =
#if defined(__BMI2__)
    true;
#else
    false;
#endif


// Word moves of bit-packed remainders. A bit string starts at byte p; bit i is bit i % 8 of
// byte i / 8 (little-endian words, as Load64 reads them). Both functions read and write whole
// 64-bit words at byte offsets: they may read up to 8 bytes before p + lo / 8 and 8 bytes past
// p + (hi - 1) / 8 (the block header before a block's remainders, the next block or the
// table's 8 spare bytes after; ShiftBitsDown reads past the last word it writes only when
// bits [hi - s, hi) lie there), and write back only the bits they move.
inline std::uint64_t LoadWord(const std::uint8_t* p) {
  std::uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}
inline void StoreWord(std::uint8_t* p, std::uint64_t w) { std::memcpy(p, &w, sizeof w); }

// Bits [a, b) of a 64-bit word whose bit 0 is bit `base` of the string (a <= b; either may lie
// outside the word).
inline std::uint64_t WordMask(std::int64_t base, std::int64_t a, std::int64_t b) {
  const std::int64_t lo = std::clamp<std::int64_t>(a - base, 0, 64);
  const std::int64_t hi = std::clamp<std::int64_t>(b - base, 0, 64);
  if (lo >= hi) return 0;
  const std::uint64_t upto = hi == 64 ? ~0ULL : (1ULL << hi) - 1;
  return upto & (~0ULL << lo);
}

// Bits [lo, hi - s) move to [lo + s, hi); bits [lo, lo + s) and all bits outside [lo, hi) keep
// their values. 1 <= s < 64. Highest word first, so every word is read before it is written.
inline void ShiftBitsUp(std::uint8_t* p, std::uint64_t lo, std::uint64_t hi, unsigned s) {
  if (hi <= lo + s) return;
  const std::uint64_t first = (lo + s) >> 3, last = (hi - 1) >> 3;  // bytes written
  for (std::uint64_t w = first + (last - first) / 8 * 8;; w -= 8) {
    const std::uint64_t cur = LoadWord(p + w);
    const std::uint64_t moved = (cur << s) | (LoadWord(p + w - 8) >> (64 - s));
    const std::int64_t base = static_cast<std::int64_t>(8 * w);
    const std::uint64_t m = WordMask(base, static_cast<std::int64_t>(lo + s),
                                     static_cast<std::int64_t>(hi));
    StoreWord(p + w, (cur & ~m) | (moved & m));
    if (w == first) break;
  }
}

// Bits [lo + s, hi) move to [lo, hi - s); bits [hi - s, hi) and all bits outside [lo, hi) keep
// their values. 1 <= s < 64. Lowest word first.
inline void ShiftBitsDown(std::uint8_t* p, std::uint64_t lo, std::uint64_t hi, unsigned s) {
  if (hi <= lo + s) return;
  const std::uint64_t first = lo >> 3, last = (hi - s - 1) >> 3;  // bytes written
  for (std::uint64_t w = first; w <= last; w += 8) {
    const std::uint64_t cur = LoadWord(p + w);
    // The next word only when the moved bits reach into it: a block's last remainder word
    // may have fewer than 8 readable bytes after it.
    const std::uint64_t next = 8 * (w + 8) < hi ? LoadWord(p + w + 8) : 0;
    const std::uint64_t moved = (cur >> s) | (next << (64 - s));
    const std::int64_t base = static_cast<std::int64_t>(8 * w);
    const std::uint64_t m = WordMask(base, static_cast<std::int64_t>(lo),
                                     static_cast<std::int64_t>(hi - s));
    StoreWord(p + w, (cur & ~m) | (moved & m));
  }
}

}  // namespace rsqf_detail

// Shape of the stored runs, computed on demand (stats and tests).
struct RunShape {
  std::uint64_t runs = 0, run_max = 0, clusters = 0, cluster_max = 0, stretches = 0,
                stretch_max = 0, used = 0, displacement = 0, offset_max = 0, saturated_blocks = 0;
  double probes_to_empty = 0;  // summed over all slots
};

// kPortable = true forces the portable paths whatever the build targets: SWAR popcount, the
// byte-table select, slot-by-slot moves of remainders that are not byte-wide and slot-by-slot
// run-start scans. The tests instantiate it beside the default core and require the same bytes
// and the same answers.
template <int kOffsetLimit = 255, bool kPortable = false>
class RsqfCore {
  static_assert(kOffsetLimit >= 1 && kOffsetLimit <= 255);

 public:
  static constexpr int kHeaderBytes = 17;
  static constexpr double kMetadataBitsPerSlot = 2.125;

  static std::uint64_t OverflowSlotsFor(int q) {
    const double extra = 64 + 1.5 * std::sqrt(std::ldexp(1.0, q));
    return (static_cast<std::uint64_t>(std::ceil(extra)) + 63) / 64 * 64;
  }

  RsqfCore() = default;
  RsqfCore(int q, int r)
      : q_(q),
        r_(r),
        rmask_((1ULL << r) - 1),
        block_bytes_(kHeaderBytes + 8 * static_cast<std::size_t>(r)),
        blocks_(((1ULL << q) + OverflowSlotsFor(q)) / 64),
        bytes_(blocks_ * block_bytes_ + 8, 0) {
    // SWAR fields for RunHolds: as many r-bit fields as fit in the 57 bits a byte-aligned
    // 64-bit load always delivers.
    swar_fields_ = 57 / r;
    for (int i = 0; i < swar_fields_; ++i) {
      swar_low_ |= 1ULL << (i * r);
      swar_high_ |= 1ULL << (i * r + r - 1);
    }
  }

  int q() const { return q_; }
  int r() const { return r_; }
  std::uint64_t canonical_slots() const { return 1ULL << q_; }
  std::uint64_t total_slots() const { return blocks_ * 64; }
  std::uint64_t used() const { return used_; }
  std::size_t size_in_bytes() const { return blocks_ * block_bytes_; }
  std::span<const std::uint8_t> bytes() const { return {bytes_.data(), size_in_bytes()}; }

  // Asks for the lines a lookup of quotient x reads first: the block header (17 bytes, which
  // may straddle two lines) and the remainder of x's home slot, where its run usually is.
  void Prefetch(std::uint64_t x) const {
    const std::uint8_t* block = &bytes_[BlockByte(x >> 6)];
    __builtin_prefetch(block);
    __builtin_prefetch(block + kHeaderBytes - 1);
    __builtin_prefetch(block + kHeaderBytes + ((x & 63) * r_ >> 3));
  }

  // Batched lookups for the filters on this core: split(key) gives the quotient and remainder,
  // Prefetch asks for the lines holds(quotient, remainder) reads first, and core/batched.h's
  // GroupPipelinedContains hashes and prefetches the next 8 keys while it probes these 8.
  // Until 2026-12-05 one group of 16 was hashed and prefetched, then probed, so each group's
  // misses waited with nothing behind them. Ad hoc at n = 2^26 (rsqf, portable, one process, 7
  // rounds, medians, ns per key): members 49.9 against 69.7, non-members 29.4 against 37.3; at
  // 2^24 43.5 against 57.7 and 25.5 against 31.8; at 2^22 37.2 / 20.8 against 38.9 / 21.6; at
  // 2^20, 2^16 and 2^10 within 2% (non-members at 2^10 +5.5%). Groups of 16 kept 96 prefetches in
  // flight and came to 63.5 at 2^26, 32 to 75.5; key by key (PipelinedContains, 16 ahead) was
  // as fast at 2^26 but 7-12% slower at 2^16-2^20 and 25% at 2^10.
  template <class SplitFn, class HoldsFn>
  std::size_t ContainsMany(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out,
                           SplitFn split, HoldsFn holds) const {
    return GroupPipelinedContains<kLookupGroup>(
        keys, out,
        [&](std::uint64_t key) {
          const std::pair<std::uint64_t, std::uint64_t> f = split(key);
          Prefetch(f.first);
          return f;
        },
        [&](const std::pair<std::uint64_t, std::uint64_t>& f) { return holds(f.first, f.second); });
  }
  static constexpr std::size_t kLookupGroup = 8;

  bool Occupied(std::uint64_t x) const { return OccWord(x >> 6) >> (x & 63) & 1; }
  bool Runend(std::uint64_t s) const { return RunWord(s >> 6) >> (s & 63) & 1; }
  std::uint64_t Rem(std::uint64_t s) const {
    const std::size_t bit = (s & 63) * r_;
    return (Load64(RemByte(s >> 6) + (bit >> 3)) >> (bit & 7)) & rmask_;
  }
  void SetRem(std::uint64_t s, std::uint64_t v) {
    const std::size_t bit = (s & 63) * r_;
    const std::size_t byte = RemByte(s >> 6) + (bit >> 3);
    const std::uint64_t m = rmask_ << (bit & 7);
    Store64(byte, (Load64(byte) & ~m) | ((v << (bit & 7)) & m));
  }

  // End of the last run whose quotient is <= x. When no such run reaches x's block the result
  // is some value below x's block start (possibly -1): callers only compare it with slots of
  // that block or later.
  std::int64_t RunEndUpTo(std::uint64_t x) const {
    const std::uint64_t block = x >> 6;
    const std::uint64_t off = TrueOffset(block);
    const int d = Pop(OccWord(block) & ((2ULL << (x & 63)) - 1));
    if (d == 0) return static_cast<std::int64_t>(block * 64 + off) - 1;
    return static_cast<std::int64_t>(NthRunendFrom(block * 64 + off, d));
  }

  // First slot of the run that ends at `end` and has quotient x: one past the last runend
  // bit in [x, end - 1], or x. Word scans (countl_zero) rather than a walk back slot by slot.
  std::uint64_t RunStart(std::uint64_t x, std::uint64_t end) const {
    if constexpr (kPortable) {
      std::uint64_t s = end;
      while (s > x && !Runend(s - 1)) --s;
      return s;
    } else {
      if (end <= x) return end;
      const std::uint64_t top = end - 1, x_block = x >> 6;
      std::uint64_t block = top >> 6;
      std::uint64_t w = RunWord(block) & (~0ULL >> (63 - (top & 63)));
      while (true) {
        if (block == x_block) w &= ~0ULL << (x & 63);
        if (w) return block * 64 + 64 - std::countl_zero(w);
        if (block == x_block) return x;
        w = RunWord(--block);
      }
    }
  }

  // Whether some slot in [start, end] holds v. Compares a word of remainders at a time (SWAR:
  // v broadcast to every field, XOR, then the zero-field test (w - low) & ~w & high, whose
  // borrows can only flag fields above a truly zero one, so "any field is zero" is exact), so a
  // short run costs one load and no branch per slot.
  bool RunHolds(std::uint64_t start, std::uint64_t end, std::uint64_t v) const {
    if constexpr (kPortable) {
      for (std::uint64_t s = start; s <= end; ++s) {
        if (Rem(s) == v) return true;
      }
      return false;
    } else {
      const std::uint64_t pattern = v * swar_low_;
      for (std::uint64_t s = start;;) {
        const std::uint64_t in_block = 64 - (s & 63), left = end - s + 1;
        const std::uint64_t n = std::min<std::uint64_t>({in_block, left, std::uint64_t(swar_fields_)});
        const std::size_t bit = (s & 63) * r_;
        const std::uint64_t w = (Load64(RemByte(s >> 6) + (bit >> 3)) >> (bit & 7)) ^ pattern;
        const std::uint64_t fields = (1ULL << (n * r_)) - 1;  // n * r <= 57
        if ((w - swar_low_) & ~w & swar_high_ & fields) return true;
        s += n;
        if (s > end) return false;
      }
    }
  }

  // Puts `value` in slot pos for quotient x, shifting everything from pos up to the first unused
  // slot one slot right. run_end < 0: x has no run yet (pos = max(x, previous run end + 1));
  // otherwise pos lies in [run start, run_end + 1]. False (nothing changed) if the shift would
  // run past the last overflow slot. kShared: other threads insert at the same time (each
  // within the blocks it holds, see Window), so the slot count is bumped atomically.
  template <bool kShared = false>
  bool InsertSlot(std::uint64_t x, std::uint64_t pos, std::uint64_t value, std::int64_t run_end) {
    const std::uint64_t e = FirstUnusedFrom(pos);
    if (e >= total_slots()) return false;
    if (e > pos) {
      MoveRemaindersRight(pos, e);
      ShiftRunendsRight(pos, e);
    }
    SetRem(pos, value);
    if (run_end < 0) {
      SetRunend(pos, true);
      SetOccupied(x, true);
    } else if (pos == static_cast<std::uint64_t>(run_end) + 1) {
      SetRunend(run_end, false);
      SetRunend(pos, true);
    }
    // Every block start in (x, e] gains one slot of spill from runs of lower quotients.
    for (std::uint64_t k = (x >> 6) + 1; k * 64 <= e; ++k) {
      const std::uint8_t o = StoredOffset(k);
      if (o < kOffsetLimit) SetStoredOffset(k, o + 1);
    }
    if constexpr (kShared) {
      AtomicAdd<std::uint64_t>(used_, 1);
    } else {
      ++used_;
    }
    return true;
  }

  // Removes slot pos from the run [start, end] of quotient x, pulling the following shifted
  // runs one slot left; a run that reaches its home slot stops the pull. kShared: as InsertSlot.
  template <bool kShared = false>
  void RemoveSlot(std::uint64_t x, std::uint64_t pos, std::uint64_t start, std::uint64_t end) {
    std::uint64_t last = end;  // last slot that moves
    for (std::uint64_t y = x;;) {
      y = NextOccupied(y + 1, last);
      if (y > last) break;  // the next run starts at home (or there is none): it stays
      last = NextRunend(last + 1);
    }
    MoveRemaindersLeft(pos, last);
    ShiftRunendsLeft(pos, last);
    SetRem(last, 0);
    if (start == end) {
      SetOccupied(x, false);
    } else if (pos == end) {
      SetRunend(pos - 1, true);
    }
    for (std::uint64_t k = (x >> 6) + 1; k * 64 <= last; ++k) {
      const std::uint8_t o = StoredOffset(k);
      // A saturated offset's new value is unknown: recompute it (blocks before k are final).
      SetStoredOffset(k, o < kOffsetLimit ? o - 1 : Clamp(TrueOffset(k)));
    }
    if constexpr (kShared) {
      AtomicAdd<std::uint64_t>(used_, ~std::uint64_t{0});  // minus one, modulo 2^64
    } else {
      --used_;
    }
  }

  // Concurrent inserts (core/concurrent_insert.h) run the sequential insert code inside a
  // Window: blocks [lo, hi) that the inserting thread holds, plus the first 8 bytes after block
  // hi - 1 (block hi's header, or the table's spare bytes when hi is the last block), which the
  // word moves of block hi - 1's remainders read and write back. Before that code runs, the
  // bounded searches below replay its reads - the backward walk over saturated offsets and the
  // forward scans to run ends and to the first unused slot - without leaving the window. When
  // one would leave it they return false and name the block they wanted, so the caller can
  // hold more and try again. What they establish (FirstUnusedIn below) confines every read and
  // write of the sequential insert to the window.
  struct Window {
    std::uint64_t lo = 0, hi = 0;
    std::uint64_t wanted = 0;  // after a false return: a block outside [lo, hi) the search needs
  };

  // First slot >= s that no run covers, or total_slots() if none, as FirstUnusedFrom; false if
  // finding it reads outside w. With e = the result for s = x, an insert of quotient x places
  // its slot at some pos in [x, e] (pos <= the run's end + 1 <= e) and shifts [pos, e]: its
  // rank/select calls read blocks from x's saturated-offset walk (replayed here) up to e's
  // block, its writes reach e's block and spill into the next block's first 8 bytes. So
  // e < 64 w.hi (or e = total_slots(), a refusal that writes nothing) keeps it inside w.
  bool FirstUnusedIn(std::uint64_t s, Window& w, std::uint64_t& unused) const {
    while (s < total_slots()) {
      if ((s >> 6) >= w.hi) {
        w.wanted = s >> 6;
        return false;
      }
      std::int64_t t;
      if (!RunEndUpToIn(s, w, t)) return false;
      if (t < static_cast<std::int64_t>(s)) {
        unused = s;
        return true;
      }
      s = static_cast<std::uint64_t>(t) + 1;
    }
    unused = total_slots();
    return true;
  }

  // RunEndUpTo(x) reading only inside w (x's block must lie in w).
  bool RunEndUpToIn(std::uint64_t x, Window& w, std::int64_t& end) const {
    const std::uint64_t block = x >> 6;
    std::uint64_t off;
    if (!TrueOffsetIn(block, w, off)) return false;
    const int d = Pop(OccWord(block) & ((2ULL << (x & 63)) - 1));
    if (d == 0) {
      end = static_cast<std::int64_t>(block * 64 + off) - 1;
      return true;
    }
    std::uint64_t found;
    if (!NthRunendIn(block * 64 + off, d, w, found)) return false;
    end = static_cast<std::int64_t>(found);
    return true;
  }

  // TrueOffset(k) reading only inside w (k must lie in w): the walk back over saturated offsets
  // may want an earlier block, and each step's run end a later one.
  bool TrueOffsetIn(std::uint64_t k, Window& w, std::uint64_t& off) const {
    std::uint64_t j = k;
    while (StoredOffset(j) >= kOffsetLimit) {  // block 0's offset is 0: the walk stops there
      if (j == w.lo) {
        w.wanted = j - 1;
        return false;
      }
      --j;
    }
    off = StoredOffset(j);
    for (std::uint64_t t = j; t < k; ++t) {
      const int d = Pop(OccWord(t));
      std::uint64_t end = t * 64 + off;  // one past the run end when d = 0
      if (d > 0) {
        if (!NthRunendIn(t * 64 + off, d, w, end)) return false;
        ++end;
      }
      off = end > (t + 1) * 64 ? end - (t + 1) * 64 : 0;
    }
    return true;
  }

  // NthRunendFrom(p, d) reading only inside w.
  bool NthRunendIn(std::uint64_t p, int d, Window& w, std::uint64_t& found) const {
    std::uint64_t block = p >> 6;
    if (block >= w.hi) {
      w.wanted = block;
      return false;
    }
    std::uint64_t word = RunWord(block) & (~0ULL << (p & 63));
    while (true) {
      const int c = Pop(word);
      if (d <= c) {
        found = block * 64 + Sel(word, d - 1);
        return true;
      }
      d -= c;
      if (++block >= w.hi) {
        w.wanted = block;
        return false;
      }
      word = RunWord(block);
    }
  }

  // Visits the runs in quotient order.
  class RunCursor {
   public:
    explicit RunCursor(const RsqfCore& core) : core_(core) {}
    bool Next(std::uint64_t& x, std::uint64_t& start, std::uint64_t& end) {
      const std::uint64_t limit = core_.canonical_slots() - 1;
      if (next_x_ > limit) return false;
      x = core_.NextOccupied(next_x_, limit);
      if (x > limit) {
        next_x_ = x;
        return false;
      }
      start = prev_end_ < 0 ? x : std::max<std::uint64_t>(x, prev_end_ + 1);
      end = core_.NextRunend(start);
      prev_end_ = static_cast<std::int64_t>(end);
      next_x_ = x + 1;
      return true;
    }

   private:
    const RsqfCore& core_;
    std::uint64_t next_x_ = 0;
    std::int64_t prev_end_ = -1;
  };

  // Bulk load in sorted order (merge, resize): Append(x, value) puts value in the next slot of
  // quotient x's run; quotients never decrease. Offsets are computed once by Finish().
  bool Append(std::uint64_t x, std::uint64_t value) {
    const bool new_run = append_last_ < 0 || x != append_x_;
    const std::uint64_t pos = append_last_ < 0 ? x : std::max<std::uint64_t>(x, append_last_ + 1);
    if (pos >= total_slots()) return false;
    if (new_run) {
      if (append_last_ >= 0) SetRunend(append_last_, true);
      SetOccupied(x, true);
    }
    SetRem(pos, value);
    append_last_ = static_cast<std::int64_t>(pos);
    append_x_ = x;
    ++used_;
    return true;
  }
  void FinishAppend() {
    if (append_last_ >= 0) SetRunend(append_last_, true);
    std::uint64_t off = 0;
    for (std::uint64_t k = 1; k < blocks_; ++k) {
      off = OffsetAfter(k - 1, off);
      SetStoredOffset(k, Clamp(off));
    }
    append_last_ = -1;
  }

  RunShape Shape() const {
    RunShape sh;
    RunCursor runs(*this);
    std::uint64_t x, start, end;
    std::int64_t prev_end = -1;
    std::uint64_t cluster = 0, stretch = 0;
    auto close_stretch = [&] {
      if (!stretch) return;
      ++sh.stretches;
      sh.stretch_max = std::max(sh.stretch_max, stretch);
      sh.probes_to_empty += stretch * (stretch + 1) / 2.0 + stretch;
      stretch = 0;
    };
    while (runs.Next(x, start, end)) {
      const std::uint64_t len = end - start + 1;
      ++sh.runs;
      sh.run_max = std::max(sh.run_max, len);
      sh.used += len;
      sh.displacement += len * (start - x) + len * (len - 1) / 2;
      if (start == x) {  // an unshifted run start opens a cluster
        sh.cluster_max = std::max(sh.cluster_max, cluster);
        if (cluster) ++sh.clusters;
        cluster = 0;
      }
      if (prev_end < 0 || start > static_cast<std::uint64_t>(prev_end) + 1) close_stretch();
      cluster += len;
      stretch += len;
      prev_end = static_cast<std::int64_t>(end);
    }
    sh.cluster_max = std::max(sh.cluster_max, cluster);
    if (cluster) ++sh.clusters;
    close_stretch();
    sh.probes_to_empty += static_cast<double>(total_slots() - sh.used);
    for (std::uint64_t k = 0; k < blocks_; ++k) {
      sh.offset_max = std::max<std::uint64_t>(sh.offset_max, TrueOffset(k));
      sh.saturated_blocks += StoredOffset(k) >= kOffsetLimit;
    }
    return sh;
  }

  // Structural invariants, independent of the fast paths: runs pair up with occupied bits,
  // stored offsets equal the offsets recomputed from the runs (saturated where too large),
  // unused slots hold zero. Returns "" or the first violation.
  std::string Validate() const {
    std::uint64_t occupied = 0, runends = 0;
    for (std::uint64_t k = 0; k < blocks_; ++k) {
      occupied += Pop(OccWord(k));
      runends += Pop(RunWord(k));
      if (k * 64 >= canonical_slots() && OccWord(k)) return "occupied bit in overflow block";
    }
    if (occupied != runends) {
      return "occupieds " + std::to_string(occupied) + " != runends " + std::to_string(runends);
    }
    // Walk the runs with plain bit scans (no offsets, no select).
    std::vector<std::uint64_t> true_offset(blocks_, 0);
    std::vector<bool> used(total_slots(), false);
    std::int64_t prev_end = -1;
    std::uint64_t next_end_search = 0, count = 0;
    for (std::uint64_t x = 0; x < canonical_slots(); ++x) {
      if (!Occupied(x)) continue;
      std::uint64_t e = next_end_search;
      while (e < total_slots() && !Runend(e)) ++e;
      if (e >= total_slots()) return "run of quotient " + std::to_string(x) + " has no end";
      const std::uint64_t start = prev_end < 0 ? x : std::max<std::uint64_t>(x, prev_end + 1);
      if (e < start) return "run of quotient " + std::to_string(x) + " ends before it starts";
      for (std::uint64_t s = start; s <= e; ++s) used[s] = true;
      count += e - start + 1;
      // blocks whose start lies in (x, e] see this run as spill
      for (std::uint64_t k = (x >> 6) + 1; k * 64 <= e; ++k) true_offset[k] = e + 1 - k * 64;
      prev_end = static_cast<std::int64_t>(e);
      next_end_search = e + 1;
    }
    if (count != used_) return "runs hold " + std::to_string(count) + " slots, used_ differs";
    for (std::uint64_t k = 0; k < blocks_; ++k) {
      if (StoredOffset(k) != Clamp(true_offset[k])) {
        return "block " + std::to_string(k) + " offset " + std::to_string(StoredOffset(k)) +
               " != " + std::to_string(true_offset[k]);
      }
      if (TrueOffset(k) != true_offset[k]) return "TrueOffset wrong at block " + std::to_string(k);
    }
    for (std::uint64_t s = 0; s < total_slots(); ++s) {
      if (!used[s] && Rem(s) != 0) return "unused slot " + std::to_string(s) + " not zero";
    }
    return "";
  }

  std::uint64_t TrueOffset(std::uint64_t k) const {
    std::uint64_t off = StoredOffset(k);
    if (off < kOffsetLimit) return off;
    std::uint64_t j = k;
    while (StoredOffset(j) >= kOffsetLimit) --j;  // block 0 has offset 0
    off = StoredOffset(j);
    for (std::uint64_t t = j + 1; t <= k; ++t) off = OffsetAfter(t - 1, off);
    return off;
  }

 private:
  static int Pop(std::uint64_t x) {
    if constexpr (kPortable) {
      return rsqf_detail::PopcountPortable(x);
    } else {
      return rsqf_detail::Popcount(x);
    }
  }
  static int Sel(std::uint64_t x, int k) {
    if constexpr (kPortable) {
      return rsqf_detail::SelectPortable(x, k);
    } else {
      return rsqf_detail::Select(x, k);
    }
  }

  static std::uint8_t Clamp(std::uint64_t off) {
    return static_cast<std::uint8_t>(std::min<std::uint64_t>(off, kOffsetLimit));
  }

  std::uint64_t Load64(std::size_t byte) const {
    std::uint64_t w;
    std::memcpy(&w, &bytes_[byte], sizeof w);
    return w;
  }
  void Store64(std::size_t byte, std::uint64_t w) { std::memcpy(&bytes_[byte], &w, sizeof w); }
  std::size_t BlockByte(std::uint64_t k) const { return k * block_bytes_; }
  std::size_t RemByte(std::uint64_t k) const { return BlockByte(k) + kHeaderBytes; }
  std::uint8_t StoredOffset(std::uint64_t k) const { return bytes_[BlockByte(k)]; }
  void SetStoredOffset(std::uint64_t k, std::uint8_t o) { bytes_[BlockByte(k)] = o; }
  std::uint64_t OccWord(std::uint64_t k) const { return Load64(BlockByte(k) + 1); }
  std::uint64_t RunWord(std::uint64_t k) const { return Load64(BlockByte(k) + 9); }
  void SetOccWord(std::uint64_t k, std::uint64_t w) { Store64(BlockByte(k) + 1, w); }
  void SetRunWord(std::uint64_t k, std::uint64_t w) { Store64(BlockByte(k) + 9, w); }
  void SetOccupied(std::uint64_t x, bool on) {
    const std::uint64_t w = OccWord(x >> 6), bit = 1ULL << (x & 63);
    SetOccWord(x >> 6, on ? w | bit : w & ~bit);
  }
  void SetRunend(std::uint64_t s, bool on) {
    const std::uint64_t w = RunWord(s >> 6), bit = 1ULL << (s & 63);
    SetRunWord(s >> 6, on ? w | bit : w & ~bit);
  }

  // The d-th (1-based) set runend bit at or after slot p.
  std::uint64_t NthRunendFrom(std::uint64_t p, int d) const {
    std::uint64_t block = p >> 6;
    std::uint64_t w = RunWord(block) & (~0ULL << (p & 63));
    while (true) {
      const int c = Pop(w);
      if (d <= c) return block * 64 + Sel(w, d - 1);
      d -= c;
      ++block;
      assert(block < blocks_);
      w = RunWord(block);
    }
  }
  std::uint64_t NextRunend(std::uint64_t p) const { return NthRunendFrom(p, 1); }

  // First occupied quotient in [from, limit], or a value > limit.
  std::uint64_t NextOccupied(std::uint64_t from, std::uint64_t limit) const {
    const std::uint64_t last_block = std::min(limit, canonical_slots() - 1) >> 6;
    std::uint64_t block = from >> 6;
    if (from > limit || block > last_block) return limit + 1;
    std::uint64_t w = OccWord(block) & (~0ULL << (from & 63));
    while (true) {
      if (w) return std::min(limit + 1, block * 64 + std::countr_zero(w));
      if (++block > last_block) return limit + 1;
      w = OccWord(block);
    }
  }

  // True offset of block t + 1, given the true offset of block t.
  std::uint64_t OffsetAfter(std::uint64_t t, std::uint64_t off_t) const {
    const int d = Pop(OccWord(t));
    const std::int64_t end = d == 0 ? static_cast<std::int64_t>(t * 64 + off_t) - 1
                                    : static_cast<std::int64_t>(NthRunendFrom(t * 64 + off_t, d));
    return static_cast<std::uint64_t>(
        std::max<std::int64_t>(0, end + 1 - static_cast<std::int64_t>((t + 1) * 64)));
  }

  // First slot >= s that no run covers: jump to the end of the last run of a quotient <= s
  // until that end falls short of s. Returns total_slots() if there is none.
  std::uint64_t FirstUnusedFrom(std::uint64_t s) const {
    while (s < total_slots()) {
      const std::int64_t t = RunEndUpTo(s);
      if (t < static_cast<std::int64_t>(s)) return s;
      s = static_cast<std::uint64_t>(t) + 1;
    }
    return total_slots();
  }

  static std::uint64_t RangeMask(unsigned lo, unsigned hi) {
    return ((2ULL << hi) - 1) & (~0ULL << lo);
  }

  // Runend bits [pos, e - 1] move to [pos + 1, e]; bit pos becomes 0.
  void ShiftRunendsRight(std::uint64_t pos, std::uint64_t e) {
    const std::uint64_t first = pos >> 6, last = e >> 6;
    for (std::uint64_t k = last;; --k) {
      const unsigned lo = k == first ? pos & 63 : 0, hi = k == last ? e & 63 : 63;
      const std::uint64_t mask = RangeMask(lo, hi), w = RunWord(k);
      std::uint64_t moved = (w << 1) & mask & ~(1ULL << lo);
      if (k != first) moved |= RunWord(k - 1) >> 63;
      SetRunWord(k, (w & ~mask) | moved);
      if (k == first) break;
    }
  }

  // Runend bits [pos + 1, e] move to [pos, e - 1]; bit e becomes 0.
  void ShiftRunendsLeft(std::uint64_t pos, std::uint64_t e) {
    const std::uint64_t first = pos >> 6, last = e >> 6;
    for (std::uint64_t k = first; k <= last; ++k) {
      const unsigned lo = k == first ? pos & 63 : 0, hi = k == last ? e & 63 : 63;
      const std::uint64_t mask = RangeMask(lo, hi), w = RunWord(k);
      std::uint64_t moved = (w >> 1) & mask & ~(1ULL << hi);
      if (k != last) moved |= (RunWord(k + 1) & 1) << 63;
      SetRunWord(k, (w & ~mask) | moved);
    }
  }

  // Remainders [pos, e - 1] move to [pos + 1, e], block by block from the last: byte-wide
  // remainders with memmove, other widths as a bit string shifted a word at a time
  // (rsqf_detail::ShiftBitsUp); a block's slot 0 takes the previous block's slot 63.
  void MoveRemaindersRight(std::uint64_t pos, std::uint64_t e) {
    if (!kPortable && r_ % 8 != 0) {
      const std::uint64_t first = pos >> 6, last = e >> 6, r = static_cast<std::uint64_t>(r_);
      for (std::uint64_t k = last;; --k) {
        const std::uint64_t lo = k == first ? pos & 63 : 0, hi = k == last ? e & 63 : 63;
        if (hi > lo) rsqf_detail::ShiftBitsUp(&bytes_[RemByte(k)], lo * r, (hi + 1) * r, r_);
        if (k == first) break;
        SetRem(k * 64, Rem(k * 64 - 1));
      }
      return;
    }
    if (r_ % 8 == 0) {
      const std::size_t rb = r_ / 8;
      const std::uint64_t first = pos >> 6, last = e >> 6;
      for (std::uint64_t k = last;; --k) {
        const std::uint64_t lo = k == first ? pos & 63 : 0, hi = k == last ? e & 63 : 63;
        std::uint8_t* base = &bytes_[RemByte(k)];
        if (hi > lo) std::memmove(base + (lo + 1) * rb, base + lo * rb, (hi - lo) * rb);
        if (k == first) break;
        std::memcpy(base, &bytes_[RemByte(k - 1)] + 63 * rb, rb);
      }
      return;
    }
    for (std::uint64_t s = e; s > pos; --s) SetRem(s, Rem(s - 1));
  }

  // Remainders [pos + 1, e] move to [pos, e - 1], block by block from the first, as above.
  void MoveRemaindersLeft(std::uint64_t pos, std::uint64_t e) {
    if (!kPortable && r_ % 8 != 0) {
      const std::uint64_t first = pos >> 6, last = e >> 6, r = static_cast<std::uint64_t>(r_);
      for (std::uint64_t k = first; k <= last; ++k) {
        const std::uint64_t lo = k == first ? pos & 63 : 0, hi = k == last ? e & 63 : 63;
        if (hi > lo) rsqf_detail::ShiftBitsDown(&bytes_[RemByte(k)], lo * r, (hi + 1) * r, r_);
        if (k != last) SetRem(k * 64 + 63, Rem(k * 64 + 64));
      }
      return;
    }
    if (r_ % 8 == 0) {
      const std::size_t rb = r_ / 8;
      const std::uint64_t first = pos >> 6, last = e >> 6;
      for (std::uint64_t k = first; k <= last; ++k) {
        const std::uint64_t lo = k == first ? pos & 63 : 0, hi = k == last ? e & 63 : 63;
        std::uint8_t* base = &bytes_[RemByte(k)];
        if (hi > lo) std::memmove(base + lo * rb, base + (lo + 1) * rb, (hi - lo) * rb);
        if (k != last) std::memcpy(base + 63 * rb, &bytes_[RemByte(k + 1)], rb);
      }
      return;
    }
    for (std::uint64_t s = pos; s < e; ++s) SetRem(s, Rem(s + 1));
  }

  int q_ = 0, r_ = 0;
  std::uint64_t rmask_ = 0;
  int swar_fields_ = 0;
  std::uint64_t swar_low_ = 0, swar_high_ = 0;
  std::size_t block_bytes_ = 0;
  std::uint64_t blocks_ = 0;
  std::vector<std::uint8_t> bytes_;
  std::uint64_t used_ = 0;
  std::int64_t append_last_ = -1;
  std::uint64_t append_x_ = 0;
};

// What the RSQF (filters/rsqf.h) and the CQF (filters/cqf.h) share above the core. They differ
// in what a run holding the remainder means (a CQF slot may be a counter digit), so Derived
// supplies Holds and AddFingerprint<kShared> (kShared: counters bumped atomically, for the
// concurrent mode), and a Cursor, AppendEntry and FinishAppend for merge and resize; it also
// declares kName, kMinRemainderBits (the smallest r its layout works with) and
// kMaxSlotsPerInsert (how many slots one insert may add).
// CRTP, not virtual calls: contains() and insert() inline Derived's code as they did when each
// filter spelled them out, so lookups and inserts compile to the same code.
template <class Derived, int kOffsetLimit, bool kPortable>
class RsqfFilterBase {
 public:
  using Core = RsqfCore<kOffsetLimit, kPortable>;
  static constexpr std::string_view kFamily = "quotient";
  static constexpr std::string_view kParameters =
      "--fpr eps: r = ceil(log2(1/eps)); --bits-per-key B: r = floor(B*L - 2.125); r in 2..32; "
      "--max-load L (default 0.95): canonical slots = smallest 2^q >= 64 with 2^q*L >= n";
  // q >= 6: the canonical slots fill at least one 64-slot block.
  static constexpr QuotientSizing kSizing{0.95, Core::kMetadataBitsPerSlot, 6};
  static constexpr double kDefaultMaxLoad = kSizing.default_max_load;

  explicit RsqfFilterBase(const FilterParams& p)
      : RsqfFilterBase(kSizing.QuotientBitsFor(p.capacity, kSizing.LoadFor(p)),
                       kSizing.RemainderBitsFor(p), SpreadSeed(p.seed), kSizing.LoadFor(p)) {}

  RsqfFilterBase(int quotient_bits, int remainder_bits, std::uint64_t spread_seed, double max_load)
      : core_(quotient_bits, remainder_bits), seed_(spread_seed), max_load_(max_load) {
    if (quotient_bits < kSizing.min_quotient_bits || remainder_bits < Derived::kMinRemainderBits ||
        remainder_bits > 32 || quotient_bits + remainder_bits > 64) {
      throw std::invalid_argument(std::string(Derived::kName) + ": need q >= 6, " +
                                  std::to_string(Derived::kMinRemainderBits) +
                                  " <= r <= 32, q + r <= 64");
    }
  }

  bool insert(std::uint64_t key) {
    const auto [fq, fr] = Split(key);
    if (!derived().AddFingerprint(fq, fr)) {
      ++insert_failures_;
      return false;
    }
    return true;
  }

  bool contains(std::uint64_t key) const {
    const auto [fq, fr] = Split(key);
    return derived().Holds(fq, fr);
  }

  // Concurrent insert mode (core/concurrent_insert.h), the CQF paper's region locks: a lock
  // per region of region_blocks 64-slot blocks. An insert of quotient x holds x's region and
  // the next (a shift may spill over), checks with the core's bounded searches
  // (RsqfCore::Window) that its cluster ends inside what it holds, and if not, takes more
  // regions and checks again, before it runs the sequential insert code. Regions are locked in
  // ascending order: more regions above are taken while holding the rest (still ascending);
  // one below (a saturated offset whose walk back leaves the held blocks) means releasing all
  // and locking again from there. region_blocks is a parameter for the tests (1 makes nearly
  // every cluster cross regions); kInsertRegionBlocks is the mode's.
  static constexpr std::uint64_t kInsertRegionBlocks = 64;

  std::size_t insert_lock_count(std::uint64_t region_blocks = kInsertRegionBlocks) const {
    return (core_.total_slots() / 64 + region_blocks - 1) / region_blocks;
  }

  bool insert_concurrent(std::uint64_t key, InsertLocks& locks,
                         std::uint64_t region_blocks = kInsertRegionBlocks) {
    const auto [fq, fr] = Split(key);
    const std::uint64_t blocks = core_.total_slots() / 64, last = insert_lock_count(region_blocks) - 1;
    assert(locks.size() > last);
    std::uint64_t lo = (fq >> 6) / region_blocks, hi = std::min(lo + 1, last);
    for (std::uint64_t i = lo; i <= hi; ++i) locks.lock(i);
    while (true) {
      // Region hi's last block is held only for the spill of the word moves before it.
      typename Core::Window w{lo * region_blocks, hi == last ? blocks : (hi + 1) * region_blocks - 1};
      if (ConcurrentInsertFits(fq, w)) break;
      if (w.wanted >= w.lo) {
        const std::uint64_t more = std::min(last, (w.wanted + 1) / region_blocks);
        assert(more > hi);  // with the last region held the window reaches the table's end
        for (std::uint64_t i = hi + 1; i <= more; ++i) locks.lock(i);
        hi = more;
      } else {
        for (std::uint64_t i = lo; i <= hi; ++i) locks.unlock(i);
        lo = w.wanted / region_blocks;
        for (std::uint64_t i = lo; i <= hi; ++i) locks.lock(i);
      }
    }
    const bool added = derived().template AddFingerprint<true>(fq, fr);
    for (std::uint64_t i = lo; i <= hi; ++i) locks.unlock(i);
    if (!added) AtomicAdd<std::uint64_t>(insert_failures_, 1);
    return added;
  }

  // Batched lookups (BatchedFilter), RsqfCore::ContainsMany: prefetch a group, then probe.
  std::size_t contains_many(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
    return core_.ContainsMany(
        keys, out, [this](std::uint64_t k) { return Split(k); },
        [this](std::uint64_t fq, std::uint64_t fr) { return derived().Holds(fq, fr); });
  }

  std::size_t size_in_bytes() const { return core_.size_in_bytes(); }
  std::span<const std::uint8_t> bytes() const { return core_.bytes(); }
  std::uint64_t insert_failures() const { return insert_failures_; }  // inserts refused
  // Slots in use over canonical slots (what max_load sizes); in the CQF counter slots count.
  double load_factor() const {
    return static_cast<double>(core_.used()) / core_.canonical_slots();
  }
  int quotient_bits() const { return core_.q(); }
  int remainder_bits() const { return core_.r(); }
  const Core& core() const { return core_; }

  // The (quotient, remainder) pair a key is stored as; tests keep a multiset of these.
  std::pair<std::uint64_t, std::uint64_t> Fingerprint(std::uint64_t key) const {
    return Split(key);
  }

  // Both filters' entries in one table (filters/quotient_common.h), one sequential pass.
  static Derived merge(const Derived& a, const Derived& b) {
    const MergedGeometry g =
        MergeGeometry(Derived::kName, Derived::kMinRemainderBits, a.Shape(), b.Shape());
    Derived out(g.q, g.r, a.seed_, g.max_load);
    typename Derived::Cursor ca(a), cb(b);
    InterleaveSorted(ca, cb, g,
                     [&out](std::uint64_t f, std::uint64_t count) { out.AppendEntry(f, count); });
    out.FinishAppend();
    return out;
  }

  // Twice the canonical slots, one remainder bit fewer: the p-bit fingerprints are unchanged,
  // so the FPR is too, and no false negative can appear.
  Derived resized_double() const {
    if (core_.r() <= Derived::kMinRemainderBits) {
      throw std::invalid_argument(std::string(Derived::kName) + " resize: needs r >= " +
                                  std::to_string(Derived::kMinRemainderBits + 1));
    }
    Derived out(core_.q() + 1, core_.r() - 1, seed_, max_load_);
    typename Derived::Cursor cursor(derived());
    std::uint64_t f, count;
    while (NextEntry(cursor, f, count)) out.AppendEntry(f, count);
    out.FinishAppend();
    return out;
  }

 protected:
  const Derived& derived() const { return static_cast<const Derived&>(*this); }
  Derived& derived() { return static_cast<Derived&>(*this); }

  std::uint64_t RemainderMask() const { return (1ULL << core_.r()) - 1; }

  // Top q + r bits of the hash: the quotient from the highest q, the remainder below them.
  std::pair<std::uint64_t, std::uint64_t> Split(std::uint64_t key) const {
    const int p = core_.q() + core_.r();
    const std::uint64_t f = HashKey(key, seed_) >> (64 - p);
    return {f >> core_.r(), f & RemainderMask()};
  }

  // theory()'s bits per key: at the requested load L, (r + 2.125) / L, not at alpha.
  double BitsPerKeyAtMaxLoad() const {
    return QuotientBitsPerKey(core_.r(), Core::kMetadataBitsPerSlot, max_load_);
  }

  QuotientShape Shape() const { return {seed_, core_.q(), core_.r(), max_load_, core_.used()}; }

  // Whether the sequential insert of quotient x stays inside w: the first unused slot at or
  // after x lies in w, and so does the second when Derived may add two slots at once (a CQF
  // counter growing; its second InsertSlot shifts up to that slot) to a run x already has.
  bool ConcurrentInsertFits(std::uint64_t x, typename Core::Window& w) const {
    std::uint64_t unused;
    if (!core_.FirstUnusedIn(x, w, unused)) return false;
    if (Derived::kMaxSlotsPerInsert == 1 || unused >= core_.total_slots() || !core_.Occupied(x)) {
      return true;
    }
    return core_.FirstUnusedIn(unused + 1, w, unused);
  }

  Core core_;
  std::uint64_t seed_;
  double max_load_;
  std::uint64_t insert_failures_ = 0;
};

}  // namespace amq
