// filters/acf.h - adaptive cuckoo filters and their static controls.
//
//   M. Mitzenmacher, S. Pontarelli, P. Reviriego, "Adaptive Cuckoo Filters", ALENEX 2018;
//   ACM JEA 25, 2020: the Cyclic ACF (hash-selector bits) and the Swapping ACF.
//   T. Kopelowitz, S. McCauley, E. Porat, "Support Optimality and Adaptive Cuckoo Filters",
//   WADS 2021 (17th Algorithms and Data Structures Symposium; "the Support Optimality
//   paper" below and in the report): the Cuckooing ACF,
//   and the definitions followed here.
//
// Every variant is a cuckoo hash table of d tables x N buckets x b slots, each slot `bits`
// wide (BitPackedArray), with d independent location hashes h_t(x) (no partial-key trick: the
// remote store holds the full key, so a moved element's other locations are always known).
// Slot value 0 marks an empty slot, so fingerprints are drawn from nonzero values. Beside
// the filter, a RemoteStore (filters/remote_store.h) mirrors it slot for slot with the full
// keys; its bytes are reported apart (remote_bytes) and the FPR is measured at the filter.
//
//   name               d x b   slot contents                      on a false positive
//   cuckoo_4x1         4 x 1   f-bit fingerprint h(x)             nothing (control)
//   cuckoo_2x4         2 x 4   f-bit fingerprint h(x)             nothing (control)
//   acf_cyclic         4 x 1   s selector bits a, f-s bits h(x,a) a <- a+1 mod 2^s, refingerprint
//   acf_cyclic_ranges  4 x 1   one f-bit code: selector 0 owns   a <- a+1 mod 2^s+1, refingerprint
//                              half the code space, selectors
//                              1..2^s share the other half
//   acf_swapping       2 x 4   f bits h(x, position in bucket)    swap with a random other
//                                                                 slot of the bucket
//   acf_cuckooing      k x 1   f-bit fingerprint h(x)             move to table beta+1 mod k,
//                      (k=4)                                      pushing occupants on; after
//                                                                 max_moves, rebuild (new seed)
//   acf_cuckooing_ff   k x 1   as acf_cuckooing                   as acf_cuckooing, but each
//                                                                 moved element first takes a
//                                                                 free slot in any other table
//   acf_cuckooing_2x4  2 x 4   f-bit fingerprint h(x)             move to table beta+1 mod 2:
//                                                                 a free slot of that bucket,
//                                                                 else evict a random occupant,
//                                                                 which moves on; max_moves,
//                                                                 then rebuild (new seed)
//
// Why acf_cuckooing_ff: at 95% load a literal beta+1 chain (b = 1) ends only when the next
// table's slot is free (~5%): ~40 moves per fix measured at 2^14..2^16 slots. Every moved
// element lands on a slot other flows probe, so a fix creates ~moves * 4 alpha (|A|/|S|) / R
// new false-positive flows. Letting each pushed element take any free slot of its own, as an
// insert does, shortens the chain (a free slot among 3 tables: ~14% per step).
//
// Why acf_cuckooing_2x4: the Support Optimality paper defines the Cuckooing ACF for any b (a moved
// element takes an empty slot of its next bin, else pushes out one of the bin's elements), but the
// k x 1 layout above is the only one the comparison with Cyclic and Swapping measured. This one has
// acf_swapping's 2 x 4 geometry, so the two fixes meet at the same slots, bits and probes per query
// (d b = 8: twice the 4 x 1 layouts' static FPR at the same f). The evicted occupant is drawn at
// random (seeded), as an insert's random walk draws it: a fixed choice (say slot 0) makes the chain
// deterministic, so a loop once entered goes round until max_moves; a random one lets the walk leave
// it. The chain ends at the first bucket with a free slot. Its table count is fixed at 2 (as
// acf_swapping's; d b must stay within kMaxCandidates).
//
// Theory, load alpha = stored / slots, a fingerprint range of R nonzero values:
//   FPR (static)  = 1 - (1 - 1/R)^(d b alpha)  ~ d b alpha / 2^f,  R = 2^f - 1 for the
//                   controls, the Swapping and the Cuckooing ACF; R = 2^(f-s) - 1 for the
//                   Cyclic ACF before any adaptation (its selector bits are paid out of f).
//   theory() uses the ranges the stored slots actually have (the Cyclic ACF with different
//   ranges drifts towards its smaller ranges as it adapts): a fresh random non-member sees
//   1 - prod over probed slots (1 - occupancy / R_slot).
//   bits/key      = bits_per_slot / alpha; the remote store adds 64 bits + 1 per slot.
//                   theory() reports it at the load the slots are sized for, bits_per_slot / L
//                   (AcfParams::max_load; FilterParams' max load): rounding the slots up to
//                   whole rows of d b is the allocation's, which the measured
//                   bits_per_slot slots / n shows.
// Sizing from FilterParams (so these also satisfy DynamicFilter): slots = capacity / max_load
// (default 0.95) rounded up to a multiple of d*b; --fpr eps gives fingerprint bits
// ceil(log2(d b / eps)) plus the selector bits; --bits-per-key B gives floor(B * max_load)
// bits per slot. The adapt command sizes them directly with AcfParams.
//
// "Different ranges" (acf_cyclic_ranges), as the ACF paper's JEA 2020 version defines it: most
// slots keep selector 0, so selector 0 should own most of the code space. With s selector bits
// and skew r, the f-bit code of a slot holds one of 2^s + 1 selectors: selector 0 owns
// 2^f (1 - 2^-r) codes and each selector j in 1 .. 2^s owns 2^(f-s-r); a fix moves the slot's
// selector to j+1 mod (2^s + 1). Here r = 1, the skew of the authors' published example
// (README of github.com/pontarelli/ACF, which accompanies that paper: "-b 2 -k 1"; facts only,
// no code taken). At f = 8, s = 2: R_0 = 127 (128 minus the empty code), R_1..4 = 32 each;
// plain cyclic: R = 63 each. A fresh key's FPR is d alpha / 127 instead of d alpha / 63, and a
// fixed false positive recurs with probability 1/32 per fix instead of 1/64.
//
// Inserts (all variants): first free slot among the candidates, else a bounded random walk
// (max_kicks evictions, each evicted element to a random other table); a failed walk is undone
// in reverse, so the table is exactly as before and only the new key is refused (counted in
// insert_failures, never a loop). A moved element gets its fresh fingerprint at its new slot
// (selector 0 / its new position).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "filters/bit_packed.h"
#include "filters/remote_store.h"
#include "filters/theory_formulas.h"
#include "core/filter.h"
#include "core/stat_catalog.h"
#include "core/hashing.h"

