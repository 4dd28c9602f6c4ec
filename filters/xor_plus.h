// filters/xor_plus.h - Xor+ filter (T. M. Graf, D. Lemire, "Xor Filters: Faster and Smaller Than
// Bloom and Cuckoo Filters", ACM Journal of Experimental Algorithmics 25, 2020, the xor+ filter).
//
// An XOR filter (filters/xor.h: 3 blocks of b = ceil((floor(1.23 n) + 32) / 3) f-bit slots, the
// same positions and fingerprints) in which one block is stored compressed. n keys leave about
// 0.23 n slots that no key was assigned to; they hold 0, and XORing a 0 changes no lookup. The
// xor+ filter leaves the zero slots of one block out: a bitmap says which slots of that block are
// nonzero, those are stored in order, and a lookup finds its slot among them by rank.
//
// Which block, and how many zeros it gets: the first block here (FastFilter's compresses the
// third; the blocks are symmetric). A key is assigned the slot it is peeled through, so the
// peel (Peeler::Peel, kLowSlotsLast) takes a first-block slot only while no slot of the other
// two blocks holds a single key: keys go to blocks 2 and 3 wherever they can, and most of the
// spare slots end up in block 1. A slot that a key was assigned but that came out 0 (chance
// 2^-f) is left out too: the bitmap marks nonzero slots, so every lookup reads exactly the values
// the plain XOR array of the same peel holds.
//
// Rank: Vigna's rank9 (S. Vigna, "Broadword Implementation of Rank/Select Queries", WEA 2008),
// the structure FastFilter's Xor+ uses: for each 512 bits of the bitmap, a 64-bit count of the
// ones before them and a 64-bit word of seven 9-bit counts, the ones from their start to the
// start of each of their words 1..7. So 64 + 64 bits per 512, and the bitmap's bit per slot:
// 1.25 bits per slot of block 1.
//
// Theory, n keys, f-bit fingerprints, z zero slots in block 1 (a statistic of the peel: the
// paper gives no closed form for it, so theory() reads it from the build; u = 3 z / (1.23 n + 32)
// is the zero share of block 1):
//   FPR      = 2^-f, as XOR: a non-key passes when its fingerprint equals the XOR of three slot
//              values that do not depend on it; leaving zeros out changes no value. No other
//              effect.
//   bits/key = (f (1.23 n + 32 - z) + 1.25 (1.23 n + 32) / 3) / n
//            = f (1.23 + 32/n) (1 - u/3) + 1.25 (1.23 + 32/n) / 3
//              (f times 1.23 less the unused share of block 1, plus the bitmap and rank).
// Allocated, exactly (one array holding every part; xor_plus_test.cc counts it):
//   bytes = 8 ceil(b/64) + 16 ceil(b/512) + (f/8) (2b + (b - z) + 1)
// (the bitmap, the rank counts, blocks 2 and 3, block 1's nonzero slots and one zero slot after
// them, which a lookup whose bit is clear reads and masks away instead of branching).
// Construction, retries (build_attempts) and repeated keys: as XOR (PeeledFilterBase).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "filters/static_common.h"
#include "filters/theory_formulas.h"
#include "filters/xor.h"
#include "core/batched.h"
#include "core/filter.h"
#include "core/hashing.h"
#include "core/stat_catalog.h"

namespace amq {

// The statistic Xor+ reports besides the catalog's (core/stat_catalog.h).
inline constexpr StatSpec kFirstBlockZeroSlotsStat{
    "first_block_zero_slots", "integer", "slots",
    "Xor+: slots of the first block that hold 0 and are left out (rank bitmap instead)"};

// How the build peels: Xor+'s order, or XOR's own (the same filter bytes as Xor<k>, stored
// compressed: the tests compare the two).
enum class XorPlusPeel { kFirstBlockLast, kAsXor };

template <int kBits>
class XorPlus : public PeeledFilterBase<XorPlus<kBits>, kBits, 3> {
  static_assert(kBits == 8 || kBits == 16);
  using Shared = PeeledFilterBase<XorPlus, kBits, 3>;
  using Word = std::conditional_t<kBits == 8, std::uint8_t, std::uint16_t>;

 public:
  static constexpr std::string_view kName = kBits == 8 ? "xor_plus8" : "xor_plus16";
  static constexpr bool kFixedWidth = true;
  static constexpr std::string_view kFamily = "xor";
  static constexpr std::string_view kParameters =
      "fixed k; XOR's slots = 3*ceil((floor(1.23 n) + 32)/3), the first block's zero slots left "
      "out behind a rank9 bitmap";

  // XOR's slot array, three blocks of which the first is stored compressed.
  static std::size_t SlotsFor(std::size_t n) { return Xor<kBits>::SlotsFor(n); }

  static XorPlus build(std::span<const std::uint64_t> keys, const FilterParams& p) {
    return build(keys, p, StaticBuildOptions{});
  }

