// filters/quotient.h - the classic quotient filter (M. A. Bender, M. Farach-Colton, R. Johnson,
// R. Kraner, B. C. Kuszmaul, D. Medjedovic, P. Montes, P. Shetty, R. P. Spillane, E. Zadok,
// "Don't Thrash: How to Cache Your Hash on Flash", PVLDB 5(11), 2012), as the wiki article
// "Quotient Filter" (the quotient filter article) describes it.
//
// Layout: a circular table of m = 2^q slots (indices mod 2^q, so nothing falls off the end and
// the table can be filled completely). Each slot is r + 3 bits, bit-packed end to end: three
// metadata bits (bit 0 is_occupied, bit 1 is_continuation, bit 2 is_shifted) and the r-bit
// remainder above them. A key's fingerprint is the top p = q + r bits of its 64-bit hash:
// quotient fq = the high q of those bits (the home slot), remainder fr = the low r bits.
// Remainders sharing a quotient form a run, sorted by remainder; runs are stored in quotient
// order by linear probing. is_occupied is a property of the slot index (some stored
// fingerprint has that quotient), the other two bits travel with the remainder.
// A slot is empty iff its three metadata bits are 0: an unshifted filled slot is a run start
// at home, so its is_occupied is 1.
//
// Theory, n fingerprints, load alpha = n / 2^q:
//   FPR      = 1 - (1 - 2^-(q+r))^n ~ 1 - exp(-alpha 2^-r) ~ alpha / 2^r
//              (a negative key matches iff some stored fingerprint equals its q + r bits)
//   bits/key = (r + 3) 2^q / n = (r + 3) / alpha. theory() reports it at the requested load,
//              (r + 3) / L: the round-up of the table to a power of two is the allocation's,
//              which the measured (r + 3) 2^q / n shows. The quotient filter article gives
//              (r + 3) / alpha at the load reached (bits_per_key_seed002_formula).
//   The AMQ survey ("Approximate Membership Filters: Cuckoo, Quotient, XOR, Binary Fuse")
//   instead counts log2(n / alpha) = q quotient bits per key: (q + r + 3) / alpha;
//   add_stats reports it as bits_per_key_seed000_formula, beside the measured size.
// Sizing: --fpr eps gives r = ceil(log2(1/eps)); --bits-per-key B gives r = floor(B L) - 3;
// r is clamped to 2..32. --max-load L (default 0.9) gives the smallest q >= 1 with
// 2^q L >= n. Inserts are accepted until all 2^q slots hold a fingerprint (max_load only
// sizes the table); a full table refuses the insert and counts it in insert_failures.
//
// Duplicates are stored as repeated remainders (the filter is a multiset of fingerprints), so
// erase(key) removes one copy and never causes a false negative for a key inserted more often.
// erase of a never-inserted key returns false unless that key's fingerprint collides with a
// stored one (probability = the FPR); it then removes the colliding copy, as every
// fingerprint filter must: the filter cannot tell the two keys apart.
//
// Without the keys: merge() interleaves two sorted fingerprint streams into a fresh table in
// one sequential pass; resized_double() moves the top remainder bit into the quotient
// (q' = q + 1, r' = r - 1); for_each_fingerprint() streams (quotient, remainder) in order.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "filters/bit_packed.h"
#include "filters/quotient_common.h"
#include "core/filter.h"
#include "core/stat_catalog.h"
#include "core/hashing.h"

namespace amq {

class QuotientFilter {
 public:
  static constexpr std::string_view kName = "quotient";
  static constexpr std::string_view kFamily = "quotient";
  static constexpr std::string_view kParameters =
      "--fpr eps: r = ceil(log2(1/eps)); --bits-per-key B: r = floor(B*L) - 3; r in 2..32; "
      "--max-load L (default 0.9): slots = smallest 2^q with 2^q*L >= n";
  static constexpr int kMetadataBits = 3;
  static constexpr QuotientSizing kSizing{0.9, kMetadataBits, 1};  // filters/quotient_common.h
  static constexpr double kDefaultMaxLoad = kSizing.default_max_load;

  explicit QuotientFilter(const FilterParams& p)
      : QuotientFilter(kSizing.QuotientBitsFor(p.capacity, kSizing.LoadFor(p)),
                       kSizing.RemainderBitsFor(p), SpreadSeed(p.seed), kSizing.LoadFor(p)) {}