namespace amq {

enum class AcfKind {
  kCuckoo4x1,
  kCuckoo2x4,
  kCyclic,
  kCyclicRanges,
  kSwapping,
  kCuckooing,
  kCuckooingFirstFree,
  kCuckooing2x4
};

// The adapt command's sizing: the geometry is given directly so every variant can be put at
// the same number of slots and the same bits per slot (a space-normalized comparison).
struct AcfParams {
  std::size_t slots = std::size_t{1} << 16;  // rounded up to a multiple of d*b
  int bits_per_slot = 8;                     // 4 .. 32
  int selector_bits = -1;  // Cyclic ACFs: 1 .. 4 (-1 = default 2); must be 0 or -1 otherwise
  int tables = 0;          // 1-slot Cuckooing ACFs: k in 2 .. 8 (0 = 4); others fix d
  std::uint64_t seed = 0;
  int max_kicks = 500;  // insert: evictions before giving up
  int max_moves = 500;  // Cuckooing ACF: moves of one fix before the table is rebuilt
  double max_load = 0.95;  // the share of the slots meant to be filled: theory()'s bits/key
};

// What query_and_adapt saw: absent (the filter said no), a member (a probed slot's remote key
// is the query), or a false positive (the filter said yes, the remote store said no).
enum class AcfAnswer : std::uint8_t { kAbsent, kMember, kFalsePositive };
struct AcfOutcome {
  AcfAnswer answer = AcfAnswer::kAbsent;
  int fixed = 0;  // colliding slots adapted
};

struct AcfCounters {
  std::uint64_t false_positives = 0;  // false positives query_and_adapt answered
  std::uint64_t adaptations = 0;      // colliding slots fixed
  std::uint64_t remote_lookups = 0;   // remote reads to check a positive (one per matching slot)
  std::uint64_t remote_reads_for_adaptation = 0;  // remote reads while fixing (keys to rehash)
  std::uint64_t moves = 0;            // elements moved by fixes (swaps, cuckooing pushes)
  std::uint64_t rebuilds = 0;         // Cuckooing ACF: successful rebuilds after a long chain
  std::uint64_t failed_fixes = 0;     // chain too long and every rebuild seed failed: restored
  std::uint64_t insert_failures = 0;  // inserts refused
  std::uint64_t kicks_total = 0;      // insert evictions
};

namespace acf_detail {

constexpr std::string_view NameFor(AcfKind k) {
  switch (k) {
    case AcfKind::kCuckoo4x1:
      return "cuckoo_4x1";
    case AcfKind::kCuckoo2x4:
      return "cuckoo_2x4";
    case AcfKind::kCyclic:
      return "acf_cyclic";
    case AcfKind::kCyclicRanges:
      return "acf_cyclic_ranges";
    case AcfKind::kSwapping:
      return "acf_swapping";
    case AcfKind::kCuckooing:
      return "acf_cuckooing";
    case AcfKind::kCuckooingFirstFree:
      return "acf_cuckooing_ff";
    case AcfKind::kCuckooing2x4:
      return "acf_cuckooing_2x4";
  }
  return "";
}

constexpr std::string_view ParametersFor(AcfKind k) {
  switch (k) {
    case AcfKind::kCuckoo4x1:
      return "4 tables x 1 slot, f-bit fingerprints, no adaptation (control); slots = n/L; "
             "--fpr eps: f = ceil(log2(4/eps)); --bits-per-key B: f = floor(B*L)";
    case AcfKind::kCuckoo2x4:
      return "2 tables x 4-slot buckets, f-bit fingerprints, no adaptation (control); slots = "
             "n/L; --fpr eps: f = ceil(log2(8/eps)); --bits-per-key B: f = floor(B*L)";
    case AcfKind::kCyclic:
      return "4 x 1, 2 selector bits + f-2 fingerprint bits; --fpr eps: f = ceil(log2(4/eps))+2";
    case AcfKind::kCyclicRanges:
      return "4 x 1, f-bit code split: selector 0 owns 2^(f-1) codes, selectors 1..4 2^(f-3) "
             "each (skew 1); --fpr eps: f = ceil(log2(4/eps))+2";
    case AcfKind::kSwapping:
      return "2 x 4, fingerprint depends on the slot's position; --fpr eps: f = ceil(log2(8/eps))";
    case AcfKind::kCuckooing:
      return "4 x 1, f-bit fingerprints, fix = move to the next table; --fpr eps: f = "
             "ceil(log2(4/eps))";
    case AcfKind::kCuckooingFirstFree:
      return "as acf_cuckooing, but a moved element takes a free slot in any of its other "
             "tables before pushing on; --fpr eps: f = ceil(log2(4/eps))";
    case AcfKind::kCuckooing2x4:
      return "2 x 4, f-bit fingerprints, fix = move to the other table's bucket (a free slot, "
             "else evict a random occupant, which moves on); --fpr eps: f = ceil(log2(8/eps))";
  }
  return "";
}

}  // namespace acf_detail

template <AcfKind kKind>
class AdaptiveCuckoo {
 public:
  static constexpr bool kAdaptive = kKind != AcfKind::kCuckoo4x1 && kKind != AcfKind::kCuckoo2x4;
  static constexpr bool kCyclicKind = kKind == AcfKind::kCyclic || kKind == AcfKind::kCyclicRanges;
  static constexpr bool kCuckooingKind = kKind == AcfKind::kCuckooing ||
                                         kKind == AcfKind::kCuckooingFirstFree ||
                                         kKind == AcfKind::kCuckooing2x4;
  static constexpr int kSlotsPerBucket =
      (kKind == AcfKind::kCuckoo2x4 || kKind == AcfKind::kSwapping ||
       kKind == AcfKind::kCuckooing2x4)
          ? 4
          : 1;
  // The 1-slot Cuckooing ACFs take a table count k; the 4-slot layouts keep d = 2.
  static constexpr bool kTakesTables = kCuckooingKind && kSlotsPerBucket == 1;
  static constexpr int kDefaultTables = kSlotsPerBucket == 4 ? 2 : 4;
  static constexpr int kDefaultSelectorBits = kCyclicKind ? 2 : 0;
  static constexpr int kMaxTables = 8;
  static constexpr int kMaxCandidates = 8;  // d * b for every layout allowed
  static constexpr int kMaxRanges = 17;     // 2^4 + 1: four selector bits with different ranges
  static constexpr int kRebuildAttempts = 16;
  static constexpr double kDefaultMaxLoad = 0.95;
  static constexpr std::string_view kName = acf_detail::NameFor(kKind);
  static constexpr std::string_view kFamily = "adaptive_cuckoo";
  static constexpr std::string_view kParameters = acf_detail::ParametersFor(kKind);

