// commands/machine_command_test.cc - `amqbench machine` from the outside: a --quick run written
// as a result file whose lines the schema accepts, its latency curve rising from L1 to the
// largest size, one step per cache level (loosely), the line handoff where two CPUs are ours,
// and bad options exiting 2 with one line and no file. Never an absolute speed: these VMs are
// shared and loaded, so only structure and loose monotonicity are checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands/binary_test_support.h"
#include "harness/machine/machine_measure.h"
#include "harness/machine/thread_team.h"
#include "harness/run/schema.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// One quick run shared by the tests that read its output (it takes a few seconds).
class MachineQuickRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("amqbench_machine_" + std::to_string(getpid())));
    fs::create_directories(*dir_);
    const fs::path out = *dir_ / "machine.jsonl";
    const std::string line = std::string(AMQ_BINARY) + " machine --quick --out " + out.string() + " >" +
                             (*dir_ / "stdout").string() + " 2>" + (*dir_ / "stderr").string();
    const int raw = std::system(line.c_str());
    status_ = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    doc_ = new json(status_ == 0 ? amq::testing::ReadResultDocument(out) : json());
    table_ = new std::string(amq::testing::ReadFile(*dir_ / "stdout"));
    err_ = new std::string(amq::testing::ReadFile(*dir_ / "stderr"));
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
    delete doc_;
    delete table_;
    delete err_;
  }
  void SetUp() override { ASSERT_EQ(status_, 0) << *err_; }

  static std::vector<json> Records(const std::string& test) {
    std::vector<json> out;
    for (const json& r : (*doc_)["records"]) {
      if (r.value("test", "") == test) out.push_back(r);
    }
    return out;
  }

  static fs::path* dir_;
  static int status_;
  static json* doc_;
  static std::string* table_;
  static std::string* err_;
};

fs::path* MachineQuickRun::dir_ = nullptr;
int MachineQuickRun::status_ = -1;
json* MachineQuickRun::doc_ = nullptr;
std::string* MachineQuickRun::table_ = nullptr;
std::string* MachineQuickRun::err_ = nullptr;

TEST_F(MachineQuickRun, WritesAResultFileWithTheNamedRecords) {
  const json& doc = *doc_;
  EXPECT_EQ(doc["schema_version"], 2);
  EXPECT_TRUE(doc["complete"].get<bool>());
  EXPECT_EQ(doc["header"]["experiment"]["id"], "machine");
  EXPECT_EQ(doc["header"]["experiment"]["kind"], "machine");
  for (const char* field : {"host_name", "cpu_model", "caches", "git_commit", "command_line"}) {
    EXPECT_TRUE(doc["context"].contains(field)) << field;
  }
  EXPECT_EQ(doc["header"]["cells"].size(), doc["records"].size()) << "every planned point is written";
  for (const json& r : doc["records"]) {
    EXPECT_EQ(r["record"], "machine");
    EXPECT_EQ(r["kind"], "machine");
    EXPECT_EQ(r["experiment"], "machine");
    EXPECT_EQ(r["cell_id"].get<std::string>().size(), 16u);
    EXPECT_TRUE(r.contains("seed"));
    // Every field is declared in the schema with its type (ordered_json: the harness's own).
    EXPECT_NO_THROW(amq::CheckRecordAgainstSchema(amq::Json::parse(r.dump()))) << r.dump();
  }
  const auto latency = Records("latency"), random = Records("random_lines"), sequential = Records("sequential");
  ASSERT_GE(latency.size(), 20u);
  EXPECT_EQ(latency.front()["working_set_bytes"], 4096);
  EXPECT_EQ(latency.back()["working_set_bytes"], 64 << 20) << "--quick goes to 64 MiB";
  for (const json& r : latency) {
    EXPECT_GT(r["ns_per_load"].get<double>(), 0);
    EXPECT_LE(r["ns_per_load_min"].get<double>(), r["ns_per_load"].get<double>());
    EXPECT_LE(r["ns_per_load"].get<double>(), r["ns_per_load_max"].get<double>());
    EXPECT_EQ(r["repeats"], 3);
    EXPECT_TRUE(r["huge_pages"].is_boolean());
  }
  ASSERT_GE(random.size(), 2u);
  for (const json& r : random) {
    EXPECT_GT(r["lines_per_second"].get<double>(), 0) << r.dump();
    // The record's rate is the faster method's, and says which.
    const std::string method = r["lines_method"];
    ASSERT_TRUE(method == "loads" || method == "prefetch") << r.dump();
    EXPECT_EQ(r["lines_per_second"], r[method + "_lines_per_second"]) << r.dump();
    EXPECT_GE(r["lines_per_second"].get<double>(), r["loads_lines_per_second"].get<double>());
    EXPECT_GE(r["lines_per_second"].get<double>(), r["prefetch_lines_per_second"].get<double>());
  }
  // The same sizes again on a buffer of the kernel's default pages, the filters' ceiling.
  const auto plain = Records("random_lines_default_pages");
  ASSERT_EQ(plain.size(), random.size());
  for (std::size_t i = 0; i < plain.size(); ++i) {
    EXPECT_EQ(plain[i]["working_set_bytes"], random[i]["working_set_bytes"]);
    EXPECT_GT(plain[i]["lines_per_second"].get<double>(), 0) << plain[i].dump();
    if (amq::TransparentHugePageMode() != "always") {
      EXPECT_EQ(plain[i]["huge_page_fraction"], 0.0) << "4 KiB pages, as a filter's table: " << plain[i].dump();
    }
  }
  EXPECT_NE(table_->find("the same on the kernel's default pages"), std::string::npos) << *table_;
  ASSERT_GE(sequential.size(), 2u);
  for (const json& r : sequential) EXPECT_GT(r["bytes_per_second"].get<double>(), 0) << r.dump();
  // One size in L2 or below and one past it, at least.
  EXPECT_LE(random.front()["working_set_bytes"].get<std::size_t>(), std::size_t{1} << 20);
  EXPECT_GE(random.back()["working_set_bytes"].get<std::size_t>(), std::size_t{64} << 20);
  const auto summary = Records("cache_levels");
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_EQ(doc["records"].back()["test"], "cache_levels") << "the summary comes last";
  EXPECT_NE(table_->find("levels read off the curve"), std::string::npos) << *table_;
}