  // Geometry given directly (merge and resize build through here). r may be 1 after a resize.
  QuotientFilter(int quotient_bits, int remainder_bits, std::uint64_t spread_seed, double max_load)
      : q_(quotient_bits),
        r_(remainder_bits),
        seed_(spread_seed),
        max_load_(max_load),
        mask_((1ULL << quotient_bits) - 1),
        table_(1ULL << quotient_bits, remainder_bits + kMetadataBits) {
    if (q_ < 1 || r_ < 1 || r_ > 32 || q_ + r_ > 64) {
      throw std::invalid_argument("quotient filter: need q >= 1, 1 <= r <= 32, q + r <= 64");
    }
  }

  bool insert(std::uint64_t key) {
    const auto [fq, fr] = Split(key);
    if (stored_ == slots()) {
      ++insert_failures_;
      return false;
    }
    InsertFingerprint(fq, fr);
    return true;
  }

  bool contains(std::uint64_t key) const {
    const auto [fq, fr] = Split(key);
    if (!(table_.get(fq) & kOccupied)) return false;
    std::uint64_t s = RunStart(fq);
    do {
      const std::uint64_t rem = table_.get(s) >> kMetadataBits;
      if (rem == fr) return true;
      if (rem > fr) return false;  // runs are sorted
      s = Next(s);
    } while (table_.get(s) & kContinuation);
    return false;
  }

  bool erase(std::uint64_t key) {
    const auto [fq, fr] = Split(key);
    return EraseFingerprint(fq, fr);
  }

  std::size_t size_in_bytes() const { return table_.size_in_bytes(); }
  std::span<const std::uint8_t> bytes() const { return {table_.data(), table_.size_in_bytes()}; }
  std::uint64_t insert_failures() const { return insert_failures_; }  // inserts refused
  double load_factor() const { return static_cast<double>(stored_) / slots(); }
  std::uint64_t slots() const { return mask_ + 1; }
  std::uint64_t stored() const { return stored_; }
  int quotient_bits() const { return q_; }
  int remainder_bits() const { return r_; }

  Theory theory() const {
    // Bits/key at the requested load, not at alpha.
    return {QuotientFpr(static_cast<double>(stored_), q_, r_),
            QuotientBitsPerKey(r_, kMetadataBits, max_load_)};
  }

  // The (quotient, remainder) pair a key is stored as; tests keep a multiset of these.
  std::pair<std::uint64_t, std::uint64_t> Fingerprint(std::uint64_t key) const {
    return Split(key);
  }

  // Calls fn(quotient, remainder) for every stored fingerprint in increasing order.
  template <class Fn>
  void for_each_fingerprint(Fn&& fn) const {
    Cursor cursor(*this);
    std::uint64_t f;
    while (cursor.Next(f)) fn(f >> r_, f & RemainderMask());
  }

  // Both filters' fingerprints in one table (filters/quotient_common.h), bulk-loaded in one
  // sequential pass.
  static QuotientFilter merge(const QuotientFilter& a, const QuotientFilter& b) {
    const MergedGeometry g = MergeGeometry(kName, 1, a.Shape(), b.Shape());
    QuotientFilter out(g.q, g.r, a.seed_, g.max_load);
    Cursor ca(a), cb(b);
    InterleaveSorted(ca, cb, g, [&out](std::uint64_t f, std::uint64_t) { out.AppendSorted(f); });
    return out;
  }

  // Twice the slots, one remainder bit fewer: the p-bit fingerprints are unchanged, so the FPR
  // is too, and no false negative can appear. Needs r >= 2.
  QuotientFilter resized_double() const {
    if (r_ < 2) throw std::invalid_argument("quotient resize: no remainder bit to move");
    QuotientFilter out(q_ + 1, r_ - 1, seed_, max_load_);
    Cursor cursor(*this);
    std::uint64_t f;
    while (cursor.Next(f)) out.AppendSorted(f);
    return out;
  }