  // Empty if `p` describes a filter of this kind; otherwise why not (the command turns it into
  // an InputError, the constructor into std::invalid_argument).
  static std::string Invalid(const AcfParams& p) {
    if (p.bits_per_slot < 4 || p.bits_per_slot > 32) {
      return "bits per slot must be in 4 .. 32, got " + std::to_string(p.bits_per_slot);
    }
    const int s = SelectorBitsOf(p);
    if constexpr (kCyclicKind) {
      if (s < 1 || s > 4) return "selector bits must be in 1 .. 4, got " + std::to_string(s);
      if (p.bits_per_slot - s < 2) {
        return "selector bits (" + std::to_string(s) +
               ") must leave at least 2 fingerprint bits of " + std::to_string(p.bits_per_slot) +
               " bits per slot";
      }
    } else if (s != 0) {
      return std::string(kName) + " has no selector bits";
    }
    const int d = TablesOf(p);
    if (d < 2 || d > kMaxTables) return "tables must be in 2 .. 8";
    if (!kTakesTables && d != kDefaultTables) {
      return std::string(kName) + " has a fixed table count";
    }
    if (p.max_kicks < 1 || p.max_moves < 1) return "max kicks and max moves must be >= 1";
    if (!(p.max_load > 0 && p.max_load <= 1)) return "max load must be in (0, 1]";
    return {};
  }

  static AcfParams FromFilterParams(const FilterParams& p) {
    AcfParams a;
    const double load = p.max_load > 0 ? p.max_load : kDefaultMaxLoad;
    const int db = kDefaultTables * kSlotsPerBucket;
    a.slots = std::max<std::size_t>(db, static_cast<std::size_t>(std::ceil(p.capacity / load)));
    a.selector_bits = kDefaultSelectorBits;
    const int bits = p.bits_per_key > 0
                         ? static_cast<int>(std::floor(p.bits_per_key * load))
                         : static_cast<int>(std::ceil(std::log2(db / p.fpr_or_default()))) +
                               kDefaultSelectorBits;
    a.bits_per_slot = std::clamp(bits, std::max(4, kDefaultSelectorBits + 2), 32);
    a.seed = p.seed;
    a.max_kicks = p.max_kicks;
    a.max_load = load;
    return a;
  }

  explicit AdaptiveCuckoo(const FilterParams& p) : AdaptiveCuckoo(FromFilterParams(p)) {}

