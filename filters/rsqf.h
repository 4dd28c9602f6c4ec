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
//              reached (seed 002's) and seed 000's (q + r + 3) / alpha.
// Sizing: --fpr eps gives r = ceil(log2(1/eps)); --bits-per-key B gives r = floor(B L - 2.125);
// r in 2..32. --max-load L (default 0.95) gives the smallest q >= 6 with 2^q L >= n. Inserts
// are accepted until a shift would pass the last overflow slot; such an insert is refused.
//
// erase of a never-inserted key returns false unless its fingerprint equals a stored one (then
// it removes that copy: no fingerprint filter can tell the keys apart).
//
// Without the keys: merge() (one sequential pass over both), resized_double() (q + 1, r - 1),
// for_each_fingerprint(fn(quotient, remainder)) in increasing order.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "filters/quotient_common.h"
#include "filters/rsqf_core.h"
#include "core/filter.h"
#include "core/stat_catalog.h"
#include "core/hashing.h"

namespace amq {

// kPortable: the core's portable paths, forced (filters/rsqf_core.h); the tests use it.
template <int kOffsetLimit = 255, bool kPortable = false>
class BasicRsqf {
 public:
  static constexpr std::string_view kName = "rsqf";
  static constexpr std::string_view kFamily = "quotient";
  static constexpr std::string_view kParameters =
      "--fpr eps: r = ceil(log2(1/eps)); --bits-per-key B: r = floor(B*L - 2.125); r in 2..32; "
      "--max-load L (default 0.95): canonical slots = smallest 2^q >= 64 with 2^q*L >= n";
  using Core = RsqfCore<kOffsetLimit, kPortable>;
  // q >= 6: the canonical slots fill at least one 64-slot block (filters/quotient_common.h).
  static constexpr QuotientSizing kSizing{0.95, Core::kMetadataBitsPerSlot, 6};
  static constexpr double kDefaultMaxLoad = kSizing.default_max_load;

  explicit BasicRsqf(const FilterParams& p)
      : BasicRsqf(kSizing.QuotientBitsFor(p.capacity, kSizing.LoadFor(p)),
                  kSizing.RemainderBitsFor(p), SpreadSeed(p.seed), kSizing.LoadFor(p)) {}

  BasicRsqf(int quotient_bits, int remainder_bits, std::uint64_t spread_seed, double max_load)
      : core_(quotient_bits, remainder_bits), seed_(spread_seed), max_load_(max_load) {
    if (quotient_bits < 6 || remainder_bits < 1 || remainder_bits > 32 ||
        quotient_bits + remainder_bits > 64) {
      throw std::invalid_argument("rsqf: need q >= 6, 1 <= r <= 32, q + r <= 64");
    }
  }

  bool insert(std::uint64_t key) {
    const auto [fq, fr] = Split(key);
    bool ok;
    if (!core_.Occupied(fq)) {
      const std::int64_t prev = core_.RunEndUpTo(fq);
      ok = core_.InsertSlot(fq, std::max<std::int64_t>(fq, prev + 1), fr, -1);
    } else {
      const std::uint64_t end = core_.RunEndUpTo(fq);
      std::uint64_t pos = core_.RunStart(fq, end);
      while (pos <= end && core_.Rem(pos) < fr) ++pos;
      ok = core_.InsertSlot(fq, pos, fr, static_cast<std::int64_t>(end));
    }
    if (!ok) {
      ++insert_failures_;
      return false;
    }
    return true;
  }

  bool contains(std::uint64_t key) const {
    const auto [fq, fr] = Split(key);
    return Holds(fq, fr);
  }

  // Batched lookups (BatchedFilter), RsqfCore::ContainsMany: prefetch a group, then probe.
  std::size_t contains_many(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
    return core_.ContainsMany(
        keys, out, [this](std::uint64_t k) { return Split(k); },
        [this](std::uint64_t fq, std::uint64_t fr) { return Holds(fq, fr); });
  }

 private:
  bool Holds(std::uint64_t fq, std::uint64_t fr) const {
    if (!core_.Occupied(fq)) return false;
    // The whole run compared at once (a run averages ~1.5 slots at 95% load): no branch per
    // slot to mispredict.
    const std::uint64_t end = core_.RunEndUpTo(fq);
    return core_.RunHolds(core_.RunStart(fq, end), end, fr);
  }

 public:

  bool erase(std::uint64_t key) {
    const auto [fq, fr] = Split(key);
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

  std::size_t size_in_bytes() const { return core_.size_in_bytes(); }
  std::span<const std::uint8_t> bytes() const { return core_.bytes(); }
  // Fill of the canonical slots (what max_load sizes and what the FPR depends on).
  std::uint64_t insert_failures() const { return insert_failures_; }  // inserts refused
  double load_factor() const { return static_cast<double>(stored()) / core_.canonical_slots(); }
  std::uint64_t stored() const { return core_.used(); }
  int quotient_bits() const { return core_.q(); }
  int remainder_bits() const { return core_.r(); }
  const Core& core() const { return core_; }

  Theory theory() const {
    const double n = static_cast<double>(stored());
    const double fpr = -std::expm1(n * std::log1p(-std::ldexp(1.0, -(core_.q() + core_.r()))));
    return {fpr, (core_.r() + Core::kMetadataBitsPerSlot) / max_load_};  // at L, not at alpha
  }

  std::pair<std::uint64_t, std::uint64_t> Fingerprint(std::uint64_t key) const {
    return Split(key);
  }

  template <class Fn>
  void for_each_fingerprint(Fn&& fn) const {
    typename Core::RunCursor runs(core_);
    std::uint64_t x, start, end;
    while (runs.Next(x, start, end)) {
      for (std::uint64_t s = start; s <= end; ++s) fn(x, core_.Rem(s));
    }
  }

  // Same seed required; fingerprints are cut to p = min of the two lengths, the result takes
  // the larger q, doubled until both fit at max_load, and r = p - q.
  static BasicRsqf merge(const BasicRsqf& a, const BasicRsqf& b) {
    if (a.seed_ != b.seed_) throw std::invalid_argument("rsqf merge: different seeds");
    const int pa = a.core_.q() + a.core_.r(), pb = b.core_.q() + b.core_.r();
    const int p = std::min(pa, pb);
    const double load = std::max(a.max_load_, b.max_load_);
    int q = std::max(a.core_.q(), b.core_.q());
    while (std::ldexp(load, q) < static_cast<double>(a.stored() + b.stored())) ++q;
    if (p - q < 1) throw std::invalid_argument("rsqf merge: no remainder bits left");
    BasicRsqf out(q, p - q, a.seed_, load);
    FingerprintCursor ca(a), cb(b);
    std::uint64_t fa = 0, fb = 0;
    bool has_a = ca.Next(fa), has_b = cb.Next(fb);
    while (has_a || has_b) {
      if (has_b && (!has_a || (fb >> (pb - p)) < (fa >> (pa - p)))) {
        out.AppendOrThrow(fb >> (pb - p));
        has_b = cb.Next(fb);
      } else {
        out.AppendOrThrow(fa >> (pa - p));
        has_a = ca.Next(fa);
      }
    }
    out.core_.FinishAppend();
    return out;
  }

  BasicRsqf resized_double() const {
    if (core_.r() < 2) throw std::invalid_argument("rsqf resize: no remainder bit to move");
    BasicRsqf out(core_.q() + 1, core_.r() - 1, seed_, max_load_);
    FingerprintCursor cursor(*this);
    std::uint64_t f;
    while (cursor.Next(f)) out.AppendOrThrow(f);
    out.core_.FinishAppend();
    return out;
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
    const double alpha = load_factor();
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
    s.put("displacement_mean_knuth", alpha < 1 ? std::optional<double>(alpha / (2 * (1 - alpha))) : std::nullopt);
    s.put("probes_to_empty_mean", sh.probes_to_empty / core_.total_slots());
    s.put("probes_to_empty_mean_knuth", alpha < 1 ? std::optional<double>(0.5 * (1 + 1 / ((1 - alpha) * (1 - alpha)))) : std::nullopt);
    s.put("offset_max", sh.offset_max);
    s.put("saturated_offsets", sh.saturated_blocks);
    s.put("bits_per_key_seed002_formula", n > 0 ? (core_.r() + 2.125) / alpha : 0.0);
    s.put("bits_per_key_seed000_formula", n > 0 ? (core_.q() + core_.r() + 3) / alpha : 0.0);
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
  std::pair<std::uint64_t, std::uint64_t> Split(std::uint64_t key) const {
    const int p = core_.q() + core_.r();
    const std::uint64_t f = HashKey(key, seed_) >> (64 - p);
    return {f >> core_.r(), f & ((1ULL << core_.r()) - 1)};
  }

  void AppendOrThrow(std::uint64_t f) {
    if (!core_.Append(f >> core_.r(), f & ((1ULL << core_.r()) - 1))) {
      throw std::length_error("rsqf: merged fingerprints overflow the table");
    }
  }

  // Pulls the fingerprints (quotient << r | remainder) in increasing order.
  class FingerprintCursor {
   public:
    explicit FingerprintCursor(const BasicRsqf& f) : f_(f), runs_(f.core_) {}
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

  Core core_;
  std::uint64_t seed_;
  double max_load_;
  std::uint64_t insert_failures_ = 0;
};

using Rsqf = BasicRsqf<>;

}  // namespace amq