  // The statistics add_stats reports (core/filter.h).
  static constexpr StatSpec kStats[] = {
      stat::kQuotientBits,
      stat::kRemainderBits,
      stat::kSlots,
      stat::kMetadataBitsPerSlot,
      stat::kClusters,
      stat::kClusterLengthMean,
      stat::kClusterLengthMax,
      stat::kRuns,
      stat::kRunLengthMean,
      stat::kRunLengthMax,
      stat::kStretchLengthMean,
      stat::kStretchLengthMax,
      stat::kDisplacementMean,
      stat::kDisplacementMeanKnuth,
      stat::kProbesToEmptyMean,
      stat::kProbesToEmptyMeanKnuth,
      {"slots_scanned_per_lookup", "number", "slots",
       "classic QF: mean slots a lookup of a stored key scans"},
      stat::kBitsPerKeySeed002,
      stat::kBitsPerKeySeed000};

  void add_stats(Stats& s) const {
    const ClusterStats c = Clusters();
    const double alpha = load_factor();
    s.put("quotient_bits", q_);
    s.put("remainder_bits", r_);
    s.put("slots", slots());
    s.put("metadata_bits_per_slot", kMetadataBits);
    s.put("clusters", c.clusters);
    s.put("cluster_length_mean", c.clusters ? static_cast<double>(stored_) / c.clusters : 0.0);
    s.put("cluster_length_max", c.cluster_max);
    s.put("runs", c.runs);
    s.put("run_length_mean", c.runs ? static_cast<double>(stored_) / c.runs : 0.0);
    s.put("run_length_max", c.run_max);
    s.put("stretch_length_mean", c.stretches ? static_cast<double>(stored_) / c.stretches : 0.0);
    s.put("stretch_length_max", c.stretch_max);
    // Knuth's linear probing (random hashing, large m): mean displacement alpha/(2(1-alpha)),
    // unsuccessful-search probes (1 + 1/(1-alpha)^2)/2. Total displacement does not depend on
    // the order within clusters, so the sorted runs of a QF obey the same law.
    s.put("displacement_mean", stored_ ? static_cast<double>(c.displacement) / stored_ : 0.0);
    s.put("displacement_mean_knuth",
          alpha < 1 ? std::optional<double>(KnuthDisplacementMean(alpha)) : std::nullopt);
    s.put("probes_to_empty_mean", c.probes_to_empty / static_cast<double>(slots()));
    s.put("probes_to_empty_mean_knuth",
          alpha < 1 ? std::optional<double>(KnuthProbesToEmptyMean(alpha)) : std::nullopt);
    // What a positive lookup walks: back from fq to its cluster start, forward to the end of
    // fq's run, averaged over the occupied quotients (each weighted by its run length).
    s.put("slots_scanned_per_lookup", stored_ ? static_cast<double>(c.scan_weighted) / stored_ : 0.0);
    PutSeedBitsPerKey(s, static_cast<double>(stored_), r_, kMetadataBits, alpha);
  }

  // Debug validator: checks every structural invariant and returns an empty string or the
  // first violation. Cost O(2^q); tests call it, the timed paths never do.
  std::string Validate() const {
    std::uint64_t filled = 0, occupied = 0, runs = 0;
    for (std::uint64_t s = 0; s < slots(); ++s) {
      const std::uint64_t v = table_.get(s);
      filled += (v & 7) != 0;
      occupied += (v & kOccupied) != 0;
      if ((v & kContinuation) && !(v & kShifted))
        return "continuation not shifted at " + std::to_string(s);
    }
    if (filled != stored_) return "filled slots " + std::to_string(filled) + " != stored";
    if (stored_ == 0) return occupied == 0 ? "" : "occupied bits in an empty table";
    // Walk every cluster from its unshifted start, decoding quotients.
    std::uint64_t start = 0;
    while (!IsClusterStart(start)) ++start;  // exists: see Cursor
    std::uint64_t s = start, quot = 0, prev_rem = 0, seen = 0;
    bool in_cluster = false;
    for (std::uint64_t i = 0; i < slots(); ++i, s = Next(s)) {
      const std::uint64_t v = table_.get(s);
      if ((v & 7) == 0) {
        in_cluster = false;
        continue;
      }
      const std::uint64_t rem = v >> kMetadataBits;
      if (!(v & kShifted)) {
        if (v & kContinuation) return "unshifted continuation at " + std::to_string(s);
        if (!(v & kOccupied)) return "cluster start without is_occupied at " + std::to_string(s);
        quot = s;
        in_cluster = true;
        ++runs;
      } else {
        if (!in_cluster) return "shifted slot after an empty slot at " + std::to_string(s);
        if (!(v & kContinuation)) {
          std::uint64_t steps = 0;
          do {
            quot = Next(quot);
            if (++steps > slots()) return "no occupied quotient for run at " + std::to_string(s);
          } while (!(table_.get(quot) & kOccupied));
          if (quot == s) return "run at home marked shifted at " + std::to_string(s);
          // the run's quotient must lie between the cluster start and s
          ++runs;
        } else if (rem < prev_rem) {
          return "run not sorted at " + std::to_string(s);
        }
        if (((s - quot) & mask_) == 0 || ((s - quot) & mask_) > stored_) {
          return "slot before its quotient at " + std::to_string(s);
        }
      }
      prev_rem = rem;
      ++seen;
    }
    if (seen != stored_) return "walk saw " + std::to_string(seen) + " fingerprints";
    if (runs != occupied) {
      return "runs " + std::to_string(runs) + " != occupied " + std::to_string(occupied);
    }
    return "";
  }

