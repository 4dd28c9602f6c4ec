// commands/binary_test_support.h - a gtest fixture that runs the amqbench binary from the
// outside, in a scratch directory of its own, and keeps its exit status, stdout and stderr.
// Test binaries get the binary's path as AMQ_BINARY from CMake.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace amq::testing {

namespace fs = std::filesystem;

inline std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A version-2 result file gathered into one object for tests: its header's schema_version and
// context, whether its end line is there, and its data records.
inline nlohmann::json ReadResultDocument(const fs::path& path) {
  nlohmann::json doc = {{"complete", false}, {"records", nlohmann::json::array()}};
  std::istringstream lines(ReadFile(path));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line);
    const std::string kind = j.value("record", "");
    if (kind == "header") {
      doc["header"] = j;
      doc["schema_version"] = j["schema_version"];
      doc["context"] = j["context"];
    } else if (kind == "end") {
      doc["complete"] = j["complete"];
    } else {
      doc["records"].push_back(std::move(j));
    }
  }
  return doc;
}

// The data records of a result file: every line but its header and end lines.
inline std::vector<nlohmann::json> ReadRecords(const fs::path& path) {
  const nlohmann::json doc = ReadResultDocument(path);
  return doc["records"].get<std::vector<nlohmann::json>>();
}

class BinaryTest : public ::testing::Test {
 protected:
  struct Outcome {
    int status = -1;
    std::string out;
    std::string err;
  };

  // `command` is put before every argument list: "adapt " runs `amqbench adapt ...`.
  explicit BinaryTest(std::string command = "") : command_(std::move(command)) {}

  void SetUp() override {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("amqbench_" + std::string(test->test_suite_name()) + "_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Outcome Run(const std::string& args) {
    const fs::path out = dir_ / "stdout", err = dir_ / "stderr";
    const std::string line = std::string(AMQ_BINARY) + " " + command_ + args + " >" +
                             out.string() + " 2>" + err.string();
    const int raw = std::system(line.c_str());
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, ReadFile(out), ReadFile(err)};
  }

  fs::path dir_;

 private:
  std::string command_;
};

}  // namespace amq::testing
