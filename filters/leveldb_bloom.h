// filters/leveldb_bloom.h - LevelDB's Bloom filter, through its public FilterPolicy
// (leveldb/filter_policy.h: NewBloomFilterPolicy, CreateFilter, KeyMayMatch; Debian's
// libleveldb-dev 1.23). The classic Bloom filter: B. H. Bloom, CACM 13(7), 1970.
//
// Layout (LevelDB's, read here only to compute theory): one bit array of m = max(64, n B)
// bits rounded up to bytes, followed by one byte holding k = clamp(floor(0.69 B), 1, 30).
// A key's probes come from ONE 32-bit hash h of its bytes by double hashing in 32-bit
// arithmetic: bit_j = (h + j * delta) mod 2^32 mod m, with delta = h rotated right by 17.
// The filter is static here: CreateFilter over all keys at once.
// Keys are 64-bit: the Slice is the 8 bytes of (key XOR SpreadSeed(seed)), a bijection, so
// distinct keys stay distinct and the seed reaches LevelDB's unseeded hash.
//
// Theory:
//   classic  FPR = (1 - e^(-k n / m))^k (reported as stat classic_fpr).
//   bits/key = (B n + 8) / n, the policy's documented B bits per key plus the k byte.
//            theory() reports this; the 64-bit minimum and the round-up to whole bytes are the
//            allocation's, which the measured 8 size / n shows.
//   theory() FPR = the probability, over a uniformly random 32-bit hash h, that all k of h's
//            probes hit set bits of this filter. That is the exact FPR of LevelDB's scheme for
//            keys whose hashes are uniform; it is evaluated as an average over 2^22
//            pseudo-random h (relative standard error ~0.5% at FPR 1%).
// Why not the classic formula: delta is a function of h (a rotation of it), so the k probes
// of different hashes are correlated: the set of probe patterns is a linear image of h's
// bits mod 2^32, then reduced mod m. Measured here with ideal random 32-bit hashes and B = 10
// (k = 6, classic 0.84%): 0.89% at n = 10^4, 1.45% at n = 10^5, 1.28% at n = 10^6; with delta
// drawn independently of h the same scheme gives 0.84-0.86% at every n. LevelDB's own hash on
// our keys measures the same (1.46% at n = 10^5), matching LevelDB 1.23 itself (1.30% at 10^6,
// 0.89% at 10^4: plots/reference.py, SPACE["leveldb_bloom"] and LEVELDB_BLOOM_10K).
// Sizing: --bits-per-key B: NewBloomFilterPolicy(round(B)); --fpr eps: B = round(1.44
// log2(1/eps)) (10 at 1%).
#pragma once

#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "filters/theory_formulas.h"
#include "core/filter.h"
#include "core/stat_catalog.h"
#include "core/hashing.h"

namespace amq {

class LevelDbBloom {
 public:
  static constexpr std::string_view kName = "leveldb_bloom";
  static constexpr std::string_view kLibrary = "leveldb";
  static constexpr std::string_view kFamily = "bloom";
  static constexpr std::string_view kParameters =
      "LevelDB NewBloomFilterPolicy(B): --bits-per-key B (rounded); --fpr eps: B = "
      "round(1.44*log2(1/eps)); k = clamp(floor(0.69 B), 1, 30); one 32-bit hash per key";

  static int BitsPerKeyFor(const FilterParams& p) {
    const double b =
        p.bits_per_key > 0 ? p.bits_per_key : 1.44 * std::log2(1.0 / p.fpr_or_default());
    return std::max(1, static_cast<int>(std::lround(b)));
  }

  static LevelDbBloom build(std::span<const std::uint64_t> keys, const FilterParams& p) {
    return build(keys, p, BitsPerKeyFor(p));
  }

