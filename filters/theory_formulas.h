// filters/theory_formulas.h - the filters' theory formulas, each written once as a free function.
//
// Each filter's header cites its paper and derives its formulas in its opening comment; the
// code of those formulas is here. A filter's theory() (and the formula statistics of its
// add_stats) call these functions, and `amqbench theory` (commands/theory_command.cc) evaluates
// them for plots/theory.py, so the report's theory curves and checks use the very numbers the
// filters report instead of a Python copy that could drift from them.
//
// Three kinds of function:
//   a filter's formula   of the geometry it built (fingerprint bits, load, keys, ...): what its
//                        theory() reports;
//   a family curve       bits/key as a function of the target eps, the same formula with the
//                        fingerprint width made continuous, log2(1/eps) (the report draws it);
//   a seed's formula     a formula a seed document states, which the report checks.
// Moving a formula here must not move a bit of any result: every function keeps the operations
// in the order the filters computed them (the CI baseline compares every theory field).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstddef>
#include <cstdint>

namespace amq {

// ---- shared --------------------------------------------------------------------------------

// log2(1/eps): the bits per key below which no filter reaches FPR eps (Carter, Floyd, Gill,
// Markowsky, Wegman, STOC 1978; Broder and Mitzenmacher, Internet Mathematics 1(4), 2004). The
// family curves below are written in it.
inline double LowerBoundBitsPerKey(double fpr) { return std::log2(1.0 / fpr); }

// A non-key matches a k-bit fingerprint that is independent of its own with probability
// 2^-k: the FPR of XOR, binary fuse and Ribbon filters (filters/xor.h, binary_fuse.h, ribbon.h).
inline double FingerprintFpr(int fingerprint_bits) { return std::ldexp(1.0, -fingerprint_bits); }

// A table of slots of `bits_per_slot` bits, a share `load` of them full, costs
// bits_per_slot / load bits per key: cuckoo (f / L), the adaptive cuckoo filters and the
// quotient family ((r + metadata) / L).
inline double TableBitsPerKey(double bits_per_slot, double load) { return bits_per_slot / load; }

// A lookup compares its fingerprint with `probes` slots, each full with probability `load` and
// then holding one of `codes` equally likely fingerprints: the log of the probability that none
// matches, probes load ln(1 - 1/codes). Filters whose slots hold several code ranges sum it.
inline double FingerprintMissLog(double probes, double load, double codes) {
  return probes * load * std::log1p(-1.0 / codes);
}

// The same lookup's FPR, 1 - (1 - 1/codes)^(probes load) (filters/cuckoo.h, filters/acf.h).
inline double FingerprintMatchFpr(double probes, double load, double codes) {
  return -std::expm1(FingerprintMissLog(probes, load, codes));
}

// ---- Bloom (filters/bloom.h) ---------------------------------------------------------------

// The optimal bits per key for FPR eps, log2(1/eps) / ln 2 = 1.44 log2(1/eps) (at k = (m/n)
// ln 2 probes): the filter's size for --fpr eps, and the family curve.
inline double BloomBitsPerKey(double fpr) { return LowerBoundBitsPerKey(fpr) / std::log(2.0); }

// (1 - e^(-k n / m))^k for k probes, n keys and m bits.
inline double BloomFpr(int probes, double keys, double bits) {
  return std::pow(1.0 - std::exp(-probes * keys / bits), probes);
}

// ---- split-block Bloom (filters/blocked_bloom.h, blocked_bloom256.h) -----------------------

// A split-block layout: blocks of 8 words, a key setting one bit in each word of one block
// (k = 8). Ours has 512-bit blocks of 64-bit words; Parquet's (blocked_bloom256) 256-bit
// blocks of 32-bit words.
struct SplitBlockShape {
  double block_bits;
  double word_bits;
};
inline constexpr SplitBlockShape kBlockedBloomShape{512, 64};
inline constexpr SplitBlockShape kParquetBloomShape{256, 32};
inline constexpr double kBlockedBloomBlockBits = kBlockedBloomShape.block_bits;

// sum_j Pois(j; lambda) (1 - (1 - 1/w)^j)^8, lambda keys per block of 8 w-bit words: a block
// holding j keys has each of its 8 words' probed bit set with probability 1 - (1 - 1/w)^j.
inline double SplitBlockFpr(double keys_per_block, double word_bits) {
  if (keys_per_block <= 0) return 0.0;
  // Sum the Poisson mixture in log space so large lambda does not underflow e^-lambda.
  const double lambda = keys_per_block;
  const int last = static_cast<int>(lambda + 12 * std::sqrt(lambda) + 40);
  double fpr = 0;
  for (int j = 0; j <= last; ++j) {
    const double log_p = j * std::log(lambda) - lambda - std::lgamma(j + 1.0);
    fpr += std::exp(log_p) * std::pow(1.0 - std::pow(1.0 - 1.0 / word_bits, j), 8);
  }
  return fpr;
}

// The same FPR at B bits per key: lambda = block bits / B keys per block.
inline double SplitBlockFprAtBitsPerKey(double bits_per_key, SplitBlockShape shape) {
  return SplitBlockFpr(shape.block_bits / bits_per_key, shape.word_bits);
}

// The filter's size for --fpr eps: the smallest bits/key on a grid of 0.01 from 1 (up to 256)
// whose FPR is at most eps. theory() reports it. The scan costs up to 25,500 Poisson sums: a
// benchmark that constructs a small filter per iteration (untimed, but its wall time) spent
// minutes in it. The last answer is kept per thread and shape, so repeated constructions at
// one target scan once, with the very same result.
inline double SplitBlockBitsPerKeyFor(double fpr, SplitBlockShape shape) {
  thread_local double last_fpr = -1, last_bits = 0, last_block_bits = 0;
  if (fpr == last_fpr && shape.block_bits == last_block_bits) return last_bits;
  double bits = 1.0;
  while (bits < 256 && SplitBlockFprAtBitsPerKey(bits, shape) > fpr) bits += 0.01;
  last_fpr = fpr;
  last_bits = bits;
  last_block_bits = shape.block_bits;
  return bits;
}

// The family curve: the bits/key whose FPR is exactly eps, by 60 halvings of [1, 256] (the
// upper end of the last interval: its FPR is at most eps). Continuous where the filter's size
// above steps by 0.01, so the curve shows what the grid costs.
inline double SplitBlockBitsPerKey(double fpr, SplitBlockShape shape) {
  double lo = 1.0, hi = 256.0;
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    if (SplitBlockFprAtBitsPerKey(mid, shape) <= fpr) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return hi;
}

// blocked_bloom's (512-bit blocks, 64-bit words) instances of the four above.
inline double BlockedBloomFpr(double keys_per_block) {
  return SplitBlockFpr(keys_per_block, kBlockedBloomShape.word_bits);
}
inline double BlockedBloomFprAtBitsPerKey(double bits_per_key) {
  return SplitBlockFprAtBitsPerKey(bits_per_key, kBlockedBloomShape);
}
inline double BlockedBloomBitsPerKeyFor(double fpr) {
  return SplitBlockBitsPerKeyFor(fpr, kBlockedBloomShape);
}
inline double BlockedBloomBitsPerKey(double fpr) {
  return SplitBlockBitsPerKey(fpr, kBlockedBloomShape);
}

// ---- counting Bloom (filters/counting_bloom.h) ---------------------------------------------

// Fan, Cao, Almeida, Broder, "Summary cache", IEEE/ACM ToN 8(3), 2000, section V.C. The FPR is
// the Bloom filter's over m counters (BloomFpr); each counter takes kCountingBloomCounterBits.
inline constexpr int kCountingBloomCounterBits = 4;

// 4 log2(1/eps) / ln 2: a Bloom filter's optimal bits/key at FPR eps, four bits per position.
inline double CountingBloomBitsPerKey(double fpr) {
  return kCountingBloomCounterBits * BloomBitsPerKey(fpr);
}

// The paper's bound on a counter reaching j: Pr(c >= j) <= C(nk, j) / m^j <= (e n k / (j m))^j,
// and over all m counters Pr(max c >= j) <= m (e n k / (j m))^j; at the optimal k = (m/n) ln 2
// that is m (e ln 2 / j)^j, and 4-bit counters overflow at j = 16: m (e ln 2 / 16)^16
// ~ 1.37e-15 m. This general form takes the filter's own n, k and m.
inline double CountingBloomOverflowBound(double counters, double keys, int probes, int level) {
  return counters * std::pow(std::exp(1.0) * keys * probes / (level * counters), level);
}

// The exact tail the bound rounds up: each counter receives Binomial(nk, 1/m) increments (a
// key's k probes taken as independent), so the expected number of counters at level j or
// above is m Pr(Bin(nk, 1/m) >= j). Summed from j up in log space: the tail is far below the
// double's resolution of 1 - Pr(< j) at the optimal k (about 1e-17 per counter at j = 16).
// Pr(max c >= j) lies between 1 - e^-E and E for this expectation E (union bound).
inline double CountingBloomCountersAtLeast(double counters, double keys, int probes, int level) {
  const double trials = keys * probes;
  if (counters <= 0 || trials < level) return 0.0;
  const double p = 1.0 / counters;
  const double mean = trials * p;
  const double last = std::min(trials, std::max<double>(level, mean) + 40 * std::sqrt(mean + 1) + 200);
  double tail = 0;
  for (double j = level; j <= last; ++j) {
    tail += std::exp(std::lgamma(trials + 1) - std::lgamma(j + 1) - std::lgamma(trials - j + 1) +
                     j * std::log(p) + (trials - j) * std::log1p(-p));
  }
  return counters * tail;
}

// ---- cuckoo (filters/cuckoo.h) -------------------------------------------------------------

// 1 - (1 - 1/(2^f - 1))^(2 b alpha): a lookup compares against the 2b slots of two buckets,
// each full with probability alpha; fingerprint 0 marks an empty slot, so a stored fingerprint
// is one of 2^f - 1 values.
inline double CuckooFpr(int fingerprint_bits, double load, int slots_per_bucket) {
  return FingerprintMatchFpr(2.0 * slots_per_bucket, load, std::ldexp(1.0, fingerprint_bits) - 1.0);
}

// The paper's (and the AMQ survey's) fingerprint width for FPR eps: ceil(log2(1/eps)) + ceil(log2(2b)).
inline int CuckooFingerprintBitsFor(double fpr, int slots_per_bucket) {
  return static_cast<int>(std::ceil(LowerBoundBitsPerKey(fpr))) +
         static_cast<int>(std::ceil(std::log2(2.0 * slots_per_bucket)));
}

// The smallest power of two m >= min_buckets with b m >= n / L. b m is a whole number, so
// comparing it with ceil(n / L) is the same test.
inline std::uint64_t CuckooBucketsFor(double keys, double max_load, int slots_per_bucket,
                                      std::uint64_t min_buckets) {
  const double min_slots = std::ceil(keys / max_load);
  std::uint64_t buckets = min_buckets;
  while (static_cast<double>(buckets * slots_per_bucket) < min_slots) buckets *= 2;
  return buckets;
}

// The family curve: f / L with the continuous width f = log2(1/eps) + log2(2b).
inline double CuckooBitsPerKey(double fpr, double load, int slots_per_bucket) {
  return TableBitsPerKey(LowerBoundBitsPerKey(fpr) + std::log2(2.0 * slots_per_bucket), load);
}

// The AMQ survey's sizing, which the report's lab section checks: f by CuckooFingerprintBitsFor, the
// smallest power-of-two bucket count from one bucket up, and what they give for n keys.
struct CuckooLabGeometry {
  int fingerprint_bits = 0;
  std::uint64_t buckets = 0;
  double load = 0;          // n / (b m)
  double bits_per_key = 0;  // f b m / n
};

inline CuckooLabGeometry CuckooSurveyLabGeometry(double keys, double fpr, double max_load,
                                                int slots_per_bucket) {
  CuckooLabGeometry g;
  g.fingerprint_bits = CuckooFingerprintBitsFor(fpr, slots_per_bucket);
  g.buckets = CuckooBucketsFor(keys, max_load, slots_per_bucket, 1);
  const std::uint64_t slots = g.buckets * slots_per_bucket;
  g.load = keys / static_cast<double>(slots);
  g.bits_per_key = static_cast<double>(g.fingerprint_bits * slots) / keys;
  return g;
}

// ---- quotient family (filters/quotient.h, rsqf.h, cqf.h) -----------------------------------

// 1 - (1 - 2^-(q+r))^n: a non-key matches iff one of the n stored (q + r)-bit fingerprints
// equals its own (classic QF, RSQF).
inline double QuotientFpr(double keys, int quotient_bits, int remainder_bits) {
  return -std::expm1(keys * std::log1p(-std::ldexp(1.0, -(quotient_bits + remainder_bits))));
}

// n / 2^(q+r) for n distinct stored fingerprints, exactly (CQF: a random non-key's fingerprint
// is one of 2^(q+r) values).
inline double CqfFpr(double distinct_fingerprints, int quotient_bits, int remainder_bits) {
  return std::ldexp(distinct_fingerprints, -(quotient_bits + remainder_bits));
}

// The large-table limit of both at load alpha = n / 2^q: 1 - e^(-alpha / 2^r) ~ alpha 2^-r
// (the run of a quotient holds Poisson(alpha) remainders).
inline double QuotientFprAtLoad(int remainder_bits, double load) {
  return -std::expm1(-std::ldexp(load, -remainder_bits));
}

// (r + metadata bits) / alpha: r-bit remainders and the metadata bits per slot (3 for the
// classic QF, 2.125 for the RSQF and CQF), a share alpha of the slots full. theory() reports it
// at the requested load L; at the load reached it is the Quotient Filter article's formula.
inline double QuotientBitsPerKey(double remainder_bits, double metadata_bits, double load) {
  return TableBitsPerKey(remainder_bits + metadata_bits, load);
}

// The family curve: the same with r = log2(1/eps).
inline double QuotientBitsPerKeyForFpr(double fpr, double load, double metadata_bits) {
  return QuotientBitsPerKey(LowerBoundBitsPerKey(fpr), metadata_bits, load);
}

// The AMQ survey's (log2(n / alpha) + r + 3) / alpha: it counts the q = log2(n / alpha) quotient bits
// as stored per key, with 3 metadata bits. The quotient is the slot's address and is never
// stored, which is what the report shows; n / alpha is exactly 2^q, so log2 gives q exactly.
inline double QuotientSurveyBitsPerKey(double keys, double remainder_bits, double load) {
  return (std::log2(keys / load) + remainder_bits + 3.0) / load;
}

// Linear probing with random hashing in a large table (Knuth, The Art of Computer Programming
// vol. 3, §6.4): a key's mean distance from its home slot, alpha / (2 (1 - alpha)), and an
// unsuccessful search's mean probes to an empty slot, (1 + 1/(1 - alpha)^2) / 2. Total
// displacement does not depend on the order within clusters, so a quotient filter's sorted runs
// obey the same law.
inline double KnuthDisplacementMean(double load) { return load / (2 * (1 - load)); }
inline double KnuthProbesToEmptyMean(double load) {
  return 0.5 * (1 + 1 / ((1 - load) * (1 - load)));
}

// The same mean displacement in a finite circular table of m slots holding n keys, without the
// large-table limit (Knuth, vol. 3, 6.4, Theorem K): a successful search takes
// C_n = (1 + Q(m, n - 1)) / 2 probes, Q(m, k) = sum over j >= 0 of k (k - 1) ... (k - j + 1) / m^j,
// so the mean displacement is (Q(m, n - 1) - 1) / 2. It lies below alpha / (2 (1 - alpha)) by
// about alpha / (2 (1 - alpha)^3 m): 4% at load 0.99 in 2^18 slots, more than a judgement within
// a few percent can ignore. The terms fall once j passes about sqrt(m); the sum stops when they
// no longer move it.
inline double KnuthDisplacementMeanFinite(double slots, double keys) {
  if (keys < 1 || slots < keys) return keys < 1 ? 0.0 : std::numeric_limits<double>::infinity();
  double q = 0, term = 1;
  for (double j = 0; j < keys && term > 1e-17 * q; ++j) {
    q += term;
    term *= (keys - 1 - j) / slots;
  }
  return (q - 1) / 2;
}

// ---- XOR (filters/xor.h) -------------------------------------------------------------------

inline constexpr double kXorSlotsPerKey = 1.23;
inline constexpr double kXorExtraSlots = 32;

// (1.23 n + 32) k / n: the paper's capacity, its additive 32 included, for n keys of k bits.
inline double XorBitsPerKey(double keys, int fingerprint_bits) {
  return (kXorSlotsPerKey * keys + kXorExtraSlots) * fingerprint_bits / keys;
}

// The family curve: the large-n limit with k = log2(1/eps), 1.23 log2(1/eps).
inline double XorBitsPerKeyForFpr(double fpr) {
  return kXorSlotsPerKey * LowerBoundBitsPerKey(fpr);
}

// ---- Xor+ (filters/xor_plus.h) -------------------------------------------------------------

// rank9's bits per bitmap bit: the bit, and 128 bits of counts per 512 (Vigna, WEA 2008).
inline constexpr double kRank9BitsPerBit = 1.25;

// (f (1.23 n + 32 - z) + 1.25 (1.23 n + 32) / 3) / n: XOR's slots less the z zero slots left out
// of the first block, plus that block's bitmap and rank counts.
inline double XorPlusBitsPerKey(double keys, int fingerprint_bits, double zero_slots) {
  const double slots = kXorSlotsPerKey * keys + kXorExtraSlots;
  return (fingerprint_bits * (slots - zero_slots) + kRank9BitsPerBit * slots / 3) / keys;
}

// ---- binary fuse (filters/binary_fuse.h) ---------------------------------------------------

// The paper's size factor at n keys (n < 2 as 2): 3-wise max(1.125, 0.875 + 0.25 ln 10^6 / ln n),
// 4-wise max(1.075, 0.77 + 0.305 ln 600000 / ln n).
inline double BinaryFuseSizeFactor(std::size_t keys, int arity) {
  const double log_n = std::log(static_cast<double>(std::max<std::size_t>(keys, 2)));
  return arity == 3 ? std::max(1.125, 0.875 + 0.25 * std::log(1e6) / log_n)
                    : std::max(1.075, 0.77 + 0.305 * std::log(600000.0) / log_n);
}

// size factor * k bits per key.
inline double BinaryFuseBitsPerKey(double size_factor, double fingerprint_bits) {
  return size_factor * fingerprint_bits;
}

// ---- Ribbon (filters/ribbon.h, ribbon_frac.h) ----------------------------------------------

// r (1 + eps_w): m = (1 + eps_w) n slots of r result bits. The family curve takes
// r = log2(1/eps).
inline double RibbonBitsPerKey(double result_bits, double overhead) {
  return result_bits * (1 + overhead);
}

// Homogeneous Ribbon (filters/homog_ribbon.h): the overhead it is sized for at r result bits,
// eps = (4 + r/4) / w (FastFilter's HomogRibbon sizing, kept so the two compare like for like).
inline constexpr double HomogRibbonOverhead(int result_bits, int width) {
  return (4.0 + result_bits / 4.0) / width;
}

// A non-key's row either lies in the span of the key rows (share p of rows: its parities are 0
// against every solution, a false positive) or not (each of the r columns, a uniformly random
// solution, gives it a fair coin): FPR = 2^-r + (1 - 2^-r) p.
inline double HomogRibbonFpr(int result_bits, double span_share) {
  const double floor = std::ldexp(1.0, -result_bits);
  return floor + (1 - floor) * span_share;
}

// Rows sampled at build to estimate p: n / 16, at least 4096 and at most 16384. A sampled row
// is not a key's: its reduction walks the banded rows until an empty slot, much further than a
// key's, so the sample is costly beyond its count (at n = 10^6 and 65536 rows it was a fifth of
// the build, stratified). 16384 rows resolve p to 6.1e-5; at r = 8 (p near 2e-5 at FastFilter's
// overhead) the estimate's standard error is 3.5e-5, 0.9% of the FPR, below the 1.6% binomial
// error of an FPR measured with 10^6 non-keys.
inline std::size_t HomogRibbonSpanSamples(std::size_t keys) {
  return std::clamp<std::size_t>(keys / 16, 4096, 16384);
}

// Fractional result bits: lo columns in the first blocks, lo + 1 in the share q of key starts
// that fall in the last ones.
struct RibbonFracSplit {
  int lower = 7;
  double upper_share = 0.0;
};

// The split for a target: --bits-per-key B (when B > 0) gives r* = B / (1 + eps_w) and
// q = r* - lo (space is linear in q); otherwise r* = log2(1/eps) and q = 2 - 2^(lo+1) eps, the q
// at which the FPR below is eps. r* is clamped to 1 .. 32, lo = floor(r*).
inline RibbonFracSplit RibbonFracSplitFor(double fpr, double bits_per_key, double overhead) {
  const double target =
      bits_per_key > 0 ? bits_per_key / (1 + overhead) : LowerBoundBitsPerKey(fpr);
  const double bits = std::clamp(target, 1.0, 32.0);
  RibbonFracSplit split;
  split.lower = static_cast<int>(std::floor(bits));
  if (split.lower >= 32) return {32, 0.0};
  const double q = bits_per_key > 0 ? bits - split.lower : 2 - std::ldexp(fpr, split.lower + 1);
  // Clamped targets (eps > 1/2) and rounding at a whole log2 land just outside [0, 1).
  split.upper_share = std::clamp(q, 0.0, 1.0);
  return split;
}

// 2^-lo (1 - q/2): a non-key starting in a block of k columns matches with probability 2^-k.
inline double RibbonFracFpr(int lower, double upper_share) {
  return std::ldexp(1 - upper_share / 2, -lower);
}

// (1 + eps_w)(lo + q).
inline double RibbonFracBitsPerKey(int lower, double upper_share, double overhead) {
  return (1 + overhead) * (lower + upper_share);
}

// The family curve: the bits/key of the split for FPR eps.
inline double RibbonFracBitsPerKeyForFpr(double fpr, double overhead) {
  const RibbonFracSplit split = RibbonFracSplitFor(fpr, 0.0, overhead);
  return RibbonFracBitsPerKey(split.lower, split.upper_share, overhead);
}

// ---- Golomb-compressed set (filters/gcs.h) -------------------------------------------------

// Buckets of 32 keys on average, their start offsets kept per group of 32 buckets: a 64-bit base
// per group and a w-bit offset from it per bucket, w sized for 1.5 times a group's expected bits.
inline constexpr int kGcsKeysPerBucket = 32;
inline constexpr int kGcsBucketsPerGroup = 32;
inline constexpr int kGcsGroupBaseBits = 64;
inline constexpr double kGcsOffsetAllowance = 1.5;

// The expected unary bits (sum of the Rice quotients floor(gap / 2^k)) of one bucket of W hash
// values, each value holding a Poisson(p) number of keys. The quotient of a code reaches j when
// its start - the bucket's first value, or a value holding keys - is followed by j 2^k values
// without keys (counting the start's other keys, which would be gaps of 0) and then by a key
// inside the bucket:
//   start 0:   e^(-p j L) (1 - e^(-p (W - j L)))
//   value s:   (1 - e^-p) e^(-p (j L - 1)) (1 - e^(-p (W - s - j L))), summed over s,
// L = 2^k, summed over j with j L < W. For W much larger than 1/p this is close to
//   D q/(1 - q) - p L q/(1 - q)^2 (+ p/2 of the first term)   with q = e^(-p L), D = p W:
// q/(1 - q) per key for a geometric gap, less what the bucket's end saves (the gap past the
// last key of a bucket, the longest on average, is never coded).
inline double GcsUnaryBitsPerBucket(double p, int rice_bits, double width) {
  const double step = std::ldexp(1.0, rice_bits);
  const double occupied = -std::expm1(-p);
  double total = 0;
  for (int j = 1; j * step < width; ++j) {
    const double empty = std::exp(-p * j * step);
    if (empty * p * width < 1e-17 * total) break;  // the rest of the series is below rounding
    const double rest = width - j * step;  // values after the j L empty ones
    const double some_key_in_rest = -std::expm1(-p * rest);
    total += empty * some_key_in_rest;
    // sum over u = 1 .. rest of (1 - e^(-p u)) = rest - e^-p (1 - e^(-p rest)) / (1 - e^-p)
    total += occupied * std::exp(-p * (j * step - 1)) *
             (rest - std::exp(-p) * some_key_in_rest / occupied);
  }
  return total;
}

// Expected bits per key of the Rice-coded stream at gap rate p = n/U in buckets of W values:
// k + 1 fixed bits, and a bucket's unary bits over its p W keys.
inline double GcsCodeBitsPerKey(double p, int rice_bits, double width) {
  return rice_bits + 1 + GcsUnaryBitsPerBucket(p, rice_bits, width) / (p * width);
}

// The standard deviation of the stream's length, in bits, for n keys in B buckets. A bucket's
// unary bits are (last - R) / L: its last key's offset less the sum R of its codes' remainders,
// over L. So the stream's unary bits are (B W - sum tau - sum R) / L, tau = W - last the part of
// a bucket after its last key (Exp(p), variance 1/p^2), and the remainders, for n keys, each
// distributed as an Exp(p) gap mod L (variance 1/p^2 - L^2 q/(1 - q)^2, q = e^(-p L)):
//   sd = sqrt(n (1/p^2 - L^2 q/(1 - q)^2) + B/p^2) / L.
// (Independent geometric gaps would give sqrt(n q)/(1 - q), four times more at p = 2^-8: a
// bucket's gaps add up to its last offset, so they are far from independent.)
inline double GcsCodeBitsSd(double keys, double buckets, double p, int rice_bits) {
  const double step = std::ldexp(1.0, rice_bits);
  const double q = std::exp(-p * step);
  const double remainder_variance = 1.0 / (p * p) - step * step * q / ((1 - q) * (1 - q));
  return std::sqrt(keys * remainder_variance + buckets / (p * p)) / step;
}

// The Rice parameter k with the fewest expected bits per key at gap rate p in buckets of 32/p
// values, the smaller k on a tie: searched within 3 of log2(ln 2 / p), where a geometric gap's
// median lies (7 at p = 2^-8, 6 at 1%); further away the unary part or the k bits grow by 1 bit
// or more per step.
inline int GcsRiceBitsFor(double p) {
  const double width = kGcsKeysPerBucket / p;
  const int centre = static_cast<int>(std::lround(std::log2(std::log(2.0) / p)));
  const int low = std::max(0, centre - 3);
  int best = low;
  double best_bits = GcsCodeBitsPerKey(p, low, width);
  for (int k = low + 1; k <= std::min(56, centre + 3); ++k) {
    const double bits = GcsCodeBitsPerKey(p, k, width);
    if (bits < best_bits) {
      best = k;
      best_bits = bits;
    }
  }
  return best;
}

// w = ceil(log2(1.5 G D c)): a group's offsets fit in w bits unless its first G - 1 buckets
// take 1.5 times the G D c bits a group is expected to take.
inline int GcsOffsetBitsFor(double code_bits) {
  return static_cast<int>(std::ceil(
      std::log2(kGcsOffsetAllowance * kGcsBucketsPerGroup * kGcsKeysPerBucket * code_bits)));
}

// The index per key: w bits per bucket and a 64-bit base per group, w / D + 64 / (G D).
inline double GcsIndexBitsPerKey(int offset_bits) {
  return static_cast<double>(offset_bits) / kGcsKeysPerBucket +
         static_cast<double>(kGcsGroupBaseBits) / (kGcsBucketsPerGroup * kGcsKeysPerBucket);
}

// The filter's space at target eps, and the family curve: hashes in [0, n/eps) (gap rate
// p = eps, buckets of 32/eps values), the best Rice k, and the index. About log2(1/eps) + 1.5
// for the stream and 0.5 for the index.
inline double GcsBitsPerKey(double fpr) {
  const int k = GcsRiceBitsFor(fpr);
  const double code_bits = GcsCodeBitsPerKey(fpr, k, kGcsKeysPerBucket / fpr);
  return code_bits + GcsIndexBitsPerKey(GcsOffsetBitsFor(code_bits));
}

// A non-key's hash, uniform in [0, U), equals one of the n stored ones (collisions counted
// once) with probability 1 - (1 - 1/U)^n, about n/U = eps.
inline double GcsFpr(double keys, double hash_range) {
  return -std::expm1(keys * std::log1p(-1.0 / hash_range));
}

// ---- library filters (filters/leveldb_bloom.h, rocksdb_filters.h) --------------------------

// A policy's documented size per caller key: bits_per_entry for each of its entries plus its
// trailer's bits (LevelDB: B bits per key and the k byte; RocksDB: n + 2 entries and a 40-bit
// trailer).
inline double PolicyBitsPerKey(double bits_per_entry, double entries, double trailer_bits,
                               double keys) {
  return (bits_per_entry * entries + trailer_bits) / keys;
}

}  // namespace amq