  static XorPlus build(std::span<const std::uint64_t> keys, const FilterParams& p,
                       const StaticBuildOptions& options,
                       XorPlusPeel peel = XorPlusPeel::kFirstBlockLast) {
    XorPlus f;
    f.bits_ = kBits;
    f.low_slots_last_ = peel == XorPlusPeel::kFirstBlockLast;
    std::vector<std::uint64_t> hashes;
    const auto lay_out = [&](std::span<const std::uint64_t> attempt_keys) {
      const std::size_t slots =
          options.slots_override ? options.slots_override : SlotsFor(attempt_keys.size());
      f.slots_ = slots;
      f.block_ = slots / 3;
      hashes.resize(attempt_keys.size());
      for (std::size_t i = 0; i < attempt_keys.size(); ++i) {
        hashes[i] = HashKey(attempt_keys[i], f.seed_);
      }
      return std::span<std::uint64_t>(hashes);
    };
    Shared::template BuildByPeeling<true>(f, keys, p.seed, options, lay_out);
    f.Compress();
    return f;
  }

  // Every part sits in one array, so bytes() covers all a lookup reads.
  std::size_t size_in_bytes() const { return storage_.size() * sizeof(Word); }
  std::span<const std::uint8_t> bytes() const {
    return {reinterpret_cast<const std::uint8_t*>(storage_.data()), size_in_bytes()};
  }

  bool contains(std::uint64_t key) const { return Probe(Locate(key)); }

  // Four lines per key (blocks 2 and 3, the bitmap word and its rank counts) are prefetched
  // 16 keys ahead; block 1's slot is known only after the rank, so it is loaded in Probe.
  std::size_t contains_many(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
    return PipelinedContains<16>(
        keys, out,
        [this](std::uint64_t key) {
          const Located l = Locate(key);
          __builtin_prefetch(rest_ + l.rest[0]);
          __builtin_prefetch(rest_ + l.rest[1]);
          __builtin_prefetch(bitmap_ + l.first / 64 * 8);
          __builtin_prefetch(counts_ + l.first / 512 * 16);
          return l;
        },
        [this](const Located& l) { return Probe(l); });
  }

  Theory theory() const {
    return {FingerprintFpr(kBits),
            this->keys_ ? XorPlusBitsPerKey(static_cast<double>(this->keys_), kBits,
                                            static_cast<double>(zero_slots_))
                        : 0.0};
  }

  std::size_t first_block_zero_slots() const { return zero_slots_; }
  std::size_t block_slots() const { return block_; }

  static constexpr StatSpec kStats[] = {stat::kBuildAttempts, stat::kFingerprintBits,
                                        stat::kSlots, stat::kDuplicatesRemoved,
                                        kFirstBlockZeroSlotsStat};

  void add_stats(Stats& s) const {
    s.put("build_attempts", this->attempts_);
    s.put("fingerprint_bits", kBits);
    s.put("slots", this->slots_);
    s.put("duplicates_removed", this->duplicates_);
    s.put("first_block_zero_slots", zero_slots_);
  }

  // The storage holds pointers into itself: a copy or move re-points them.
  XorPlus() = default;
  XorPlus(const XorPlus& o) { *this = o; }
  XorPlus(XorPlus&& o) noexcept { *this = std::move(o); }
  XorPlus& operator=(const XorPlus& o) {
    CopyState(o);
    storage_ = o.storage_;
    Point();
    return *this;
  }
  XorPlus& operator=(XorPlus&& o) noexcept {
    CopyState(o);
    storage_ = std::move(o.storage_);
    Point();
    return *this;
  }

 private:
  friend Shared;  // calls Positions and LowSlots during the build

  // What a lookup reads: block 1's slot (its index in the bitmap) and the slots of blocks 2 and
  // 3 in the stored array, which starts at block 2.
  struct Located {
    std::uint32_t first;
    std::array<std::uint32_t, 2> rest;
    std::uint64_t fingerprint;
  };

  Located Locate(std::uint64_t key) const {
    const std::uint64_t h = HashKey(key, this->seed_);
    std::array<std::uint32_t, 3> p;
    Positions(h, p);
    return {p[0], {static_cast<std::uint32_t>(p[1] - block_), static_cast<std::uint32_t>(p[2] - block_)},
            this->Fingerprint(h)};
  }

  bool Probe(const Located& l) const {
    const std::uint64_t word = Load64(bitmap_ + l.first / 64 * 8);
    const unsigned bit = l.first % 64;
    const std::uint64_t present = (word >> bit) & 1;
    // Block 1's slot is read unconditionally, at the rank even when the bit is clear (then the
    // next nonzero slot's, or the zero after the last), and masked: a branch on a bit that is set
    // for about 2 in 3 keys would mispredict often.
    const std::uint64_t first = first_[Rank(l.first, word, bit)] & (0 - present);
    return (rest_[l.rest[0]] ^ rest_[l.rest[1]] ^ first) == l.fingerprint;
  }

