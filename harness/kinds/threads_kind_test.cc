// harness/kinds/threads_kind_test.cc - the threads kind: its cells (per_thread has no T = 1),
// its records (every field declared, three streams, no false negative, the same counts at every
// T of the shared layout), the false-negative accounting, placement recorded, and the suite-file
// errors it refuses (one line, exit status 2). Nothing here is timed or judged by a time.
#include "harness/kinds/threads_kind.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "commands/binary_test_support.h"
#include "core/errors.h"
#include "harness/kinds/kind_test_support.h"
#include "harness/machine/thread_team.h"
#include "harness/run/schema.h"

namespace amq {
namespace {

const Json kSmall = {{"keys", {4000}}, {"threads", {1, 2, 3}}, {"queries", 3000}, {"repeats", 2}, {"seed", 5}};

TEST(Threads, CellsPerFilterLayoutAndThreadCount) {
  const auto plan = kThreadsKind.plan(KindInput(kThreadsKind, kSmall, {"bloom", "xor8"}));
  const std::vector<std::string> labels = CellLabels(*plan);
  // per_thread at T = 1 is the shared layout's T = 1: not run twice.
  EXPECT_EQ(labels, (std::vector<std::string>{
                        "bloom n=4000 shared T=1", "bloom n=4000 shared T=2", "bloom n=4000 shared T=3",
                        "bloom n=4000 per_thread T=2", "bloom n=4000 per_thread T=3", "xor8 n=4000 shared T=1",
                        "xor8 n=4000 shared T=2", "xor8 n=4000 shared T=3", "xor8 n=4000 per_thread T=2",
                        "xor8 n=4000 per_thread T=3"}));
  const auto only_shared = kThreadsKind.plan(
      KindInput(kThreadsKind, {{"keys", {100}}, {"threads", {2, 1}}, {"layouts", {"shared"}}}, {"cuckoo12"}));
  ASSERT_EQ(only_shared->cells().size(), 2u);
  EXPECT_EQ(only_shared->cells()[0].identity["threads"], 1) << "threads sorted, 1 first";
}

TEST(Threads, RecordsDeclaredCheckedAndTheSameCountsAtEveryT) {
  const std::vector<std::string> names = {"bloom", "cuckoo12", "xor8", "rsqf"};
  const auto plan = kThreadsKind.plan(KindInput(kThreadsKind, kSmall, names));
  std::map<std::string, Json> shared_counts;
  for (std::size_t i = 0; i < plan->cells().size(); ++i) {
    const std::vector<Json> lines = plan->Run(i);
    ASSERT_EQ(lines.size(), 1u);
    const Json& r = lines[0];
    SCOPED_TRACE(r.dump());
    EXPECT_NO_THROW(CheckRecordAgainstSchema(r));
    EXPECT_FALSE(plan->Broken(r));
    const int t = r["threads"];
    // Three streams of 3,000, each a warm-up and 2 timed runs: members 3,000 + about 1,500 mixed.
    EXPECT_EQ(r["false_negatives"], 0u);
    EXPECT_EQ(r["members_found"], r["member_lookups"]);
    EXPECT_EQ(r["member_lookups"].get<std::size_t>() + r["negative_queries"].get<std::size_t>(), 3u * 3 * 3000);
    EXPECT_GT(r["member_lookups"].get<std::size_t>(), 3u * 3000);
    EXPECT_LT(r["member_lookups"].get<std::size_t>(), 3u * 6000);
    for (const char* mix : {"member", "absent", "mixed"}) {
      const std::string m = mix;
      EXPECT_GT(r[m + "_ops_per_second"].get<double>(), 0) << m;
      EXPECT_EQ(r[m + "_ops_per_second_samples"].size(), 2u) << m;
      EXPECT_LE(r[m + "_ops_per_second_min"].get<double>(), r[m + "_ops_per_second"].get<double>());
      EXPECT_TRUE(r[m + "_speedup"].is_number()) << "the T = 1 cell ran first, in this process";
      if (t == 1) {
        EXPECT_DOUBLE_EQ(r[m + "_speedup"].get<double>(), 1.0);
      }
    }
    ASSERT_EQ(r["thread_cpus"].size(), std::size_t(t));
    ASSERT_EQ(r["thread_cpus_seen"].size(), std::size_t(t));
    if (r["pinned"].get<bool>()) {
      const std::vector<int> order = PlacementCpus();
      for (int k = 0; k < t; ++k) EXPECT_EQ(r["thread_cpus"][k], order[std::size_t(k) % order.size()]);
      EXPECT_EQ(r["thread_cpus_seen"], r["thread_cpus"]) << "a pinned thread runs where it was pinned";
    }
    EXPECT_EQ(r["filters_built"], r["layout"] == "shared" ? 1 : t);
    if (r["layout"] == "shared") {
      // One filter, one query stream sliced T ways: what is found does not depend on T.
      const Json counts = {r["members_found"], r["false_positives"], r["keys_inserted"], r["size_bytes"]};
      const auto [it, fresh] = shared_counts.emplace(r["filter"].get<std::string>(), counts);
      if (!fresh) {
        EXPECT_EQ(it->second, counts);
      }
    } else {
      EXPECT_EQ(r["keys_inserted"], 4000u) << "the n / T shards hold every key between them";
    }
  }
  EXPECT_EQ(shared_counts.size(), names.size());
}

TEST(Threads, AFalseNegativeBreaksTheCell) {
  const auto plan = kThreadsKind.plan(KindInput(kThreadsKind, kSmall, {"bloom"}));
  EXPECT_TRUE(plan->Broken({{"false_negatives", 1}, {"member_lookups", 10}, {"members_found", 9}}));
  EXPECT_FALSE(plan->Broken({{"false_negatives", 0}, {"member_lookups", 10}, {"members_found", 10}}));
}

TEST(Threads, RefusesWhatNoCellCouldRun) {
  const auto make = [](Json params) { return kThreadsKind.plan(KindInput(kThreadsKind, std::move(params), {"bloom"})); };
  EXPECT_THROW(make(Json::object()), InputError) << "no keys";
  EXPECT_THROW(make({{"keys", {100}}, {"threads", {2, 4}}}), InputError) << "no T = 1 to divide by";
  EXPECT_THROW(make({{"keys", {100}}, {"layouts", {"per_thread"}}}), InputError);
  EXPECT_THROW(make({{"keys", {100}}, {"layouts", {"shared", "striped"}}}), InputError);
  EXPECT_THROW(make({{"keys", {2}}, {"threads", {1, 4}}}), InputError) << "a per_thread filter of no key";
  EXPECT_THROW(CheckParam(*kThreadsKind.Find("threads"), Json{0}, "threads"), InputError);
  EXPECT_THROW(CheckParam(*kThreadsKind.Find("member_share"), 1.0, "member_share"), InputError);
}

// A suite file with a bad thread count: one line on stderr naming it, exit status 2, nothing run.
class ThreadsSuiteFile : public testing::BinaryTest {};

TEST_F(ThreadsSuiteFile, BadThreadCountIsOneLineAndStatus2) {
  const std::string head =
      "[suite]\nname = \"t\"\n[[experiment]]\nid = \"th\"\nkind = \"threads\"\nfilters = { names = [\"bloom\"] }\n"
      "keys = [1000]\nquick = {}\n";
  for (const auto& [line, expected] : std::vector<std::pair<std::string, std::string>>{
           {"threads = [1, 0]\n", "key 'threads' must be in 1 .. 4096, got 0"},
           {"threads = [2, 4]\n", "threads must include 1"}}) {
    const auto file = dir_ / "bad.toml";
    std::ofstream(file) << head << line;
    const Outcome o = Run("suite " + file.string() + " --out-dir " + (dir_ / "out").string());
    EXPECT_EQ(o.status, 2) << line;
    EXPECT_NE(o.err.find(expected), std::string::npos) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  }
}

}  // namespace
}  // namespace amq
