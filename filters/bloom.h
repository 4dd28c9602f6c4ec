// filters/bloom.h - classic Bloom filter (B. H. Bloom, "Space/time trade-offs in hash coding
// with allowable errors", CACM 13(7), 1970).
//
// Layout: one array of m bits. A key sets k bits chosen by double hashing, g_i = a + i*b
// (Kirsch and Mitzenmacher, "Less hashing, same performance", ESA 2006), from one 64-bit hash.
//
// Theory, n keys, m bits, k probes:
//   FPR       = (1 - e^(-k n / m))^k
//   bits/key  = m / n; for a target eps the optimum is log2(1/eps) / ln 2 = 1.44 log2(1/eps)
//               bits per key with k = (m/n) ln 2 probes.
// Sizing: from --fpr eps, m/n = log2(1/eps)/ln 2; from --bits-per-key B, m/n = B. Then
// k = round((m/n) ln 2), at least 1; m is rounded up to whole 64-bit words. theory() reports
// the target's m/n, before that rounding (the measured bits/key shows it).
//
// Concurrent inserts (core/concurrent_insert.h): every probe is an atomic OR on its word, so
// threads need no lock and two keys sharing a word both keep their bits; the bits are those
// of inserting the keys one by one, in any order.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "filters/theory_formulas.h"
#include "core/batched.h"
#include "core/concurrent_insert.h"
#include "core/filter.h"
#include "core/stat_catalog.h"
#include "core/hashing.h"

namespace amq {

class Bloom {
 public:
  static constexpr std::string_view kName = "bloom";
  static constexpr std::string_view kFamily = "bloom";
  static constexpr std::string_view kParameters =
      "--fpr eps: m/n = log2(1/eps)/ln2; --bits-per-key B: m/n = B; k = round(ln2 * m/n)";

  explicit Bloom(const FilterParams& p)
      : seed_(SpreadSeed(p.seed)),
        bits_per_key_target_(p.bits_per_key > 0 ? p.bits_per_key
                                                 : BloomBitsPerKey(p.fpr_or_default())) {
    const double wanted_bits = std::ceil(bits_per_key_target_ * static_cast<double>(p.capacity));
    const std::size_t words = std::max<std::size_t>(1, (static_cast<std::size_t>(wanted_bits) + 63) / 64);
    words_.assign(words, 0);
    bits_ = words * 64;
    probes_ = std::max(1, static_cast<int>(std::lround(bits_per_key_target_ * std::log(2.0))));
  }

  bool insert(std::uint64_t key) {
    std::uint64_t a = HashKey(key, seed_);
    const std::uint64_t b = std::rotl(a, 32) | 1;  // odd step: probes never all coincide
    for (int i = 0; i < probes_; ++i, a += b) {
      const std::uint64_t bit = ReduceRange(a, bits_);
      words_[bit >> 6] |= 1ULL << (bit & 63);
    }
    ++keys_;
    return true;
  }

  std::size_t insert_lock_count() const { return 0; }
  bool insert_concurrent(std::uint64_t key, InsertLocks&) {
    std::uint64_t a = HashKey(key, seed_);
    const std::uint64_t b = std::rotl(a, 32) | 1;
    for (int i = 0; i < probes_; ++i, a += b) {
      const std::uint64_t bit = ReduceRange(a, bits_);
      AtomicSetBits(words_[bit >> 6], std::uint64_t{1} << (bit & 63));
    }
    AtomicAdd<std::size_t>(keys_, 1);
    return true;
  }

  bool contains(std::uint64_t key) const { return ContainsHash(HashKey(key, seed_)); }

  // Each of a key's k probes is its own cache line, and an absent key reads only the first
  // three (kBranchFreeProbes) unless all three bits are set (1 in 8 at the optimal k): so the
  // pipeline (core/batched.h) runs in two stages. The first prefetches a key's first three
  // lines; kPrefetchAhead keys later the second reads them and, where all three bits are set
  // (every member, an eighth of absent keys), prefetches the rest; kProbeAhead keys after that
  // the lookup answers. Prefetching all k lines at once, as before, spent more than half the
  // lines an absent key's lookup fetched on lines it never read. At n = 2^26 (portable, k = 7,
  // 2026-12-05) non-members went from 50.7-51.0 to 32.6-33.9 ns a key, members from 59.5-59.7
  // to 63.9-64.9 (the second stage's reads; a member reads all k lines either way).
  static constexpr std::size_t kPrefetchAhead = 8, kProbeAhead = 8;
  std::size_t contains_many(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
    return TwoStagePipelinedContains<kPrefetchAhead, kProbeAhead>(
        keys, out,
        [this](std::uint64_t key) {
          BatchedLookup l;
          l.a = HashKey(key, seed_);
          l.b = std::rotl(l.a, 32) | 1;
          if (probes_ >= kBranchFreeProbes) {
            PrefetchFirstProbes(l.a, l.b);
          } else {
            PrefetchProbes(l.a, l.b, 0, probes_);
          }
          return l;
        },
        [this](BatchedLookup& l) {
          // With k < 3 the first stage prefetched every line and the probe reads them all.
          if (probes_ < kBranchFreeProbes) return;
          l.maybe = FirstProbesSet(l.a, l.b);
          l.a += kBranchFreeProbes * l.b;
          if (l.maybe) PrefetchProbes(l.a, l.b, kBranchFreeProbes, probes_);
        },
        [this](const BatchedLookup& l) {
          return l.maybe && LaterProbesSet(l.a, l.b, probes_ < kBranchFreeProbes ? 0 : kBranchFreeProbes);
        });
  }

