// Shared by the filters' tests: FilterParams from the four fields those tests vary.
#pragma once

#include <cstddef>
#include <cstdint>

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

}  // namespace amq::filter_tests
