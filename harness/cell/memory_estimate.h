// harness/cell/memory_estimate.h - an estimate of one filters cell's peak memory, made before the
// grid runs so a grid too big for the machine is refused instead of ending in std::bad_alloc
// or the OOM killer's SIGKILL.
//
// The filter's part comes from the filter's own code: the cell is built at 1/2^k and at 2/2^k
// of its size (k the smallest giving at most 2^19 keys at the larger one, so power-of-two
// table rounding scales with it), each in a forked child, and the child's resident-set growth
// - the filter, and for static filters the build's peeling or banding scratch - is extended
// along the line through the two points to the full size. Two points, not one scaled up: the
// child's fixed costs (page tables, the allocator's own pages) would otherwise be multiplied
// by 2^k as if every key paid for them. A table's memory is allocated
// when it is constructed, so the scaled build inserts at most 90% of its capacity: the last
// fill, the slowest at high load, adds no memory. The key and query buffers are added from
// their sizes: the workload's members and negatives, the set of held keys, and the query arrays
// (three of Q keys and Q member flags; harness/cell/run_cell.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/filter.h"
#include "harness/cell/process_memory.h"
#include "workloads/uniform.h"

namespace amq {

// The scale-down the estimate's larger build uses for a cell of `size` keys: a power of two.
inline std::uint64_t EstimateScale(std::size_t size) {
  std::uint64_t scale = 1;
  while ((size + scale - 1) / scale > (std::size_t{1} << 19)) scale *= 2;
  return scale;
}

// The line through (x1, y1) and (x2, y2), x1 < x2, at x >= x2; never below y2.
inline std::uint64_t ExtendLine(double x1, double y1, double x2, double y2, double x) {
  const double slope = x2 > x1 ? std::max(0.0, (y2 - y1) / (x2 - x1)) : 0.0;
  return static_cast<std::uint64_t>(y2 + slope * (x - x2));
}

// Peak bytes of one build at `size` keys, from measure(divisor) - the peak of a build at
// 1/divisor of the size, or nullopt when it could not be measured: up to 2^19 keys the build
// itself, above that the line through builds at 1/scale and 1/(2 scale) of the size, extended.
template <class Measure>
std::optional<std::uint64_t> ExtrapolatedBuildBytes(std::size_t size, Measure&& measure) {
  const std::uint64_t scale = EstimateScale(size);
  const std::optional<std::uint64_t> large = measure(scale);
  if (!large || scale == 1) return large;
  const std::optional<std::uint64_t> small = measure(scale * 2);
  if (!small) return std::nullopt;
  const double x = double(size);
  return ExtendLine(x / double(scale * 2), double(*small), x / double(scale), double(*large), x);
}

// Peak bytes one build of F at these params and this many keys adds, measured in a child.
template <Filter F>
std::optional<std::uint64_t> MeasureBuildBytes(const FilterParams& params, std::size_t keys) {
  return PeakGrowthInChild([&](const auto& mark) {
    std::size_t insert = keys;
    if constexpr (!StaticFilter<F>) insert = std::min(keys, params.capacity - params.capacity / 10);
    const std::vector<std::uint64_t> members = UniformKeys(params.seed, KeyStream::kMembers, insert);
    mark();
    if constexpr (StaticFilter<F>) {
      const F filter = F::build(members, params);
      mark();
    } else {
      F filter(params);
      for (std::uint64_t key : members) (void)filter.insert(key);
      mark();
    }
  });
}

// A filter's measure_build_bytes (harness/cell/registry.h), measured once per process for each
// (filter, parameters, keys): a suite's experiments share many cells' shapes. Thread-safe: the
// suite measures several cells' builds at once (WarmMemoryEstimates, harness/run/runner.h), each
// in its own child, so the lock is not held while one is measured; a shape two threads measure
// at the same time keeps the first answer.
using BuildBytesMeasure = std::optional<std::uint64_t> (*)(const FilterParams&, std::size_t keys);
inline std::optional<std::uint64_t> MeasureBuildBytesOnce(std::string_view filter,
                                                          BuildBytesMeasure measure,
                                                          const FilterParams& params,
                                                          std::size_t keys) {
  static std::mutex guard;
  static std::map<std::string, std::optional<std::uint64_t>> measured;
  std::ostringstream key;
  key << filter << ' ' << params.capacity << ' ' << keys << ' ' << params.target_fpr << ' '
      << params.bits_per_key << ' ' << params.max_load << ' ' << params.max_kicks << ' '
      << params.seed;
  {
    const std::lock_guard<std::mutex> lock(guard);
    if (const auto it = measured.find(key.str()); it != measured.end()) return it->second;
  }
  const std::optional<std::uint64_t> bytes = measure(params, keys);
  const std::lock_guard<std::mutex> lock(guard);
  return measured.emplace(key.str(), bytes).first->second;
}

// Bytes of the key and query buffers a filters cell holds while it runs.
inline std::uint64_t CellBufferBytes(std::size_t keys, std::size_t queries) {
  return 8 * std::uint64_t{keys} * 2 + std::uint64_t{queries} * (8 + 3 * 8 + 1);
}

}  // namespace amq