  explicit AdaptiveCuckoo(const AcfParams& p)
      : tables_(TablesOf(p)),
        bits_(p.bits_per_slot),
        selector_bits_(SelectorBitsOf(p)),
        base_seed_(p.seed),
        seed_(SpreadSeed(p.seed)),
        max_kicks_(p.max_kicks),
        max_moves_(p.max_moves),
        max_load_(p.max_load),
        rng_(p.seed ^ 0x61636621ULL) {
    if (const std::string why = Invalid(p); !why.empty()) throw std::invalid_argument(why);
    const std::size_t per_bucket_row = static_cast<std::size_t>(tables_) * kSlotsPerBucket;
    buckets_ = std::max<std::size_t>(1, (p.slots + per_bucket_row - 1) / per_bucket_row);
    slots_ = BitPackedArray<0>(buckets_ * per_bucket_row, bits_);
    remote_ = RemoteStore(slots_.size());
    SetUpRanges();
  }

  // ---- the Filter contract ----

  bool insert(std::uint64_t key) {
    if (TryInsert(key)) return true;
    ++counters_.insert_failures;
    return false;
  }

  // Pure: the answer a static reader of the filter gives, without touching the remote store.
  bool contains(std::uint64_t key) const {
    const std::uint64_t h = Hash(key);
    const FingerprintCache fps(*this, h);
    for (int t = 0; t < tables_; ++t) {
      const std::size_t base = SlotOf(t, Bucket(h, t), 0);
      for (int j = 0; j < kSlotsPerBucket; ++j) {
        const std::uint64_t v = slots_.get(base + j);
        if (v != 0 && v == fps.Expected(j, v)) return true;
      }
    }
    return false;
  }

  // The adaptive query: asks the filter; on a positive, checks the remote store; on a false
  // positive, fixes every colliding slot (the controls only count it).
  AcfOutcome query_and_adapt(std::uint64_t key) {
    const std::uint64_t h = Hash(key);
    std::array<std::size_t, kMaxCandidates> hits;
    const int n = MatchingSlots(h, hits);
    if (n == 0) return {AcfAnswer::kAbsent, 0};
    for (int i = 0; i < n; ++i) {
      ++counters_.remote_lookups;
      if (remote_.key(hits[i]) == key) return {AcfAnswer::kMember, 0};
    }
    ++counters_.false_positives;
    if constexpr (!kAdaptive) {
      return {AcfAnswer::kFalsePositive, 0};
    } else {
      int fixed = 0;
      const std::uint64_t generation = generation_;
      for (int i = 0; i < n; ++i) {
        // An earlier fix in this loop may have moved this slot's element (a swap, a push):
        // fix the slot only if it still collides with the query.
        const std::uint64_t v = slots_.get(hits[i]);
        if (v == 0 || v != FingerprintCache(*this, h).Expected(PositionOf(hits[i]), v)) continue;
        Fix(hits[i]);
        ++fixed;
        if (generation_ != generation) break;  // rebuilt: new hash functions, stale hits
      }
      counters_.adaptations += fixed;
      return {AcfAnswer::kFalsePositive, fixed};
    }
  }

  std::size_t size_in_bytes() const { return slots_.size_in_bytes(); }
  std::span<const std::uint8_t> bytes() const { return {slots_.data(), slots_.size_in_bytes()}; }
  double load_factor() const { return slots_.size() ? double(stored_) / slots_.size() : 0.0; }

  Theory theory() const {
    double log_miss = 0;
    for (int r = 0; r < ranges(); ++r) {
      log_miss += FingerprintMissLog(ProbesPerQuery(), double(per_range_[r]) / slots_.size(),
                                     double(size_[r]));
    }
    // At the sized-for load, not at alpha.
    return {-std::expm1(log_miss), TableBitsPerKey(bits_, max_load_)};
  }

  // The FPR before any adaptation: every stored slot in range 0 (selector 0).
  double static_fpr_theory() const {
    return FingerprintMatchFpr(ProbesPerQuery(), load_factor(), double(size_[0]));
  }

  // The statistics add_stats reports (core/filter.h); the adapt_* kinds' trials carry them
  // too, combined over a cell's trials as each one declares.
  static constexpr StatSpec kStats[] = {
      {"bits_per_slot", "integer", "bits", "ACF: bits per slot, selector bits included"},
      stat::kFingerprintBits,
      {"selector_bits", "integer", "bits", "Cyclic ACF: hash-selector bits per slot (0 elsewhere)"},
      {"tables", "integer", "count", "ACF: hash tables d"},
      stat::kSlotsPerBucket,
      stat::kSlots,
      {"remote_bytes", "integer", "bytes", "ACF: the exact key store's memory, apart from size_bytes"},
      {"fpr_theory_static", "number", "fraction",
       "ACF: the FPR before any adaptation, 1 - (1 - 2^-f)^(d b alpha)", OverTrials::kMean},
      stat::kKicksTotal,
      {"rebuilds", "integer", "count", "Cuckooing ACF: rebuilds after a fix moved too far", OverTrials::kSum}};

  void add_stats(Stats& s) const {
    s.put("bits_per_slot", bits_);
    s.put("fingerprint_bits", fingerprint_bits());
    s.put("selector_bits", selector_bits_);
    s.put("tables", tables_);
    s.put("slots_per_bucket", kSlotsPerBucket);
    s.put("slots", slots());
    s.put("remote_bytes", remote_bytes());
    s.put("fpr_theory_static", static_fpr_theory());
    s.put("kicks_total", counters_.kicks_total);
    s.put("rebuilds", counters_.rebuilds);
  }

