// The instructions kind end to end: `amqbench suite` on a small suite, whose cells run
// `amqbench count-instructions` under valgrind's callgrind. Skipped where valgrind is missing.
#include <gtest/gtest.h>

#include "commands/binary_test_support.h"
#include "harness/kinds/instructions_kind.h"

namespace amq::testing {
namespace {

bool HaveValgrind() { return std::system("valgrind --version >/dev/null 2>&1") == 0; }

class CountInstructions : public BinaryTest {
 protected:
  // Two filters (a dynamic one with a batched path, a static one) at n = 2,000.
  fs::path WriteSuite() {
    const fs::path suite = dir_ / "suite.toml";
    std::ofstream(suite) << "[suite]\nname = \"t\"\nseed = 3\ndescription = \"t\"\n\n[[experiment]]\n"
                            "id = \"instructions\"\nkind = \"instructions\"\ntitle = \"t\"\nsection = \"instructions\"\n"
                            "charts = []\nfilters = { names = [\"cuckoo12\", \"xor8\"] }\nkeys = 2000\nqueries = 2000\n"
                            "quick = {}\n";
    return suite;
  }
};

TEST_F(CountInstructions, OutsideValgrindItRefusesInOneLine) {
  const Outcome run = Run("count-instructions bloom 1000 1000 1");
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("under valgrind"), std::string::npos) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_EQ(Run("count-instructions no_such_filter 1000 1000 1").status, 2);
  EXPECT_EQ(Run("count-instructions bloom 1000 2000 1").status, 2);
}

// The second run is a copy of the binary at another path, with another environment: what a CI
// job in a fresh clone does against a baseline counted in another checkout.
TEST_F(CountInstructions, TwoRunsOfOneBuildCountTheSameFromAnotherPathAndEnvironment) {
  if (!HaveValgrind()) GTEST_SKIP() << "valgrind is not installed";
  if (kBuiltWithAddressSanitizer) GTEST_SKIP() << "valgrind cannot run an AddressSanitizer build";
  const fs::path suite = WriteSuite();
  const fs::path copy = dir_ / "a" / "much" / "longer" / "checkout" / "path" / "amqbench";
  fs::create_directories(copy.parent_path());
  fs::copy_file(AMQ_BINARY, copy);
  fs::permissions(copy, fs::perms::owner_all);
  std::vector<std::vector<nlohmann::json>> runs;
  ASSERT_EQ(Run("suite " + suite.string() + " --out-dir " + (dir_ / "first").string()).status, 0);
  runs.push_back(ReadRecords(dir_ / "first" / "instructions.jsonl"));
  const std::string second = "AMQ_SOME_VARIABLE=" + std::string(300, 'x') + " " + copy.string() + " suite " +
                             suite.string() + " --out-dir " + (dir_ / "second").string() + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(second.c_str()), 0);
  runs.push_back(ReadRecords(dir_ / "second" / "instructions.jsonl"));
  ASSERT_EQ(runs[0].size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const nlohmann::json& cell = runs[0][i];
    EXPECT_EQ(cell["false_negatives"], 0);
    const std::string first_op = cell["filter"] == "xor8" ? "build" : "insert";
    for (const char* op : {first_op.c_str(), "query_present", "query_absent"}) {
      ASSERT_TRUE(cell["instructions_per_op"].contains(op)) << cell["filter"] << " " << op;
      // A lookup is tens of instructions and an insert or a build step more, never none.
      EXPECT_GT(cell["instructions_per_op"][op].get<double>(), 10) << cell["filter"] << " " << op;
    }
    EXPECT_TRUE(cell["instructions_per_op"].contains("query_absent_batched")) << cell["filter"];  // both batch
    // cuckoo12 erases every key it took, last; xor8 cannot erase.
    EXPECT_EQ(cell["instructions_per_op"].contains("erase"), cell["filter"] == "cuckoo12") << cell["filter"];
    if (cell["filter"] == "cuckoo12") EXPECT_GT(cell["instructions_per_op"]["erase"].get<double>(), 10);
    for (const char* field : {"instructions_per_op", "d1_misses_per_op", "ll_misses_per_op"}) {
      EXPECT_EQ(cell[field], runs[1][i][field]) << cell["filter"] << " " << field;
    }
  }
}

}  // namespace
}  // namespace amq::testing

namespace amq::testing {
namespace {

// Caught on purpose (issue 27): a build whose Bloom lookups do a little more work, with the same
// answers (harness/kinds/testdata/instruction_probe.cc, built with AMQ_PROBE_SLOWED_LOOKUP),
// fails a baseline counted from the unchanged build; a second unchanged build passes it.
class SlowedLookup : public CountInstructions {
 protected:
  fs::path Count(const std::string& probe, const std::string& out) {
    const fs::path suite = dir_ / (out + ".toml");
    std::ofstream(suite) << "[suite]\nname = \"t\"\nseed = 3\ndescription = \"t\"\n\n[[experiment]]\n"
                            "id = \"instructions\"\nkind = \"instructions\"\ntitle = \"t\"\nsection = \"instructions\"\n"
                            "charts = []\nfilters = { names = [\"bloom\"] }\nkeys = 2000\nqueries = 2000\n"
                            "binary = \"" << AMQ_PROBE_DIR << "/" << probe << "\"\nquick = {}\n";
    const Outcome run = Run("suite " + suite.string() + " --out-dir " + (dir_ / out).string());
    EXPECT_EQ(run.status, 0) << run.err;
    return dir_ / out / "instructions.jsonl";
  }
};

TEST_F(SlowedLookup, MoreInstructionsPerLookupFailTheBaselineAndTheSameBuildPassesIt) {
  if (!HaveValgrind()) GTEST_SKIP() << "valgrind is not installed";
  if (kBuiltWithAddressSanitizer) GTEST_SKIP() << "valgrind cannot run an AddressSanitizer build";
  const fs::path base = Count("instruction_probe", "base");
  const fs::path same = Count("instruction_probe", "same");
  const fs::path slowed = Count("instruction_probe_slowed", "slowed");
  const Outcome unchanged = Run("compare " + base.string() + " " + same.string());
  EXPECT_EQ(unchanged.status, 0) << unchanged.out << unchanged.err;
  const Outcome caught = Run("compare " + base.string() + " " + slowed.string());
  EXPECT_EQ(caught.status, 1) << caught.out << caught.err;
  // The one-at-a-time lookups moved; the insert and the batched lookups (contains_many, which the
  // slowdown does not touch) did not.
  for (const char* op : {"query_present", "query_absent"}) {
    EXPECT_NE(caught.out.find("| instructions_per_op." + std::string(op) + " |"), std::string::npos) << caught.out;
  }
  EXPECT_EQ(caught.out.find("| instructions_per_op.insert |"), std::string::npos) << caught.out;
  EXPECT_EQ(caught.out.find("| instructions_per_op.query_absent_batched |"), std::string::npos) << caught.out;
  const auto base_cell = ReadRecords(base)[0], slowed_cell = ReadRecords(slowed)[0];
  EXPECT_GT(slowed_cell["instructions_per_op"]["query_absent"].get<double>(),
            1.01 * base_cell["instructions_per_op"]["query_absent"].get<double>());
}

}  // namespace
}  // namespace amq::testing
