// filters/quotient_common.h - what the three quotient filters (filters/quotient.h, rsqf.h,
// cqf.h) share: one sizing rule, and the keyless merge's geometry and interleaving. They
// differ only in the sizing's constants (metadata bits per slot, default load, smallest table),
// so one rule keeps their --fpr, --bits-per-key and --max-load comparable by construction.
//
// Sizing, m metadata bits per slot, target load L (--max-load, else the filter's default):
//   --fpr eps          r = ceil(log2(1/eps))
//   --bits-per-key B   r = floor(B L - m): at load L a slot costs B L bits, m of them metadata
//   r is clamped to 2..32; q is the smallest q >= q_min with 2^q L >= capacity.
//
// Merge: the fingerprints of two filters of one seed are prefixes of the same hash, so both are
// cut to the shorter length p; the result takes the larger q, doubled until the stored slots fit
// at the larger max_load, and r = p - q. Each input streams its fingerprints in increasing
// order, so one sequential pass interleaves them into a bulk load.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/filter.h"
#include "filters/theory_formulas.h"

namespace amq {

struct QuotientSizing {
  double default_max_load;
  double metadata_bits;  // per slot
  int min_quotient_bits;

  double LoadFor(const FilterParams& p) const {
    return p.max_load > 0 ? p.max_load : default_max_load;
  }

  int RemainderBitsFor(const FilterParams& p) const {
    if (p.bits_per_key <= 0) {
      return std::clamp(static_cast<int>(std::ceil(std::log2(1.0 / p.fpr_or_default()))), 2, 32);
    }
    const double slot_bits = p.bits_per_key * LoadFor(p);
    // A whole m (the classic QF's) is taken off after the floor, as that filter always did:
    // the same r in exact arithmetic, but a build that fuses B L - m into one multiply-add
    // (-march=native) rounds differently where B L falls just short of a whole number.
    const int r = metadata_bits == std::floor(metadata_bits)
                      ? static_cast<int>(std::floor(slot_bits)) - static_cast<int>(metadata_bits)
                      : static_cast<int>(std::floor(slot_bits - metadata_bits));
    return std::clamp(r, 2, 32);
  }

  int QuotientBitsFor(std::size_t capacity, double load) const {
    int q = min_quotient_bits;
    while (std::ldexp(load, q) < static_cast<double>(capacity)) ++q;
    return q;
  }
};

// The published bits-per-key formulas add_stats reports beside the measured size, at the load
// alpha reached: seed 002's (r + m) / alpha, and seed 000's (q + r + 3) / alpha, which also
// charges each key its log2(n / alpha) = q quotient bits. 0 while the filter is empty.
inline void PutSeedBitsPerKey(Stats& s, double n, int r, double metadata_bits, double alpha) {
  s.put("bits_per_key_seed002_formula", n > 0 ? QuotientBitsPerKey(r, metadata_bits, alpha) : 0.0);
  s.put("bits_per_key_seed000_formula", n > 0 ? QuotientSurveyBitsPerKey(n, r, alpha) : 0.0);
}

// What a merge needs to know of each input.
struct QuotientShape {
  std::uint64_t seed;
  int q, r;
  double max_load;
  std::uint64_t slots_used;
};

struct MergedGeometry {
  int q, r;
  int cut_a, cut_b;  // low fingerprint bits each input drops to reach the common length p
  double max_load;
};

// Throws when the seeds differ (different hashes cannot share a table) or fewer than min_r
// remainder bits would be left.
inline MergedGeometry MergeGeometry(std::string_view name, int min_r, const QuotientShape& a,
                                    const QuotientShape& b) {
  if (a.seed != b.seed) throw std::invalid_argument(std::string(name) + " merge: different seeds");
  const int p = std::min(a.q + a.r, b.q + b.r);
  const double load = std::max(a.max_load, b.max_load);
  int q = std::max(a.q, b.q);
  while (std::ldexp(load, q) < static_cast<double>(a.slots_used + b.slots_used)) ++q;
  if (p - q < min_r) {
    throw std::invalid_argument(std::string(name) + " merge: " + std::to_string(p - q) +
                                " remainder bits left, needs " + std::to_string(min_r));
  }
  return {q, p - q, a.q + a.r - p, b.q + b.r - p, load};
}

// A cursor's next fingerprint and its count: the CQF's cursor gives each distinct fingerprint
// with its count, the others give one fingerprint per stored copy.
template <class Cursor>
bool NextEntry(Cursor& cursor, std::uint64_t& fingerprint, std::uint64_t& count) {
  if constexpr (requires { cursor.Next(fingerprint, count); }) {
    return cursor.Next(fingerprint, count);
  } else {
    count = 1;
    return cursor.Next(fingerprint);
  }
}

// Calls emit(fingerprint cut to p, count) for both streams' entries in increasing order; of
// two equal cut fingerprints a's comes first.
template <class Cursor, class Emit>
void InterleaveSorted(Cursor& a, Cursor& b, const MergedGeometry& g, Emit emit) {
  std::uint64_t fa = 0, fb = 0, na = 0, nb = 0;
  bool has_a = NextEntry(a, fa, na), has_b = NextEntry(b, fb, nb);
  while (has_a || has_b) {
    if (has_b && (!has_a || (fb >> g.cut_b) < (fa >> g.cut_a))) {
      emit(fb >> g.cut_b, nb);
      has_b = NextEntry(b, fb, nb);
    } else {
      emit(fa >> g.cut_a, na);
      has_a = NextEntry(a, fa, na);
    }
  }
}

}  // namespace amq