 private:
  static constexpr std::uint64_t kOccupied = 1, kContinuation = 2, kShifted = 4;

  std::uint64_t RemainderMask() const { return (1ULL << r_) - 1; }
  QuotientShape Shape() const { return {seed_, q_, r_, max_load_, stored_}; }
  std::uint64_t Next(std::uint64_t s) const { return (s + 1) & mask_; }
  std::uint64_t Prev(std::uint64_t s) const { return (s - 1) & mask_; }
  static bool IsEmpty(std::uint64_t v) { return (v & 7) == 0; }
  bool IsClusterStart(std::uint64_t s) const {
    const std::uint64_t v = table_.get(s);
    return !IsEmpty(v) && !(v & kShifted);
  }

  // Top q + r bits of the hash: the quotient from the highest q, the remainder below them.
  std::pair<std::uint64_t, std::uint64_t> Split(std::uint64_t key) const {
    const std::uint64_t f = HashKey(key, seed_) >> (64 - q_ - r_);
    return {f >> r_, f & RemainderMask()};
  }

  // Where the run of quotient fq starts (fq must be marked occupied): walk back to the cluster
  // start, then forward, pairing each run start with the next occupied quotient.
  std::uint64_t RunStart(std::uint64_t fq) const {
    std::uint64_t b = fq;
    while (table_.get(b) & kShifted) b = Prev(b);
    std::uint64_t s = b;
    while (b != fq) {
      do s = Next(s);
      while (table_.get(s) & kContinuation);
      do b = Next(b);
      while (!(table_.get(b) & kOccupied));
    }
    return s;
  }

  void InsertFingerprint(std::uint64_t fq, std::uint64_t fr) {
    const std::uint64_t home = table_.get(fq);
    ++stored_;
    if (IsEmpty(home)) {
      table_.set(fq, (fr << kMetadataBits) | kOccupied);
      return;
    }
    const bool had_run = home & kOccupied;
    if (!had_run) table_.set(fq, home | kOccupied);  // RunStart below must stop at fq
    const std::uint64_t start = RunStart(fq);
    std::uint64_t s = start;
    std::uint64_t meta = 0;
    if (had_run) {
      // First slot of the run holding a remainder >= fr, or the slot just past the run.
      while ((table_.get(s) >> kMetadataBits) < fr) {
        s = Next(s);
        if (!(table_.get(s) & kContinuation)) break;
      }
      if (s == start) {
        table_.set(start, table_.get(start) | kContinuation);  // old head moves behind fr
      } else {
        meta = kContinuation;
      }
    }
    if (s != fq) meta |= kShifted;
    ShiftInsert(s, (fr << kMetadataBits) | meta);
  }

  // Writes `element` (remainder and two travelling bits) at s, pushing every element up to the
  // next empty slot one slot right; is_occupied stays with the slot index.
  void ShiftInsert(std::uint64_t s, std::uint64_t element) {
    while (true) {
      const std::uint64_t old = table_.get(s);
      table_.set(s, element | (old & kOccupied));
      if (IsEmpty(old)) return;
      element = (old & ~kOccupied) | kShifted;
      s = Next(s);
    }
  }

