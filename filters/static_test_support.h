// filters/static_test_support.h - the checks the static filters' tests share (xor_test.cc,
// binary_fuse_test.cc, ribbon_test.cc): FPR 2^-k for the k bits a filter chose, and the bounded
// failure of a build that cannot succeed. It keeps to the filters floor
// (scripts/check_layers.py): the tests pass their keys in.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

#include "filters/static_common.h"
#include "filters/test_params.h"
#include "core/filter.h"
#include "core/stats.h"

namespace amq::filter_tests {

// The bits per key a static filter chose: fingerprint bits (XOR, binary fuse) or result bits
// (Ribbon).
template <class F>
int WidthOf(const F& f) {
  if constexpr (requires { f.result_bits(); }) {
    return f.result_bits();
  } else {
    return f.fingerprint_bits();
  }
}

// F built over keys with parameters p chooses expected_bits, its theory says 2^-k, and the
// false positives among negatives sit in the 5-sigma binomial band of that.
template <class F>
void ExpectFprIsTwoToMinusK(std::span<const std::uint64_t> keys,
                            std::span<const std::uint64_t> negatives, const FilterParams& p,
                            int expected_bits) {
  const F f = F::build(keys, p);
  ASSERT_EQ(WidthOf(f), expected_bits);
  EXPECT_EQ(f.theory().fpr, std::ldexp(1.0, -expected_bits));
  const Interval band = BinomialBand(negatives.size(), f.theory().fpr);
  std::size_t fp = 0;
  for (std::uint64_t key : negatives) fp += f.contains(key) ? 1 : 0;
  EXPECT_GE(static_cast<double>(fp), band.low) << F::kName << " k = " << expected_bits;
  EXPECT_LE(static_cast<double>(fp), band.high) << F::kName << " k = " << expected_bits;
}

// Each Fs built over keys squeezed into `slots` slots, which no seed can solve, throws
// BuildFailed after its 5 attempts instead of retrying forever.
template <class... Fs>
void ExpectSqueezedBuildsFail(std::span<const std::uint64_t> keys, std::size_t slots) {
  StaticBuildOptions squeeze;
  squeeze.max_attempts = 5;
  squeeze.slots_override = slots;
  const FilterParams p = StaticParams(keys.size(), 1);
  ([&] { EXPECT_THROW(Fs::build(keys, p, squeeze), BuildFailed) << Fs::kName; }(), ...);
}

}  // namespace amq::filter_tests
