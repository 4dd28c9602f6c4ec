// commands/run_command_test.cc - the amqbench binary from the outside: a --quick run parsed back,
// the legend covering every field, and each kind of bad input exiting 2 with one line and
// no output file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "commands/binary_test_support.h"
#include "core/sanitizers.h"
#include "traces/pcap_writer.h"

namespace {

namespace fs = std::filesystem;

using amq::testing::ReadFile;

class Driver : public amq::testing::BinaryTest {};

TEST_F(Driver, QuickRunWritesEveryDocumentedField) {
  const fs::path json_path = dir_ / "quick.json";
  const Outcome run = Run("run --quick --filter bloom,blocked_bloom,cuckoo12 --fpr 0.01,0.001 "
                          "--out " + json_path.string());
  ASSERT_EQ(run.status, 0) << run.err;
  const auto doc = amq::testing::ReadResultDocument(json_path);
  EXPECT_EQ(doc["schema_version"], 2);
  EXPECT_TRUE(doc["complete"].get<bool>());
  for (const char* field : {"host_name", "cpu_model", "cores", "caches", "compiler",
                            "compiler_flags", "build_type", "march_native", "git_commit",
                            "command_line", "time_utc", "seed"}) {
    EXPECT_TRUE(doc["context"].contains(field)) << field;
  }
  const auto& records = doc["records"];
  ASSERT_EQ(records.size(), 6u);  // 3 filters x 2 FPR targets
  for (const auto& r : records) {
    for (const char* field : {"filter", "family", "keys", "bits_per_key", "bits_per_key_theory",
                              "fpr", "fpr_theory", "false_negatives", "query_ns_positive",
                              "query_ns_negative", "insert_ns"}) {
      EXPECT_TRUE(r.contains(field)) << r["filter"] << " lacks " << field;
    }
    EXPECT_EQ(r["false_negatives"], 0) << r["filter"];
    EXPECT_EQ(r["keys"], 20000);
    EXPECT_GT(r["bits_per_key"].get<double>(), 0);
    EXPECT_LE(r["fpr_ci_low"].get<double>(), r["fpr"].get<double>());
    EXPECT_GE(r["fpr_ci_high"].get<double>(), r["fpr"].get<double>());
  }
  const auto& cuckoo = records[2];
  ASSERT_EQ(cuckoo["filter"], "cuckoo12");
  for (const char* field : {"fingerprint_bits", "buckets", "kicks_total", "kicks_per_insert",
                            "insert_failures", "load_factor"}) {
    EXPECT_TRUE(cuckoo.contains(field)) << field;
  }
  EXPECT_EQ(cuckoo["fingerprint_bits"], 12);

}

TEST_F(Driver, LegendExplainsEveryFieldOfEveryFilter) {
  const fs::path json_path = dir_ / "all.json";
  const Outcome run = Run("run --quick --keys 2000 --queries 2000 --out " + json_path.string());
  ASSERT_EQ(run.status, 0) << run.err;
  const auto doc = amq::testing::ReadResultDocument(json_path);
  const Outcome legend = Run("legend");
  ASSERT_EQ(legend.status, 0);
  for (const auto& r : doc["records"]) {
    EXPECT_EQ(r["false_negatives"], 0) << r["filter"];
    for (const auto& [field, value] : r.items()) {
      EXPECT_NE(legend.out.find("  " + field + " "), std::string::npos)
          << field << " (from " << r["filter"] << ") is not in amqbench legend";
    }
  }
}

TEST_F(Driver, WorkloadsAndQueryDistributionsFormTheGrid) {
  const fs::path json_path = dir_ / "workloads.json";
  const Outcome run = Run("run --quick --filter cuckoo12 --keys 5000 --keys-from uniform,sequential,strided:4096 "
                          "--query-dist uniform,zipf:0.99 --positive-fraction 0,0.95 --out " +
                          json_path.string());
  ASSERT_EQ(run.status, 0) << run.err;
  const auto doc = amq::testing::ReadResultDocument(json_path);
  ASSERT_EQ(doc["records"].size(), 3u * 2u * 2u);
  for (const auto& r : doc["records"]) {
    EXPECT_EQ(r["false_negatives"], 0);
    const auto& queries = r["workload"]["queries"];
    EXPECT_EQ(r["stream_queries"], 20000);
    // The stream's member share is the requested fraction, to the query.
    const double members = static_cast<double>(r["stream_queries"].get<int>() -
                                                r["stream_negative_queries"].get<int>());
    EXPECT_NEAR(members / 20000, queries["positive_fraction"].get<double>(), 1e-4);
  }
  EXPECT_EQ(doc["records"][0]["workload"]["kind"], "uniform");
  EXPECT_EQ(doc["records"][4]["workload"]["kind"], "sequential");
  EXPECT_EQ(doc["records"][1]["workload"]["queries"]["dist"], "uniform");
  EXPECT_EQ(doc["records"][2]["workload"]["queries"]["dist"], "zipf:0.99");
}

TEST_F(Driver, ChurnKeepsEveryHeldKeyThroughEraseAndInsert) {
  const fs::path json_path = dir_ / "churn.json";
  const Outcome run = Run("run --quick --filter cuckoo12,quotient,rsqf,cqf,bloom --keys 5000 --max-load 0.9 "
                          "--churn 20000 --out " + json_path.string());
  ASSERT_EQ(run.status, 0) << run.err;
  const auto doc = amq::testing::ReadResultDocument(json_path);
  for (const auto& r : doc["records"]) {
    if (r["filter"] == "bloom") {
      EXPECT_FALSE(r.contains("churn_ns")) << "bloom cannot erase: no churn phase";
      continue;
    }
    EXPECT_EQ(r["churn_ops"], 20000 * 6) << r["filter"];
    EXPECT_EQ(r["churn_false_negatives"], 0) << r["filter"];
    EXPECT_EQ(r["false_negatives"], 0) << r["filter"];
    EXPECT_GT(r["churn_fpr"].get<double>(), 0.0) << r["filter"];
    // Churn holds 90% of the keys, so its load and its FPR theory are those of 4,500 keys:
    // the load exactly 0.9 times the full build's, the formula's FPR below the full build's.
    const double load = r["load_factor"], churned = r["churn_load_factor"];
    EXPECT_NEAR(churned, 0.9 * load, 1e-12) << r["filter"];
    EXPECT_LT(r["churn_fpr_theory"].get<double>(), r["fpr_theory"].get<double>()) << r["filter"];
  }
}

TEST_F(Driver, ListNamesEveryFilter) {
  const Outcome list = Run("list");
  ASSERT_EQ(list.status, 0);
  for (const char* name : {"bloom", "blocked_bloom", "cuckoo", "cuckoo8", "cuckoo12", "cuckoo16"}) {
    EXPECT_NE(list.out.find(std::string(name) + "\n"), std::string::npos) << name;
  }  // The capabilities a filter has, from its type: bloom's concurrent mode, xor8 has none.
  EXPECT_NE(list.out.find("bloom\n  family: bloom\n"), std::string::npos);
  const auto section = [&](const std::string& name) {
    const std::size_t at = list.out.find("\n" + name + "\n");
    return list.out.substr(at, list.out.find("parameters:", at) - at);
  };
  EXPECT_NE(section("blocked_bloom").find("concurrent inserts: yes"), std::string::npos);
  EXPECT_NE(section("xor8").find("concurrent inserts: no"), std::string::npos);
}

TEST_F(Driver, BadInputExitsTwoWithOneLineAndNoFile) {
  const fs::path out = dir_ / "bad.json";
  const fs::path short_list = dir_ / "ten_keys.txt";
  std::ofstream(short_list) << "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
  const std::string tail = " --out " + out.string();
  const std::pair<std::string, std::string> cases[] = {
      {"run --filter nosuchfilter" + tail, "unknown filter 'nosuchfilter'"},
      {"run --keys 0" + tail, "--keys must be at least 1"},
      {"run --keys -5" + tail, "--keys must be at least 1"},
      {"run --keys ten" + tail, "is not a number"},
      {"run --fpr 0" + tail, "--fpr must be in (0, 1)"},
      {"run --fpr 1" + tail, "--fpr must be in (0, 1)"},
      {"run --fpr 1.5" + tail, "--fpr must be in (0, 1)"},
      {"run --fpr 0.01 --bits-per-key 10" + tail, "not both"},
      {"run --max-load 0" + tail, "--max-load must be in (0, 1]"},
      {"run --max-load 1.01" + tail, "--max-load must be in (0, 1]"},
      {"run --positive-fraction 2" + tail, "--positive-fraction must be in [0, 1]"},
      {"run --queries -1" + tail, "--queries must be at least 1"},
      {"run --capacity 0" + tail, "--capacity must be at least 1"},
      {"run --repeats 0" + tail, "--repeats must be in 1 .. 1000"},
      {"run --repeat 0" + tail, "--repeat must be in 1 .. 1000"},  // the former spelling, checked alike
      {"run --nosuchoption 3" + tail, "unrecognised option"},
      {"run --quick --out " + (dir_ / "no" / "such" / "dir.json").string(), "cannot write"},
      {"run --quick", "needs --out"},
      {"frobnicate", "unknown command"},
      {"run --filter ," + tail, "--filter needs at least one"},
      {"run --fpr ," + tail, "--fpr needs at least one value"},
      {"run --churn -1" + tail, "--churn must be at least 0"},
      {"run --repeated-negatives 0" + tail, "--repeated-negatives must be at least 1"},
      {"run --keys-from nosuchkind" + tail, "nosuchkind"},
      {"run --query-dist zipf:-1" + tail, "zipf"},
      {"run --trace " + (dir_ / "missing.pcap").string() + tail, "missing.pcap"},
      {"run --trace x.pcap --keys 10" + tail, "--trace sets the keys"},
      {"run --fpr 0.01 0.001" + tail, "positional"},
      // Key sets that cannot supply the cell are refused before the first cell, not after.
      {"run --filter bloom --keys 100,5 --keys-from file:" + short_list.string() + tail, "distinct keys"},
      {"run --filter bloom --keys 10 --keys-from uniform,strided:9223372036854775807" + tail, "too large"},
      {"run --filter bloom --keys 3000000 --keys-from words:wamerican" + tail, "distinct keys"},
      {"run --seed -1" + tail, "--seed must be at least 0"},
      // 10^11 keys need terabytes: refused from the estimate, before any cell runs.
      {"run --filter bloom,xor8 --keys 1000,100000000000" + tail, "use fewer keys or --allow-oversubscribe"},
  };
  for (const auto& [args, message] : cases) {
    const Outcome bad = Run(args);
    EXPECT_EQ(bad.status, 2) << args;
    EXPECT_NE(bad.err.find(message), std::string::npos) << args << " said: " << bad.err;
    EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << args << ": " << bad.err;
    EXPECT_FALSE(fs::exists(out)) << args << " left an output file";
  }
}

// Every cell records its estimated and its measured peak memory. Run alone in a fresh process,
// the cell's peak resident set is the keys, the queries, the filter and its build's scratch
// (plus the binary): the estimate lands within a factor of two of it. 1.5 million keys: above
// 2^19, so the filter part is extrapolated from two scaled builds. Under AddressSanitizer
// freed memory is held in quarantine and the measured peak grows past what the code needs, so
// there only the upper side is checked.
TEST_F(Driver, EveryCellRecordsItsEstimatedAndMeasuredMemory) {
  for (const std::string filter : {"bloom", "xor8", "cuckoo12", "rsqf", "ribbon"}) {
    const fs::path out = dir_ / (filter + ".jsonl");
    const Outcome o = Run("run --filter " + filter + " --keys 1500000 --queries 20000 --repeats 1 --out " + out.string());
    ASSERT_EQ(o.status, 0) << o.err;
    const auto records = amq::testing::ReadRecords(out);
    ASSERT_EQ(records.size(), 1u);
    const auto& r = records[0];
    ASSERT_TRUE(r.contains("memory_estimate_bytes")) << filter;
    ASSERT_TRUE(r.contains("peak_rss_bytes")) << filter;
    const double estimate = r["memory_estimate_bytes"], peak = r["peak_rss_bytes"];
    const double size = r["size_bytes"];
    EXPECT_GE(estimate, size + 16.0 * 1500000) << filter << ": less than the filter and its keys";
    EXPECT_LE(estimate, 2 * peak) << filter;
    if (!amq::kBuiltWithAddressSanitizer) {
      EXPECT_GE(estimate, peak / 2) << filter;
    }
  }
}

// --out never names an input: results written over a capture or a key list would destroy it.
TEST_F(Driver, OutNeverOverwritesAnInput) {
  const fs::path trace = dir_ / "t.pcap";
  ASSERT_EQ(Run("trace synth --out " + trace.string() + " --packets 2000 --flows 200").status, 0);
  const std::string before = ReadFile(trace);
  const Outcome run = Run("run --trace " + trace.string() + " --filter bloom --out " + trace.string());
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("is the trace this run reads"), std::string::npos) << run.err;
  EXPECT_EQ(ReadFile(trace), before);
  const Outcome adapt = Run("adapt --trace " + trace.string() + " --slots 1024 --out " + trace.string());
  EXPECT_EQ(adapt.status, 2);
  EXPECT_EQ(ReadFile(trace), before);
  const fs::path keys = dir_ / "keys.txt";
  std::ofstream(keys) << "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n";
  const Outcome listed = Run("run --keys-from file:" + keys.string() + " --keys 4 --filter bloom --out " +
                             (dir_ / "." / "keys.txt").string());
  EXPECT_EQ(listed.status, 2);
  EXPECT_NE(listed.err.find("is a key file this run reads"), std::string::npos) << listed.err;
  EXPECT_EQ(ReadFile(keys).substr(0, 2), "1\n");
}