  bool EraseFingerprint(std::uint64_t fq, std::uint64_t fr) {
    if (!(table_.get(fq) & kOccupied)) return false;
    const std::uint64_t start = RunStart(fq);
    std::uint64_t s = start;
    while (true) {
      const std::uint64_t rem = table_.get(s) >> kMetadataBits;
      if (rem == fr) break;
      if (rem > fr) return false;
      s = Next(s);
      if (!(table_.get(s) & kContinuation)) return false;
    }
    const bool removing_head = s == start;
    const bool run_continues = table_.get(Next(s)) & kContinuation;
    // Clear is_occupied first when the run empties, so the shift below pairs the following run
    // starts with the right quotients.
    if (removing_head && !run_continues) table_.set(fq, table_.get(fq) & ~kOccupied);
    ShiftDelete(s, fq);
    if (removing_head && run_continues) {
      std::uint64_t v = table_.get(s) & ~kContinuation;  // the run's new head
      if (s == fq) v &= ~kShifted;
      table_.set(s, v);
    }
    --stored_;
    return true;
  }

  // Removes the element at s, pulling the rest of its cluster one slot left. A run start that
  // lands on its home slot becomes unshifted (a new cluster start); the pull stops at an empty
  // slot or at the next cluster start, which cannot move, or, in a full table that is one
  // cluster, back at the first slot it pulled into, which no longer holds the cluster's start.
  void ShiftDelete(std::uint64_t s, std::uint64_t quot) {
    const std::uint64_t first = s;
    while (true) {
      const std::uint64_t n = Next(s);
      std::uint64_t nv = table_.get(n);
      const std::uint64_t occupied_here = table_.get(s) & kOccupied;
      if (n == first || IsEmpty(nv) || !(nv & kShifted)) {
        table_.set(s, occupied_here);
        return;
      }
      if (!(nv & kContinuation)) {
        do quot = Next(quot);
        while (!(table_.get(quot) & kOccupied));
        if (quot == s) nv &= ~kShifted;
      }
      table_.set(s, (nv & ~kOccupied) | occupied_here);
      s = n;
    }
  }

  // Bulk load for merge and resize: fingerprints arrive in increasing order, so each goes to
  // max(home, previous slot + 1) - the canonical layout. The few that would wrap past the end
  // of the table are inserted the ordinary way, which handles the circular wrap.
  void AppendSorted(std::uint64_t f) {
    const std::uint64_t fq = f >> r_, fr = f & RemainderMask();
    const std::uint64_t pos = append_pos_ >= 0 ? std::max<std::uint64_t>(fq, append_pos_ + 1) : fq;
    if (wrapped_ || pos >= slots()) {
      wrapped_ = true;
      InsertFingerprint(fq, fr);
      return;
    }
    const bool same_run = append_pos_ >= 0 && fq == append_quot_;
    table_.set(fq, table_.get(fq) | kOccupied);
    const std::uint64_t meta = (same_run ? kContinuation : 0) | (pos != fq ? kShifted : 0);
    table_.set(pos, (fr << kMetadataBits) | meta | (table_.get(pos) & kOccupied));
    append_pos_ = static_cast<std::int64_t>(pos);
    append_quot_ = fq;
    ++stored_;
  }

  // Streams the fingerprints (fq << r | fr) in increasing order. The walk starts at c, the
  // start of the cluster holding slot 0 (or slot 0 itself): such an unshifted slot exists in
  // any non-empty table, even a full one, because inserts keep every run as far left as the
  // order allows. From c, quotients rise circularly: c .. 2^q - 1 first (a cluster that wraps
  // past the end), then 0 .. c - 1. Pass 0 walks the whole table emitting quotients below c;
  // pass 1 walks the wrapping cluster again emitting those >= c, which sort last.
  class Cursor {
   public:
    explicit Cursor(const QuotientFilter& f) : f_(f) {
      c_ = 0;
      if (f.stored_ > 0) {
        while (f.table_.get(c_) & kShifted) c_ = f.Prev(c_);
      }
      Restart();
    }

