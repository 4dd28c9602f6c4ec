// filters/rsqf.h - rank-and-select quotient filter (P. Pandey, M. A. Bender, R. Johnson,
// R. Patro, "A General-Purpose Counting Filter: Making Every Bit Count", SIGMOD 2017, §3).
//
// Layout: filters/rsqf_core.h - 64-slot blocks with an occupieds bitmap, a runends bitmap and
// an 8-bit offset (2.125 metadata bits per slot), r-bit remainders, 2^q canonical slots plus
// 64 + 1.5 sqrt(2^q) overflow slots (rounded up to blocks). A key's fingerprint is the top
// p = q + r bits of its hash: quotient = high q bits, remainder = low r bits. Runs are sorted by
// remainder; duplicates are stored as repeated remainders (a multiset), so erase removes one.
//
// Theory, n stored fingerprints, alpha = n / 2^q:
//   FPR      = 1 - (1 - 2^-(q+r))^n ~ alpha / 2^r
//   bits/key = (r + 2.125) / alpha, the paper's (overflow slots ignored). theory() reports it
//              at the requested load, (r + 2.125) / L: the power-of-two table and the overflow
//              slots are the allocation's, which the measured (r + 2.125) S / n shows (S = all
//              slots, overflow included). add_stats also gives (r + 2.125) / alpha at the load
//              reached (the quotient filter article's) and the AMQ survey's (q + r + 3) / alpha
//              (plots/reference.py names both texts).
// Sizing: --fpr eps gives r = ceil(log2(1/eps)); --bits-per-key B gives r = floor(B L - 2.125);
// r in 2..32. --max-load L (default 0.95) gives the smallest q >= 6 with 2^q L >= n. Inserts
// are accepted until a shift would pass the last overflow slot; such an insert is refused.
//
// erase of a never-inserted key returns false unless its fingerprint equals a stored one (then
// it removes that copy: no fingerprint filter can tell the keys apart).
//
// Without the keys: merge() (one sequential pass over both), resized_double() (q + 1, r - 1),
// for_each_fingerprint(fn(quotient, remainder)) in increasing order.
//
// Concurrent inserts (core/concurrent_insert.h; RsqfFilterBase::insert_concurrent in
// rsqf_core.h, shared with the CQF): the CQF paper's thread-safety scheme (§ on multi-threaded
// inserts): the table is cut into regions of a fixed number of slots, one spin lock each, and an
// insert locks the region its quotient falls in and the next, since a shift can spill over. A
// shift that would run past the held regions (or a saturated offset whose walk back would) is
// detected before anything is written, by searches bounded to the held blocks, and the insert
// then holds more regions (ascending order) and looks again: it never reads or writes a byte
// outside what it holds. Regions are 64 blocks (4096 slots): an insert holds at least the 4032
// slots after its own region, while at the 95% default load the mean distance from a quotient
// to the first unused slot is ~200 (Knuth, (1 + 1/(1 - alpha)^2) / 2), so retries are rare
// (none in 0.95 * 2^22 inserts, r = 8); and 2^20 slots make 256 regions, so T threads on random
// quotients rarely meet, for locks costing a byte per 4096 slots. The layout is canonical for the multiset held (runs sorted,
// offsets derived), so a concurrent build has the bytes of a sequential build of the keys it
// accepted (filters/rsqf_threaded_test.cc checks exactly that).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "filters/quotient_common.h"
#include "filters/rsqf_core.h"
#include "filters/theory_formulas.h"
#include "core/filter.h"
#include "core/stat_catalog.h"

