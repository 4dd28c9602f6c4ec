// filters/quotient_common.h - what the three quotient filters (filters/quotient.h, rsqf.h,
// cqf.h) share: one sizing rule. They differ only in its constants (metadata bits per slot,
// default load, smallest table), so one rule keeps their --fpr, --bits-per-key and --max-load
// comparable by construction.
//
// Sizing, m metadata bits per slot, target load L (--max-load, else the filter's default):
//   --fpr eps          r = ceil(log2(1/eps))
//   --bits-per-key B   r = floor(B L - m): at load L a slot costs B L bits, m of them metadata
//   r is clamped to 2..32; q is the smallest q >= q_min with 2^q L >= capacity.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "core/filter.h"

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

}  // namespace amq