    bool Next(std::uint64_t& fingerprint) {
      while (true) {
        if (walked_ == f_.slots()) {
          if (pass_ == 1 || c_ == 0) return false;
          pass_ = 1;
          Restart();
          continue;
        }
        const std::uint64_t s = pos_;
        const std::uint64_t v = f_.table_.get(s);
        pos_ = f_.Next(pos_);
        ++walked_;
        if (IsEmpty(v)) continue;
        if (!(v & kShifted)) {
          quot_ = s;
        } else if (!(v & kContinuation)) {
          do quot_ = f_.Next(quot_);
          while (!(f_.table_.get(quot_) & kOccupied));
        }
        const bool high = quot_ >= c_ && c_ != 0;  // belongs to the part that sorts last
        if (pass_ == 0) {
          if (high && !past_high_) continue;
          past_high_ = true;
        } else if (!high) {
          walked_ = f_.slots();  // pass 1 is over at the first low quotient
          return false;
        }
        fingerprint = (quot_ << f_.r_) | (v >> kMetadataBits);
        return true;
      }
    }

   private:
    void Restart() {
      pos_ = c_;
      walked_ = 0;
      quot_ = c_;
      past_high_ = false;
    }

    const QuotientFilter& f_;
    std::uint64_t c_ = 0, pos_ = 0, walked_ = 0, quot_ = 0;
    int pass_ = 0;
    bool past_high_ = false;
  };

  struct ClusterStats {
    std::uint64_t clusters = 0, cluster_max = 0, runs = 0, run_max = 0, stretches = 0,
                  stretch_max = 0, displacement = 0, scan_weighted = 0;
    double probes_to_empty = 0;
  };

  // One pass over the table, computed on demand at stats time.
  ClusterStats Clusters() const {
    ClusterStats c;
    if (stored_ == 0) {
      c.probes_to_empty = static_cast<double>(slots());
      return c;
    }
    // Start just after an empty slot if there is one, so stretches are not cut by the wrap.
    std::uint64_t begin = 0;
    for (std::uint64_t i = 0; i < slots(); ++i) {
      if (IsEmpty(table_.get(i))) {
        begin = Next(i);
        break;
      }
      if (i + 1 == slots()) {  // full table: one stretch; begin at a cluster start
        begin = 0;
        while (!IsClusterStart(begin)) ++begin;
      }
    }
    std::uint64_t s = begin, quot = 0, cluster_len = 0, run_len = 0, stretch_len = 0;
    std::uint64_t cluster_start = 0;
    auto close_run = [&](std::uint64_t end_slot) {
      if (run_len == 0) return;
      c.run_max = std::max(c.run_max, run_len);
      // a lookup for quot walks back from quot to the cluster start, then forward to the run end
      const std::uint64_t back = (quot - cluster_start) & mask_;
      const std::uint64_t fwd = ((end_slot - cluster_start) & mask_) + 1;
      c.scan_weighted += run_len * (back + fwd);
      run_len = 0;
    };
    auto close_stretch = [&]() {
      if (stretch_len == 0) return;
      ++c.stretches;
      c.stretch_max = std::max(c.stretch_max, stretch_len);
      c.probes_to_empty += stretch_len * (stretch_len + 1) / 2.0 + stretch_len;
      stretch_len = 0;
    };
    std::uint64_t prev = 0;
    for (std::uint64_t i = 0; i < slots(); ++i, prev = s, s = Next(s)) {
      const std::uint64_t v = table_.get(s);
      if (IsEmpty(v)) {
        close_run(prev);
        close_stretch();
        c.probes_to_empty += 1;
        c.cluster_max = std::max(c.cluster_max, cluster_len);
        cluster_len = 0;
        continue;
      }
      if (!(v & kShifted)) {
        close_run(prev);
        c.cluster_max = std::max(c.cluster_max, cluster_len);
        ++c.clusters;
        cluster_len = 0;
        cluster_start = s;
        quot = s;
        ++c.runs;
      } else if (!(v & kContinuation)) {
        close_run(prev);
        do quot = Next(quot);
        while (!(table_.get(quot) & kOccupied));
        ++c.runs;
      }
      ++cluster_len;
      ++run_len;
      ++stretch_len;
      c.displacement += (s - quot) & mask_;
    }
    close_run(prev);
    close_stretch();
    c.cluster_max = std::max(c.cluster_max, cluster_len);
    return c;
  }

  int q_, r_;
  std::uint64_t seed_;
  double max_load_;
  std::uint64_t mask_;
  BitPackedArray<0> table_;
  std::uint64_t stored_ = 0;
  std::uint64_t insert_failures_ = 0;
  // AppendSorted's state (merge and resize only).
  std::int64_t append_pos_ = -1;
  std::uint64_t append_quot_ = 0;
  bool wrapped_ = false;
};

}  // namespace amq