// With the threaded points (--quick keeps the default thread counts) and two CPUs, one cache
// line handed between the placement's first two, measured once, before the summary.
TEST_F(MachineQuickRun, HandsALineBetweenTheFirstTwoCpusWhereThereAreTwo) {
  const auto handoff = Records("line_handoff");
  const std::vector<int> placement = amq::PlacementCpus();
  ASSERT_EQ(handoff.size(), placement.size() >= 2 ? 1u : 0u) << placement.size() << " CPUs";
  if (handoff.empty()) GTEST_SKIP() << "one CPU: no handoff";
  const json& r = handoff[0];
  EXPECT_EQ(r["handoff_cpus"], json({placement[0], placement[1]}));
  EXPECT_EQ((*doc_)["records"][(*doc_)["records"].size() - 2]["test"], "line_handoff");
  if (r["pinned"].get<bool>()) {
    EXPECT_GT(r["ns_per_handoff_min"].get<double>(), 0) << r.dump();
    EXPECT_LE(r["ns_per_handoff_min"].get<double>(), r["ns_per_handoff"].get<double>()) << r.dump();
    EXPECT_LE(r["ns_per_handoff"].get<double>(), r["ns_per_handoff_max"].get<double>()) << r.dump();
  } else {
    EXPECT_TRUE(r["ns_per_handoff"].is_null())
        << "unpinned, the time is the scheduler's: " << r.dump();
  }
  EXPECT_NE(table_->find("a cache line handed between two CPUs"), std::string::npos) << *table_;
}

TEST_F(MachineQuickRun, LatencyRisesFromTheSmallestToTheLargestSize) {
  const auto latency = Records("latency");
  const double smallest = latency.front()["ns_per_load"], largest = latency.back()["ns_per_load"];
  EXPECT_GE(largest, 2 * smallest) << "4 KiB sits in L1; 64 MiB is past L2 at least";
  // Loosely non-decreasing: no size beyond 1 MiB is faster than the 4 KiB one.
  for (const json& r : latency) {
    if (r["working_set_bytes"].get<std::size_t>() >= (std::size_t{1} << 20)) {
      EXPECT_GE(r["ns_per_load"].get<double>(), smallest) << r.dump();
    }
  }
}

// The test: the curve has one step per cache level it finds (checked loosely): at least
// one, and no more than one per cache the system reports plus one for memory.
TEST_F(MachineQuickRun, OneStepPerCacheLevelLoosely) {
  const json summary = Records("cache_levels").at(0);
  const int steps = summary["steps"];
  const std::size_t reported = summary["reported_caches"].size();
  EXPECT_GE(steps, 1);
  EXPECT_LE(steps, static_cast<int>(std::max<std::size_t>(reported, 3) + 1)) << summary.dump();
  ASSERT_EQ(summary["levels"].size(), static_cast<std::size_t>(steps) + 1);
  double previous = 0;
  for (const json& level : summary["levels"]) {
    EXPECT_GT(level["ns_per_load"].get<double>(), previous) << "each plateau is slower than the one before";
    previous = level["ns_per_load"];
  }
  EXPECT_TRUE(summary["levels"].back()["capacity_bytes"].is_null());
}