// A capture with frames but no IP packet has no flows to replay: bad input, not a run of
// queries about key 0.
TEST_F(Driver, ATraceWithoutIpPacketsIsRefused) {
  const fs::path trace = dir_ / "arp.pcap";
  amq::PcapFileWriter writer(trace.string(), 1);  // Ethernet
  std::vector<std::uint8_t> arp(60, 0);
  arp[12] = 0x08;
  arp[13] = 0x06;  // EtherType ARP
  for (int i = 0; i < 10; ++i) writer.Write(arp);
  writer.Commit();
  const fs::path out = dir_ / "out.jsonl";
  const Outcome run = Run("run --trace " + trace.string() + " --filter bloom --out " + out.string());
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("has no IP packets"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(out));
}

// RocksDB builds no filter below half a bit per key: the cell says the build failed and why,
// and the grid goes on.
TEST_F(Driver, RocksDbBelowHalfABitPerKeyIsAFailedBuild) {
  if (Run("list").out.find("rocksdb_bloom\n") == std::string::npos) GTEST_SKIP() << "no RocksDB";
  const fs::path out = dir_ / "rocks.jsonl";
  const Outcome run = Run("run --filter rocksdb_bloom,bloom --fpr 0.8 --keys 1000 --queries 1000 "
                          "--repeats 1 --out " + out.string());
  ASSERT_EQ(run.status, 0) << run.err;
  const auto records = amq::testing::ReadRecords(out);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_TRUE(records[0]["build_failed"].get<bool>());
  EXPECT_NE(records[0]["error"].get<std::string>().find("0.5 bits/key"), std::string::npos);
  EXPECT_FALSE(records[1]["build_failed"].get<bool>());
}

// A finished run's file is replaced only on purpose.
TEST_F(Driver, AFinishedResultIsReplacedOnlyWithForce) {
  const fs::path out = dir_ / "done.jsonl";
  ASSERT_EQ(Run("run --quick --filter bloom --out " + out.string()).status, 0);
  const std::string before = ReadFile(out);
  const Outcome again = Run("run --quick --filter bloom --out " + out.string());
  EXPECT_EQ(again.status, 2);
  EXPECT_NE(again.err.find("holds a finished run; --force replaces it"), std::string::npos) << again.err;
  EXPECT_EQ(ReadFile(out), before);
  const Outcome forced = Run("run --quick --filter bloom --force --out " + out.string());
  EXPECT_EQ(forced.status, 0) << forced.err;
}

TEST_F(Driver, HelpDocumentsEveryRunOption) {
  const Outcome help = Run("run --help");
  ASSERT_EQ(help.status, 0);
  for (const char* option : {"--filter", "--keys", "--fpr", "--bits-per-key", "--max-load",
                             "--queries", "--positive-fraction", "--seed", "--repeats", "--out",
                             "--quick", "--max-kicks"}) {
    EXPECT_NE(help.out.find(option), std::string::npos) << option;
  }
}

}  // namespace
