// commands/legacy_cli_test.cc - the command lines users already have keep their meaning: each
// `run` and `adapt` line below was run with the binary of the commit before the runner and
// schema were unified (commands/testdata/legacy/*.json keep every field of its records but the
// timings), and must give the same deterministic results at the same seed today.
//
// Fields renamed on purpose since then are compared under their new names (kRenamed); fields
// the new schema adds (cell_id, kind, ...) are not in the old files and are not compared.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "commands/binary_test_support.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Old name -> new name, for adapt records (one word, one meaning: size_bytes is the filter's
// storage everywhere; keys_inserted the keys it holds; negative_queries the non-member queries).
const std::map<std::string, std::string> kRenamed = {
    {"filter_bytes", "size_bytes"}, {"keys", "keys_inserted"}, {"queries", "negative_queries"}};

// The old adapt records named their row kind in `experiment`; the new ones in `record`.
std::string RowOf(const json& old_record) {
  const std::string e = old_record.value("experiment", "");
  if (e.empty()) return "cell";
  if (e == "trace_window") return "window";
  if (e == "trace" || e.ends_with("_summary")) return "cell";
  return "trial";
}

class LegacyCommandLines : public amq::testing::BinaryTest,
                           public ::testing::WithParamInterface<const char*> {};

TEST_P(LegacyCommandLines, GiveTheSameResultsAsBefore) {
  const fs::path fixture = fs::path(AMQ_SOURCE_DIR) / "commands/testdata/legacy" /
                           (std::string(GetParam()) + ".json");
  const json expected = json::parse(amq::testing::ReadFile(fixture));
  std::string command = expected["command"];
  const bool adapt = command.rfind("adapt", 0) == 0;
  if (command.find("{trace}") != std::string::npos) {
    const fs::path trace = dir_ / "synth.pcap";
    ASSERT_EQ(Run("trace synth --out " + trace.string() + " --packets 20000 --flows 2000 --seed 1")
                  .status,
              0);
    command.replace(command.find("{trace}"), 7, trace.string());
  }
  const fs::path out = dir_ / "out.json";
  const Outcome run = Run(command + " --out " + out.string());
  ASSERT_EQ(run.status, 0) << run.err;
  const std::vector<json> records = amq::testing::ReadRecords(out);
  ASSERT_EQ(records.size(), expected["records"].size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    const json& old_record = expected["records"][i];
    const json& now = records[i];
    if (now.contains("record")) EXPECT_EQ(now["record"], RowOf(old_record)) << "record " << i;
    for (const auto& [field, value] : old_record.items()) {
      if (field == "experiment") continue;  // now `kind` and `record`
      std::string name = field;
      if (adapt && kRenamed.count(field)) name = kRenamed.at(field);
      ASSERT_TRUE(now.contains(name)) << "record " << i << " lacks " << name;
      if (value.is_number_float() && now[name].is_number()) {
        EXPECT_DOUBLE_EQ(now[name].get<double>(), value.get<double>())
            << "record " << i << " field " << name;
      } else {
        EXPECT_EQ(now[name], value) << "record " << i << " field " << name;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, LegacyCommandLines,
                         ::testing::Values("run_all", "run_workloads", "run_churn", "run_trace",
                                           "adapt_syn", "adapt_adv", "adapt_trace"));

}  // namespace