  // The bits/key given to NewBloomFilterPolicy directly instead of BitsPerKeyFor(p): the tests'
  // way to mis-size a filter on purpose. theory() still follows p.
  static LevelDbBloom build(std::span<const std::uint64_t> keys, const FilterParams& p,
                            int policy_bits_per_key) {
    if (keys.size() > static_cast<std::size_t>(INT_MAX)) {
      throw BuildFailed("leveldb_bloom: CreateFilter takes at most INT_MAX keys");
    }
    LevelDbBloom f;
    f.target_bits_per_key_ = BitsPerKeyFor(p);
    f.bits_per_key_ = policy_bits_per_key;
    f.mask_ = SpreadSeed(p.seed);
    f.policy_.reset(leveldb::NewBloomFilterPolicy(f.bits_per_key_));
    std::vector<std::uint64_t> encoded(keys.size());
    std::vector<leveldb::Slice> slices(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      encoded[i] = keys[i] ^ f.mask_;
      slices[i] = leveldb::Slice(reinterpret_cast<const char*>(&encoded[i]), sizeof encoded[i]);
    }
    f.policy_->CreateFilter(slices.data(), static_cast<int>(keys.size()), &f.filter_);
    f.keys_ = keys.size();
    return f;
  }

  bool contains(std::uint64_t key) const {
    const std::uint64_t encoded = key ^ mask_;
    return policy_->KeyMayMatch(
        leveldb::Slice(reinterpret_cast<const char*>(&encoded), sizeof encoded),
        leveldb::Slice(filter_));
  }

  std::size_t size_in_bytes() const { return filter_.size(); }
  std::span<const std::uint8_t> bytes() const {
    return {reinterpret_cast<const std::uint8_t*>(filter_.data()), filter_.size()};
  }

  int probes() const { return filter_.empty() ? 0 : static_cast<unsigned char>(filter_.back()); }
  std::size_t bits() const { return filter_.empty() ? 0 : (filter_.size() - 1) * 8; }

  double classic_fpr() const {
    if (bits() == 0) return 0.0;
    const double k = probes();
    return std::pow(-std::expm1(-k * static_cast<double>(keys_) / static_cast<double>(bits())), k);
  }

  // The FPR of this filter's bits for a uniform 32-bit hash, averaged over 2^22 hashes drawn
  // from a fixed generator (so theory() is deterministic), probing as LevelDB does.
  double hash32_fpr() const {
    const std::uint32_t m = static_cast<std::uint32_t>(bits());
    const int k = probes();
    if (m == 0 || keys_ == 0) return 0.0;
    const auto* array = reinterpret_cast<const std::uint8_t*>(filter_.data());
    constexpr int kSamples = 1 << 22;
    XorShift64Star rng(0x6c6576656c6462ULL);
    std::size_t hits = 0;
    for (int s = 0; s < kSamples; ++s) {
      std::uint32_t h = static_cast<std::uint32_t>(rng.Next() >> 32);
      const std::uint32_t delta = (h >> 17) | (h << 15);
      bool all = true;
      for (int j = 0; j < k && all; ++j, h += delta) {
        const std::uint32_t bit = h % m;
        all = (array[bit / 8] >> (bit % 8)) & 1;
      }
      hits += all;
    }
    return static_cast<double>(hits) / kSamples;
  }

  Theory theory() const {
    const double n = static_cast<double>(keys_);
    return {hash32_fpr(), keys_ ? PolicyBitsPerKey(target_bits_per_key_, n, 8, n) : 0.0};
  }

  // The statistics add_stats reports (core/filter.h).
  static constexpr StatSpec kStats[] = {
      {"bits_per_key_policy", "integer", "bits/key", "LevelDB: bits_per_key given to NewBloomFilterPolicy"},
      stat::kHashProbes,
      stat::kBloomBits,
      {"classic_fpr", "number", "fraction",
       "LevelDB: the textbook (1 - e^(-kn/m))^k, for comparison with fpr_theory"},
      stat::kFprModel};

  void add_stats(Stats& s) const {
    s.put("bits_per_key_policy", bits_per_key_);
    s.put("hash_probes", probes());
    s.put("bits", bits());
    s.put("classic_fpr", classic_fpr());
    s.put("fpr_model", "uniform 32-bit hash through LevelDB's probe sequence (2^22 samples)");
  }

 private:
  std::shared_ptr<const leveldb::FilterPolicy> policy_;
  std::string filter_;
  std::uint64_t mask_ = 0;
  int bits_per_key_ = 10;         // given to the policy
  int target_bits_per_key_ = 10;  // asked for: what theory() sizes by
  std::size_t keys_ = 0;
};

}  // namespace amq
