// harness/run/result_writer_test.cc - result files read back (--resume, merge) are outside input: a
// line that is not an object, a header without its experiment, a member of the wrong type is
// an InputError or is passed over, never a nlohmann type_error or an assertion. The cases are
// the inputs fuzz/result_file_fuzz.cc found, reduced.
#include "harness/run/result_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "core/errors.h"

namespace amq {
namespace {

const char* kHeader =
    R"({"record":"header","schema_version":2,"experiment":{"id":"e","kind":"filters"},)"
    R"("suite":null,"context":{},"cells":["a","b"]})";

class ResultFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("result_writer_test_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& text) {
    const std::string path = (dir_ / "r.jsonl").string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  // Resumes `text` as experiment e would; InputError passes through.
  std::set<std::string> Resume(const std::string& text, bool& complete) {
    std::set<std::string> done;
    (void)ResultWriter::Resume(Write(text), Json::parse(kHeader), done, complete);
    return done;
  }

  std::filesystem::path dir_;
};

TEST_F(ResultFileTest, ResumeRefusesAHeaderWithoutItsExperiment) {
  bool complete = false;
  const std::vector<std::string> headers = {
      R"({"record":"header","schema_version":2})",
      R"({"record":"header","schema_version":2,"experiment":7,"suite":null})",
      R"({"record":"header","schema_version":"2","experiment":{"id":"e","kind":"filters"},"suite":5})",
      R"({"record":["header"]})", R"(["header"])", "3"};
  for (const std::string& header : headers) {
    EXPECT_THROW(Resume(header + "\n", complete), InputError) << header;
  }
}

TEST_F(ResultFileTest, ResumePassesOverLinesNoRunWrites) {
  bool complete = false;
  const std::set<std::string> done =
      Resume(std::string(kHeader) + "\n" +
                 R"({"record":"cell","cell_id":"a","seed":1})" "\n"
                 "7\n[1,2]\n"
                 R"({"record":5})" "\n"
                 R"({"record":"cell","cell_id":3,"seed":"x"})" "\n"
                 R"({"record":"cell","cell_id":"b","seed":1})" "\n"
                 R"({"record":"end","complete":true,"cells":2})" "\n",
             complete);
  EXPECT_EQ(done, (std::set<std::string>{"a:1", ":0", "b:1"}));
  EXPECT_TRUE(complete);
}

TEST_F(ResultFileTest, ReadResultLinesRefusesWhatIsNotAResultFile) {
  for (const std::string& text :
       {std::string("5\n"), std::string("[]\n"),
        std::string(R"({"record":"header","schema_version":"2"})") + "\n",
        std::string(R"({"record":"header","schema_version":{}})") + "\n",
        std::string(kHeader) + "\n[1]\n" + R"({"record":"end","complete":true,"cells":0})" + "\n",
        std::string(kHeader) + "\n\"cell\"\n",
        std::string(kHeader) + "\n" + R"({"record":"cell","fpr":1001e999})" + "\n" +
            R"({"record":"end","complete":true,"cells":0})" + "\n"}) {
    EXPECT_THROW(ReadResultLines(Write(text)), InputError) << text;
  }
}

// nlohmann throws out_of_range, not parse_error, for a number beyond a double: it is a line
// that is not JSON like any other (found by fuzz/result_file_fuzz).
TEST_F(ResultFileTest, ANumberBeyondADoubleIsALineThatIsNotJson) {
  const std::string cell = R"({"record":"cell","cell_id":"a","seed":1})";
  const std::string overflow = R"({"record":"cell","cell_id":"b","seed":1,"fpr":1e999})";
  bool complete = false;
  EXPECT_EQ(Resume(std::string(kHeader) + "\n" + cell + "\n" + overflow + "\n", complete),
            std::set<std::string>{"a:1"});
  EXPECT_EQ(ReadResultLines(Write(std::string(kHeader) + "\n" + cell + "\n" + overflow)).size(),
            1u) << "a torn last line";
}

TEST_F(ResultFileTest, ReadResultLinesKeepsAnObjectWithAStrangeRecord) {
  bool complete = true;
  const std::vector<Json> lines =
      ReadResultLines(Write(std::string(kHeader) + "\n" + R"({"record":5,"cell_id":"a"})" + "\n"),
                      nullptr, &complete);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_FALSE(complete);
}

}  // namespace
}  // namespace amq
