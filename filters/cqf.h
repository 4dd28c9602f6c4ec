// filters/cqf.h - counting quotient filter (P. Pandey, M. A. Bender, R. Johnson, R. Patro,
// "A General-Purpose Counting Filter: Making Every Bit Count", SIGMOD 2017, §4).
//
// Layout: the RSQF block layout of filters/rsqf_core.h (2.125 metadata bits per slot, r-bit
// remainders, 2^q canonical slots plus overflow). A run holds one entry per distinct
// remainder, entries in increasing remainder order, and an entry's count is encoded in the
// slots themselves - no extra metadata. Our encoding follows the paper's idea (a counter is
// recognisable because it breaks the sorted order) in a simpler form, documented here:
//   count 1        x
//   count 2        x x
//   count c >= 3, x > 0:  x [0] D... x   D = c - 3 in base 2^r - 2, most significant first,
//                  digit d written as the d-th value of {1 .. 2^r - 1} \ {x}; the 0 is
//                  written only when the first digit is > x. So the slot after x is < x
//                  (a counter follows), equal to x (count 2), or > x (next entry).
//                  Digits never equal x, so the closing x ends the counter.
//   count c >= 3, x = 0:  0 D... 0 0   D = c - 3 in base 2^r - 1, digit d written as d + 1.
//                  Decoding 0: a following 0 means count 2; otherwise the counter exists iff
//                  the first 0 after it is followed by another 0 (entries > 0 contain a 0
//                  only as the marker above, which is always followed by a nonzero digit).
// Cost: c copies of a key take min(c, 3 + digits + 1) slots: 10^6 copies at r = 8 take 6.
// Counts are 64-bit; an insert that would pass 2^64 - 1 is refused (returns false), so the
// counter never wraps. Needs r >= 2.
//
// Theory, n distinct fingerprints stored, p = q + r:
//   FPR      = n / 2^p exactly for the stored set (a random negative's fingerprint is one of
//              the n stored ones); ~ alpha / 2^r with alpha = n / 2^q
//   bits/key = (r + 2.125) / alpha per distinct fingerprint: the paper's CQF keeps the RSQF's
//              layout and metadata and puts counters in remainder slots, so a set without
//              duplicates costs what the RSQF does (with duplicates, counter slots raise alpha:
//              used slots / 2^q is what load_factor() reports). theory() reports it at the requested
//              load, (r + 2.125) / L: the power-of-two table and the overflow slots are the
//              allocation's, which the measured (r + 2.125) S / n shows (S = all slots).
// Sizing as the RSQF: --fpr eps: r = ceil(log2(1/eps)); --bits-per-key B: r = floor(B L -
// 2.125); --max-load L (default 0.95): smallest q >= 6 with 2^q L >= n. count(key) is never
// below the true count: only fingerprint collisions can raise it.
//
// Without the keys: merge() adds the counts of equal fingerprints in one sequential pass;
// resized_double() moves one remainder bit into the quotient; for_each_fingerprint(fn(q, r,
// count)) streams the entries in order.
//
// Concurrent inserts: the RSQF's region locks (filters/rsqf.h, rsqf_core.h), any count: an
// insert that grows a counter adds at most two slots, so it checks that the first two unused
// slots after its quotient lie in the regions it holds. Counts add, so a concurrent build has
// the bytes of a sequential one.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

#include "filters/quotient_common.h"
#include "filters/rsqf_core.h"
#include "filters/theory_formulas.h"
#include "core/filter.h"
#include "core/stat_catalog.h"

