// filters/count_min.h - Count-Min sketch (G. Cormode, S. Muthukrishnan, "An improved data
// stream summary: the count-min sketch and its applications", Journal of Algorithms 55(1),
// 58-75, 2005, §3 and Theorem 1).
//
// d rows of w counters; row j hashes a key to one counter h_j(key) in [0, w). An insert adds
// one to the d counters of the key; count(key) is the smallest of them. With N items inserted
// (a multiset of total count N), for every key a with true count c_a:
//   c_a <= count(a)                                       always (counters only grow)
//   count(a) <= c_a + e N / w   with probability >= 1 - e^-d
// (each row's excess has mean <= N / w, so by Markov it exceeds e N / w with probability
// <= 1/e, independently per row). The paper sizes w = ceil(e / eps), d = ceil(ln(1 / delta))
// for error eps N with probability 1 - delta; here the sketch is sized by a byte budget
// instead - w = floor(bytes / (4 d)) 32-bit counters per row - so it can stand beside another
// counting structure (the counting quotient filter, filters/cqf.h) in the same memory.
//
// This is the plain sketch of the paper (no conservative update), the one the claim of the wiki
// article "Quotient Filter" ("the CQF outperforms the Count-Min sketch on skewed distributions") is
// measured against, as in the CQF paper's §6 comparison. Counters saturate at 2^32 - 1 instead of
// wrapping, so the estimate never drops below the truth. Not a filter: it answers counts, not
// membership, and is not in filters/all.h.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/hashing.h"

namespace amq {

class CountMinSketch {
 public:
  static constexpr int kCounterBytes = sizeof(std::uint32_t);

  // depth rows of width counters, hash functions from seed. Throws unless depth, width >= 1.
  CountMinSketch(int depth, std::uint64_t width, std::uint64_t seed)
      : depth_(depth), width_(width), counters_(Cells(depth, width), 0) {
    seeds_.reserve(depth);
    for (int j = 0; j < depth; ++j) seeds_.push_back(SpreadSeed(seed * 0x9e3779b97f4a7c15ULL + j));
  }

  // The widest sketch of `depth` rows that fits in `bytes`; throws if not even one counter per
  // row fits.
  static CountMinSketch WithBytes(std::uint64_t bytes, int depth, std::uint64_t seed) {
    if (depth < 1) throw std::invalid_argument("count-min: depth must be >= 1");
    return CountMinSketch(depth, bytes / (static_cast<std::uint64_t>(kCounterBytes) * depth), seed);
  }

  void insert(std::uint64_t key, std::uint32_t times = 1) {
    for (int j = 0; j < depth_; ++j) {
      std::uint32_t& c = counters_[Cell(j, key)];
      c = c > std::numeric_limits<std::uint32_t>::max() - times ? std::numeric_limits<std::uint32_t>::max()
                                                                : c + times;
    }
  }

  std::uint64_t count(std::uint64_t key) const {
    std::uint32_t best = std::numeric_limits<std::uint32_t>::max();
    for (int j = 0; j < depth_; ++j) best = std::min(best, counters_[Cell(j, key)]);
    return best;
  }

  // Theorem 1's additive bound e N / w on one key's excess, after N items.
  double error_bound(std::uint64_t items) const { return 2.718281828459045 * items / width_; }
  // The probability the bound may fail for one key: e^-d.
  double bound_failure_probability() const { return std::exp(-static_cast<double>(depth_)); }

  int depth() const { return depth_; }
  std::uint64_t width() const { return width_; }
  std::size_t size_in_bytes() const { return counters_.size() * kCounterBytes; }

 private:
  static std::size_t Cells(int depth, std::uint64_t width) {
    if (depth < 1 || width < 1) throw std::invalid_argument("count-min: need depth >= 1 and width >= 1");
    return static_cast<std::size_t>(depth) * width;
  }
  std::size_t Cell(int row, std::uint64_t key) const {
    return static_cast<std::size_t>(row) * width_ + ReduceRange(HashKey(key, seeds_[row]), width_);
  }

  int depth_;
  std::uint64_t width_;
  std::vector<std::uint64_t> seeds_;
  std::vector<std::uint32_t> counters_;
};

}  // namespace amq
