// harness/machine/machine_measure_test.cc - the machine measurement's pieces: the sizes measured,
// the buffer, each kernel returning sane numbers, the line handoff's point and record, and the
// cache levels read off latency curves made up to have a known answer (the real curve is checked,
// loosely, in commands/machine_command_test.cc: these VMs are too noisy for more).
#include "harness/machine/machine_measure.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "harness/machine/machine_report.h"
#include "harness/machine/thread_team.h"
#include "harness/run/schema.h"

namespace amq {
namespace {

constexpr std::size_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

TEST(MachineSizes, LatencyHasPowersOfTwoAndTheStepsBetween) {
  const auto sizes = LatencySizes(4 * MiB);
  ASSERT_GE(sizes.size(), 4u);
  EXPECT_EQ(sizes[0], 4 * KiB);
  EXPECT_EQ(sizes[1], 6 * KiB);
  EXPECT_EQ(sizes[2], 8 * KiB);
  EXPECT_EQ(sizes.back(), 4 * MiB);
  EXPECT_EQ(sizes.size(), 21u);  // 2^12 .. 2^22 and the ten 1.5x steps between
  EXPECT_EQ(LatencySizes(GiB).back(), GiB);
  EXPECT_EQ(LatencySizes(5 * MiB).back(), 5 * MiB) << "--max-bytes itself is measured last";
  EXPECT_EQ(LatencySizes(5 * MiB)[LatencySizes(5 * MiB).size() - 2], 4 * MiB);
}

TEST(MachineSizes, ThroughputHasPowersOfFourAndTheLargest) {
  EXPECT_EQ(ThroughputSizes(64 * MiB),
            (std::vector<std::size_t>{16 * KiB, 64 * KiB, 256 * KiB, MiB, 4 * MiB, 16 * MiB, 64 * MiB}));
  EXPECT_EQ(ThroughputSizes(100 * MiB).back(), 100 * MiB);
  EXPECT_EQ(ThroughputSizes(GiB).back(), GiB);
}

TEST(MachineBuffer, IsPrefaultedAndSaysWhichPagesItGot) {
  const MachineBuffer off(4 * MiB, HugePages::kOff);
  EXPECT_GE(off.size(), 4 * MiB);
  EXPECT_FALSE(off.huge_pages_requested());
  EXPECT_EQ(off.huge_page_fraction(), 0.0) << "MADV_NOHUGEPAGE: 4 KiB pages only";
  EXPECT_FALSE(off.huge_pages());
  const MachineBuffer automatic(4 * MiB, HugePages::kAuto);
  EXPECT_GE(automatic.huge_page_fraction(), 0.0);
  EXPECT_LE(automatic.huge_page_fraction(), 1.0);
  const std::string thp = TransparentHugePageMode();
  EXPECT_EQ(automatic.huge_pages_requested(), thp == "always" || thp == "madvise");
  if (!automatic.huge_pages_requested()) {
    EXPECT_THROW(MachineBuffer(4 * MiB, HugePages::kOn), InputError) << "on insists";
  }
}

// No madvise at all: the pages a std::vector of a filter's table gets. Under THP "madvise" or
// "never" (this VM: madvise) that is 4 KiB pages, none huge; under "always" the kernel decides.
TEST(MachineBuffer, DefaultPagesAskForNothingAndGetWhatAFiltersTableGets) {
  const MachineBuffer plain(4 * MiB, HugePages::kDefault);
  EXPECT_GE(plain.size(), 4 * MiB);
  EXPECT_FALSE(plain.huge_pages_requested());
  const std::string thp = TransparentHugePageMode();
  if (thp == "always") GTEST_SKIP() << "THP always: the kernel may back it with huge pages";
  EXPECT_EQ(plain.huge_page_fraction(), 0.0) << "THP " << thp << ": 4 KiB pages unless asked";
}

TEST(MachinePlan, RandomLinesAgainOnDefaultPagesUnlessTheBufferHasThemOrItIsTheSummary) {
  MachineRunOptions options;
  options.max_bytes = 4 * MiB;
  options.threads.clear();
  const auto sizes_of = [](const std::vector<MachinePoint>& points, const std::string& test) {
    std::vector<std::size_t> sizes;
    for (const MachinePoint& p : points) {
      if (p.test == test) sizes.push_back(p.working_set_bytes);
    }
    return sizes;
  };
  const std::vector<MachinePoint> points = PlanMachine(options);
  EXPECT_TRUE(PlansDefaultPagesLines(options));
  EXPECT_EQ(sizes_of(points, "random_lines_default_pages"), ThroughputSizes(4 * MiB));
  EXPECT_EQ(sizes_of(points, "random_lines"), ThroughputSizes(4 * MiB)) << "the huge-page ceiling stays";
  // Measured right after the random lines on the main buffer, all together, so the second
  // buffer is held only while they run.
  const auto first = std::find_if(points.begin(), points.end(),
                                  [](const MachinePoint& p) { return p.test == "random_lines_default_pages"; });
  ASSERT_NE(first, points.begin());
  EXPECT_EQ(std::prev(first)->test, "random_lines");
  EXPECT_EQ(first[static_cast<std::ptrdiff_t>(ThroughputSizes(4 * MiB).size())].test, "sequential");
  EXPECT_EQ(MachineMemoryNeeded(4 * MiB, true) - MachineMemoryNeeded(4 * MiB, false), 4 * MiB)
      << "the second buffer, in whole huge pages";
  // An identity of their own, not the random_lines point's of the same size.
  const auto same_size = std::find_if(points.begin(), points.end(), [&](const MachinePoint& p) {
    return p.test == "random_lines" && p.working_set_bytes == first->working_set_bytes;
  });
  ASSERT_NE(same_size, points.end());
  EXPECT_NE(first->cell_id, same_size->cell_id);

  options.huge_pages = HugePages::kDefault;
  EXPECT_FALSE(PlansDefaultPagesLines(options)) << "the buffer already has the default pages";
  EXPECT_TRUE(sizes_of(PlanMachine(options), "random_lines_default_pages").empty());
  EXPECT_TRUE(sizes_of(PlanMachine(QuickMachineOptions()), "random_lines_default_pages").empty())
      << "the context's summary maps one buffer";
}

TEST(MachineBuffer, HugePagesOptionIsParsed) {
  EXPECT_EQ(ParseHugePages("default"), HugePages::kDefault);
  EXPECT_STREQ(HugePagesName(HugePages::kDefault), "default");
  EXPECT_EQ(ParseHugePages("auto"), HugePages::kAuto);
  EXPECT_EQ(ParseHugePages("on"), HugePages::kOn);
  EXPECT_EQ(ParseHugePages("off"), HugePages::kOff);
  EXPECT_THROW(ParseHugePages("maybe"), InputError);
  EXPECT_STREQ(HugePagesName(HugePages::kOff), "off");
}

MachineTiming BriefTiming() {
  MachineTiming timing;
  timing.repeats = 3;
  timing.min_seconds = 0.001;
  timing.min_operations = 1 << 12;
  return timing;
}

void ExpectOrderedAndPositive(const Spread& s) {
  EXPECT_GT(s.min, 0);
  EXPECT_LE(s.min, s.median);
  EXPECT_LE(s.median, s.max);
  EXPECT_TRUE(std::isfinite(s.max));
}

TEST(MachineKernels, ReturnPositiveNumbersInOrder) {
  const MachineBuffer buffer(4 * MiB, HugePages::kAuto);
  const MachineTiming timing = BriefTiming();
  for (const Spread& s : {MeasureLatency(buffer, 16 * KiB, timing), MeasureRandomLines(buffer, 4 * MiB, timing),
                          MeasureRandomLines(buffer, 4 * MiB, timing, RandomLinesMethod::kPrefetch),
                          MeasureSequential(buffer, 4 * MiB, timing)}) {
    ExpectOrderedAndPositive(s);
  }
}

// Between two CPUs where this process has them; on one CPU twice, where the waiting side must
// yield for the other to move at all: it finishes either way.
TEST(MachineKernels, LineHandoffFinishesWithAnOrderedSpread) {
  const std::vector<int> placement = PlacementCpus();
  const int a = placement.front(), b = placement.size() >= 2 ? placement[1] : placement.front();
  for (const auto& [first, second] : {std::pair{a, b}, std::pair{a, a}}) {
    const ThreadedSpread s = MeasureLineHandoff(first, second, BriefTiming());
    EXPECT_TRUE(s.pinned) << first << ", " << second;
    EXPECT_EQ(s.cpus, (std::vector<int>{first, second}));
    EXPECT_EQ(s.cpus_seen.size(), 2u);
    ExpectOrderedAndPositive(s.spread);
  }
}

TEST(MachinePlan, LineHandoffIsPlannedWithTheThreadedPointsOnTwoCpus) {
  MachineRunOptions options = QuickMachineOptions();
  options.max_bytes = 4 * MiB;
  const auto handoffs = [](const std::vector<MachinePoint>& points) {
    return std::count_if(points.begin(), points.end(),
                         [](const MachinePoint& p) { return p.test == "line_handoff"; });
  };
  EXPECT_EQ(handoffs(PlanMachine(options)), 0)
      << "no thread counts (the context's summary): no handoff";
  options.threads = {2};
  const std::vector<MachinePoint> points = PlanMachine(options);
  const std::vector<int> placement = PlacementCpus();
  ASSERT_EQ(handoffs(points), placement.size() >= 2 ? 1 : 0) << placement.size() << " CPUs";
  EXPECT_EQ(points.back().test, "cache_levels") << "the summary stays last";
  if (placement.size() < 2) GTEST_SKIP() << "one CPU: no handoff to look at";
  const MachinePoint& handoff = points[points.size() - 2];
  EXPECT_EQ(handoff.test, "line_handoff");
  EXPECT_EQ(handoff.cpus, (std::vector<int>{placement[0], placement[1]}));
  EXPECT_EQ(handoff.identity, (Json{{"kind", "machine"}, {"test", "line_handoff"}}))
      << "CPUs are recorded, not identity";
}

// The record a handoff point writes: every field declared, the spread ordered, and null (not a
// scheduler's time) where pinning was refused.
TEST(MachineRecord, LineHandoffFieldsAreDeclaredAndNullWhenUnpinned) {
  MachineRunOptions options = QuickMachineOptions();
  options.timing = BriefTiming();
  const MachineBuffer buffer(4 * MiB, HugePages::kOff);
  std::vector<LatencyPoint> curve;
  const std::vector<int> placement = PlacementCpus();
  MachinePoint point{"line_handoff",     0, {{"kind", "machine"}, {"test", "line_handoff"}},
                     "0123456789abcdef", 1, {placement.front(), placement.back()}};
  const Json record = MeasureMachinePoint(options, buffer, point, curve);
  EXPECT_NO_THROW(CheckRecordAgainstSchema(record)) << record.dump();
  EXPECT_EQ(record["handoff_cpus"], Json(point.cpus));
  EXPECT_TRUE(record["pinned"].get<bool>());
  EXPECT_FALSE(record.contains("working_set_bytes"));
  ExpectOrderedAndPositive({record["ns_per_handoff"].get<double>(),
                            record["ns_per_handoff_min"].get<double>(),
                            record["ns_per_handoff_max"].get<double>()});
  EXPECT_NE(DescribeMachineRecord(record).find(" ns/handoff ["), std::string::npos)
      << DescribeMachineRecord(record);
  EXPECT_NE(MachineTable({record}).find("a cache line handed between two CPUs"), std::string::npos);

  point.cpus = {CPU_SETSIZE - 1, CPU_SETSIZE - 1};  // no such CPU: the kernel refuses the pinning
  const Json refused = MeasureMachinePoint(options, buffer, point, curve);
  EXPECT_NO_THROW(CheckRecordAgainstSchema(refused)) << refused.dump();
  EXPECT_FALSE(refused["pinned"].get<bool>());
  EXPECT_TRUE(refused["ns_per_handoff"].is_null());
  EXPECT_NE(DescribeMachineRecord(refused).find("pinning refused"), std::string::npos)
      << DescribeMachineRecord(refused);
}

// A made-up hierarchy with a known answer: each level holds `capacity` bytes at `ns` per load;
// past a level a random cycle still hits it with probability capacity / working set (the edge
// is gradual, as on a real machine).
std::vector<LatencyPoint> ModelCurve(const std::vector<std::pair<std::size_t, double>>& levels, double memory_ns,
                                     std::size_t max_bytes) {
  std::vector<LatencyPoint> curve;
  for (std::size_t bytes : LatencySizes(max_bytes)) {
    // Expected latency: each level serves the loads it catches that smaller levels missed.
    double expected = 0, missed = 1;
    for (const auto& [capacity, level_ns] : levels) {
      const double hit = std::min(1.0, static_cast<double>(capacity) / static_cast<double>(bytes));
      expected += missed * hit * level_ns;
      missed *= 1 - hit;
    }
    curve.push_back({bytes, expected + missed * memory_ns});
  }
  return curve;
}

TEST(CacheLevels, OneStepPerLevelAtItsCapacity) {
  const auto curve = ModelCurve({{32 * KiB, 1.0}, {512 * KiB, 4.0}, {16 * MiB, 12.0}}, 90.0, GiB);
  const auto levels = DetectCacheLevels(curve);
  ASSERT_EQ(levels.size(), 4u);
  const std::size_t capacities[] = {32 * KiB, 512 * KiB, 16 * MiB};
  const double latencies[] = {1.0, 4.0, 12.0, 90.0};
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_NEAR(levels[k].ns_per_load, latencies[k], 0.35 * latencies[k]) << "level " << k + 1;
    if (k < 3) {
      ASSERT_TRUE(levels[k].capacity_bytes) << k;
      EXPECT_EQ(*levels[k].capacity_bytes, capacities[k]) << "level " << k + 1;
    }
  }
  EXPECT_FALSE(levels[3].capacity_bytes) << "the last plateau has no capacity";
}

TEST(CacheLevels, NoiseDoesNotMakeAStep) {
  auto curve = ModelCurve({{32 * KiB, 1.0}, {512 * KiB, 4.0}}, 90.0, 256 * MiB);
  for (LatencyPoint& p : curve) {
    if (p.bytes == 8 * KiB || p.bytes == 128 * KiB) p.ns *= 3;  // a time slice lost mid-repeat
  }
  EXPECT_EQ(DetectCacheLevels(curve).size(), 3u);
}

TEST(CacheLevels, AFlatCurveIsOneLevel) {
  std::vector<LatencyPoint> flat;
  for (std::size_t bytes : LatencySizes(64 * MiB)) flat.push_back({bytes, 1.2});
  const auto levels = DetectCacheLevels(flat);
  ASSERT_EQ(levels.size(), 1u);
  EXPECT_DOUBLE_EQ(levels[0].ns_per_load, 1.2);
  EXPECT_TRUE(DetectCacheLevels({}).empty());
}

TEST(CacheLevels, AreMatchedToTheReportedCachesWithinTwofold) {
  const auto curve = ModelCurve({{48 * KiB, 1.0}, {MiB, 4.0}, {32 * MiB, 12.0}}, 90.0, GiB);
  const std::vector<ReportedCache> reported = {
      {1, "Data", 48 * KiB, "sysfs"}, {2, "Unified", MiB, "sysfs"}, {3, "Unified", 256 * MiB, "sysfs"}};
  const Json fields = CacheLevelsFields(curve, reported, GiB);
  EXPECT_EQ(fields["steps"], 3);
  const Json& levels = fields["levels"];
  ASSERT_EQ(levels.size(), 4u);
  EXPECT_EQ(levels[0]["reported"]["level"], 1);
  EXPECT_EQ(levels[1]["reported"]["level"], 2);
  EXPECT_TRUE(levels[2]["reported"].is_null()) << "32 MiB seen, 256 MiB reported: no match";
  EXPECT_TRUE(levels[3]["capacity_bytes"].is_null());
  EXPECT_TRUE(levels[3]["memory"].get<bool>()) << "1 GiB is past twice the largest cache";
  EXPECT_FALSE(CacheLevelsFields(curve, reported, 256 * MiB)["levels"].back()["memory"].get<bool>());
  EXPECT_EQ(fields["reported_caches"].size(), 3u);
}

}  // namespace
}  // namespace amq
