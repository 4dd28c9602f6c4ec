// Shared by the filters' tests: FilterParams from the fields those tests vary, and the names
// their typed suites print (the filter's own name, not a type index).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/filter.h"

namespace amq::filter_tests {

inline FilterParams Params(std::size_t n, double fpr, double max_load, std::uint64_t seed = 1) {
  FilterParams p;
  p.capacity = n;
  p.target_fpr = fpr;
  p.max_load = max_load;
  p.seed = seed;
  return p;
}

// The static filters' FilterParams: sized by n and the FPR alone (0: the default), no load.
inline FilterParams StaticParams(std::size_t n, std::uint64_t seed, double fpr = 0.0) {
  FilterParams p;
  p.capacity = n;
  p.seed = seed;
  p.target_fpr = fpr;
  return p;
}

// x with its 64 bits in reverse order: counters bit-reversed are keys that differ in their high
// bits first, an order that breaks code which reads only a key's low bits.
constexpr std::uint64_t ReverseBits(std::uint64_t x) {
  std::uint64_t r = 0;
  for (int bit = 0; bit < 64; ++bit, x >>= 1) r = (r << 1) | (x & 1);
  return r;
}

// The third argument of TYPED_TEST_SUITE: each instantiation named by its filter's kName.
struct FilterNames {
  template <class F>
  static std::string GetName(int) {
    return std::string(F::kName);
  }
};

}  // namespace amq::filter_tests
