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
}  // namespace xor_detail

template <int kFixedBits>
class Xor {
  static_assert(kFixedBits == 0 || kFixedBits == 8 || kFixedBits == 16);

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
    std::vector<std::uint64_t> distinct;
    std::vector<std::uint64_t> hashes;
    static_detail::Peeler<3> peeler;
    for (int attempt = 0; attempt < options.max_attempts; ++attempt) {
      f.Resize(options.slots_override ? options.slots_override : SlotsFor(keys.size()));
      f.seed_ = static_detail::AttemptSeed(p.seed, attempt);
      f.attempts_ = attempt + 1;
      hashes.resize(keys.size());
      for (std::size_t i = 0; i < keys.size(); ++i) hashes[i] = HashKey(keys[i], f.seed_);
      const auto positions = [&f](std::uint64_t h, std::array<std::uint32_t, 3>& out) {
        f.Positions(h, out);
      };
      if (peeler.Peel(hashes, f.slots_, positions)) {
        f.fingerprints_ = Store(f.slots_, f.bits_);
        peeler.Assign(hashes, positions, f.fingerprints_,
                      [&f](std::uint64_t h) { return f.Fingerprint(h); });
        f.keys_ = keys.size();
        return f;
      }
      if (attempt == 0 && distinct.empty()) {
        distinct = static_detail::DistinctKeys(keys);
        f.duplicates_ = keys.size() - distinct.size();
        if (f.duplicates_ > 0) keys = distinct;
      }
    }
    throw BuildFailed(std::string(kName) + ": peeling failed " +
                      std::to_string(options.max_attempts) + " times for " +
                      std::to_string(keys.size()) + " keys");
  }

  bool contains(std::uint64_t key) const { return Probe(Locate(key)); }

  // Three cache lines per key, one in each block: the pipeline (core/batched.h) keeps 16 keys'
  // lines in flight.
  std::size_t contains_many(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
    return PipelinedContains<16>(
        keys, out,
        [this](std::uint64_t key) {
          const Located l = Locate(key);
          for (std::uint32_t p : l.positions) fingerprints_.prefetch(p);
          return l;
        },
        [this](const Located& l) { return Probe(l); });
  }

  std::size_t size_in_bytes() const { return fingerprints_.size_in_bytes(); }
  std::span<const std::uint8_t> bytes() const {
    return {fingerprints_.data(), fingerprints_.size_in_bytes()};
  }
  int fingerprint_bits() const { return bits_; }
  std::size_t slots() const { return slots_; }
  int build_attempts() const { return attempts_; }

  // The paper's bits/key for n keys of k bits (header), whatever the slot array became.
  Theory theory() const {
    return {FingerprintFpr(bits_), keys_ ? XorBitsPerKey(static_cast<double>(keys_), bits_) : 0.0};
  }

  // The statistics add_stats reports (core/filter.h).
  static constexpr StatSpec kStats[] = {
      stat::kBuildAttempts, stat::kFingerprintBits, stat::kSlots, stat::kDuplicatesRemoved};

  void add_stats(Stats& s) const {
    s.put("build_attempts", attempts_);
    s.put("fingerprint_bits", bits_);
    s.put("slots", slots_);
    s.put("duplicates_removed", duplicates_);
  }

 private:
  using Store = static_detail::FingerprintArray<kFixedBits>;

  // What a lookup reads, derived from the key's hash.
  struct Located {
    std::array<std::uint32_t, 3> positions;
    std::uint64_t fingerprint;
  };

  Located Locate(std::uint64_t key) const {
    const std::uint64_t h = HashKey(key, seed_);
    Located l;
    Positions(h, l.positions);
    l.fingerprint = Fingerprint(h);
    return l;
  }

  bool Probe(const Located& l) const {
    const auto& p = l.positions;
    return (fingerprints_.get(p[0]) ^ fingerprints_.get(p[1]) ^ fingerprints_.get(p[2])) ==
           l.fingerprint;
  }

  void Resize(std::size_t slots) {
    slots_ = slots;
    block_ = slots / 3;
  }

  // Three positions from three 21-bit rotations of one hash, each reduced into its block
  // by multiply-shift (no division): the blocks' ranges draw on different top bits.
  void Positions(std::uint64_t h, std::array<std::uint32_t, 3>& p) const {
    p[0] = static_cast<std::uint32_t>(ReduceRange(h, block_));
    p[1] = static_cast<std::uint32_t>(block_ + ReduceRange(std::rotl(h, 21), block_));
    p[2] = static_cast<std::uint32_t>(2 * block_ + ReduceRange(std::rotl(h, 42), block_));
  }

  std::uint64_t Fingerprint(std::uint64_t h) const {
    return static_detail::FingerprintOf(h, kFixedBits ? kFixedBits : bits_);
  }

  int bits_ = 8;
  std::uint64_t seed_ = 0;
  std::size_t slots_ = 0;
  std::uint64_t block_ = 0;
  std::size_t keys_ = 0;
  std::size_t duplicates_ = 0;
  int attempts_ = 0;
  Store fingerprints_;
};

using Xor8 = Xor<8>;
using Xor16 = Xor<16>;

}  // namespace amq
