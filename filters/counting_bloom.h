// filters/counting_bloom.h - counting Bloom filter with 4-bit counters (L. Fan, P. Cao,
// J. Almeida, A. Z. Broder, "Summary cache: a scalable wide-area web cache sharing protocol",
// IEEE/ACM Transactions on Networking 8(3), 2000, section V.C).
//
// Layout: a Bloom filter whose m bits are m 4-bit counters, sixteen to a 64-bit word. A key's
// k positions come from one 64-bit hash by double hashing, as in filters/bloom.h. insert adds
// one to each of its k counters, erase takes one away, contains asks that all k be nonzero; so
// keys can leave the set, which a Bloom filter's bits cannot (clearing a bit could clear
// another key's). erase() refuses (returns false) a key whose counters are not all nonzero: it
// was never inserted, and decrementing would create false negatives. Erasing a false positive
// that passes this check is the caller's error, as in the paper.
//
// Saturation: a counter at 15 stays at 15, and is never decremented again: once it has missed
// an increment its true count is unknown, and decrementing it could reach zero under a key still
// held (a false negative). A stuck counter only costs false positives. The statistics count the
// counters at 15 (saturated_counters) and the increments lost at 15 (counter_overflows: the
// paper's overflow, a count reaching 16).
//
// Theory, n keys, m counters, k probes:
//   FPR       = (1 - e^(-k n / m))^k, the Bloom filter's with m positions.
//   bits/key  = 4 m / n: four times a Bloom filter's at the same FPR; at the optimum
//               m/n = log2(1/eps) / ln 2, k = (m/n) ln 2, 4 log2(1/eps) / ln 2 = 5.77 log2(1/eps).
//   overflow  the paper bounds Pr(some counter >= j) <= m (e n k / (j m))^j (a counter gets
//             Binomial(nk, 1/m) increments, Pr(>= j) <= C(nk, j) m^-j); at the optimal k this is
//             m (e ln 2 / j)^j, and at j = 16 m (e ln 2 / 16)^16 ~ 1.37e-15 m. The exact tail,
//             m Pr(Bin(nk, 1/m) >= 16), is the expected number of counters that overflow; the
//             claims judge the measured overflows against it and against the bound it sits
//             under (theory_formulas.h: CountingBloomCountersAtLeast, CountingBloomOverflowBound).
// Sizing: from --fpr eps, m/n = log2(1/eps) / ln 2 counters per key; from --bits-per-key B,
// m/n = B / 4. k = round((m/n) ln 2), at least 1; m is rounded up to whole words of 16 counters.
// theory() reports the target's 4 m/n, before that rounding.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/batched.h"
#include "core/filter.h"
#include "core/hashing.h"
#include "core/stat_catalog.h"
#include "filters/theory_formulas.h"

namespace amq {

class CountingBloom {
 public:
  static constexpr std::string_view kName = "counting_bloom";
  static constexpr std::string_view kFamily = "counting_bloom";
  static constexpr std::string_view kParameters =
      "--fpr eps: m/n = log2(1/eps)/ln2 4-bit counters; --bits-per-key B: m/n = B/4; "
      "k = round(ln2 * m/n)";

  // Micro-benchmarked at FastFilter's CountingBloom10: 10 counters (40 bits) per key, k = 7, the
  // FPR 2^(-10 ln 2) whose sizing gives exactly that (harness/cell/micro_size.h); at the 1%
  // default it would be 38.3 bits per key, not a like-for-like pair.
  static constexpr double kMicroTargetFpr = 0.00819254946817896;
  static constexpr int kCounterBits = kCountingBloomCounterBits;
  static constexpr std::uint64_t kMax = (1U << kCounterBits) - 1;  // 15: saturated
  static constexpr int kPerWord = 64 / kCounterBits;

  explicit CountingBloom(const FilterParams& p)
      : seed_(SpreadSeed(p.seed)),
        bits_per_key_target_(p.bits_per_key > 0 ? p.bits_per_key
                                                 : CountingBloomBitsPerKey(p.fpr_or_default())) {
    const double per_key = bits_per_key_target_ / kCounterBits;
    const double wanted = std::ceil(per_key * static_cast<double>(p.capacity));
    const std::size_t words =
        std::max<std::size_t>(1, (static_cast<std::size_t>(wanted) + kPerWord - 1) / kPerWord);
    words_.assign(words, 0);
    counters_ = words * kPerWord;
    probes_ = std::max(1, static_cast<int>(std::lround(per_key * std::log(2.0))));
  }

