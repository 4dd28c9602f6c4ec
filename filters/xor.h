// filters/xor.h - XOR filter (T. M. Graf, D. Lemire, "Xor Filters: Faster and Smaller Than
// Bloom and Cuckoo Filters", ACM Journal of Experimental Algorithmics 25, 2020).
//
// Layout: c = 3 * ceil((floor(1.23 n) + 32) / 3) slots of k-bit fingerprints F, in three equal
// blocks of c/3. A key x with hash h has one position in each block, h_j(x) in block j, and a
// fingerprint fp(x); construction makes F[h_0(x)] ^ F[h_1(x)] ^ F[h_2(x)] = fp(x) hold for
// every key by peeling (filters/static_common.h). Peeling a random 3-hypergraph succeeds
// w.h.p. above 1.222 slots per key; the +32 covers small n. A failed peel is retried with the
// next seed of the schedule, at most 100 times, then BuildFailed.
//
// Theory, n distinct keys, k-bit fingerprints:
//   FPR      = 2^-k   (a non-key passes only if its fingerprint equals the XOR of 3 slots,
//                      which is independent of its fingerprint)
//   bits/key = (1.23 n + 32) k / n = 1.23 k + 32 k / n: the paper's capacity, its additive 32
//              included, at the n keys given. theory() reports this formula; the floor of
//              1.23 n and the round-up to three equal blocks are the allocation's (-1 .. +2
//              slots), so the measured c k / n lies within -k/n .. +2k/n of it, plus bit
//              packing's last byte (< 8/n).
// Sizing: xor8 / xor16 fix k and ignore --fpr. `xor`: --fpr eps gives k = ceil(log2(1/eps));
// --bits-per-key B gives k = floor(B / 1.23); k in 1 .. 32, bit-packed.
// Repeated keys are removed (sort + unique on a copy) only after a failed peel, since a
// repeated key can never peel; the filter then holds the distinct keys.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "filters/static_common.h"
#include "filters/theory_formulas.h"
#include "core/batched.h"
#include "core/filter.h"
#include "core/stat_catalog.h"
#include "core/hashing.h"

namespace amq {

namespace xor_detail {
constexpr std::string_view NameFor(int bits) {
  return bits == 8 ? "xor8" : bits == 16 ? "xor16" : bits == 0 ? "xor" : "xor_fixed";
}

// A key's slot in each of the three blocks of `block` slots (Xor and XorPlus, xor_plus.h): three
// 21-bit rotations of one hash, each reduced into its block by multiply-shift (no division), so
// the blocks' ranges draw on different top bits.
inline void Positions(std::uint64_t h, std::uint64_t block, std::array<std::uint32_t, 3>& p) {
  p[0] = static_cast<std::uint32_t>(ReduceRange(h, block));
  p[1] = static_cast<std::uint32_t>(block + ReduceRange(std::rotl(h, 21), block));
  p[2] = static_cast<std::uint32_t>(2 * block + ReduceRange(std::rotl(h, 42), block));
}
}  // namespace xor_detail

// Construction, slot array and lookups: PeeledFilterBase (filters/static_common.h).
template <int kFixedBits>
class Xor : public PeeledFilterBase<Xor<kFixedBits>, kFixedBits, 3> {
  using Shared = PeeledFilterBase<Xor, kFixedBits, 3>;
  using Shared::bits_;
  using Shared::fingerprints_;
  using Shared::slots_;

 public:
  static constexpr std::string_view kName = xor_detail::NameFor(kFixedBits);
  // The width is part of the type (cuckoo12, xor8): --fpr does not change the filter.
  static constexpr bool kFixedWidth = kFixedBits != 0;
  static constexpr std::string_view kFamily = "xor";
  static constexpr std::string_view kParameters =
      kFixedBits ? "fixed k; slots = 3*ceil((floor(1.23 n) + 32)/3)"
                 : "--fpr eps: k = ceil(log2(1/eps)); --bits-per-key B: k = floor(B/1.23); "
                   "k in 1..32; slots = 3*ceil((floor(1.23 n) + 32)/3)";

  static int FingerprintBitsFor(const FilterParams& p) {
    if constexpr (kFixedBits != 0) {
      return kFixedBits;
    } else {
      const int k = p.bits_per_key > 0
                        ? static_cast<int>(std::floor(p.bits_per_key / 1.23))
                        : static_cast<int>(std::ceil(std::log2(1.0 / p.fpr_or_default())));
      return std::clamp(k, 1, 32);
    }
  }

  // floor(1.23 n) + 32 in integers (1.23 has no exact double), rounded up to 3 equal blocks.
  static std::size_t SlotsFor(std::size_t n) {
    const std::size_t capacity = n / 100 * 123 + (n % 100) * 123 / 100 + 32;
    return (capacity + 2) / 3 * 3;
  }

  static Xor build(std::span<const std::uint64_t> keys, const FilterParams& p) {
    return build(keys, p, StaticBuildOptions{});
  }

  static Xor build(std::span<const std::uint64_t> keys, const FilterParams& p,
                   const StaticBuildOptions& options) {
    Xor f;
    f.bits_ = FingerprintBitsFor(p);
    // Each attempt: three equal blocks for these keys, and their hashes in input order.
    std::vector<std::uint64_t> hashes;
    const auto lay_out = [&](std::span<const std::uint64_t> attempt_keys) {
      f.Resize(options.slots_override ? options.slots_override : SlotsFor(attempt_keys.size()));
      hashes.resize(attempt_keys.size());
      for (std::size_t i = 0; i < attempt_keys.size(); ++i) {
        hashes[i] = HashKey(attempt_keys[i], f.seed_);
      }
      return std::span<std::uint64_t>(hashes);
    };
    Shared::BuildByPeeling(f, keys, p.seed, options, lay_out);
    return f;
  }

  // The paper's bits/key for n keys of k bits (header), whatever the slot array became.
  Theory theory() const {
    return {FingerprintFpr(this->bits_),
            this->keys_ ? XorBitsPerKey(static_cast<double>(this->keys_), this->bits_) : 0.0};
  }

  // The statistics add_stats reports (core/filter.h).
  static constexpr StatSpec kStats[] = {
      stat::kBuildAttempts, stat::kFingerprintBits, stat::kSlots, stat::kDuplicatesRemoved};

  void add_stats(Stats& s) const {
    s.put("build_attempts", this->attempts_);
    s.put("fingerprint_bits", bits_);
    s.put("slots", slots_);
    s.put("duplicates_removed", this->duplicates_);
  }

 private:
  friend Shared;  // calls Positions and Probe
  using typename Shared::Located;

  bool Probe(const Located& l) const {
    const auto& p = l.positions;
    return (fingerprints_.get(p[0]) ^ fingerprints_.get(p[1]) ^ fingerprints_.get(p[2])) ==
           l.fingerprint;
  }

  void Resize(std::size_t slots) {
    slots_ = slots;
    block_ = slots / 3;
  }

  void Positions(std::uint64_t h, std::array<std::uint32_t, 3>& p) const {
    xor_detail::Positions(h, block_, p);
  }

  std::uint64_t block_ = 0;
};

using Xor8 = Xor<8>;
using Xor16 = Xor<16>;

}  // namespace amq