  // ---- what the adapt experiments and the tests read ----

  const AcfCounters& counters() const { return counters_; }
  std::size_t slots() const { return slots_.size(); }
  std::size_t stored() const { return stored_; }
  int tables() const { return tables_; }
  int bits_per_slot() const { return bits_; }
  int selector_bits() const { return selector_bits_; }
  // log2 of selector 0's code count (the codes a fresh element's fingerprint can take, with
  // the empty code): f for the controls, f - s for the Cyclic ACF, in between with ranges.
  double fingerprint_bits() const { return std::log2(double(size_[0]) + 1.0); }
  std::size_t remote_bytes() const { return remote_.size_in_bytes(); }
  const RemoteStore& remote() const { return remote_; }
  std::uint64_t slot_value(std::size_t slot) const { return slots_.get(slot); }
  std::uint64_t stored_with_selector(int r) const { return per_range_[r]; }
  int selector_of_code(std::uint64_t code) const { return RangeOf(code); }

  // Which slots hold `key` (by the remote store) and which candidate slots collide with it:
  // for tests and for building adversarial query sets.
  std::vector<std::size_t> colliding_slots(std::uint64_t key) const {
    std::array<std::size_t, kMaxCandidates> hits;
    const int n = MatchingSlots(Hash(key), hits);
    return {hits.begin(), hits.begin() + n};
  }
  // The slot at which `key` would sit in table t, bucket position j.
  std::size_t candidate_slot(std::uint64_t key, int t, int j = 0) const {
    return SlotOf(t, Bucket(Hash(key), t), j);
  }

  // ---- what a state-reading adversary reads (adapt_trial.h, StateReading): const, so asking
  // them adapts nothing and touches no counter ----

  static constexpr std::size_t kNoSlot = ~std::size_t{0};
  // Whether `key` collides now with an element of the bucket holding `slot`. The bucket's own
  // table is tested first, so scanning many non-members for one costs a location hash each.
  bool collides_in_bucket(std::uint64_t key, std::size_t slot) const {
    const std::uint64_t h = Hash(key);
    const int t = TableOf(slot);
    const std::size_t base = slot - PositionOf(slot);
    if (SlotOf(t, Bucket(h, t), 0) != base) return false;
    const FingerprintCache fps(*this, h);
    for (int j = 0; j < kSlotsPerBucket; ++j) {
      const std::uint64_t v = slots_.get(base + j);
      if (v != 0 && v == fps.Expected(j, v)) return true;
    }
    return false;
  }
  // Whether the bucket holding `slot` holds any element (an empty one can collide with nothing).
  bool bucket_occupied(std::size_t slot) const {
    const std::size_t base = slot - PositionOf(slot);
    for (int j = 0; j < kSlotsPerBucket; ++j) {
      if (slots_.get(base + j) != 0) return true;
    }
    return false;
  }
  // The slot holding member `key` now (by the remote store), or kNoSlot: where a fix moved it.
  std::size_t slot_holding(std::uint64_t key) const {
    const std::uint64_t h = Hash(key);
    for (int t = 0; t < tables_; ++t) {
      const std::size_t base = SlotOf(t, Bucket(h, t), 0);
      for (int j = 0; j < kSlotsPerBucket; ++j) {
        if (remote_.used(base + j) && remote_.key(base + j) == key) return base + j;
      }
    }
    return kNoSlot;
  }

  // Recomputes every slot from the remote store: occupancy agrees, each key sits in one of
  // its own candidate buckets, each stored value is the fingerprint that key has at that slot
  // in that slot's state, and the counts add up. Empty string when consistent.
  std::string CheckConsistency() const {
    std::size_t used = 0;
    std::array<std::uint64_t, kMaxRanges> per_range{};
    for (std::size_t slot = 0; slot < slots_.size(); ++slot) {
      const std::uint64_t v = slots_.get(slot);
      if (remote_.used(slot) != (v != 0)) {
        return "slot " + std::to_string(slot) + ": filter and remote store disagree on occupancy";
      }
      if (v == 0) continue;
      ++used;
      ++per_range[RangeOf(v)];
      const std::uint64_t h = Hash(remote_.key(slot));
      const int t = static_cast<int>(slot / (buckets_ * kSlotsPerBucket));
      if (Bucket(h, t) != (slot / kSlotsPerBucket) % buckets_) {
        return "slot " + std::to_string(slot) + ": key is not in one of its own buckets";
      }
      if (v != FingerprintCache(*this, h).Expected(PositionOf(slot), v)) {
        return "slot " + std::to_string(slot) + ": stored value is not the key's fingerprint";
      }
    }
    if (used != stored_)
      return "stored count " + std::to_string(stored_) + " != " + std::to_string(used);
    for (int r = 0; r < ranges(); ++r) {
      if (per_range[r] != per_range_[r]) return "per-selector counts are off";
    }
    return {};
  }

 private:
  struct PathStep {
    std::size_t slot;
    std::uint64_t value;
    std::uint64_t key;
  };

  static int SelectorBitsOf(const AcfParams& p) {
    return p.selector_bits < 0 ? kDefaultSelectorBits : p.selector_bits;
  }
  static int TablesOf(const AcfParams& p) {
    return kTakesTables && p.tables > 0 ? p.tables : kDefaultTables;
  }