  bool insert(std::uint64_t key) {
    InsertHash(HashKey(key, seed_));
    return true;
  }

  // k lines per key, read and written: the pipeline (core/batched.h) prefetches the k counters'
  // lines of the key 4 ahead, for writing, while it increments this one's (4 keys, 28 lines in
  // flight at k = 7: at n = 10^6, 10 counters a key, -march=native, sets of 3 alternating runs,
  // ns per key: one insert() at a time 18.3-18.7, 2 ahead 15.3-15.9, 4 ahead 14.2-14.4 beside
  // them; in two earlier sets 8 ahead 15.0-15.5, 4 ahead 14.0-14.2, 16 ahead 15.0-15.2).
  // Increments that stop at 15 commute (a counter ends at min(15, its count), and the overflow
  // and saturation counts depend on the counts alone), so the bytes and statistics are those of
  // insert() key by key.
  std::size_t insert_many(std::span<const std::uint64_t> keys) {
    PipelinedForEach<4>(
        keys,
        [this](std::uint64_t key) {
          const std::uint64_t hash = HashKey(key, seed_);
          std::uint64_t a = hash;
          const std::uint64_t b = std::rotl(a, 32) | 1;
          for (int i = 0; i < probes_; ++i, a += b) {
            __builtin_prefetch(&words_[ReduceRange(a, counters_) / kPerWord], 1);
          }
          return hash;
        },
        [this](std::size_t, std::uint64_t hash) { InsertHash(hash); });
    return keys.size();
  }

  // Removes one copy of a key inserted before. Saturated counters are left as they are.
  bool erase(std::uint64_t key) {
    const std::uint64_t h = HashKey(key, seed_);
    if (!ContainsHash(h)) return false;
    std::uint64_t a = h;
    const std::uint64_t b = std::rotl(a, 32) | 1;
    for (int i = 0; i < probes_; ++i, a += b) {
      const std::uint64_t c = ReduceRange(a, counters_);
      const std::uint64_t v = Get(c);
      // v > 0 always holds for a key inserted before; the test keeps a caller's erase of a
      // false positive whose probes repeat a counter from wrapping it to 15.
      if (v != kMax && v > 0) Add(c, -1);
    }
    --keys_;
    return true;
  }

  bool contains(std::uint64_t key) const { return ContainsHash(HashKey(key, seed_)); }

  std::size_t size_in_bytes() const { return words_.size() * sizeof(std::uint64_t); }
  std::span<const std::uint8_t> bytes() const {
    return {reinterpret_cast<const std::uint8_t*>(words_.data()), size_in_bytes()};
  }

  Theory theory() const {
    return {BloomFpr(probes_, static_cast<double>(keys_), static_cast<double>(counters_)),
            bits_per_key_target_};
  }

  // The statistics add_stats reports (core/filter.h). The expectations are of the keys held
  // now, with k and m as built; the counts are of every insert since the filter was made.
  static constexpr StatSpec kStats[] = {
      stat::kHashProbes,
      {"counters", "integer", "counters", "counting Bloom: 4-bit counters (m)"},
      {"saturated_counters", "integer", "counters",
       "counting Bloom: counters stuck at 15 (reached 15; never decremented again)"},
      {"saturated_expected", "number", "counters",
       "counting Bloom: expected counters at 15 or more, m Pr(Bin(nk, 1/m) >= 15)"},
      {"counter_overflows", "integer", "increments",
       "counting Bloom: increments lost at a counter already at 15 (the paper's overflow)"},
      {"overflow_expected", "number", "counters",
       "counting Bloom: expected counters reaching 16, m Pr(Bin(nk, 1/m) >= 16)"},
      {"overflow_bound", "number", "probability",
       "counting Bloom: the paper's bound on Pr(any counter >= 16), m (e n k / (16 m))^16"}};

  void add_stats(Stats& s) const {
    const double m = static_cast<double>(counters_), n = static_cast<double>(keys_);
    s.put("hash_probes", probes_);
    s.put("counters", counters_);
    s.put("saturated_counters", saturated_);
    s.put("saturated_expected", CountingBloomCountersAtLeast(m, n, probes_, kMax));
    s.put("counter_overflows", overflows_);
    s.put("overflow_expected", CountingBloomCountersAtLeast(m, n, probes_, kMax + 1));
    s.put("overflow_bound", CountingBloomOverflowBound(m, n, probes_, kMax + 1));
  }

