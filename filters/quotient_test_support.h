// filters/quotient_test_support.h - what the quotient family's tests share (quotient_test.cc,
// rsqf_test.cc, cqf_test.cc and the typed merge and resize suite, merge_resize_test.cc): the
// stored fingerprints as one sorted multiset whatever the filter, the FPR check against the
// filter's own theory, the random insert/erase steps of the multiset tests, and the comparison
// of a filter with its forced-portable twin. It keeps to the filters floor
// (scripts/check_layers.py): the tests pass their keys in.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "core/hashing.h"
#include "core/stats.h"

namespace amq::filter_tests {

using Fp = std::pair<std::uint64_t, std::uint64_t>;  // (quotient, remainder)

// Every stored fingerprint in increasing order, once per copy: a counting filter's
// for_each_fingerprint gives each with its count, the others each copy.
template <class F>
std::vector<Fp> StoredFingerprints(const F& f) {
  std::vector<Fp> out;
  f.for_each_fingerprint([&](std::uint64_t q, std::uint64_t r, auto... count) {
    out.insert(out.end(), (std::uint64_t{1} * ... * count), Fp{q, r});
  });
  return out;
}

// The copies a filter holds: a counting filter's total, the others' stored fingerprints.
template <class F>
std::uint64_t CopiesStored(const F& f) {
  if constexpr (requires { f.total(); }) {
    return f.total();
  } else {
    return f.stored();
  }
}

// The false positives among `negatives` inside the 5-sigma binomial band of theory().fpr.
template <class F>
void ExpectFprMatchesTheory(const F& f, std::span<const std::uint64_t> negatives) {
  std::size_t fp = 0;
  for (std::uint64_t key : negatives) fp += f.contains(key) ? 1 : 0;
  const Interval band = BinomialBand(negatives.size(), f.theory().fpr);
  EXPECT_GE(static_cast<double>(fp), band.low) << "theory " << f.theory().fpr;
  EXPECT_LE(static_cast<double>(fp), band.high) << "theory " << f.theory().fpr;
}

// The random steps the multiset tests drive their filters with: while fewer than `target` keys
// are live, 55% of steps insert (a third of them repeat an earlier key, so runs hold copies),
// the others erase one of the 64 smallest live keys (erases land inside runs and clusters, not
// only at their ends). The caller applies each step to its filters and its model.
class RandomInsertErase {
 public:
  enum class Kind { kInsert, kErase, kNone };
  struct Op {
    Kind kind;
    std::uint64_t key;
  };

  RandomInsertErase(std::uint64_t seed, std::uint64_t target) : rng_(seed), target_(target) {}

  Op Next() {
    const std::uint64_t dice = rng_.Next() % 100;
    if (live_.size() < target_ && (dice < 55 || live_.empty())) {
      const std::uint64_t key =
          (!pool_.empty() && dice % 3 == 0) ? pool_[rng_.Next() % pool_.size()] : rng_.Next();
      pool_.push_back(key);
      live_.insert(key);
      return {Kind::kInsert, key};
    }
    if (live_.empty()) return {Kind::kNone, 0};
    auto it = live_.begin();
    std::advance(it, rng_.Next() % std::min<std::size_t>(live_.size(), 64));
    const std::uint64_t key = *it;
    live_.erase(it);
    return {Kind::kErase, key};
  }

  // The keys inserted and not erased, a copy per insert.
  const std::multiset<std::uint64_t>& live() const { return live_; }

 private:
  XorShift64Star rng_;
  std::uint64_t target_;
  std::multiset<std::uint64_t> live_;
  std::vector<std::uint64_t> pool_;
};

// A filter and its twin with the portable paths forced (kPortable) after the same operations:
// the same bytes, and the same answers to 200 probes drawn from probe_seed.
template <class F, class Twin>
::testing::AssertionResult TwinsAgree(const F& f, const Twin& twin, std::uint64_t probe_seed) {
  if (!std::ranges::equal(f.bytes(), twin.bytes())) {
    return ::testing::AssertionFailure() << "the twins' bytes differ";
  }
  XorShift64Star probes(probe_seed);
  for (int i = 0; i < 200; ++i) {
    const std::uint64_t probe = probes.Next();
    if (f.contains(probe) != twin.contains(probe)) {
      return ::testing::AssertionFailure() << "the twins answer probe " << i << " differently";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace amq::filter_tests