namespace amq {

// One slot per stored copy, each run sorted by remainder. Sizing, constructors, lookups, merge
// and resize are RsqfFilterBase's (filters/rsqf_core.h), and so is kPortable's meaning.
template <int kOffsetLimit = 255, bool kPortable = false>
class BasicRsqf
    : public RsqfFilterBase<BasicRsqf<kOffsetLimit, kPortable>, kOffsetLimit, kPortable> {
  using Shared = RsqfFilterBase<BasicRsqf, kOffsetLimit, kPortable>;
  using Shared::core_;

 public:
  using typename Shared::Core;
  static constexpr std::string_view kName = "rsqf";
  static constexpr int kMinRemainderBits = 1;
  static constexpr int kMaxSlotsPerInsert = 1;
  using RsqfFilterBase<BasicRsqf, kOffsetLimit, kPortable>::RsqfFilterBase;  // its constructors

  bool erase(std::uint64_t key) {
    const auto [fq, fr] = this->Split(key);
    if (!core_.Occupied(fq)) return false;
    const std::uint64_t end = core_.RunEndUpTo(fq);
    const std::uint64_t start = core_.RunStart(fq, end);
    for (std::uint64_t s = start; s <= end; ++s) {
      const std::uint64_t v = core_.Rem(s);
      if (v > fr) return false;
      if (v == fr) {
        core_.RemoveSlot(fq, s, start, end);
        return true;
      }
    }
    return false;
  }

  std::uint64_t stored() const { return core_.used(); }

  Theory theory() const {
    // Bits/key at L, not at alpha.
    return {QuotientFpr(static_cast<double>(stored()), core_.q(), core_.r()), this->BitsPerKeyAtMaxLoad()};
  }

  template <class Fn>
  void for_each_fingerprint(Fn&& fn) const {
    typename Core::RunCursor runs(core_);
    std::uint64_t x, start, end;
    while (runs.Next(x, start, end)) {
      for (std::uint64_t s = start; s <= end; ++s) fn(x, core_.Rem(s));
    }
  }

  // The statistics add_stats reports (core/filter.h).
  static constexpr StatSpec kStats[] = {
      stat::kQuotientBits,
      stat::kRemainderBits,
      stat::kSlots,
      stat::kOverflowSlots,
      stat::kMetadataBitsPerSlot,
      {"select", "string", "", "RSQF: select implementation, pdep (BMI2) or portable"},
      stat::kRuns,
      stat::kRunLengthMean,
      stat::kRunLengthMax,
      stat::kClusters,
      stat::kClusterLengthMean,
      stat::kClusterLengthMax,
      stat::kStretchLengthMean,
      stat::kStretchLengthMax,
      stat::kDisplacementMean,
      stat::kDisplacementMeanKnuth,
      stat::kProbesToEmptyMean,
      stat::kProbesToEmptyMeanKnuth,
      stat::kOffsetMax,
      {"saturated_offsets", "integer", "blocks", "RSQF: blocks whose offset did not fit its field"},
      stat::kBitsPerKeySeed002,
      stat::kBitsPerKeySeed000};

  void add_stats(Stats& s) const {
    const RunShape sh = core_.Shape();
    const double n = static_cast<double>(stored());
    const double alpha = this->load_factor();
    s.put("quotient_bits", core_.q());
    s.put("remainder_bits", core_.r());
    s.put("slots", core_.canonical_slots());
    s.put("overflow_slots", core_.total_slots() - core_.canonical_slots());
    s.put("metadata_bits_per_slot", Core::kMetadataBitsPerSlot);
    s.put("select", rsqf_detail::kSelectIsBmi2 && !kPortable ? "pdep" : "portable");
    s.put("runs", sh.runs);
    s.put("run_length_mean", sh.runs ? n / sh.runs : 0.0);
    s.put("run_length_max", sh.run_max);
    s.put("clusters", sh.clusters);
    s.put("cluster_length_mean", sh.clusters ? n / sh.clusters : 0.0);
    s.put("cluster_length_max", sh.cluster_max);
    s.put("stretch_length_mean", sh.stretches ? n / sh.stretches : 0.0);
    s.put("stretch_length_max", sh.stretch_max);
    s.put("displacement_mean", n > 0 ? sh.displacement / n : 0.0);
    s.put("displacement_mean_knuth",
          alpha < 1 ? std::optional<double>(KnuthDisplacementMean(alpha)) : std::nullopt);
    s.put("probes_to_empty_mean", sh.probes_to_empty / core_.total_slots());
    s.put("probes_to_empty_mean_knuth",
          alpha < 1 ? std::optional<double>(KnuthProbesToEmptyMean(alpha)) : std::nullopt);
    s.put("offset_max", sh.offset_max);
    s.put("saturated_offsets", sh.saturated_blocks);
    PutSeedBitsPerKey(s, n, core_.r(), Core::kMetadataBitsPerSlot, alpha);
  }

  // Core invariants plus: every run sorted.
  std::string Validate() const {
    std::string problem = core_.Validate();
    if (!problem.empty()) return problem;
    typename Core::RunCursor runs(core_);
    std::uint64_t x, start, end;
    while (runs.Next(x, start, end)) {
      for (std::uint64_t s = start + 1; s <= end; ++s) {
        if (core_.Rem(s) < core_.Rem(s - 1)) return "run not sorted at " + std::to_string(s);
      }
    }
    return "";
  }

 private:
  friend Shared;  // calls AddFingerprint, Holds, AppendEntry, FinishAppend and Cursor

  // Shared::insert's step: the remainder goes into its sorted place in fq's run (a new run when
  // fq has none). kShared: Shared::insert_concurrent's, the slot count bumped atomically.
  template <bool kShared = false>
  bool AddFingerprint(std::uint64_t fq, std::uint64_t fr) {
    if (!core_.Occupied(fq)) {
      const std::int64_t prev = core_.RunEndUpTo(fq);
      return core_.template InsertSlot<kShared>(fq, std::max<std::int64_t>(fq, prev + 1), fr, -1);
    }
    const std::uint64_t end = core_.RunEndUpTo(fq);
    std::uint64_t pos = core_.RunStart(fq, end);
    while (pos <= end && core_.Rem(pos) < fr) ++pos;
    return core_.template InsertSlot<kShared>(fq, pos, fr, static_cast<std::int64_t>(end));
  }

  bool Holds(std::uint64_t fq, std::uint64_t fr) const {
    if (!core_.Occupied(fq)) return false;
    // The whole run compared at once (a run averages ~1.5 slots at 95% load): no branch per
    // slot to mispredict.
    const std::uint64_t end = core_.RunEndUpTo(fq);
    return core_.RunHolds(core_.RunStart(fq, end), end, fr);
  }

  // Bulk load (merge, resize): one slot per copy, so count is always 1.
  void AppendEntry(std::uint64_t f, std::uint64_t /*count*/) {
    if (!core_.Append(f >> core_.r(), f & this->RemainderMask())) {
      throw std::length_error("rsqf: merged fingerprints overflow the table");
    }
  }
  void FinishAppend() { core_.FinishAppend(); }

  // Pulls the fingerprints (quotient << r | remainder) in increasing order.
  class Cursor {
   public:
    explicit Cursor(const BasicRsqf& f) : f_(f), runs_(f.core_) {}
    bool Next(std::uint64_t& fingerprint) {
      if (s_ > end_) {
        if (!runs_.Next(x_, s_, end_)) return false;
      }
      fingerprint = (x_ << f_.core_.r()) | f_.core_.Rem(s_);
      ++s_;
      return true;
    }

   private:
    const BasicRsqf& f_;
    typename Core::RunCursor runs_;
    std::uint64_t x_ = 0, s_ = 1, end_ = 0;
  };
};

using Rsqf = BasicRsqf<>;

}  // namespace amq