  // The value of counter c (tests read it).
  std::uint64_t counter(std::uint64_t c) const { return Get(c); }

 private:
  // insert()'s work on the key's hash: one added to each of its k counters, but at 15.
  void InsertHash(std::uint64_t a) {
    const std::uint64_t b = std::rotl(a, 32) | 1;  // odd step, as in bloom.h
    for (int i = 0; i < probes_; ++i, a += b) {
      const std::uint64_t c = ReduceRange(a, counters_);
      const std::uint64_t v = Get(c);
      if (v == kMax) {
        ++overflows_;  // the increment is lost: the counter is stuck
        continue;
      }
      Add(c, 1);
      if (v + 1 == kMax) ++saturated_;
    }
    ++keys_;
  }

  std::uint64_t Get(std::uint64_t c) const {
    return (words_[c / kPerWord] >> (c % kPerWord * kCounterBits)) & kMax;
  }
  // Adds +1 or -1 to counter c, which the caller has checked is not at its limit.
  void Add(std::uint64_t c, int delta) {
    const std::uint64_t unit = std::uint64_t{1} << (c % kPerWord * kCounterBits);
    if (delta > 0) {
      words_[c / kPerWord] += unit;
    } else {
      words_[c / kPerWord] -= unit;
    }
  }

  // k probes; kProbes > 0 fixes k at compile time (then probes_ equals it), so the probe loop
  // unrolls and every probe's address is computed ahead of the loads.
  //
  // The first kBranchFreeProbes counters are read without a branch between them and tested
  // once: an absent key's probes each find a nonzero counter with probability about 1/2 at the
  // optimal k, so one branch per probe mispredicts about once per absent lookup, while three
  // read together pass together only 1/8 of the time. The rest exit early, as a member's are
  // all taken. Measured at FastFilter's configuration (n = 10^6, 10 counters a key, k = 7,
  // -march=native, 5 alternating runs, medians, ns per lookup out of line): absent 22.0 -> 12.4,
  // members 11.5 -> 12.3 (every probe with its own branch -> the first three together; all
  // seven together read 13.3-13.8 for both, 3 runs).
  static constexpr int kBranchFreeProbes = 3;

  template <int kProbes>
  bool ContainsHashWith(std::uint64_t a) const {
    const std::uint64_t b = std::rotl(a, 32) | 1;
    const int probes = kProbes > 0 ? kProbes : probes_;
    int i = 0;
    if constexpr (kProbes >= kBranchFreeProbes) {
      // Counter v is nonzero exactly when bit 4 of v + 15 is set (v <= 15).
      std::uint64_t all = ~std::uint64_t{0};
#pragma GCC unroll 4
      for (; i < kBranchFreeProbes; ++i, a += b) all &= Get(ReduceRange(a, counters_)) + kMax;
      if ((all & (kMax + 1)) == 0) return false;
    }
#pragma GCC unroll 16
    for (; i < probes; ++i, a += b) {
      // Early exit: the absent keys that passed the first three mostly stop at the next one.
      if (Get(ReduceRange(a, counters_)) == 0) return false;
    }
    return true;
  }

  // k = 1 .. 16 dispatched to a compile-time copy: a branch on the filter's own k, taken the
  // same way by every lookup.
  template <int... kCounts>
  bool ContainsHashDispatched(std::integer_sequence<int, kCounts...>, std::uint64_t a) const {
    bool answer = false;
    const bool fixed =
        ((probes_ == kCounts + 1 && (answer = ContainsHashWith<kCounts + 1>(a), true)) || ...);
    return fixed ? answer : ContainsHashWith<0>(a);
  }

  bool ContainsHash(std::uint64_t a) const {
    return ContainsHashDispatched(std::make_integer_sequence<int, 16>{}, a);
  }

  std::uint64_t seed_;
  double bits_per_key_target_;
  std::vector<std::uint64_t> words_;
  std::uint64_t counters_ = 0;
  int probes_ = 1;
  std::size_t keys_ = 0;
  std::uint64_t saturated_ = 0;
  std::uint64_t overflows_ = 0;
};

}  // namespace amq
