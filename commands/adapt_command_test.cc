// commands/adapt_command_test.cc - `amqbench adapt` from the outside: tiny synthetic and
// adversarial runs parsed back and checked field by field, and each kind of bad input exiting
// 2 with one line on stderr and no output file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "commands/binary_test_support.h"

namespace {

namespace fs = std::filesystem;

using amq::testing::ReadFile;

class AdaptCommand : public amq::testing::BinaryTest {
 protected:
  AdaptCommand() : BinaryTest("adapt ") {}
};

TEST_F(AdaptCommand, SyntheticRunWritesEveryField) {
  const fs::path out = dir_ / "synthetic.json";
  const Outcome o =
      Run("--slots 2048 --bits-per-slot 8 --as-ratio 1,4 --queries-per-flow 20 "
          "--trials 2 --out " +
          out.string());
  ASSERT_EQ(o.status, 0) << o.err;
  const auto doc = amq::testing::ReadResultDocument(out);
  EXPECT_EQ(doc["schema_version"], 2);
  EXPECT_TRUE(doc["complete"].get<bool>());
  EXPECT_TRUE(doc["context"].contains("command_line"));
  const auto& records = doc["records"];
  // --filter all: the 8 adaptive filters and controls (filters/all.h) x 2 ratios x (2 trials +
  // a summary).
  ASSERT_EQ(records.size(), 8u * 2 * 3);
  std::size_t summaries = 0;
  for (const auto& r : records) {
    for (const char* field :
         {"filter",          "record",            "seed",          "fpr",
          "false_positives", "negative_queries", "adaptations",   "remote_lookups",
          "as_ratio",        "queries_per_flow",  "bits_per_slot", "fingerprint_bits",
          "selector_bits",   "fpr_theory_static", "slots",         "load_factor",
          "rebuilds",        "insert_failures",   "remote_bytes",  "size_bytes",
          "false_negatives", "consistent"}) {
      EXPECT_TRUE(r.contains(field)) << r["filter"] << " " << r["record"] << " lacks " << field;
    }
    EXPECT_EQ(r["false_negatives"], 0);
    EXPECT_TRUE(r["consistent"].get<bool>());
    EXPECT_EQ(r["bits_per_slot"], 8);
    const std::string name = r["filter"];
    EXPECT_EQ(r["selector_bits"], name.rfind("acf_cyclic", 0) == 0 ? 2 : 0) << name;
    if (name.rfind("cuckoo_", 0) == 0) {
      EXPECT_EQ(r["adaptations"], 0) << name;
    }
    if (r["record"] == "cell") {
      ++summaries;
      EXPECT_LE(r["fpr_min"].get<double>(), r["fpr"].get<double>());
      EXPECT_GE(r["fpr_max"].get<double>(), r["fpr"].get<double>());
    } else {
      EXPECT_TRUE(r.contains("trial"));
    }
  }
  EXPECT_EQ(summaries, 8u * 2);
  EXPECT_NE(o.err.find("acf_cuckooing"), std::string::npos) << "progress lines on stderr";
}

TEST_F(AdaptCommand, AdversarialRepeatsStopCostingAnAdaptiveFilter) {
  const fs::path out = dir_ / "adversarial.json";
  const Outcome o =
      Run("--experiment adversarial --filter acf_cyclic,cuckoo_4x1 --slots 4096 "
          "--bits-per-slot 8 --fp-set 5 --attack known_fps --queries-per-set 5000 "
          "--trials 1 --out " +
          out.string());
  ASSERT_EQ(o.status, 0) << o.err;
  const auto doc = amq::testing::ReadResultDocument(out);
  for (const auto& r : doc["records"]) {
    if (r["record"] != "trial") continue;
    EXPECT_EQ(r["set_size"], 5);
    if (r["filter"] == "cuckoo_4x1") {
      EXPECT_EQ(r["false_positives"], 5000) << "a static filter pays every time";
    } else {
      EXPECT_LT(r["false_positives"].get<int>(), 50) << "the ACF fixes each one";
    }
  }
}

TEST_F(AdaptCommand, BadInputExitsTwoWithOneLineAndNoFile) {
  const fs::path out = dir_ / "bad.json";
  const std::string tail = " --out " + out.string();
  const std::pair<std::string, std::string> cases[] = {
      {"--filter nosuch" + tail, "unknown adaptive filter 'nosuch'"},
      {"--as-ratio 0" + tail, "--as-ratio must be in (0, 10000]"},
      {"--as-ratio -1" + tail, "--as-ratio must be in (0, 10000]"},
      {"--queries-per-flow 0" + tail, "--queries-per-flow must be in"},
      {"--bits-per-slot 3" + tail, "--bits-per-slot must be in 4 .. 32"},
      {"--bits-per-slot 40" + tail, "--bits-per-slot must be in 4 .. 32"},
      {"--bits-per-slot 8 --selector-bits 8" + tail, "--selector-bits must be in 1 .. 4, got 8"},
      {"--bits-per-slot 5 --selector-bits 4" + tail, "must leave at least 2 fingerprint bits"},
      {"--popularity zipf:x" + tail, "--popularity must be"},
      {"--seed -1" + tail, "--seed must be at least 0"},
      {"--trials 2 3" + tail, "positional"},
      {"--experiment nonsense" + tail, "--experiment must be"},
      {"--trace " + (dir_ / "missing.pcap").string() + tail, "missing.pcap"},
      {"--experiment trace" + tail, "--experiment trace needs --trace FILE"},
      {"--slots 1024", "adapt needs --out"},
      {"--slots 1024 --out /nonexistent-dir/x.json", "cannot write output file"},
  };
  for (const auto& [args, message] : cases) {
    const Outcome o = Run(args);
    EXPECT_EQ(o.status, 2) << args;
    EXPECT_NE(o.err.find(message), std::string::npos) << args << " -> " << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << args << " -> " << o.err;
    EXPECT_FALSE(fs::exists(out)) << args;
  }
}

TEST_F(AdaptCommand, HelpDocumentsEveryOption) {
  const Outcome o = Run("--help");
  ASSERT_EQ(o.status, 0);
  for (const char* option :
       {"--filter", "--experiment", "--slots", "--bits-per-slot", "--selector-bits", "--max-load",
        "--as-ratio", "--queries-per-flow", "--popularity", "--trials", "--seed", "--trace",
        "--windows", "--fp-set", "--attack", "--queries-per-set", "--repeats", "--out"}) {
    EXPECT_NE(o.out.find(option), std::string::npos) << option;
  }
}

}  // namespace