  // Selector values: 2^s for the Cyclic ACF; 2^s + 1 with different ranges (selector 0 and
  // 2^s small ranges that together fill the other half of the code space).
  int ranges() const {
    if constexpr (kKind == AcfKind::kCyclicRanges) return (1 << selector_bits_) + 1;
    return kCyclicKind ? 1 << selector_bits_ : 1;
  }
  double ProbesPerQuery() const { return double(tables_) * kSlotsPerBucket; }

  // Code ranges: range r holds the values [lo_[r], lo_[r] + size_[r]). Value 0 is "empty".
  void SetUpRanges() {
    const std::uint64_t codes = std::uint64_t{1} << bits_;
    if constexpr (kKind == AcfKind::kCyclic) {
      const std::uint64_t width = codes >> selector_bits_;
      for (int r = 0; r < ranges(); ++r) {
        lo_[r] = r * width;
        size_[r] = width;
      }
    } else if constexpr (kKind == AcfKind::kCyclicRanges) {
      // Skew r = 1: selector 0 owns 2^f (1 - 2^-r) = 2^(f-1) codes, each of the 2^s others
      // 2^(f-s-r) = 2^(f-s-1), so the 2^s + 1 ranges fill the 2^f codes exactly.
      const std::uint64_t small = codes >> (selector_bits_ + 1);
      for (int r = 1; r < ranges(); ++r) {
        lo_[r] = codes - std::uint64_t(ranges() - r) * small;
        size_[r] = small;
      }
      lo_[0] = 0;
      size_[0] = lo_[1];
    } else {
      lo_[0] = 0;
      size_[0] = codes;
    }
    lo_[0] = 1;  // the empty code
    size_[0] -= 1;
  }

  int RangeOf(std::uint64_t v) const {
    if constexpr (kKind == AcfKind::kCyclic) {
      return static_cast<int>(v >> (bits_ - selector_bits_));
    } else if constexpr (kKind == AcfKind::kCyclicRanges) {
      return v < lo_[1] ? 0 : 1 + static_cast<int>((v - lo_[1]) >> (bits_ - selector_bits_ - 1));
    } else {
      return 0;
    }
  }

  std::uint64_t Hash(std::uint64_t key) const { return HashKey(key, seed_); }

  // d location hashes and the fingerprint family, all from one seeded 64-bit hash of the key
  // through distinct salts of the same bijective mixer.
  std::size_t Bucket(std::uint64_t h, int t) const {
    return ReduceRange(MurmurMix64(h + 0x9e3779b97f4a7c15ULL * std::uint64_t(t + 1)), buckets_);
  }
  // h^f(x, variant) mapped into code range `range`; variant = selector (cyclic), position in
  // the bucket (swapping) or 0.
  std::uint64_t Fingerprint(std::uint64_t h, int variant, int range) const {
    const std::uint64_t g = MurmurMix64(h ^ (0xc2b2ae3d27d4eb4fULL * std::uint64_t(variant + 1)));
    return lo_[range] + ReduceRange(g, size_[range]);
  }

  // What a key's fingerprint is at a slot (given the slot's current code, for the Cyclic ACF's
  // selector), computed once per query where it does not depend on the slot.
  class FingerprintCache {
   public:
    FingerprintCache(const AdaptiveCuckoo& f, std::uint64_t h) : f_(f), h_(h) {
      if constexpr (kKind == AcfKind::kSwapping) {
        for (int j = 0; j < kSlotsPerBucket; ++j) fp_[j] = f.Fingerprint(h, j, 0);
      } else if constexpr (!kCyclicKind) {
        fp_[0] = f.Fingerprint(h, 0, 0);
      }
    }
    std::uint64_t Expected(int position, std::uint64_t v) const {
      if constexpr (kCyclicKind) {
        const int r = f_.RangeOf(v);
        return f_.Fingerprint(h_, r, r);
      } else if constexpr (kKind == AcfKind::kSwapping) {
        return fp_[position];
      } else {
        (void)position;
        (void)v;
        return fp_[0];
      }
    }

   private:
    const AdaptiveCuckoo& f_;
    std::uint64_t h_;
    std::array<std::uint64_t, kSlotsPerBucket> fp_{};
  };

  // A freshly placed element's code: selector 0, or its position's fingerprint.
  std::uint64_t Fresh(std::uint64_t h, std::size_t slot) const {
    return Fingerprint(h, kKind == AcfKind::kSwapping ? PositionOf(slot) : 0, 0);
  }

  std::size_t SlotOf(int t, std::size_t bucket, int j) const {
    return (std::size_t(t) * buckets_ + bucket) * kSlotsPerBucket + j;
  }
  static int PositionOf(std::size_t slot) { return static_cast<int>(slot % kSlotsPerBucket); }
  int TableOf(std::size_t slot) const {
    return static_cast<int>(slot / (buckets_ * kSlotsPerBucket));
  }

  int MatchingSlots(std::uint64_t h, std::array<std::size_t, kMaxCandidates>& hits) const {
    const FingerprintCache fps(*this, h);
    int n = 0;
    for (int t = 0; t < tables_; ++t) {
      const std::size_t base = SlotOf(t, Bucket(h, t), 0);
      for (int j = 0; j < kSlotsPerBucket; ++j) {
        const std::uint64_t v = slots_.get(base + j);
        if (v != 0 && v == fps.Expected(j, v)) hits[n++] = base + j;
      }
    }
    return n;
  }

