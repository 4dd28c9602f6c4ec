// harness/cell/process_memory_test.cc - the peak-growth readings and the child that takes them.
#include "harness/cell/process_memory.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

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

}  // namespace
}  // namespace amq
