// core/random_lines_test.cc - the random-line kernels read the lines their streams name: each
// line of a buffer holds its own index, so a kernel's sum is the sum of the indices it read,
// which a replay of the streams' generators computes independently.
#include "core/random_lines.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace amq {
namespace {

constexpr std::uint64_t kLines = 1000;  // not a power of two: ReduceRange, not a mask
constexpr std::uint64_t kRounds = 50;

// A buffer of kLines lines whose first word is the line's index.
std::vector<std::uint64_t> IndexedLines() {
  std::vector<std::uint64_t> words(kLines * kRandomLineBytes / sizeof(std::uint64_t), 0);
  for (std::uint64_t line = 0; line < kLines; ++line) words[line * kRandomLineBytes / sizeof(std::uint64_t)] = line;
  return words;
}

std::vector<std::uint64_t> Seeds() {
  std::vector<std::uint64_t> seeds(kRandomLineStreams);
  for (int s = 0; s < kRandomLineStreams; ++s) seeds[s] = SpreadSeed(static_cast<std::uint64_t>(s) + 1);
  return seeds;
}

// The indices the streams name, replayed without the kernels: each stream's generator advanced
// kRounds times, each value reduced to a line directly or after HashKey.
std::uint64_t ReplayedSum(bool hashed) {
  std::uint64_t sum = 0;
  for (std::uint64_t x : Seeds()) {
    for (std::uint64_t r = 0; r < kRounds; ++r) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      sum += ReduceRange(hashed ? HashKey(x, 0) : x, kLines);
    }
  }
  return sum;
}

TEST(RandomLines, EveryKernelReadsTheLinesItsStreamsNameDirectOrHashed) {
  const std::vector<std::uint64_t> words = IndexedLines();
  const auto* base = reinterpret_cast<const std::byte*>(words.data());
  const std::uint64_t direct = ReplayedSum(false), hashed = ReplayedSum(true);
  ASSERT_NE(direct, hashed);  // the hash names other lines: the two kernels differ in what they read
  std::vector<std::uint64_t> state = Seeds();
  EXPECT_EQ(RandomLines<LineIndex::kDirect>(base, kLines, kRounds, state.data()), direct);
  state = Seeds();
  EXPECT_EQ(RandomLines<LineIndex::kHashed>(base, kLines, kRounds, state.data()), hashed);
  // The prefetched kernels read the same lines in the same order (each named 4 rounds early).
  state = Seeds();
  EXPECT_EQ(RandomLinesPrefetched<LineIndex::kDirect>(base, kLines, kRounds, state.data()), direct);
  state = Seeds();
  EXPECT_EQ(RandomLinesPrefetched<LineIndex::kHashed>(base, kLines, kRounds, state.data()), hashed);
}

}  // namespace
}  // namespace amq