  // Every write to a slot goes through these two, so occupancy, the remote store and the
  // per-selector counts never drift apart.
  void SetSlot(std::size_t slot, std::uint64_t value, std::uint64_t key) {
    const std::uint64_t old = slots_.get(slot);
    if (old != 0) {
      --per_range_[RangeOf(old)];
    } else {
      ++stored_;
    }
    ++per_range_[RangeOf(value)];
    slots_.set(slot, value);
    remote_.put(slot, key);
  }
  void ClearSlot(std::size_t slot) {
    const std::uint64_t old = slots_.get(slot);
    if (old == 0) return;
    --per_range_[RangeOf(old)];
    --stored_;
    slots_.set(slot, 0);
    remote_.clear(slot);
  }

  // The first free slot of the bucket starting at `base`, or kNoSlot if it is full.
  std::size_t FreeSlotIn(std::size_t base) const {
    for (int j = 0; j < kSlotsPerBucket; ++j) {
      if (slots_.get(base + j) == 0) return base + j;
    }
    return kNoSlot;
  }

  bool PlaceInAnyEmpty(std::uint64_t key, std::uint64_t h, int except_table) {
    for (int t = 0; t < tables_; ++t) {
      if (t == except_table) continue;
      const std::size_t vacant = FreeSlotIn(SlotOf(t, Bucket(h, t), 0));
      if (vacant != kNoSlot) {
        SetSlot(vacant, Fresh(h, vacant), key);
        return true;
      }
    }
    return false;
  }

  int RandomTableExcept(int from) {
    if (from < 0) return static_cast<int>(rng_.Next() % tables_);
    return static_cast<int>((from + 1 + rng_.Next() % (tables_ - 1)) % tables_);
  }

  void Undo() {
    for (auto it = path_.rbegin(); it != path_.rend(); ++it) {
      if (it->value == 0) {
        ClearSlot(it->slot);
      } else {
        SetSlot(it->slot, it->value, it->key);
      }
    }
    path_.clear();
  }

  // Random-walk cuckoo insertion, undone in full when it runs out of kicks.
  bool TryInsert(std::uint64_t key) {
    std::uint64_t h = Hash(key);
    if (PlaceInAnyEmpty(key, h, -1)) return true;
    path_.clear();
    std::uint64_t homeless = key;
    int from = -1;
    for (int kick = 1; kick <= max_kicks_; ++kick) {
      const int t = RandomTableExcept(from);
      const std::size_t slot =
          SlotOf(t, Bucket(h, t), static_cast<int>(rng_.Next() % kSlotsPerBucket));
      const std::uint64_t evicted = remote_.key(slot);
      path_.push_back({slot, slots_.get(slot), evicted});
      SetSlot(slot, Fresh(h, slot), homeless);
      homeless = evicted;
      h = Hash(homeless);
      from = t;
      if (PlaceInAnyEmpty(homeless, h, from)) {
        counters_.kicks_total += kick;
        path_.clear();
        return true;
      }
    }
    Undo();
    return false;
  }

  void Fix(std::size_t slot) {
    if constexpr (kCyclicKind) {
      const std::uint64_t x = remote_.key(slot);
      ++counters_.remote_reads_for_adaptation;
      const int r = (RangeOf(slots_.get(slot)) + 1) % ranges();
      SetSlot(slot, Fingerprint(Hash(x), r, r), x);
    } else if constexpr (kKind == AcfKind::kSwapping) {
      const int j = PositionOf(slot);
      const std::size_t base = slot - j;
      const int j2 =
          (j + 1 + static_cast<int>(rng_.Next() % (kSlotsPerBucket - 1))) % kSlotsPerBucket;
      const std::size_t other = base + j2;
      const std::uint64_t x = remote_.key(slot);
      ++counters_.remote_reads_for_adaptation;
      if (remote_.used(other)) {
        const std::uint64_t y = remote_.key(other);
        ++counters_.remote_reads_for_adaptation;
        SetSlot(other, Fingerprint(Hash(x), j2, 0), x);
        SetSlot(slot, Fingerprint(Hash(y), j, 0), y);
        counters_.moves += 2;
      } else {
        SetSlot(other, Fingerprint(Hash(x), j2, 0), x);
        ClearSlot(slot);
        counters_.moves += 1;
      }
    } else if constexpr (kCuckooingKind) {
      CuckooMove(slot);
    }
  }