namespace amq {

// One entry per distinct remainder, its count in the slots as above. What the CQF shares with
// the RSQF (sizing, constructors, lookups, merge, resize) is RsqfFilterBase's (rsqf_core.h).
template <int kOffsetLimit = 255, bool kPortable = false>
class BasicCqf
    : public RsqfFilterBase<BasicCqf<kOffsetLimit, kPortable>, kOffsetLimit, kPortable> {
  using Shared = RsqfFilterBase<BasicCqf, kOffsetLimit, kPortable>;
  using Shared::core_;
  using Shared::RemainderMask;
  using Shared::Split;

 public:
  using typename Shared::Core;
  static constexpr std::string_view kName = "cqf";
  static constexpr int kMinRemainderBits = 2;  // r = 1 leaves counters no digits (base 2^r - 2)
  static constexpr int kMaxSlotsPerInsert = 2;  // count 2 -> 3 (x x -> x [0] D x), a new digit
  using RsqfFilterBase<BasicCqf, kOffsetLimit, kPortable>::RsqfFilterBase;  // its constructors

 private:
  friend Shared;  // calls Holds, AddFingerprint, AppendEntry, FinishAppend and Cursor

  bool Holds(std::uint64_t fq, std::uint64_t fr) const {
    if (!core_.Occupied(fq)) return false;
    const std::uint64_t end = core_.RunEndUpTo(fq);
    const std::uint64_t start = core_.RunStart(fq, end);
    // A stored fr always has a slot holding fr: if none does (most negatives), no decoding.
    if (!core_.RunHolds(start, end, fr)) return false;
    // A one-slot run is one entry of count 1 (a counter takes two slots or more), so the slot
    // holding fr is its remainder: no decoding. Most present keys at half load end here (the
    // scratch timing at 10^6 keys, r = 8, load 0.48: 30.4 against 32.5 ns per lookup).
    if (start == end) return true;
    // Digit slots exist only where some entry was written with a count of 3 or more: until
    // then every slot of a run is an entry's remainder (once, or twice for count 2), so the
    // slot found holds fr as a remainder, and a filter of distinct keys never decodes.
    if (!has_digits_) return true;
    return RunHoldsEntry(start, end, fr);
  }

  // Whether the run [start, end], some slot of which holds fr, has an entry of remainder fr.
  // Out of line: only a table with digit slots gets here, and inlined, this decoding made
  // Holds too large for GCC to inline RunEndUpTo into every lookup (a call per lookup).
  [[gnu::noinline]] bool RunHoldsEntry(std::uint64_t start, std::uint64_t end,
                                       std::uint64_t fr) const {
    // Fast path, no decoding: an entry of count >= 3 is always followed by a smaller slot (the
    // 0 marker or a digit below x), except the entry of remainder 0, which can only open the
    // run. So while a run that opens with a nonzero slot has not decreased, every slot read is
    // an entry's remainder (once, or twice for count 2), and the sorted-order stops hold.
    std::uint64_t prev = core_.Rem(start);
    if (prev != 0) {
      for (std::uint64_t p = start;;) {
        if (prev >= fr) return prev == fr;
        if (++p > end) return false;
        const std::uint64_t v = core_.Rem(p);
        if (v < prev) break;  // a counter: decode the run from its start
        prev = v;
      }
    }
    for (std::uint64_t p = start; p <= end;) {
      const std::uint64_t x = core_.Rem(p);
      if (x == fr) return true;
      if (x > fr) return false;
      p += Decode(p, end).len;
    }
    return false;
  }

 public:
  // How many times the key was inserted (minus erased); never below the truth, above it only
  // when another key shares the fingerprint.
  std::uint64_t count(std::uint64_t key) const {
    const auto [fq, fr] = Split(key);
    if (!core_.Occupied(fq)) return 0;
    const std::uint64_t end = core_.RunEndUpTo(fq);
    for (std::uint64_t p = core_.RunStart(fq, end); p <= end;) {
      const Entry e = Decode(p, end);
      if (e.rem == fr) return e.count;
      if (e.rem > fr) return 0;
      p += e.len;
    }
    return 0;
  }

  // Removes one copy.
  bool erase(std::uint64_t key) {
    const auto [fq, fr] = Split(key);
    if (!core_.Occupied(fq)) return false;
    std::uint64_t end = core_.RunEndUpTo(fq);
    const std::uint64_t start = core_.RunStart(fq, end);
    for (std::uint64_t p = start; p <= end;) {
      const Entry e = Decode(p, end);
      if (e.rem > fr) return false;
      if (e.rem == fr) {
        --total_;
        if (e.count == 1) {
          core_.RemoveSlot(fq, p, start, end);
          --entries_;
        } else {
          Rewrite(fq, p, e.len, start, end, fr, e.count - 1);
        }
        return true;
      }
      p += e.len;
    }
    return false;
  }

  std::uint64_t distinct() const { return entries_; }
  std::uint64_t total() const { return total_; }
  std::uint64_t used_slots() const { return core_.used(); }

  Theory theory() const {
    // Bits/key at L, not at alpha.
    return {CqfFpr(static_cast<double>(entries_), core_.q(), core_.r()), this->BitsPerKeyAtMaxLoad()};
  }

  template <class Fn>
  void for_each_fingerprint(Fn&& fn) const {
    Cursor cursor(*this);
    std::uint64_t f, c;
    while (cursor.Next(f, c)) fn(f >> core_.r(), f & RemainderMask(), c);
  }

  // The statistics add_stats reports (core/filter.h).
  static constexpr StatSpec kStats[] = {
      stat::kQuotientBits,
      stat::kRemainderBits,
      stat::kSlots,
      stat::kOverflowSlots,
      stat::kMetadataBitsPerSlot,
      {"distinct_fingerprints", "integer", "count", "CQF: distinct fingerprints stored"},
      {"total_count", "integer", "count", "CQF: sum of all counts"},
      {"counter_slots", "integer", "slots", "CQF: slots spent on counters"},
      stat::kRuns,
      stat::kRunLengthMean,
      stat::kRunLengthMax,
      stat::kClusters,
      stat::kClusterLengthMean,
      stat::kClusterLengthMax,
      stat::kStretchLengthMean,
      stat::kStretchLengthMax,
      stat::kOffsetMax,
      stat::kBitsPerKeySeed002,
      stat::kBitsPerKeySeed000};

  void add_stats(Stats& s) const {
    const RunShape sh = core_.Shape();
    const double n = static_cast<double>(entries_);
    const double alpha = n / core_.canonical_slots();
    s.put("quotient_bits", core_.q());
    s.put("remainder_bits", core_.r());
    s.put("slots", core_.canonical_slots());
    s.put("overflow_slots", core_.total_slots() - core_.canonical_slots());
    s.put("metadata_bits_per_slot", Core::kMetadataBitsPerSlot);
    s.put("distinct_fingerprints", entries_);
    s.put("total_count", total_);
    s.put("counter_slots", core_.used() - entries_);
    s.put("runs", sh.runs);
    s.put("run_length_mean", sh.runs ? static_cast<double>(sh.used) / sh.runs : 0.0);
    s.put("run_length_max", sh.run_max);
    s.put("clusters", sh.clusters);
    s.put("cluster_length_mean", sh.clusters ? static_cast<double>(sh.used) / sh.clusters : 0.0);
    s.put("cluster_length_max", sh.cluster_max);
    s.put("stretch_length_mean", sh.stretches ? static_cast<double>(sh.used) / sh.stretches : 0.0);
    s.put("stretch_length_max", sh.stretch_max);
    s.put("offset_max", sh.offset_max);
    PutSeedBitsPerKey(s, n, core_.r(), Core::kMetadataBitsPerSlot, alpha);
  }

  // Core invariants plus: every run decodes into entries with strictly increasing remainders
  // and counts >= 1 that exactly fill it, and the totals match.
  std::string Validate() const {
    std::string problem = core_.Validate();
    if (!problem.empty()) return problem;
    typename Core::RunCursor runs(core_);
    std::uint64_t x, start, end, entries = 0, total = 0;
    while (runs.Next(x, start, end)) {
      std::int64_t prev = -1;
      for (std::uint64_t p = start; p <= end;) {
        const Entry e = Decode(p, end);
        if (e.len == 0 || p + e.len - 1 > end) return "entry overruns run at " + std::to_string(p);
        if (static_cast<std::int64_t>(e.rem) <= prev)
          return "entries not increasing at " + std::to_string(p);
        if (e.count == 0) return "zero count";
        std::array<std::uint64_t, kMaxEncoding> enc;
        if (static_cast<std::uint64_t>(Encode(e.rem, e.count, enc.data())) != e.len)
          return "non-canonical encoding";
        prev = static_cast<std::int64_t>(e.rem);
        ++entries;
        total += e.count;
        p += e.len;
      }
    }
    if (entries != entries_) return "entries differ";
    if (total != total_) return "total count differs";
    return "";
  }

 private:
  static constexpr int kMaxEncoding = 70;  // 64 base-2 digits + x, marker, x, spare
  struct Entry {
    std::uint64_t rem, count, len;
  };

  // Digit alphabets: for x > 0 the values {1 .. 2^r - 1} without x; for x = 0, {1 .. 2^r - 1}.
  std::uint64_t Base(std::uint64_t x) const { return RemainderMask() - (x > 0 ? 1 : 0); }
  static std::uint64_t DigitToSlot(std::uint64_t x, std::uint64_t d) {
    const std::uint64_t v = d + 1;
    return (x > 0 && v >= x) ? v + 1 : v;
  }
  static std::uint64_t SlotToDigit(std::uint64_t x, std::uint64_t v) {
    return ((x > 0 && v > x) ? v - 1 : v) - 1;
  }

  // Writes the slots of (x, c) to out; returns how many.
  int Encode(std::uint64_t x, std::uint64_t c, std::uint64_t* out) const {
    if (c <= 2) {
      out[0] = out[1] = x;
      return static_cast<int>(c);
    }
    std::uint64_t digits[66];
    int nd = 0;
    std::uint64_t v = c - 3;
    const std::uint64_t base = Base(x);
    do {
      digits[nd++] = v % base;
      v /= base;
    } while (v > 0);
    int len = 0;
    out[len++] = x;
    if (x > 0 && DigitToSlot(x, digits[nd - 1]) > x) out[len++] = 0;
    for (int i = nd - 1; i >= 0; --i) out[len++] = DigitToSlot(x, digits[i]);
    out[len++] = x;
    if (x == 0) out[len++] = 0;
    return len;
  }

  // The entry starting at slot p of a run ending at `end`.
  Entry Decode(std::uint64_t p, std::uint64_t end) const {
    const std::uint64_t x = core_.Rem(p);
    if (p == end) return {x, 1, 1};
    const std::uint64_t next = core_.Rem(p + 1);
    if (next == x) return {x, 2, 2};
    std::uint64_t q = p + 1;
    if (x > 0) {
      if (next > x) return {x, 1, 1};
      if (next == 0) ++q;  // marker before a first digit larger than x
    } else {
      // 0 then nonzero: a counter iff the first 0 after p starts a "0 0" pair.
      std::uint64_t z = p + 1;
      while (z <= end && core_.Rem(z) != 0) ++z;
      if (z >= end || core_.Rem(z + 1) != 0) return {0, 1, 1};
    }
    const std::uint64_t base = Base(x);
    std::uint64_t v = 0;
    for (std::uint64_t d; (d = core_.Rem(q)) != x; ++q) v = v * base + SlotToDigit(x, d);
    const std::uint64_t len = q - p + 1 + (x == 0 ? 1 : 0);
    return {x, v + 3, len};
  }

  // Shared::insert's step: adds one to the count of (fq, fr), creating the entry (one slot) if
  // needed. kShared: Shared::insert_concurrent's, every counter bumped atomically.
  template <bool kShared = false>
  bool AddFingerprint(std::uint64_t fq, std::uint64_t fr) {
    if (!core_.Occupied(fq)) {
      const std::int64_t prev = core_.RunEndUpTo(fq);
      if (!core_.template InsertSlot<kShared>(fq, std::max<std::int64_t>(fq, prev + 1), fr, -1)) {
        return false;
      }
      Count<kShared>(entries_);
      Count<kShared>(total_);
      return true;
    }
    const std::uint64_t end = core_.RunEndUpTo(fq);
    const std::uint64_t start = core_.RunStart(fq, end);
    std::uint64_t p = start;
    while (p <= end) {
      const Entry e = Decode(p, end);
      if (e.rem == fr) {
        if (e.count == std::numeric_limits<std::uint64_t>::max()) return false;  // no wrap
        if (!Rewrite<kShared>(fq, p, e.len, start, end, fr, e.count + 1)) return false;
        Count<kShared>(total_);
        return true;
      }
      if (e.rem > fr) break;
      p += e.len;
    }
    if (!core_.template InsertSlot<kShared>(fq, p, fr, static_cast<std::int64_t>(end))) {
      return false;
    }
    Count<kShared>(entries_);
    Count<kShared>(total_);
    return true;
  }

  template <bool kShared>
  static void Count(std::uint64_t& counter) {
    if constexpr (kShared) {
      AtomicAdd<std::uint64_t>(counter, 1);
    } else {
      ++counter;
    }
  }

  // Replaces the entry of `len` slots at p (run [start, end] of fq) by the encoding of
  // (fr, count), growing or shrinking the run one slot at a time at the entry's tail. False
  // (entry unchanged) if the table has no room to grow.
  template <bool kShared = false>
  bool Rewrite(std::uint64_t fq, std::uint64_t p, std::uint64_t len, std::uint64_t start,
               std::uint64_t end, std::uint64_t fr, std::uint64_t count) {
    std::array<std::uint64_t, kMaxEncoding> enc;
    const std::uint64_t new_len = Encode(fr, count, enc.data());
    if constexpr (kShared) {
      if (count >= 3) std::atomic_ref<bool>(has_digits_).store(true, std::memory_order_relaxed);
    } else {
      has_digits_ |= count >= 3;
    }
    std::uint64_t grown = 0;
    while (len + grown < new_len) {
      if (!core_.template InsertSlot<kShared>(fq, p + len + grown, fr,
                                              static_cast<std::int64_t>(end))) {
        // undo the slots added so far; the old entry's slots are untouched
        while (grown > 0) {
          core_.template RemoveSlot<kShared>(fq, p + len + grown - 1, start, end);
          --end;
          --grown;
        }
        return false;
      }
      ++grown;
      ++end;
    }
    for (std::uint64_t cur = len; cur > new_len; --cur) {
      core_.template RemoveSlot<kShared>(fq, p + cur - 1, start, end);
      --end;
    }
    for (std::uint64_t i = 0; i < new_len; ++i) core_.SetRem(p + i, enc[i]);
    return true;
  }

  // Bulk load: entries arrive in increasing fingerprint order; equal fingerprints (after a
  // merge cuts them to a common length) are summed before they are written.
  void AppendEntry(std::uint64_t f, std::uint64_t c) {
    if (pending_count_ > 0 && f == pending_f_) {
      if (pending_count_ > std::numeric_limits<std::uint64_t>::max() - c) {
        throw std::overflow_error("cqf merge: count passes 2^64 - 1");
      }
      pending_count_ += c;
      return;
    }
    FlushPending();
    pending_f_ = f;
    pending_count_ = c;
  }
  void FlushPending() {
    if (pending_count_ == 0) return;
    std::array<std::uint64_t, kMaxEncoding> enc;
    const std::uint64_t fq = pending_f_ >> core_.r(), fr = pending_f_ & RemainderMask();
    const int len = Encode(fr, pending_count_, enc.data());
    has_digits_ |= pending_count_ >= 3;
    for (int i = 0; i < len; ++i) {
      if (!core_.Append(fq, enc[i])) throw std::length_error("cqf: entries overflow the table");
    }
    ++entries_;
    total_ += pending_count_;
    pending_count_ = 0;
  }
  void FinishAppend() {
    FlushPending();
    core_.FinishAppend();
  }

  // Pulls the entries (quotient << r | remainder, count) in increasing order.
  class Cursor {
   public:
    explicit Cursor(const BasicCqf& f) : f_(f), runs_(f.core_) {}
    bool Next(std::uint64_t& fingerprint, std::uint64_t& count) {
      if (p_ > end_) {
        if (!runs_.Next(x_, p_, end_)) return false;
      }
      const Entry e = f_.Decode(p_, end_);
      fingerprint = (x_ << f_.core_.r()) | e.rem;
      count = e.count;
      p_ += e.len;
      return true;
    }

   private:
    const BasicCqf& f_;
    typename Core::RunCursor runs_;
    std::uint64_t x_ = 0, p_ = 1, end_ = 0;
  };

  std::uint64_t entries_ = 0, total_ = 0;
  std::uint64_t pending_f_ = 0, pending_count_ = 0;
  // Whether an entry was ever written with a count >= 3 (its digits are slots that are not
  // remainders). Set, never cleared: an erase back to count 2 leaves it set, which only costs
  // lookups the decoding they did before.
  bool has_digits_ = false;
};

using Cqf = BasicCqf<>;

}  // namespace amq
