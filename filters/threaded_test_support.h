// filters/threaded_test_support.h - for the *_threaded_test.cc files (CMakeLists.txt's
// threaded_tests, also run under ThreadSanitizer by scripts/tsan.sh): their key sets and the one
// way they load a filter on several threads, so that every filter's concurrent insert mode is
// driven alike and a fix to the driving lands once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <latch>
#include <thread>
#include <vector>

#include "core/hashing.h"

namespace amq::threaded_test {

// n keys from XorShift64Star: random, and (at these n) distinct in practice.
inline std::vector<std::uint64_t> RandomKeys(std::size_t n, std::uint64_t seed) {
  XorShift64Star random(seed);
  std::vector<std::uint64_t> keys(n);
  for (auto& key : keys) key = random.Next();
  return keys;
}

// n keys guaranteed distinct: MurmurMix64 is a bijection, so distinct inputs give distinct keys.
inline std::vector<std::uint64_t> DistinctKeys(std::size_t n, std::uint64_t salt) {
  std::vector<std::uint64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = MurmurMix64(i * 2 + 1 + (salt << 40));
  return keys;
}

// How the n key indices are dealt to T threads.
enum class Slices {
  kInterleaved,  // thread t takes t, t + T, t + 2T, ...: the threads meet in the same places from the start
  kContiguous,   // thread t takes [t n / T, (t + 1) n / T): how the concurrent_inserts kind deals them
};

// Calls insert(i) for every index i < n on `threads` threads that start together at one latch;
// returns each index's answer (1: accepted), written only by the thread that inserted it.
template <class Insert>
std::vector<std::uint8_t> InsertOnThreads(std::size_t n, int threads, Slices slices, Insert insert) {
  std::vector<std::uint8_t> accepted(n, 0);
  std::latch start(threads);
  std::vector<std::thread> team;
  for (int t = 0; t < threads; ++t) {
    team.emplace_back([&, t] {
      start.arrive_and_wait();
      if (slices == Slices::kInterleaved) {
        for (std::size_t i = t; i < n; i += threads) accepted[i] = insert(i) ? 1 : 0;
      } else {
        const std::size_t begin = n * t / threads, end = n * (t + 1) / threads;
        for (std::size_t i = begin; i < end; ++i) accepted[i] = insert(i) ? 1 : 0;
      }
    });
  }
  for (std::thread& thread : team) thread.join();
  return accepted;
}

}  // namespace amq::threaded_test