  // The Cuckooing ACF's fix: the colliding element x leaves table beta for table beta+1 mod k,
  // taking a free slot of its bucket there if one exists; else an occupant of that bucket
  // (the only one when b = 1, a random one when b > 1) moves on to its own next table, and so
  // on. The chain can loop (with b = 1 it is deterministic): after max_moves it is undone and
  // the table is rebuilt with a new seed.
  void CuckooMove(std::size_t slot) {
    path_.clear();
    std::uint64_t x = remote_.key(slot);
    ++counters_.remote_reads_for_adaptation;
    int t = TableOf(slot);
    path_.push_back({slot, slots_.get(slot), x});
    ClearSlot(slot);
    for (int move = 1; move <= max_moves_; ++move) {
      const std::uint64_t h = Hash(x);
      if constexpr (kKind == AcfKind::kCuckooingFirstFree) {
        // An insert would first look for a free slot among all of x's locations (except
        // the table it is leaving): the chain ends as soon as one is free.
        if (PlaceInAnyEmpty(x, h, t)) {
          ++counters_.moves;
          path_.clear();
          return;
        }
      }
      t = (t + 1) % tables_;
      const std::size_t base = SlotOf(t, Bucket(h, t), 0);
      ++counters_.moves;
      if (const std::size_t vacant = FreeSlotIn(base); vacant != kNoSlot) {
        path_.push_back({vacant, 0, 0});
        SetSlot(vacant, Fresh(h, vacant), x);
        path_.clear();
        return;
      }
      // With b = 1 no random number is drawn, so the 1-slot kinds' chains (and every result
      // measured with them) are as before the 4-slot kind existed.
      std::size_t next = base;
      if constexpr (kSlotsPerBucket > 1) next += rng_.Next() % kSlotsPerBucket;
      const std::uint64_t y = remote_.key(next);
      ++counters_.remote_reads_for_adaptation;
      path_.push_back({next, slots_.get(next), y});
      SetSlot(next, Fresh(h, next), x);
      x = y;
    }
    Undo();
    Rebuild();
  }

  // Re-inserts every key from the remote store under fresh hash functions. If no seed in
  // kRebuildAttempts places them all, the old table is restored: a key is never dropped.
  void Rebuild() {
    std::vector<std::uint64_t> keys;
    keys.reserve(stored_);
    for (std::size_t slot = 0; slot < slots_.size(); ++slot) {
      if (remote_.used(slot)) keys.push_back(remote_.key(slot));
    }
    const BitPackedArray<0> saved_slots = slots_;
    const RemoteStore saved_remote = remote_;
    const std::array<std::uint64_t, kMaxRanges> saved_ranges = per_range_;
    const std::size_t saved_stored = stored_;
    const std::uint64_t saved_seed = seed_;
    const std::uint64_t saved_kicks = counters_.kicks_total;
    for (int attempt = 0; attempt < kRebuildAttempts; ++attempt) {
      ++generation_;
      seed_ = SpreadSeed(base_seed_ ^ (0xd1b54a32d192ed03ULL * generation_));
      slots_ = BitPackedArray<0>(slots_.size(), bits_);
      remote_.clear_all();
      per_range_.fill(0);
      stored_ = 0;
      bool ok = true;
      for (std::uint64_t k : keys) {
        if (!TryInsert(k)) {
          ok = false;
          break;
        }
      }
      if (ok) {
        ++counters_.rebuilds;
        return;
      }
    }
    slots_ = saved_slots;
    remote_ = saved_remote;
    per_range_ = saved_ranges;
    stored_ = saved_stored;
    seed_ = saved_seed;
    counters_.kicks_total = saved_kicks;
    ++counters_.failed_fixes;
  }

  int tables_;
  int bits_;
  int selector_bits_;
  std::uint64_t base_seed_;
  std::uint64_t seed_;
  std::uint64_t generation_ = 0;  // rebuilds so far (each one changes seed_)
  int max_kicks_;
  int max_moves_;
  double max_load_;
  XorShift64Star rng_;
  std::size_t buckets_ = 1;  // per table
  BitPackedArray<0> slots_;
  RemoteStore remote_;
  std::array<std::uint64_t, kMaxRanges> lo_{};
  std::array<std::uint64_t, kMaxRanges> size_{};
  std::array<std::uint64_t, kMaxRanges> per_range_{};  // occupied slots per code range (selector)
  std::size_t stored_ = 0;
  std::vector<PathStep> path_;
  AcfCounters counters_;
};

using Cuckoo4x1 = AdaptiveCuckoo<AcfKind::kCuckoo4x1>;
using Cuckoo2x4 = AdaptiveCuckoo<AcfKind::kCuckoo2x4>;
using AcfCyclic = AdaptiveCuckoo<AcfKind::kCyclic>;
using AcfCyclicRanges = AdaptiveCuckoo<AcfKind::kCyclicRanges>;
using AcfSwapping = AdaptiveCuckoo<AcfKind::kSwapping>;
using AcfCuckooing = AdaptiveCuckoo<AcfKind::kCuckooing>;
using AcfCuckooingFirstFree = AdaptiveCuckoo<AcfKind::kCuckooingFirstFree>;
using AcfCuckooing2x4 = AdaptiveCuckoo<AcfKind::kCuckooing2x4>;

// What a filter needs to take part in the adaptive experiments: built from AcfParams, and a
// query that asks the remote store on a positive answer and fixes a false positive. Filters
// are chosen for these experiments by this capability, over the one list in filters/all.h; the
// geometry a filter takes (selector bits, tables, moves) is declared by its k* constants above.
template <class F>
concept AdaptiveFilter =
    Filter<F> && std::constructible_from<F, const AcfParams&> &&
    requires(F& f, const F& cf, std::uint64_t key, const AcfParams& p) {
      { f.query_and_adapt(key) } -> std::same_as<AcfOutcome>;
      { F::Invalid(p) } -> std::convertible_to<std::string>;
      { cf.counters() } -> std::convertible_to<const AcfCounters&>;
      { cf.CheckConsistency() } -> std::convertible_to<std::string>;
    };

}  // namespace amq
