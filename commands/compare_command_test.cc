// commands/compare_command_test.cc - `amqbench compare` from the outside: it hands its
// arguments to plots/compare.py and returns its exit status (0 same, 1 worse, 2 bad input);
// a missing interpreter is one line and exit status 2. The comparison's own rules are tested
// in plots/test_compare.py.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "commands/binary_test_support.h"

namespace {

namespace fs = std::filesystem;
using amq::testing::ReadFile;

const std::string kSeedLab = std::string(AMQ_SOURCE_DIR) + "/plots/fixtures/written/seed_lab.jsonl";

class Compare : public amq::testing::BinaryTest {
 protected:
  Compare() : BinaryTest("compare ") {}
};

TEST_F(Compare, PassesTheScriptsExitStatusThrough) {
  const Outcome same = Run(kSeedLab + " " + kSeedLab);
  EXPECT_EQ(same.status, 0) << same.err;
  EXPECT_EQ(same.out.rfind("amqbench compare: nothing got worse", 0), 0u) << same.out;

  // One deterministic field changed: exit 1, the table names the cell.
  std::string text = ReadFile(kSeedLab);
  const std::string from = "\"size_bytes\":";
  const std::size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos);
  const std::size_t digits = at + from.size();
  text = text.substr(0, digits) + "1" + text.substr(digits);  // 1 before the digits: another size
  const fs::path changed = dir_ / "seed_lab.jsonl";
  std::ofstream(changed) << text;
  const Outcome worse = Run(kSeedLab + " " + changed.string());
  EXPECT_EQ(worse.status, 1) << worse.err;
  EXPECT_NE(worse.out.find("| size_bytes |"), std::string::npos) << worse.out;

  const Outcome json = Run(kSeedLab + " " + changed.string() + " --json");
  EXPECT_EQ(json.status, 1);
  EXPECT_EQ(nlohmann::json::parse(json.out)["exit_status"], 1);
}

TEST_F(Compare, BadInputIsOneLineAndExit2) {
  const fs::path foreign = dir_ / "foreign.json";
  std::ofstream(foreign) << "{\"hello\": 1}";
  const Outcome bad = Run(kSeedLab + " " + foreign.string());
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.out, "");
  EXPECT_EQ(bad.err.rfind("amqbench compare: ", 0), 0u) << bad.err;
  EXPECT_EQ(bad.err.find('\n'), bad.err.size() - 1) << bad.err;
  EXPECT_EQ(Run(kSeedLab).status, 2) << "BASE without NEW";
  const Outcome help = Run("--help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("usage: amqbench compare"), std::string::npos) << help.out;
}

TEST_F(Compare, AMissingInterpreterIsOneLineAndExit2) {
  setenv("AMQ_PYTHON", "/nonexistent/python3", 1);
  const Outcome missing = Run(kSeedLab + " " + kSeedLab);
  unsetenv("AMQ_PYTHON");
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(missing.err.rfind("amqbench: compare needs /nonexistent/python3", 0), 0u) << missing.err;
  EXPECT_EQ(missing.err.find('\n'), missing.err.size() - 1) << missing.err;
}

}  // namespace
