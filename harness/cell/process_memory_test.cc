// harness/cell/process_memory_test.cc - the peak-growth readings and the child that takes them.
#include "harness/cell/process_memory.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "harness/cell/memory_estimate.h"

namespace amq {
namespace {

TEST(ProcessMemory, CounterErrorIsThreeCountersTwoReadingsAndTheBatchOfEachCpu) {
  EXPECT_EQ(RssCounterError(2), 2u * 3 * 32 * 2 * 4096);  // 1.5 MiB
  EXPECT_EQ(RssCounterError(1), 2u * 3 * 32 * 1 * 4096);
  EXPECT_EQ(RssCounterError(64), 2u * 3 * 128 * 64 * 4096);  // batch 2 x CPUs past 16 CPUs
}

// The exact growth stands while the counted peak is within the counters' error of it; beyond,
// only the excess is added, so a reading just past the bound moves the growth by a page, not
// by the whole error (the jump that once flattened an extrapolation's line).
TEST(ProcessMemory, GrowthIsExactPlusWhatTheCountersCannotExplain) {
  const std::uint64_t error = 1 << 20;
  EXPECT_EQ(GrowthFromReadings(0, 5000, error), 5000u);
  EXPECT_EQ(GrowthFromReadings(5000 + error, 5000, error), 5000u);
  EXPECT_EQ(GrowthFromReadings(5000 + error + 4096, 5000, error), 5000u + 4096);
  EXPECT_EQ(GrowthFromReadings(5000 + error + (50 << 20), 5000, error), 5000u + (50 << 20));
}

// A child that touches 16 MiB grows by at least that (the exact reading sees every page), and
// not by twice that; one that touches nothing reports under the counters' error.
TEST(ProcessMemory, AChildsGrowthIsWhatItTouched) {
  const std::size_t bytes = 16 << 20;
  const auto touched = PeakGrowthInChild([&](const auto& mark) {
    mark();
    std::unique_ptr<char[]> block(new char[bytes]);
    std::memset(block.get(), 1, bytes);
    // The block is never read: without a barrier the compiler may drop new, memset and delete.
    asm volatile("" : : "r"(block.get()) : "memory");
    mark();
  });
  ASSERT_TRUE(touched.has_value());
  EXPECT_GE(*touched, bytes);
  EXPECT_LT(*touched, 2 * bytes);
  const auto idle = PeakGrowthInChild([&](const auto& mark) {
    mark();
    mark();
  });
  ASSERT_TRUE(idle.has_value());
  EXPECT_LT(*idle, std::uint64_t{1} << 20);
}

// The suite measures several builds at once (WarmMemoryEstimates): children forked from four
// threads together each report their own growth, 4, 8, 12 and 16 MiB (AddressSanitizer adds
// an eighth for its shadow), not another's.
TEST(ProcessMemory, ChildrenForkedFromThreadsAtOnceEachReportTheirOwn) {
  std::vector<std::optional<std::uint64_t>> touched(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < touched.size(); ++t) {
    threads.emplace_back([&touched, t] {
      const std::size_t bytes = (t + 1) << 22;
      touched[t] = PeakGrowthInChild([&](const auto& mark) {
        mark();
        std::unique_ptr<char[]> block(new char[bytes]);
        std::memset(block.get(), 1, bytes);
        asm volatile("" : : "r"(block.get()) : "memory");
        mark();
      });
    });
  }
  for (std::thread& t : threads) t.join();
  for (std::size_t t = 0; t < touched.size(); ++t) {
    const std::uint64_t bytes = (t + 1) << 22;
    ASSERT_TRUE(touched[t].has_value()) << t;
    EXPECT_GE(*touched[t], bytes) << t;
    EXPECT_LT(*touched[t], bytes + (std::uint64_t{4} << 20)) << t;  // the next child's size
  }
}

// One answer per build shape, whichever thread's measurement finishes first: each call of the
// measure answers differently (its call number), and every thread still gets the same answer;
// a shape already measured is not measured again.
std::atomic<int> measured_calls{0};
std::optional<std::uint64_t> CountedMeasure(const FilterParams& params, std::size_t keys) {
  const int call = measured_calls.fetch_add(1);
  return params.capacity * 10 + keys + 1000 * std::uint64_t(call);
}

TEST(ProcessMemory, BuildBytesAreCachedPerShapeAcrossThreads) {
  FilterParams params;
  params.capacity = 1000;
  params.seed = 424242;  // a shape no other test measures: the cache lives as long as the process
  std::vector<std::optional<std::uint64_t>> answers(8);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < answers.size(); ++t) {
    threads.emplace_back([&, t] { answers[t] = MeasureBuildBytesOnce("counted", &CountedMeasure, params, 7); });
  }
  for (std::thread& t : threads) t.join();
  const int calls = measured_calls.load();
  EXPECT_GE(calls, 1);
  EXPECT_LE(calls, 8);
  ASSERT_TRUE(answers[0].has_value());
  EXPECT_EQ((*answers[0] - 10007) % 1000, 0u);
  EXPECT_LT(*answers[0], 10007u + 1000u * std::uint64_t(calls));
  for (const auto& a : answers) EXPECT_EQ(a, answers[0]);
  EXPECT_EQ(MeasureBuildBytesOnce("counted", &CountedMeasure, params, 7), answers[0]);
  EXPECT_EQ(measured_calls.load(), calls);  // cached: not measured again
}

}  // namespace
}  // namespace amq