class MachineCommand : public amq::testing::BinaryTest {
 public:
  MachineCommand() : BinaryTest("machine ") {}

 protected:
  // Exit 2, one line on stderr naming `fragment`, and no output file.
  void ExpectRefused(const std::string& args, const std::string& fragment, const fs::path& out) {
    const Outcome run = Run(args);
    EXPECT_EQ(run.status, 2) << args << "\n" << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << args << "\n" << run.err;
    EXPECT_NE(run.err.find(fragment), std::string::npos) << args << "\n" << run.err;
    EXPECT_FALSE(fs::exists(out)) << args;
  }
};

TEST_F(MachineCommand, BadOptionsExit2WithOneLineAndNoFile) {
  const fs::path out = dir_ / "m.jsonl";
  const std::string o = " --out " + out.string();
  ExpectRefused("--quick --max-bytes 0" + o, "--max-bytes must be in 4M .. 128G, got 0", out);
  ExpectRefused("--quick --max-bytes 1M" + o, "--max-bytes must be in 4M .. 128G, got 1048576", out);
  ExpectRefused("--quick --max-bytes lots" + o, "is not a size", out);
  ExpectRefused("--quick --max-bytes 4X" + o, "is not a size", out);
  ExpectRefused("--quick --max-bytes 1024G" + o, "--max-bytes must be in 4M .. 128G", out);
  ExpectRefused("--quick --repeats 0" + o, "--repeats must be in 1 .. 1000", out);
  ExpectRefused("--quick --repeats -3" + o, "--repeats must be in 1 .. 1000", out);
  ExpectRefused("--quick --huge-pages maybe" + o, "--huge-pages must be auto, on, off or default", out);
  ExpectRefused("--quick extra" + o, "machine:", out);
  ExpectRefused("--quick --no-such-option" + o, "machine:", out);
  const fs::path nowhere = dir_ / "no_such_dir" / "m.jsonl";
  ExpectRefused("--quick --out " + nowhere.string(), "cannot write output file", nowhere);
}

TEST_F(MachineCommand, AFinishedFileIsReplacedOnlyWithForce) {
  const fs::path out = dir_ / "done.jsonl";
  const std::string finished = "{\"record\":\"header\",\"schema_version\":2}\n{\"record\":\"end\",\"complete\":true,\"cells\":0}\n";
  std::ofstream(out) << finished;
  const Outcome run = Run("--quick --out " + out.string());
  EXPECT_EQ(run.status, 2) << run.err;
  EXPECT_NE(run.err.find("--force"), std::string::npos) << run.err;
  EXPECT_EQ(amq::testing::ReadFile(out), finished) << "left as it was";
}

// "Also recorded in every result's context when asked": run --machine measures briefly first.
TEST_F(MachineCommand, RunRecordsTheMachineInItsContextWhenAsked) {
  const fs::path out = dir_ / "run.jsonl";
  // The fixture's Run() prefixes "machine "; this one is `amqbench run`.
  const std::string line = std::string(AMQ_BINARY) + " run --quick --filter bloom --keys 2000 --queries 2000 "
                           "--machine --out " + out.string() + " 2>" + (dir_ / "run.err").string();
  ASSERT_EQ(std::system(line.c_str()), 0) << amq::testing::ReadFile(dir_ / "run.err");
  const json doc = amq::testing::ReadResultDocument(out);
  ASSERT_TRUE(doc["context"].contains("machine"));
  const json& machine = doc["context"]["machine"];
  EXPECT_GE(machine["levels"].size(), 2u);
  EXPECT_GT(machine["random_lines_per_second"].get<double>(), 0);
  EXPECT_GT(machine["sequential_bytes_per_second"].get<double>(), 0);
  EXPECT_TRUE(machine["huge_pages"].is_boolean());
  EXPECT_EQ(doc["records"].size(), 1u);
}

TEST_F(MachineCommand, HelpNamesEveryOption) {
  const Outcome run = Run("--help");
  EXPECT_EQ(run.status, 0);
  for (const char* option : {"--out", "--max-bytes", "--repeats", "--huge-pages", "--quick", "--force"}) {
    EXPECT_NE(run.out.find(option), std::string::npos) << option;
  }
}

}  // namespace
