// harness/machine/thread_team_threaded_test.cc - the thread team the threads and
// concurrent_inserts kinds run on, with the kernel the concurrent_inserts kind times
// (harness/cell/kernels.h's InsertConcurrentSlice), in threaded_tests: scripts/tsan.sh runs this
// under ThreadSanitizer, so a race between the team's barrier, its threads and their slices, or in
// any filter's concurrent mode on the kind's own path, fails CI. Nothing is timed or judged by a time.
#include "harness/machine/thread_team.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/concurrent_insert.h"
#include "core/hashing.h"
#include "filters/all.h"
#include "filters/test_params.h"
#include "harness/cell/kernels.h"

namespace amq {
namespace {

TEST(ThreadTeam, EveryThreadPreparesThenWorksAfterTheBarrier) {
  constexpr int kThreads = 4;
  std::atomic<int> prepared{0};
  std::vector<int> saw_prepared(kThreads, -1);  // each thread writes its own slot
  const TeamRun run = RunTeam(kThreads, [&](int) { prepared.fetch_add(1); },
                              [&](int t) { saw_prepared[t] = prepared.load(); });
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(saw_prepared[t], kThreads) << "thread " << t << " started early";
  EXPECT_EQ(run.cpus.size(), std::size_t{kThreads});
  EXPECT_EQ(run.cpus_seen.size(), std::size_t{kThreads});
  EXPECT_GT(run.wall_ns, 0);
}

TEST(ThreadTeam, EachThreadIsPinnedToTheCpuNamedForIt) {
  const std::vector<int> placement = PlacementCpus();
  const std::size_t n = placement.size();
  EXPECT_EQ(TeamCpus(3), (std::vector<int>{placement[0], placement[1 % n], placement[2 % n]})) << "round again";
  // The placement's order reversed: RunTeamOn follows the list given, not the placement.
  const std::vector<int> cpus = {placement.back(), placement.front()};
  const TeamRun run = RunTeamOn(cpus, [](int) {}, [](int) {});
  ASSERT_TRUE(run.pinned);
  EXPECT_EQ(run.cpus, cpus);
  EXPECT_EQ(run.cpus_seen, cpus) << "a pinned thread runs nowhere else";
}

TEST(ThreadTeam, AThreadsExceptionReachesTheCallerAfterEveryThreadEnds) {
  std::atomic<int> finished{0};
  EXPECT_THROW(RunTeam(3, [](int) {},
                       [&](int t) {
                         if (t == 1) throw std::runtime_error("thread 1 failed");
                         finished.fetch_add(1);
                       }),
               std::runtime_error);
  EXPECT_EQ(finished.load(), 2);
}

template <class F>
class TeamLoadsAFilter : public ::testing::Test {};
using ConcurrentTypes = Rebind<ConcurrentInsertFilters, ::testing::Types>::type;
TYPED_TEST_SUITE(TeamLoadsAFilter, ConcurrentTypes, filter_tests::FilterNames);

// The concurrent_inserts kind's path: slices [t n / T, (t+1) n / T) through InsertConcurrentSlice
// on pinned team threads, then every accepted key looked up.
TYPED_TEST(TeamLoadsAFilter, NoFalseNegativeAfterTheTeamsInserts) {
  constexpr std::size_t kKeys = 30000;
  std::vector<std::uint64_t> keys(kKeys);
  for (std::size_t i = 0; i < kKeys; ++i) keys[i] = MurmurMix64(3 * i + 1);
  for (int threads : {2, 4}) {
    TypeParam filter(filter_tests::Params(kKeys, 0.01, 0.0, 9));
    InsertLocks locks(filter.insert_lock_count());
    std::vector<std::uint8_t> accepted(kKeys);
    std::vector<std::size_t> refused(threads);
    RunTeam(threads, [](int) {}, [&](int t) {
      const std::size_t begin = kKeys * t / threads, end = kKeys * (t + 1) / threads;
      refused[t] = InsertConcurrentSlice(filter, locks, std::span(keys).subspan(begin, end - begin),
                                         std::span(accepted).subspan(begin, end - begin));
    });
    std::size_t refused_total = 0, false_negatives = 0;
    for (std::size_t r : refused) refused_total += r;
    for (std::size_t i = 0; i < kKeys; ++i) false_negatives += accepted[i] && !filter.contains(keys[i]) ? 1 : 0;
    EXPECT_EQ(false_negatives, 0u) << threads << " threads";
    EXPECT_EQ(refused_total, static_cast<std::size_t>(std::count(accepted.begin(), accepted.end(), 0)));
  }
}

}  // namespace
}  // namespace amq