  // rank9: the ones before position pos of the bitmap (word = its word, bit = pos % 64). The
  // 9-bit count of word j of a 512-bit block sits at bits 9 (j - 1); for j = 0 the shift is
  // taken to 63, a bit that is always 0 (Vigna's branch-free select of the count).
  std::uint64_t Rank(std::uint32_t pos, std::uint64_t word, unsigned bit) const {
    const std::uint32_t w = pos / 64;
    const std::uint8_t* counts = counts_ + (w / 8) * 16;
    const std::int64_t t = static_cast<std::int64_t>(w % 8) - 1;
    const unsigned shift = static_cast<unsigned>(9 * (t + ((t >> 60) & 8)));
    const std::uint64_t below = word & ((std::uint64_t{1} << bit) - 1);
    return Load64(counts) + ((Load64(counts + 8) >> shift) & 0x1ff) + std::popcount(below);
  }

  void Positions(std::uint64_t h, std::array<std::uint32_t, 3>& p) const {
    xor_detail::Positions(h, block_, p);
  }

  // Slots below this are peeled last (all of block 1), or none for XOR's own order.
  std::size_t LowSlots() const { return low_slots_last_ ? block_ : 0; }

  // From the full slot array the peel assigned to the stored form: bitmap and rank counts of
  // block 1, blocks 2 and 3, block 1's nonzero slots and one zero.
  void Compress() {
    const auto& full = this->fingerprints_;
    const std::size_t b = block_;
    bitmap_words_ = (b + 63) / 64;
    count_words_ = 2 * ((b + 511) / 512);
    std::vector<std::uint64_t> bitmap(bitmap_words_, 0);
    std::vector<std::uint64_t> counts(count_words_, 0);
    for (std::size_t i = 0; i < b; ++i) {
      if (full.get(i) != 0) bitmap[i / 64] |= std::uint64_t{1} << (i % 64);
    }
    std::uint64_t ones = 0;
    for (std::size_t w = 0; w < bitmap_words_; ++w) {
      std::uint64_t* block_counts = counts.data() + w / 8 * 2;
      if (w % 8 == 0) {
        block_counts[0] = ones;
      } else {
        block_counts[1] |= (ones - block_counts[0]) << (9 * (w % 8 - 1));
      }
      ones += std::popcount(bitmap[w]);
    }
    zero_slots_ = b - ones;
    // Words of the array: the bitmap and counts as bytes, then the slots.
    const std::size_t count_offset = bitmap_words_ * 8 / sizeof(Word);
    const std::size_t slot_offset = count_offset + count_words_ * 8 / sizeof(Word);
    storage_.assign(slot_offset + 2 * b + ones + 1, 0);
    std::memcpy(storage_.data(), bitmap.data(), bitmap_words_ * 8);
    std::memcpy(storage_.data() + count_offset, counts.data(), count_words_ * 8);
    Word* slots = storage_.data() + slot_offset;
    for (std::size_t i = 0; i < 2 * b; ++i) slots[i] = static_cast<Word>(full.get(b + i));
    Word* first = slots + 2 * b;
    for (std::size_t i = 0, j = 0; i < b; ++i) {
      if (const auto v = full.get(i); v != 0) first[j++] = static_cast<Word>(v);
    }
    this->fingerprints_ = typename Shared::Store();  // the full array is no longer read
    Point();
  }

  static std::uint64_t Load64(const std::uint8_t* p) {
    std::uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }

  void Point() {
    bitmap_ = reinterpret_cast<const std::uint8_t*>(storage_.data());
    counts_ = bitmap_ + bitmap_words_ * 8;
    rest_ = reinterpret_cast<const Word*>(counts_ + count_words_ * 8);
    first_ = rest_ + 2 * block_;
  }

  void CopyState(const XorPlus& o) {
    static_cast<Shared&>(*this) = static_cast<const Shared&>(o);
    block_ = o.block_;
    low_slots_last_ = o.low_slots_last_;
    zero_slots_ = o.zero_slots_;
    bitmap_words_ = o.bitmap_words_;
    count_words_ = o.count_words_;
  }

  std::uint64_t block_ = 0;
  bool low_slots_last_ = true;
  std::size_t zero_slots_ = 0;
  std::size_t bitmap_words_ = 0;
  std::size_t count_words_ = 0;
  // bitmap words | rank counts | blocks 2 and 3 | block 1's nonzero slots, 0. The 64-bit words
  // are read with memcpy (one load), so the array can be of slot words.
  std::vector<Word> storage_;
  const std::uint8_t* bitmap_ = nullptr;
  const std::uint8_t* counts_ = nullptr;
  const Word* rest_ = nullptr;  // blocks 2 and 3
  const Word* first_ = nullptr;
};

using XorPlus8 = XorPlus<8>;
using XorPlus16 = XorPlus<16>;

}  // namespace amq