  std::size_t size_in_bytes() const { return words_.size() * sizeof(std::uint64_t); }
  std::span<const std::uint8_t> bytes() const {
    return {reinterpret_cast<const std::uint8_t*>(words_.data()), size_in_bytes()};
  }

  Theory theory() const {
    return {BloomFpr(probes_, static_cast<double>(keys_), static_cast<double>(bits_)),
            bits_per_key_target_};
  }

  // The statistics add_stats reports (core/filter.h).
  static constexpr StatSpec kStats[] = {
      stat::kHashProbes, stat::kBloomBits};

  void add_stats(Stats& s) const {
    s.put("hash_probes", probes_);
    s.put("bits", bits_);
  }

 private:
  // The first kBranchFreeProbes bits are read without a branch between them and tested once:
  // at the optimal k an absent key's probe finds a set bit with probability about 1/2, so a
  // branch per probe mispredicts about once per absent lookup, while three bits read together
  // are all set only 1/8 of the time. The rest exit early (a member's are all taken). Measured
  // at n = 10^6, 1% (k = 7), -march=native, 3 alternating runs, ns per lookup: absent
  // 17.4-17.7 -> 8.4-9.0, members 7.9-8.2 -> 8.3-8.7 (out of line: 18.9-19.1 -> 9.2-10.1 and
  // 8.7-9.1 -> 9.0-10.9). counting_bloom.h does the same.
  static constexpr int kBranchFreeProbes = 3;

  // A key between contains_many's stages: the probe sequence a + i b (a moved past the first
  // probes once the second stage has read them), and false once those found a clear bit.
  struct BatchedLookup {
    std::uint64_t a = 0, b = 0;
    bool maybe = true;
  };

  bool ContainsHash(std::uint64_t a) const {
    const std::uint64_t b = std::rotl(a, 32) | 1;
    int i = 0;
    if (probes_ >= kBranchFreeProbes) {
      if (!FirstProbesSet(a, b)) return false;
      a += kBranchFreeProbes * b;
      i = kBranchFreeProbes;
    }
    return LaterProbesSet(a, b, i);
  }

  // Whether the kBranchFreeProbes bits a, a + b, ... are all set, read without a branch between
  // them.
  bool FirstProbesSet(std::uint64_t a, std::uint64_t b) const {
    std::uint64_t all = ~std::uint64_t{0};
#pragma GCC unroll 4
    for (int i = 0; i < kBranchFreeProbes; ++i, a += b) {
      const std::uint64_t bit = ReduceRange(a, bits_);
      all &= words_[bit >> 6] >> (bit & 63);
    }
    return (all & 1) != 0;
  }

  // Whether probes from .. k - 1 (a the first of them) are all set, stopping at the first clear
  // one: the absent keys that passed the first three mostly stop at the next one.
  bool LaterProbesSet(std::uint64_t a, std::uint64_t b, int from) const {
    for (int i = from; i < probes_; ++i, a += b) {
      const std::uint64_t bit = ReduceRange(a, bits_);
      if ((words_[bit >> 6] & (1ULL << (bit & 63))) == 0) return false;
    }
    return true;
  }

  // Prefetches the lines of the kBranchFreeProbes first probes (a constant count: unrolled).
  void PrefetchFirstProbes(std::uint64_t a, std::uint64_t b) const {
#pragma GCC unroll 4
    for (int i = 0; i < kBranchFreeProbes; ++i, a += b) __builtin_prefetch(&words_[ReduceRange(a, bits_) >> 6]);
  }

  // Prefetches the lines of probes from .. to - 1, a the first of them.
  void PrefetchProbes(std::uint64_t a, std::uint64_t b, int from, int to) const {
    for (int i = from; i < to; ++i, a += b) __builtin_prefetch(&words_[ReduceRange(a, bits_) >> 6]);
  }

  std::uint64_t seed_;
  double bits_per_key_target_;
  std::vector<std::uint64_t> words_;
  std::uint64_t bits_ = 0;
  int probes_ = 1;
  std::size_t keys_ = 0;
};

}  // namespace amq
