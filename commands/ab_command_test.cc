// commands/ab_command_test.cc - `amqbench ab` from the outside, on the probe built twice
// (commands/testdata/ab_probe.cc): the slowed build is caught, the same build passes, and bad
// input is one line of ours and exit status 2. The statistics' own rules are tested in
// plots/test_ab.py. The probe's slowdown is about 25x and the same-build case asks for a 50%
// effect at p < 0.01, so a loaded 2-core machine does not flip either verdict; a job costs
// about a second.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "commands/binary_test_support.h"

namespace {

namespace fs = std::filesystem;
using amq::testing::ReadFile;

const std::string kProbe = std::string(AMQ_PROBE_DIR) + "/ab_probe";
const std::string kSlowed = std::string(AMQ_PROBE_DIR) + "/ab_probe_slowed";
const std::string kQuick = " --rounds 8 --alpha 0.01 --min-effect 0.5 --min-time 0.01";

class Ab : public amq::testing::BinaryTest {
 protected:
  Ab() : BinaryTest("ab ") {}

  // The last line of stderr: ours, after anything the child binaries printed.
  static std::string LastLine(const std::string& text) {
    std::string trimmed = text;
    while (!trimmed.empty() && trimmed.back() == '\n') trimmed.pop_back();
    return trimmed.substr(trimmed.rfind('\n') == std::string::npos ? 0 : trimmed.rfind('\n') + 1);
  }
};

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST_F(Ab, CallsTheSlowedBuildSlowerAndTheSameBuildTheSame) {
  const fs::path pairs = dir_ / "pairs.jsonl";
  const Outcome slowed = Run(kProbe + " " + kSlowed + kQuick + " --out " + pairs.string());
  EXPECT_EQ(slowed.status, 1) << slowed.out << slowed.err;
  EXPECT_EQ(slowed.out.rfind("amqbench ab: SLOWER: 1 of 1 benchmarks", 0), 0u) << slowed.out;
  EXPECT_NE(slowed.out.find("| bloom/query_absent/real_time |"), std::string::npos) << slowed.out;
  EXPECT_NE(slowed.out.find("| slower |"), std::string::npos) << slowed.out;
  const std::vector<std::string> lines = Lines(ReadFile(pairs));
  ASSERT_EQ(lines.size(), 8u);  // one pair per round
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const nlohmann::json pair = nlohmann::json::parse(lines[i]);
    EXPECT_EQ(pair["round"], i + 1);
    EXPECT_EQ(pair["first"], i % 2 == 0 ? "A" : "B");  // A then B, then B then A
    EXPECT_GT(pair["ratio"].get<double>(), 1.5) << lines[i];
  }

  const Outcome same = Run(kProbe + " " + kProbe + kQuick);
  EXPECT_EQ(same.status, 0) << same.out << same.err;
  EXPECT_EQ(same.out.rfind("amqbench ab: nothing slower", 0), 0u) << same.out;
  EXPECT_NE(same.out.find("| same |"), std::string::npos) << same.out;
}

TEST_F(Ab, BadInputIsOneLineOfOursAndExit2) {
  const fs::path not_executable = dir_ / "data.json";
  std::ofstream(not_executable) << "{}";
  // Lists one benchmark, then fails when asked to run it.
  const fs::path failing = dir_ / "failing.sh";
  std::ofstream(failing) << "#!/bin/sh\ncase \"$*\" in *list_tests*) echo one/benchmark; exit 0;; esac\nexit 3\n";
  chmod(failing.c_str(), 0755);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {kProbe + " /nonexistent/amqbench_micro", "amqbench: ab: BINARY_B /nonexistent/amqbench_micro is not a file"},
      {kProbe + " " + not_executable.string(), "is not executable"},
      {kProbe, "give BINARY_A and BINARY_B"},
      {kProbe + " " + kProbe + " --rounds 4", "--rounds 4: at least 5 rounds are needed"},
      {kProbe + " " + kProbe + " --rounds five", "'--rounds' is invalid"},
      {kProbe + " " + kProbe + " --rounds 5", "--rounds 5 can never reach p < 0.05"},
      {kProbe + " " + kProbe + " --filter '^no_such_filter/'", "has no benchmark that --filter"},
      {kProbe + " " + kProbe + " --keys 1000", "failed listing its benchmarks with these arguments"},
      {kProbe + " " + kProbe + " --out " + kProbe, "it would be overwritten"},
      {kProbe + " " + failing.string() + " --rounds 6 --min-time 0.01",
       "BINARY_B " + failing.string() + " failed in round 1 (exit status 3)"},
  };
  for (const auto& [args, message] : cases) {
    const Outcome bad = Run(args);
    EXPECT_EQ(bad.status, 2) << args;
    EXPECT_EQ(bad.out, "") << args;
    EXPECT_NE(LastLine(bad.err).find(message), std::string::npos) << args << "\n" << bad.err;
    EXPECT_EQ(LastLine(bad.err).rfind("amqbench", 0), 0u) << args << "\n" << bad.err;
  }
  EXPECT_EQ(ReadFile(kProbe).substr(1, 3), "ELF") << "--out never overwrote the binary";
}

TEST_F(Ab, HelpNamesTheOptions) {
  const Outcome help = Run("--help");
  EXPECT_EQ(help.status, 0);
  for (const char* option : {"--rounds", "--filter", "--keys", "--min-time", "--min-effect", "--alpha", "--out"}) {
    EXPECT_NE(help.out.find(option), std::string::npos) << option;
  }
}

}  // namespace
