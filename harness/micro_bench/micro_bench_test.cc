// harness/micro_bench/micro_bench_test.cc - n as a Google Benchmark argument: --keys takes one n or a list,
// a list registers one benchmark per (filter, operation, n) and each names its n, and the micro
// kind passes the list on and estimates the memory its largest n needs.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "harness/kinds/micro_kind.h"
#include "harness/cell/micro_size.h"
#include "harness/cell/registry.h"

namespace amq {
namespace {

struct MicroRun {
  int status = -1;
  std::string out;
};

// amqbench_micro with these arguments; stderr is discarded.
MicroRun RunMicro(const std::string& args) {
  MicroRun run;
  const std::string command = std::string(AMQ_MICRO_BINARY) + " " + args + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return run;
  std::array<char, 4096> buffer{};
  for (std::size_t got; (got = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0;) {
    run.out.append(buffer.data(), got);
  }
  const int status = pclose(pipe);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

// The filters paired with FastFilter's r = 8 configurations declare their micro FPR; the
// registry and the micro-benchmarks size them from it, the others at 1%.
TEST(MicroSizing, FiltersPairedWithARateEightReferenceAreSizedAtTwoToTheMinusEight) {
  for (const char* name : {"homog_ribbon64", "bumped_ribbon", "gcs"}) {
    const FilterEntry* f = FindFilter(name);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_EQ(f->micro.target_fpr, 1.0 / 256) << name;
    EXPECT_EQ(MicroFilterParams(1000, f->micro).target_fpr, 1.0 / 256) << name;
  }
  for (const char* name : {"ribbon64", "ribbon", "bloom", "xor8"}) {
    const FilterEntry* f = FindFilter(name);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_EQ(f->micro.target_fpr, 0.0) << name;
    EXPECT_EQ(MicroFilterParams(1000, f->micro).target_fpr, 0.01) << name;
  }
}

// Loads: the Morton filter at FastFilter's Morton load, the quotient family at its CQF's half
// table, the others at 0.96.
TEST(MicroSizing, MortonAndTheQuotientFamilyDeclareTheirLoads) {
  const auto max_load = [](const char* name) {
    const FilterEntry* f = FindFilter(name);
    return f ? MicroFilterParams(1000, f->micro).max_load : -1.0;
  };
  EXPECT_EQ(max_load("morton"), 0.95);
  EXPECT_EQ(max_load("rsqf"), 0.5);
  EXPECT_EQ(max_load("cuckoo12"), 0.96);
  EXPECT_EQ(max_load("vqf8"), 0.96);
}

TEST(MicroKeys, OneNOrAListOfWholeNumbersEachOnce) {
  EXPECT_EQ(ParseMicroKeys("1000000"), (std::vector<std::size_t>{1000000}));
  EXPECT_EQ(ParseMicroKeys("1024,4096,1048576"), (std::vector<std::size_t>{1024, 4096, 1048576}));
  for (const char* bad : {"", "999", "1e6", "abc", "1024,", ",1024", "1024,,4096", "1024,1024",
                          "-1024", "1000000001", "1024 "}) {
    EXPECT_FALSE(ParseMicroKeys(bad).has_value()) << '"' << bad << '"';
  }
}

TEST(MicroKeys, AListGivesOneBenchmarkPerFilterOperationAndN) {
  const MicroRun run = RunMicro("--keys=1024,2048,4096 --benchmark_list_tests=true");
  ASSERT_EQ(run.status, 0);
  // Benchmark names without their n, with the set of n each was registered at.
  std::map<std::string, std::multiset<std::string>> by_base;
  int overhead = 0;
  std::istringstream lines(run.out);
  for (std::string name; std::getline(lines, name);) {
    const std::size_t at = name.find("/n:");
    if (name.rfind("quotient_family/", 0) == 0) {
      EXPECT_EQ(at, std::string::npos) << name << ": the quotient family's axis is load, not n";
      continue;
    }
    if (name.rfind("overhead/", 0) == 0) {
      EXPECT_EQ(at, std::string::npos) << name << ": Google Benchmark's own cost takes no n";
      ++overhead;
      continue;
    }
    ASSERT_NE(at, std::string::npos) << name << " does not name its n";
    const std::size_t end = name.find('/', at + 1);
    by_base[name.substr(0, at)].insert(name.substr(at + 3, end - at - 3));
  }
  const std::multiset<std::string> every_n = {"1024", "2048", "4096"};
  for (const auto& [base, ns] : by_base) EXPECT_EQ(ns, every_n) << base;
  for (const FilterEntry& f : Registry()) {
    for (const std::string op : {f.dynamic ? "insert" : "build", f.dynamic ? "insert_cold" : "build_cold",
                                 "query_present", "query_absent", "query_present_noinline",
                                 "query_absent_noinline"}) {
      EXPECT_TRUE(by_base.count(std::string(f.name) + "/" + op)) << f.name << "/" << op;
    }
  }
  // A filter that erases has its erase benchmark; one that cannot has none.
  for (const FilterEntry& f : Registry()) {
    EXPECT_EQ(by_base.count(std::string(f.name) + "/erase"), f.dynamic && f.erasable ? 1u : 0u) << f.name;
  }
  // A filter with contains_many has its batched twins beside the one-at-a-time lookups.
  EXPECT_TRUE(by_base.count("cuckoo12/query_present_batched"));
  EXPECT_TRUE(by_base.count("cuckoo12/query_absent_batched"));
  EXPECT_TRUE(by_base.count("static/xor8/build_warm"));
  EXPECT_EQ(overhead, 2) << "the empty iteration and the pause and resume, once each";
}

// The benchmarks `p` selects, run briefly at the n of `keys` as JSON: each must run without an
// error and report a time per key. Adds their names to `names`; the run's JSON, or nullopt when
// it failed.
std::optional<nlohmann::json> RunSelected(const MicroParams& p, const std::string& keys,
                                          std::set<std::string>& names) {
  const MicroRun run = RunMicro("--keys=" + keys + " --benchmark_filter='" + MicroBenchmarkFilter(p) +
                                "' --benchmark_min_time=0.001 --benchmark_format=json");
  EXPECT_EQ(run.status, 0);
  if (run.status != 0) return std::nullopt;
  nlohmann::json doc = nlohmann::json::parse(run.out);
  for (const auto& b : doc["benchmarks"]) {
    names.insert(b["name"].get<std::string>());
    EXPECT_FALSE(b.contains("error_occurred") && b["error_occurred"].get<bool>())
        << b["name"] << ": " << b.value("error_message", "");
    EXPECT_GT(b.value("ns_per_key", 0.0), 0) << b["name"];
  }
  return doc;
}

// The erase benchmark empties tables that hold every key: every erase is accepted (a refused
// one is a lost key, reported as the benchmark's error) and the time is per key erased.
TEST(MicroErase, EveryKeyIsErasedFromFullTables) {
  MicroParams p;
  p.filters = {"cuckoo12", "vqf8", "morton", "rsqf", "counting_bloom"};
  p.operations = {"erase"};
  std::set<std::string> names;
  const std::optional<nlohmann::json> run = RunSelected(p, "1024,65536", names);
  ASSERT_TRUE(run);
  EXPECT_EQ(names.size(), 10u) << "five filters at two n";
  EXPECT_TRUE(names.count("vqf8/erase/n:65536/real_time"));
  // As the inserts do, small n empties several tables an iteration, and the record says so.
  for (const auto& b : (*run)["benchmarks"]) {
    const std::string name = b["name"].get<std::string>();
    const double emptied = name.find("/n:1024/") != std::string::npos ? 128 : 2;
    EXPECT_EQ(b["tables_emptied_per_iteration"].get<double>(), emptied) << name;
    EXPECT_FALSE(b.contains("builds_per_iteration")) << name;
  }
}

TEST(MicroKeys, EachBenchmarkRunsAtItsNAndTheContextSaysWhich) {
  MicroParams p;
  p.filters = {"bloom"};
  p.operations = {"insert", "query_present", "query_absent"};
  std::set<std::string> names;
  const std::optional<nlohmann::json> run = RunSelected(p, "1024,2048", names);
  ASSERT_TRUE(run);
  const nlohmann::json& doc = *run;
  const std::set<std::string> expected = {
      "bloom/insert/n:1024/real_time",        "bloom/insert/n:2048/real_time",
      "bloom/query_present/n:1024/real_time", "bloom/query_present/n:2048/real_time",
      "bloom/query_absent/n:1024/real_time",  "bloom/query_absent/n:2048/real_time"};
  EXPECT_EQ(names, expected);
  // Small n builds several filters an iteration, so a timer pause is paid for 2^17 keys.
  for (const auto& b : doc["benchmarks"]) {
    const std::string name = b["name"].get<std::string>();
    if (name == "bloom/insert/n:1024/real_time") {
      EXPECT_EQ(b["builds_per_iteration"].get<double>(), 128);
    }
    if (name == "bloom/insert/n:2048/real_time") {
      EXPECT_EQ(b["builds_per_iteration"].get<double>(), 64);
    }
  }
  EXPECT_EQ(doc["context"]["keys"], "1024,2048");
  EXPECT_TRUE(doc["context"].contains("amq_caches"));
}

TEST(MicroKeys, OperationsNarrowTheFiltersButNotTheFamilyBenchmarks) {
  MicroParams p;
  p.filters = {"bloom", "cuckoo12"};
  p.benchmarks = {"static"};
  EXPECT_EQ(MicroBenchmarkFilter(p), "^(bloom|cuckoo12|static)/");
  p.operations = {"insert", "query_absent_batched"};
  EXPECT_EQ(MicroBenchmarkFilter(p), "^((bloom|cuckoo12)/(insert|query_absent_batched)/|(static)/)");
}

// The cold build takes its pages from the kernel on every pass (malloc_trim hands the last
// pass's back), and says so with a page-fault count; the warm one reuses mapped memory. At
// n = 65536, cuckoo12's table is 96 KiB, 24 pages.
TEST(MicroKeys, AColdBuildFaultsItsTableIn) {
  const MicroRun run = RunMicro(
      "--keys=65536 --benchmark_filter='^cuckoo12/insert_cold/' --benchmark_min_time=0.001"
      " --benchmark_format=json");
  ASSERT_EQ(run.status, 0);
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  ASSERT_EQ(doc["benchmarks"].size(), 1u);
  const double faults_per_key = doc["benchmarks"][0]["page_faults_per_key"].get<double>();
  EXPECT_GE(faults_per_key * 65536, 24.0);
}

// random_lines, the ceiling on the filter's own table, and random_lines_hashed, its lines named
// through the filters' hash, are registered from 2^20 keys only (below, every table is in cache
// and the machine experiment's rates stand); ns_per_key is then ns per line, lines_per_second
// its inverse, and the table's bytes are those the filter reports.
TEST(MicroKeys, RandomLinesReadTheFiltersOwnTableFrom2To20Keys) {
  const MicroRun list = RunMicro("--keys=1024,1048576 --benchmark_filter='^xor8/random_lines' --benchmark_list_tests=true");
  ASSERT_EQ(list.status, 0);
  EXPECT_EQ(list.out, "xor8/random_lines/n:1048576/real_time\nxor8/random_lines_hashed/n:1048576/real_time\n");
  // Repetitions as the suite runs them: their aggregates must be JSON the suite can read.
  const MicroRun run = RunMicro("--keys=1048576 --benchmark_filter='^xor8/random_lines/' --benchmark_min_time=0.001"
                                " --benchmark_repetitions=2 --benchmark_format=json");
  ASSERT_EQ(run.status, 0);
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  ASSERT_EQ(doc["benchmarks"].size(), 6u);  // 2 repetitions, mean, median, stddev, cv
  const nlohmann::json& b = doc["benchmarks"][0];
  EXPECT_FALSE(b.contains("error_occurred") && b["error_occurred"].get<bool>());
  // ns_per_key is written in seconds (Google Benchmark's inverted rate), so the product is 1.
  EXPECT_NEAR(b["lines_per_second"].get<double>() * b["ns_per_key"].get<double>(), 1.0, 1e-6);
  // xor8 at 2^20 keys: 1.23 n bytes (about 1.3 MB), under 4 MiB, so plain loads.
  EXPECT_EQ(b["label"], "loads");
  EXPECT_NEAR(b["table_bytes"].get<double>(), 1.23 * 1048576, 0.01 * 1048576);
  EXPECT_NEAR(b["table_bytes"].get<double>() * 8 / 1048576, b["bits_per_key"].get<double>(), 1e-6);
}

TEST(MicroKeys, ABadListIsRefusedWithExitStatus2) {
  for (const char* bad : {"--keys=10", "--keys=1024,1024", "--keys=1024,abc"}) {
    EXPECT_EQ(RunMicro(std::string(bad) + " --benchmark_list_tests=true").status, 2) << bad;
  }
}

// The micro kind at 2^26 keys: the key buffers alone are 1 GiB, and the filter part is
// extrapolated from builds at 2^19 and 2^18 keys (bloom at 1%: about 9.6 bits a key).
TEST(MicroKeys, TheMicroKindEstimatesItsLargestN) {
  MicroParams p;
  p.filters = {"bloom"};
  p.binary = AMQ_MICRO_BINARY;
  p.keys = {1024, std::size_t{1} << 26};
  const auto plan = MakeMicroPlan(p);
  const std::optional<MemoryEstimate> estimate = plan->EstimateMemory(0);
  ASSERT_TRUE(estimate.has_value());
  EXPECT_EQ(estimate->buffer_bytes, std::uint64_t{1} << 30);
  EXPECT_EQ(estimate->scale, 128u);
  const double bloom_bytes = (std::size_t{1} << 26) * 9.6 / 8;
  EXPECT_GT(estimate->filter_bytes, 1.5 * bloom_bytes);
  EXPECT_LT(estimate->filter_bytes, 4.0 * bloom_bytes);
  // A list of n costs more than one n: the suite's ETA and shards see the difference.
  MicroParams one = p;
  one.keys = {1024};
  EXPECT_GT(plan->cells()[0].cost, MakeMicroPlan(one)->cells()[0].cost);
  EXPECT_NE(plan->cells()[0].cell_id, MakeMicroPlan(one)->cells()[0].cell_id);
}

}  // namespace
}  // namespace amq
