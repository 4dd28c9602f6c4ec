// filters/counting_bloom.h - counting Bloom filter with 4-bit counters (L. Fan, P. Cao,
// J. Almeida, A. Z. Broder, "Summary cache: a scalable wide-area web cache sharing protocol",
// IEEE/ACM Transactions on Networking 8(3), 2000, section V.C).
//
// Layout: a Bloom filter whose m bits are m 4-bit counters, sixteen to a 64-bit word. A key's
// k positions come from one 64-bit hash by double hashing on 32-bit words (A. Kirsch,
// M. Mitzenmacher, "Less hashing, same performance: building a better Bloom filter", ESA 2006):
// probe i takes a_i = a + i b mod 2^32, a the hash's high half and b its low half made odd;
// a_i's word is (a_i W) >> 32 of the W words (Lemire's multiply-shift reduction, which the high
// bits of a_i decide) and its counter in the word a_i's low four bits. So W is at most 2^32 (2^36
// counters, 32 GiB), and one 32-bit product per probe finds its counter. insert adds
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
// Lookups: with AVX-512 F (-march=native on this machine) eight probes at once, their words in
// one gather and their counters tested in one compare, with no branch between probes; otherwise
// (the portable path) probe by probe. contains_portable() is the portable path in every build:
// counting_bloom_avx512_test.cc requires the same answers from both.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

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
    if (words > kMaxWords) {
      throw std::invalid_argument("counting_bloom: " + std::to_string(words) +
                                  " words of counters asked for; at most 2^32 (32 GiB)");
    }
    words_.assign(words, 0);
    word_count_ = words;
    probes_ = std::max(1, static_cast<int>(std::lround(per_key * std::log(2.0))));
    full_rounds_ = (probes_ - 1) / 8;
    last_lanes_ = static_cast<std::uint8_t>((1U << (probes_ - 8 * full_rounds_)) - 1);
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
          auto [a, b] = ProbesOf(hash);
          for (int i = 0; i < probes_; ++i, a += b) __builtin_prefetch(&words_[WordOf(a)], 1);
          return hash;
        },
        [this](std::size_t, std::uint64_t hash) { InsertHash(hash); });
    return keys.size();
  }

  // Removes one copy of a key inserted before. Saturated counters are left as they are.
  bool erase(std::uint64_t key) {
    const std::uint64_t h = HashKey(key, seed_);
    if (!ContainsHash(h)) return false;
    auto [a, b] = ProbesOf(h);
    for (int i = 0; i < probes_; ++i, a += b) {
      const std::uint64_t c = CounterOf(a);
      const std::uint64_t v = Get(c);
      // v > 0 always holds for a key inserted before; the test keeps a caller's erase of a
      // false positive whose probes repeat a counter from wrapping it to 15.
      if (v != kMax && v > 0) Add(c, -1);
    }
    --keys_;
    return true;
  }

  bool contains(std::uint64_t key) const { return ContainsHash(HashKey(key, seed_)); }
  // The portable lookup in every build (the SIMD path's twin, for tests).
  bool contains_portable(std::uint64_t key) const {
    return ContainsHashPortable(HashKey(key, seed_));
  }

  std::size_t size_in_bytes() const { return words_.size() * sizeof(std::uint64_t); }
  std::span<const std::uint8_t> bytes() const {
    return {reinterpret_cast<const std::uint8_t*>(words_.data()), size_in_bytes()};
  }

  Theory theory() const {
    return {BloomFpr(probes_, static_cast<double>(keys_), static_cast<double>(counters())),
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
    const double m = static_cast<double>(counters()), n = static_cast<double>(keys_);
    s.put("hash_probes", probes_);
    s.put("counters", counters());
    s.put("saturated_counters", saturated_);
    s.put("saturated_expected", CountingBloomCountersAtLeast(m, n, probes_, kMax));
    s.put("counter_overflows", overflows_);
    s.put("overflow_expected", CountingBloomCountersAtLeast(m, n, probes_, kMax + 1));
    s.put("overflow_bound", CountingBloomOverflowBound(m, n, probes_, kMax + 1));
  }

  // The value of counter c (tests read it).
  std::uint64_t counter(std::uint64_t c) const { return Get(c); }

 private:
  static constexpr std::uint64_t kMaxWords = std::uint64_t{1} << 32;

  std::uint64_t counters() const { return word_count_ * kPerWord; }  // m

  // A key's first probe a and step b (odd, so k <= 2^32 probes are distinct); probe i is a + i b.
  struct Probes {
    std::uint32_t a, b;
  };
  static Probes ProbesOf(std::uint64_t hash) {
    return {static_cast<std::uint32_t>(hash >> 32), static_cast<std::uint32_t>(hash) | 1U};
  }
  std::uint64_t WordOf(std::uint32_t probe) const { return (std::uint64_t{probe} * word_count_) >> 32; }
  std::uint64_t CounterOf(std::uint32_t probe) const {
    return WordOf(probe) * kPerWord + (probe & (kPerWord - 1));
  }
  std::uint64_t CounterAt(std::uint32_t probe) const {
    return (words_[WordOf(probe)] >> ((probe & (kPerWord - 1)) * kCounterBits)) & kMax;
  }

  // insert()'s work on the key's hash: one added to each of its k counters, but at 15.
  void InsertHash(std::uint64_t hash) {
    auto [a, b] = ProbesOf(hash);
    for (int i = 0; i < probes_; ++i, a += b) {
      const std::uint64_t c = CounterOf(a);
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
  // all taken. Measured at FastFilter's configuration, before the AVX-512 path and with the
  // earlier 64-bit indexing (n = 10^6, 10 counters a key, k = 7, -march=native, 5 alternating
  // runs, medians, ns per lookup out of line): absent 22.0 -> 12.4,
  // members 11.5 -> 12.3 (every probe with its own branch -> the first three together; all
  // seven together read 13.3-13.8 for both, 3 runs).
  static constexpr int kBranchFreeProbes = 3;

  template <int kProbes>
  bool ContainsHashWith(std::uint64_t hash) const {
    auto [a, b] = ProbesOf(hash);
    const int probes = kProbes > 0 ? kProbes : probes_;
    int i = 0;
    if constexpr (kProbes >= kBranchFreeProbes) {
      // Counter v is nonzero exactly when bit 4 of v + 15 is set (v <= 15).
      std::uint64_t all = ~std::uint64_t{0};
#pragma GCC unroll 4
      for (; i < kBranchFreeProbes; ++i, a += b) all &= CounterAt(a) + kMax;
      if ((all & (kMax + 1)) == 0) return false;
    }
#pragma GCC unroll 16
    for (; i < probes; ++i, a += b) {
      // Early exit: the absent keys that passed the first three mostly stop at the next one.
      if (CounterAt(a) == 0) return false;
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

  bool ContainsHashPortable(std::uint64_t hash) const {
    return ContainsHashDispatched(std::make_integer_sequence<int, 16>{}, hash);
  }

#if defined(__AVX512F__)
  // Eight probes a round, every load of a round issued at once and no branch between probes:
  // the lanes hold a + i b (only their low 32 bits count: vpmuludq reads no more), the words
  // come in one gather, and one test finds any counter at zero. Against FastFilter's
  // CountingBloom10 at its configuration (n = 10^6, 10 counters a key, k = 7, -march=native,
  // both out of line, one process, same keys; AMD EPYC, 2026-12-04), medians of the per-round
  // ratios of 5 runs of 11 rounds: members 0.90-0.95 of its time against 1.19-1.20 for the
  // portable path with the earlier 64-bit indexing (a probe-by-probe loop with this indexing
  // and k fixed at 7 came to 0.98-1.02 in 3 runs), non-members 0.64-0.81 against 0.75-0.87.
  bool ContainsHashAvx512(std::uint64_t hash) const {
    const auto [a, b] = ProbesOf(hash);
    const __m512i lane = _mm512_loadu_si512(kLaneNumbers);
    // Lane i holds a + i b: the step times the lane number in one 32x32 -> 64-bit multiply.
    __m512i probe = _mm512_add_epi64(_mm512_set1_epi64(a), _mm512_mul_epu32(_mm512_set1_epi64(b), lane));
    const __m512i step = _mm512_set1_epi64(static_cast<long long>(std::uint64_t{b} * 8));
    for (int round = 0; round < full_rounds_; ++round, probe = _mm512_add_epi64(probe, step)) {
      if (!AllNonzeroAvx512(probe, __mmask8{0xff})) return false;
    }
    return AllNonzeroAvx512(probe, last_lanes_);
  }

  static constexpr std::uint64_t kLaneNumbers[8] = {0, 1, 2, 3, 4, 5, 6, 7};

  // Are the counters of the probes in `lanes` all nonzero?
  bool AllNonzeroAvx512(__m512i probe, __mmask8 lanes) const {
    const __m512i fifteen = _mm512_set1_epi64(static_cast<long long>(kMax));
    const __m512i word = _mm512_srli_epi64(_mm512_mul_epu32(probe, _mm512_set1_epi64(static_cast<long long>(word_count_))), 32);
    const __m512i got = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), lanes, word, words_.data(), 8);
    const __m512i shift = _mm512_slli_epi64(_mm512_and_si512(probe, fifteen), 2);
    return _mm512_mask_test_epi64_mask(lanes, _mm512_srlv_epi64(got, shift), fifteen) == lanes;
  }
#endif

  bool ContainsHash(std::uint64_t hash) const {
#if defined(__AVX512F__)
    return ContainsHashAvx512(hash);
#else
    return ContainsHashPortable(hash);
#endif
  }

  std::uint64_t seed_;
  double bits_per_key_target_;
  std::vector<std::uint64_t> words_;
  std::uint64_t word_count_ = 1;  // words_.size(), at most 2^32
  int probes_ = 1;
  // The AVX-512 lookup's rounds of eight probes: all but the last, and the last one's lanes.
  int full_rounds_ = 0;
  std::uint8_t last_lanes_ = 1;
  std::size_t keys_ = 0;
  std::uint64_t saturated_ = 0;
  std::uint64_t overflows_ = 0;
};

}  // namespace amq
