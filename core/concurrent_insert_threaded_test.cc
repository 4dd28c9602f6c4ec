// The concurrent insert mode's locks (core/concurrent_insert.h), under many threads. Built into
// threaded_tests, which scripts/tsan.sh runs under ThreadSanitizer: a lock that failed to
// exclude would show there as a data race on the plain counters, and here as a lost update.
#include "core/concurrent_insert.h"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

namespace amq {
namespace {

TEST(InsertLocks, ExcludeEachOtherOnPlainCounters) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 20000;
  InsertLocks locks(3);
  std::array<std::uint64_t, 3> counters{};  // plain words: only the locks keep them exact
  std::vector<std::thread> team;
  for (int t = 0; t < kThreads; ++t) {
    team.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        // Two locks at a time in varying orders and with repeats: LockAscending must take
        // each once and in one order, or this deadlocks or double-locks.
        std::array<std::size_t, 3> want = {static_cast<std::size_t>((t + r) % 3),
                                           static_cast<std::size_t>((t + 2 * r + 1) % 3),
                                           static_cast<std::size_t>((t + r) % 3)};
        locks.LockAscending(want);
        for (std::size_t k = 0; k < want.size(); ++k) {
          if (k == 0 || want[k] != want[k - 1]) ++counters[want[k]];
        }
        locks.Unlock(want);
      }
    });
  }
  for (std::thread& th : team) th.join();
  // Each round adds one to each distinct lock it held: count the same rounds single-threaded.
  std::array<std::uint64_t, 3> expected{};
  for (int t = 0; t < kThreads; ++t) {
    for (int r = 0; r < kRounds; ++r) {
      const std::size_t a = (t + r) % 3, b = (t + 2 * r + 1) % 3;
      ++expected[a];
      if (b != a) ++expected[b];
    }
  }
  EXPECT_EQ(counters, expected);
}

TEST(InsertLocks, AtomicHelpersLoseNoUpdate) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 50000;
  std::uint64_t count = 0;
  std::vector<std::uint64_t> words(64, 0);
  std::vector<std::thread> team;
  for (int t = 0; t < kThreads; ++t) {
    team.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        AtomicAdd<std::uint64_t>(count, 1);
        // Every thread sets its own bit of the same words: a plain |= would lose some.
        AtomicSetBits<std::uint64_t>(words[r % 64], std::uint64_t{1} << (t * 8 + r % 8));
      }
    });
  }
  for (std::thread& th : team) th.join();
  EXPECT_EQ(count, std::uint64_t{kThreads} * kRounds);
  // Word w is written in rounds r = w (mod 64), all with r % 8 = w % 8: by each thread once.
  for (std::size_t w = 0; w < words.size(); ++w) {
    std::uint64_t expected = 0;
    for (int t = 0; t < kThreads; ++t) expected |= std::uint64_t{1} << (t * 8 + w % 8);
    EXPECT_EQ(words[w], expected) << "word " << w;
  }
}

TEST(InsertLocks, NoneIsValid) {
  InsertLocks none(0);
  EXPECT_EQ(none.size(), 0u);
  EXPECT_EQ(none.size_in_bytes(), 0u);
}

}  // namespace
}  // namespace amq
