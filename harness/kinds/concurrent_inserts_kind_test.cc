// harness/kinds/concurrent_inserts_kind_test.cc - the concurrent_inserts kind: its cells, its
// records (every field declared, no false negative, the same sizes at every T, the Bloom bits'
// FPR the same at every T since ORs commute), what breaks a cell, and the suite-file errors it
// refuses (one line, exit status 2). Nothing here is timed or judged by a time.
#include "harness/kinds/concurrent_inserts_kind.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>

#include "commands/binary_test_support.h"
#include "core/errors.h"
#include "harness/kinds/kind_test_support.h"
#include "harness/run/schema.h"

namespace amq {
namespace {

const Json kSmall = {{"keys", {6000}}, {"threads", {1, 2, 3}}, {"queries", 5000}, {"repeats", 2}, {"seed", 5}};

TEST(ConcurrentInserts, CellsPerFilterAndThreadCount) {
  const auto plan = kConcurrentInsertsKind.plan(KindInput(kConcurrentInsertsKind, kSmall, {"bloom", "blocked_bloom"}));
  const std::vector<std::string> labels = CellLabels(*plan);
  EXPECT_EQ(labels, (std::vector<std::string>{"bloom n=6000 T=1", "bloom n=6000 T=2", "bloom n=6000 T=3",
                                              "blocked_bloom n=6000 T=1", "blocked_bloom n=6000 T=2",
                                              "blocked_bloom n=6000 T=3"}));
}

TEST(ConcurrentInserts, RecordsDeclaredCheckedAndEveryKeyFound) {
  const std::vector<std::string> names = {"bloom", "blocked_bloom", "blocked_bloom256"};
  const auto plan = kConcurrentInsertsKind.plan(KindInput(kConcurrentInsertsKind, kSmall, names));
  std::map<std::string, Json> at_one_thread;
  for (std::size_t i = 0; i < plan->cells().size(); ++i) {
    const std::vector<Json> lines = plan->Run(i);
    ASSERT_EQ(lines.size(), 1u);
    const Json& r = lines[0];
    SCOPED_TRACE(r.dump());
    EXPECT_NO_THROW(CheckRecordAgainstSchema(r));
    EXPECT_FALSE(plan->Broken(r));
    EXPECT_EQ(r["false_negatives"], 0u);
    EXPECT_EQ(r["keys_inserted"], 6000u);
    EXPECT_EQ(r["lock_bytes"], 0u) << "the Bloom family sets bits atomically, no lock";
    EXPECT_EQ(r["inserts_per_second_samples"].size(), 2u);
    EXPECT_LE(r["inserts_per_second_min"].get<double>(), r["inserts_per_second"].get<double>());
    EXPECT_GE(r["inserts_per_second_max"].get<double>(), r["inserts_per_second"].get<double>());
    ASSERT_TRUE(r["insert_speedup"].is_number()) << "the T = 1 cell ran first, in this process";
    const int t = r["threads"];
    if (t == 1) {
      EXPECT_DOUBLE_EQ(r["insert_speedup"].get<double>(), 1.0);
    }
    ASSERT_EQ(r["thread_cpus"].size(), std::size_t(t));
    // ORs commute: the bits, so the bytes and the FPR, are the same however the threads interleave.
    const Json same = {r["size_bytes"], r["fpr_after_concurrent_inserts"], r["fpr_theory"]};
    const auto [it, fresh] = at_one_thread.emplace(r["filter"].get<std::string>(), same);
    if (!fresh) {
      EXPECT_EQ(it->second, same);
    }
  }
  EXPECT_EQ(at_one_thread.size(), names.size());
}

TEST(ConcurrentInserts, AFalseNegativeBreaksTheCell) {
  const auto plan = kConcurrentInsertsKind.plan(KindInput(kConcurrentInsertsKind, kSmall, {"bloom"}));
  EXPECT_TRUE(plan->Broken({{"false_negatives", 1}}));
  EXPECT_FALSE(plan->Broken({{"false_negatives", 0}}));
}

TEST(ConcurrentInserts, RefusesWhatNoCellCouldRun) {
  const auto make = [](Json params, std::vector<std::string> names = {"bloom"}) {
    return kConcurrentInsertsKind.plan(KindInput(kConcurrentInsertsKind, std::move(params), names));
  };
  EXPECT_THROW(make(Json::object()), InputError) << "no keys";
  EXPECT_THROW(make({{"keys", {100}}, {"threads", {2, 4}}}), InputError) << "no T = 1 to divide by";
  EXPECT_THROW(make({{"keys", {2}}, {"threads", {1, 4}}}), InputError) << "threads with no key";
  try {
    make({{"keys", {100}}}, {"xor8"});
    ADD_FAILURE() << "xor8 has no concurrent insert mode";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no concurrent insert mode; those that do: bloom"), std::string::npos) << e.what();
  }
}

// A suite file naming a filter without the mode: one line on stderr, exit status 2, nothing run.
class ConcurrentInsertsSuiteFile : public testing::BinaryTest {};

TEST_F(ConcurrentInsertsSuiteFile, AFilterWithoutTheModeIsOneLineAndStatus2) {
  const auto file = dir_ / "bad.toml";
  std::ofstream(file) << "[suite]\nname = \"t\"\n[[experiment]]\nid = \"ci\"\nkind = \"concurrent_inserts\"\n"
                         "filters = { names = [\"bloom\", \"xor8\"] }\nkeys = [1000]\nquick = {}\n";
  const Outcome o = Run("suite " + file.string() + " --out-dir " + (dir_ / "out").string());
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.err.find("'xor8' has no concurrent insert mode"), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out" / "ci.jsonl"));
}

}  // namespace
}  // namespace amq
