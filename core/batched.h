// core/batched.h - the loop behind a filter's contains_many (BatchedFilter, core/filter.h).
//
// A lookup whose cache lines are out of cache spends almost all its time waiting for them, and
// a one-at-a-time loop keeps only as many misses in flight as the core's reorder window holds
// lookups (a few). Here a filter splits its lookup in two: prepare(key) hashes the key, issues
// __builtin_prefetch for every cache line the probe will read and returns what the probe needs
// (positions, block address); probe(state) reads those lines and answers. The loop prepares
// key i + kDistance while it probes key i, so kDistance keys' lines are always on their way.
// A software pipeline rather than fixed groups: a group drains (its last probes wait with
// nothing behind them) before the next group's prefetches start; the pipeline never drains
// until the last kDistance keys. Bulk inserts (insert_many) use the same loop: prepare
// prefetches the lines the insert will write, consume writes them.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

namespace amq {

// consume(i, prepare(keys[i])) for every i in order, with prepare running kDistance keys ahead;
// kDistance a power of two.
template <std::size_t kDistance, class Prepare, class Consume>
void PipelinedForEach(std::span<const std::uint64_t> keys, Prepare prepare, Consume consume) {
  static_assert((kDistance & (kDistance - 1)) == 0, "kDistance must be a power of two");
  using State = std::invoke_result_t<Prepare, std::uint64_t>;
  std::array<State, kDistance> ring;
  const std::size_t n = keys.size();
  const std::size_t head = std::min(n, kDistance);
  for (std::size_t i = 0; i < head; ++i) ring[i] = prepare(keys[i]);
  std::size_t i = 0;
  // Steady state: consume key i, then reuse its ring slot for key i + kDistance.
  for (; i + kDistance < n; ++i) {
    consume(i, ring[i % kDistance]);
    ring[i % kDistance] = prepare(keys[i + kDistance]);
  }
  for (; i < n; ++i) consume(i, ring[i % kDistance]);
}

// out[i] = probe(prepare(keys[i])), returns the number of ones; kDistance a power of two.
template <std::size_t kDistance, class Prepare, class Probe>
std::size_t PipelinedContains(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out,
                              Prepare prepare, Probe probe) {
  std::size_t ones = 0;
  PipelinedForEach<kDistance>(keys, prepare, [&](std::size_t i, const auto& state) {
    const bool hit = probe(state);
    out[i] = hit ? 1 : 0;
    ones += hit ? 1 : 0;
  });
  return ones;
}

// The pipeline in two stages, for lookups that read some lines only when others allow: a
// Bloom filter's absent key stops at its first clear bits, so prefetching every one of its k
// lines would spend the memory system on lines no probe reads. prepare(key) hashes and
// prefetches the lines every lookup reads; kFirst keys later advance(state) reads them and
// prefetches the rest only where they will be read; kSecond keys after that probe(state)
// answers. kFirst + kSecond a power of two; state is what prepare returns, and advance may
// change it.
template <std::size_t kFirst, std::size_t kSecond, class Prepare, class Advance, class Probe>
std::size_t TwoStagePipelinedContains(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out,
                                      Prepare prepare, Advance advance, Probe probe) {
  constexpr std::size_t kDistance = kFirst + kSecond;
  static_assert(kFirst > 0 && kSecond > 0 && (kDistance & (kDistance - 1)) == 0,
                "kFirst + kSecond must be a power of two");
  using State = std::invoke_result_t<Prepare, std::uint64_t>;
  std::array<State, kDistance> ring;
  const std::size_t n = keys.size();
  std::size_t ones = 0;
  const auto answer = [&](std::size_t k) {
    const bool hit = probe(ring[k % kDistance]);
    out[k] = hit ? 1 : 0;
    ones += hit ? 1 : 0;
  };
  // Step i prepares key i, advances key i - kFirst and answers key i - kDistance, where those
  // exist: the fill, the steady state (all three, no test), then the drain from i = n.
  std::size_t i = 0;
  for (; i < std::min(n, kDistance); ++i) {
    ring[i] = prepare(keys[i]);
    if (i >= kFirst) advance(ring[i - kFirst]);
  }
  for (; i < n; ++i) {
    answer(i - kDistance);
    ring[i % kDistance] = prepare(keys[i]);
    advance(ring[(i - kFirst) % kDistance]);
  }
  for (; i < n + kDistance; ++i) {
    if (i >= kFirst && i - kFirst < n) advance(ring[(i - kFirst) % kDistance]);
    if (i >= kDistance) answer(i - kDistance);
  }
  return ones;
}

// The same count in groups of kGroup keys, two groups in turn: prepare(key) for every key of
// group g + 1 (hash, prefetch), then probe(state) for every key of group g, so one group's lines
// are on their way while the other's are probed and the loop never drains between groups. For
// lookups whose probe branches unpredictably (RSQF: the occupied bit, the run's length): each
// mispredicted probe discards the work issued after it, which in PipelinedContains's
// interleaved loop includes the next key's hash; here the hashes of a group run in a loop of
// their own. Measured on the RSQF (filters/rsqf_core.h). kGroup a power of two.
template <std::size_t kGroup, class Prepare, class Probe>
std::size_t GroupPipelinedContains(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out,
                                   Prepare prepare, Probe probe) {
  static_assert((kGroup & (kGroup - 1)) == 0, "kGroup must be a power of two");
  using State = std::invoke_result_t<Prepare, std::uint64_t>;
  std::array<std::array<State, kGroup>, 2> groups;
  const std::size_t n = keys.size();
  const auto prepare_group = [&](std::size_t start, std::array<State, kGroup>& group) {
    const std::size_t count = std::min(kGroup, n - start);
    for (std::size_t j = 0; j < count; ++j) group[j] = prepare(keys[start + j]);
  };
  std::size_t ones = 0;
  if (n > 0) prepare_group(0, groups[0]);
  for (std::size_t start = 0, g = 0; start < n; start += kGroup, g ^= 1) {
    if (start + kGroup < n) prepare_group(start + kGroup, groups[g ^ 1]);
    const std::size_t count = std::min(kGroup, n - start);
    for (std::size_t j = 0; j < count; ++j) {
      const bool hit = probe(groups[g][j]);
      out[start + j] = hit ? 1 : 0;
      ones += hit ? 1 : 0;
    }
  }
  return ones;
}

}  // namespace amq
