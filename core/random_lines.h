// core/random_lines.h - independent random cache-line reads: the memory system's best rate for
// a lookup that reads random lines, the ceiling every lookup's lines per second is set against.
//
// Two kernels, one loop each. harness/machine runs them on buffers of its own at working sets
// from 16 KiB to GiBs (the machine experiment); the micro-benchmarks (random_lines) run them on
// a filter's own table, in the process, on the pages and in the minutes of that filter's
// lookups. The second is the ceiling speed_vs_n sets a filter's lookups against, because on
// this virtual machine the rate moves with the allocation and the minute. At n = 2^26 (portable
// build, 2026-12-04, two processes one after the other) the tables of bloom, blocked_bloom, xor8
// and binary_fuse8 (75-85 MB each) read random lines at 5.1, 4.0, 3.3 and 3.1 ns a line in the
// first process and 4.9, 5.2, 3.7 and 14.4 in the second; xor8's batched lookups (3 lines each)
// took 10.2 to 18.6 ns a key across five processes that day, and the prefetched kernel, built
// standalone, 4.9 to 5.4 ns a line on an 80 MiB buffer of its own. Set against such a rate, xor8,
// binary_fuse8 and bloom's member lookups came out above 100% at 2^26; against their own tables,
// in the same process and minutes, 92% and 96% (xor8, binary_fuse8 non-members, first process).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/hashing.h"

namespace amq {

inline constexpr int kRandomLineStreams = 16;
inline constexpr std::size_t kRandomLineBytes = 64;

// How a line's index is made from its stream's next number. kDirect reduces the number to a
// line; kHashed first passes it through HashKey, the hash every filter applies to a key before
// it names a line: the least work a hashed lookup does per line it reads, so the rate it leaves
// is the best such a lookup can reach. On an 80 MiB buffer of 4 KiB pages (n = 2^26's tables)
// that hash alone made each line 14-20% slower (ad hoc, prefetched, 4 rounds alternating,
// 2026-12-05: 7.3-8.0 ns a line direct, 8.6-9.3 hashed), though it is a few ns of work against
// about 8 of waiting: the rate lines arrive at here is not independent of the work beside them.
enum class LineIndex { kDirect, kHashed };

// Advances one stream's linear congruential generator and returns the line it now names.
template <LineIndex kIndex = LineIndex::kDirect>
inline const std::byte* NextRandomLine(std::uint64_t& x, const std::byte* base, std::uint64_t lines) {
  x = x * 6364136223846793005ull + 1442695040888963407ull;
  const std::uint64_t h = kIndex == LineIndex::kHashed ? HashKey(x, 0) : x;
  return base + ReduceRange(h, lines) * kRandomLineBytes;
}

// `rounds` x 16 loads of random lines among the first `lines` of `base`. The 16 streams are
// independent linear congruential generators: a load's address never depends on a loaded
// value, so the core keeps as many in flight as it can. Each line index costs two multiplies,
// which bounds the in-cache rates (the DRAM rate is what this is for).
template <LineIndex kIndex = LineIndex::kDirect>
__attribute__((noinline)) std::uint64_t RandomLines(const std::byte* base, std::uint64_t lines, std::uint64_t rounds,
                                                    std::uint64_t* state) {
  std::uint64_t x[kRandomLineStreams];
  std::memcpy(x, state, sizeof x);
  std::uint64_t sum0 = 0, sum1 = 0;
  for (std::uint64_t r = 0; r < rounds; ++r) {
    for (int s = 0; s < kRandomLineStreams; s += 2) {
      std::uint64_t a, b;
      std::memcpy(&a, NextRandomLine<kIndex>(x[s], base, lines), sizeof a);
      std::memcpy(&b, NextRandomLine<kIndex>(x[s + 1], base, lines), sizeof b);
      sum0 += a;
      sum1 += b;
    }
  }
  std::memcpy(state, x, sizeof x);
  return sum0 + sum1;
}

// The same streams' lines, each prefetched kRandomLinesPrefetchRounds rounds (16 x 4 lines)
// before it is loaded: a prefetch retires at once, so the lines in flight are bounded by the
// cache's miss buffers rather than by the core's reorder window, as in a batched lookup that
// prefetches a group before probing it. On huge pages (results/machine.jsonl, the machine
// experiment of `./run_all.sh --full` at 4a001aa) it read more lines per second than the loads
// alone between the caches and DRAM (1.88e8 against 1.38e8 at 64 MiB), 3% more at 1 GiB
// (5.09e7 against 4.95e7), and fewer inside L2 (1.52e9 against 2.24e9 at 256 KiB).
inline constexpr int kRandomLinesPrefetchRounds = 4;
template <LineIndex kIndex = LineIndex::kDirect>
__attribute__((noinline)) std::uint64_t RandomLinesPrefetched(const std::byte* base, std::uint64_t lines,
                                                              std::uint64_t rounds, std::uint64_t* state) {
  std::uint64_t x[kRandomLineStreams];
  std::memcpy(x, state, sizeof x);
  const std::byte* ahead[kRandomLinesPrefetchRounds][kRandomLineStreams];
  for (int r = 0; r < kRandomLinesPrefetchRounds; ++r) {
    for (int s = 0; s < kRandomLineStreams; ++s) {
      ahead[r][s] = NextRandomLine<kIndex>(x[s], base, lines);
      __builtin_prefetch(ahead[r][s]);
    }
  }
  std::uint64_t sum0 = 0, sum1 = 0;
  for (std::uint64_t r = 0; r < rounds; ++r) {
    const std::byte** slot = ahead[r % kRandomLinesPrefetchRounds];
    for (int s = 0; s < kRandomLineStreams; s += 2) {
      std::uint64_t a, b;
      std::memcpy(&a, slot[s], sizeof a);
      std::memcpy(&b, slot[s + 1], sizeof b);
      sum0 += a;
      sum1 += b;
      slot[s] = NextRandomLine<kIndex>(x[s], base, lines);
      slot[s + 1] = NextRandomLine<kIndex>(x[s + 1], base, lines);
      __builtin_prefetch(slot[s]);
      __builtin_prefetch(slot[s + 1]);
    }
  }
  std::memcpy(state, x, sizeof x);
  return sum0 + sum1;
}

}  // namespace amq
