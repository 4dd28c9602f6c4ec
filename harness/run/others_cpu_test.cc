// harness/run/others_cpu_test.cc - the parse of /proc/stat's first line, the arithmetic of
// others' cores, and that a sample of this process sees its own CPU time grow.
#include "harness/run/others_cpu.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace amq {
namespace {

TEST(OthersCpu, BusyIsUserNiceSystemIrqSoftirqSteal) {
  // user 100, nice 5, system 20, idle 1000, iowait 7, irq 3, softirq 2, steal 1, guests 40 0
  const auto busy = BusySecondsFromProcStat("cpu  100 5 20 1000 7 3 2 1 40 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n", 100);
  ASSERT_TRUE(busy.has_value());
  EXPECT_DOUBLE_EQ(*busy, 1.31) << "idle, iowait and guest (already in user) are not added";
}

TEST(OthersCpu, AnythingButTheAggregateLineIsRefused) {
  EXPECT_FALSE(BusySecondsFromProcStat("", 100));
  EXPECT_FALSE(BusySecondsFromProcStat("cpu0 1 2 3 4 5 6 7 8", 100)) << "a single CPU's line";
  EXPECT_FALSE(BusySecondsFromProcStat("cpu  1 2 3 4 5 6 7", 100)) << "seven fields";
  EXPECT_FALSE(BusySecondsFromProcStat("cpu  1 2 x 4 5 6 7 8", 100));
  EXPECT_FALSE(BusySecondsFromProcStat("cpu  1 2 3 4 5 6 7 8", 0));
}

TEST(OthersCpu, OthersAreTheMachinesBusyTimeLessOursPerWallSecond) {
  CpuSample before, after;
  before.machine_busy_seconds = 10.0;
  before.own_seconds = 2.0;
  after = before;
  after.at = before.at + std::chrono::seconds(4);
  after.machine_busy_seconds = 16.0;  // 6 s busy in 4 s: both cores 3/4 of the time
  after.own_seconds = 6.0;            // 4 s of them ours: one core throughout
  ASSERT_TRUE(OthersCores(before, after).has_value());
  EXPECT_DOUBLE_EQ(*OthersCores(before, after), 0.5);
  after.own_seconds = 9.0;  // ours above the machine's (its ticks are coarser): none, not negative
  EXPECT_DOUBLE_EQ(*OthersCores(before, after), 0.0);
  after.machine_busy_seconds.reset();
  EXPECT_FALSE(OthersCores(before, after)) << "no /proc/stat, no figure";
  EXPECT_FALSE(OthersCores(before, before)) << "no time passed";
}

TEST(OthersCpu, ASampleSeesThisProcesssCpuTime) {
  const CpuSample before = SampleCpu();
  EXPECT_EQ(before.machine_busy_seconds.has_value(), std::filesystem::exists("/proc/stat"));
  volatile unsigned long long sink = 0;
  CpuSample after = SampleCpu();
  // Spin until getrusage has counted 20 ms of our CPU: however loaded the machine, it comes.
  while (after.own_seconds - before.own_seconds < 0.02) {
    for (int i = 0; i < 100000; ++i) sink = sink + static_cast<unsigned long long>(i);
    after = SampleCpu();
  }
  EXPECT_GT(after.at, before.at);
  if (before.machine_busy_seconds) {
    EXPECT_GE(*after.machine_busy_seconds, *before.machine_busy_seconds);
  }
}

}  // namespace
}  // namespace amq
