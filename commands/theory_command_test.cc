// commands/theory_command_test.cc - `amqbench theory` from the outside: its answers are the
// values of filters/theory_formulas.h to the last bit (plots/theory.py draws and judges with
// them), a number stands for every element of the lists beside it, --stdin answers line by
// line, and every kind of bad input is one line on stderr, exit status 2 and no answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "commands/binary_test_support.h"
#include "filters/theory_formulas.h"
#include "filters/xor_plus.h"
#include "workloads/keys.h"

namespace {

using nlohmann::json;

class Theory : public amq::testing::BinaryTest {
 protected:
  Theory() : BinaryTest("theory ") {}

  // One --formula request; the JSON goes through the shell in single quotes.
  Outcome Ask(const std::string& formula, const std::string& args) {
    return Run("--formula " + formula + " --args '" + args + "'");
  }

  // `lines` written to a file and given as stdin to --stdin.
  Outcome AskOnStdin(const std::vector<std::string>& lines) {
    const std::filesystem::path in = dir_ / "requests";
    std::ofstream file(in);
    for (const std::string& line : lines) file << line << "\n";
    file.close();
    return Run("--stdin <" + in.string());
  }

  static std::vector<json> Lines(const std::string& text) {
    std::vector<json> out;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) out.push_back(json::parse(line));
    return out;
  }

  // Bad input: exit 2, one line on stderr saying `says`, nothing on stdout.
  void ExpectRefused(const Outcome& o, const std::string& says) {
    EXPECT_EQ(o.status, 2) << o.out << o.err;
    EXPECT_TRUE(o.out.empty()) << o.out;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_NE(o.err.find(says), std::string::npos) << "expected '" << says << "' in: " << o.err;
  }
};

TEST_F(Theory, AnswersAreTheFormulasValuesToTheLastBit) {
  const Outcome o = Ask(
      "cuckoo_fpr", R"({"fingerprint_bits": [8, 12, 16], "load": 0.95, "slots_per_bucket": 4})");
  ASSERT_EQ(o.status, 0) << o.err;
  const std::vector<json> answers = Lines(o.out);
  ASSERT_EQ(answers.size(), 1u) << o.out;
  const json& a = answers[0];
  EXPECT_EQ(a["formula"], "cuckoo_fpr");
  EXPECT_EQ(a["count"], 3);
  const std::vector<double> fpr = a["values"]["fpr"].get<std::vector<double>>();
  ASSERT_EQ(fpr.size(), 3u);
  EXPECT_EQ(fpr[0], amq::CuckooFpr(8, 0.95, 4));
  EXPECT_EQ(fpr[1], amq::CuckooFpr(12, 0.95, 4));
  EXPECT_EQ(fpr[2], amq::CuckooFpr(16, 0.95, 4));

  // Lists of one length are taken element by element, not as a cross product.
  const Outcome zipped =
      Ask("quotient_article_bits",
          R"({"remainder_bits": [7, 8], "metadata_bits": [3, 2.125], "load": [0.9, 0.5]})");
  ASSERT_EQ(zipped.status, 0) << zipped.err;
  const json values = Lines(zipped.out)[0]["values"]["bits_per_key"];
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[0].get<double>(), amq::QuotientBitsPerKey(7, 3, 0.9));
  EXPECT_EQ(values[1].get<double>(), amq::QuotientBitsPerKey(8, 2.125, 0.5));

  // A curve that iterates (60 bisection steps over a Poisson sum) is the C++ value too.
  const Outcome curve = Ask("blocked_bloom", R"({"fpr": 0.01})");
  ASSERT_EQ(curve.status, 0) << curve.err;
  EXPECT_EQ(Lines(curve.out)[0]["values"]["bits_per_key"][0].get<double>(),
            amq::BlockedBloomBitsPerKey(0.01));
}

// Xor+'s space has no closed form in its paper: the formula takes the first block's zero slots,
// a statistic of the build, and with a built filter's count it gives that filter's theory.
TEST_F(Theory, XorPlusSpaceFromABuildsZeroSlots) {
  const std::size_t n = 20000;
  const amq::Workload w = amq::MakeWorkload("uniform", n, 0, 7);
  const amq::XorPlus8 filter = amq::XorPlus8::build(w.keys, amq::FilterParams{});
  const std::size_t zeros = filter.first_block_zero_slots();
  ASSERT_GT(zeros, n / 10);  // most of XOR's 0.23 n spare slots land in the first block
  const Outcome o = Ask("xor_plus_bits", R"({"keys": 20000, "fingerprint_bits": 8, "zero_slots": )" +
                                             std::to_string(zeros) + "}");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(Lines(o.out)[0]["values"]["bits_per_key"][0].get<double>(), filter.theory().bits_per_key);
  // More zero slots than the first block holds is bad input (20,000 keys: 8,210 slots a block).
  ExpectRefused(Ask("xor_plus_bits", R"({"keys": 20000, "fingerprint_bits": 8, "zero_slots": 8211})"),
                "xor_plus_bits: zero_slots must be at most the first block's 8210 slots, got 8211");
}

TEST_F(Theory, SeveralOutputsAndCountsAsIntegers) {
  // The AMQ survey's lab: 30,000 keys at 1%, max load 0.94, b = 4.
  const Outcome o = Ask("cuckoo_lab_geometry",
                        R"({"keys": 30000, "fpr": 0.01, "max_load": 0.94, "slots_per_bucket": 4})");
  ASSERT_EQ(o.status, 0) << o.err;
  const json values = Lines(o.out)[0]["values"];
  EXPECT_TRUE(values["fingerprint_bits"][0].is_number_integer()) << values;
  EXPECT_EQ(values["fingerprint_bits"][0], 10);
  EXPECT_EQ(values["buckets"][0], 8192);
  EXPECT_EQ(values["load"][0].get<double>(), 30000.0 / 32768);
  EXPECT_EQ(values["bits_per_key"][0].get<double>(), 10.0 * 32768 / 30000);
}

TEST_F(Theory, EmptyListsGiveEmptyAnswers) {
  const Outcome o = Ask("knuth_displacement", R"({"load": []})");
  ASSERT_EQ(o.status, 0) << o.err;
  const json a = Lines(o.out)[0];
  EXPECT_EQ(a["count"], 0);
  EXPECT_EQ(a["values"]["slots"], json::array());
}

TEST_F(Theory, StdinAnswersEachLineInOrder) {
  const Outcome o = AskOnStdin(
      {R"({"formula": "bloom", "args": {"fpr": [0.01, 0.001]}})", "",
       R"({"formula": "knuth_displacement", "args": {"load": 0.5}})",
       R"({"formula": "binary_fuse_size_factor", "args": {"keys": 1000000, "arity": [3, 4]}})"});
  ASSERT_EQ(o.status, 0) << o.err;
  const std::vector<json> answers = Lines(o.out);
  ASSERT_EQ(answers.size(), 3u) << o.out;  // the blank line is skipped
  EXPECT_EQ(answers[0]["values"]["bits_per_key"][1].get<double>(), amq::BloomBitsPerKey(0.001));
  EXPECT_EQ(answers[1]["values"]["slots"][0].get<double>(), 0.5);
  // The factors the report's binary fuse curves are labelled with.
  EXPECT_EQ(answers[2]["values"]["size_factor"], json::parse("[1.125, 1.075]"));
}

TEST_F(Theory, ListNamesEveryFormulaWithItsArguments) {
  const Outcome o = Run("--list");
  ASSERT_EQ(o.status, 0) << o.err;
  for (const char* line : {"cuckoo_fpr(fingerprint_bits a whole number in [1, 64], load [0, 1], "
                           "slots_per_bucket a whole number in [1, 64]) -> fpr",
                           "knuth_displacement(load [0, 1)) -> slots", "cuckoo_lab_geometry(",
                           "-> fingerprint_bits, buckets, load, bits_per_key"}) {
    EXPECT_NE(o.out.find(line), std::string::npos) << line << " not in:\n" << o.out;
  }
}

TEST_F(Theory, BadInputIsOneLineAndExitStatusTwo) {
  struct Case {
    const char* formula;
    const char* args;
    const char* says;
  };
  for (const Case& c : std::vector<Case>{
           {"cuckoo_fp", R"({"fpr": 0.01})", "theory: unknown formula 'cuckoo_fp'"},
           {"cuckoo_fpr", R"({"fingerprint_bits": 8, "load": 0.5})",
            "theory: cuckoo_fpr: missing argument 'slots_per_bucket'"},
           {"knuth_displacement", R"({"load": 0.5, "lod": 0.5})",
            "theory: knuth_displacement: unknown argument 'lod'"},
           {"cuckoo_fpr", R"({"fingerprint_bits": 8, "load": [0.5, 1.5], "slots_per_bucket": 4})",
            "theory: cuckoo_fpr: load must be in [0, 1], got 1.5 (element 1)"},
           {"knuth_displacement", R"({"load": 1})",
            "knuth_displacement: load must be in [0, 1), got 1"},
           {"lower_bound", R"({"fpr": 0})", "lower_bound: fpr must be in (0, 1], got 0"},
           {"cuckoo_fpr", R"({"fingerprint_bits": 8.5, "load": 0.5, "slots_per_bucket": 4})",
            "cuckoo_fpr: fingerprint_bits must be a whole number, got 8.5"},
           {"knuth_displacement", R"({"load": "half"})",
            "knuth_displacement: load must be a number or a list of numbers, got \"half\""},
           {"cuckoo_fpr",
            R"({"fingerprint_bits": [8, 12], "load": [0.5, 0.6, 0.7], "slots_per_bucket": 4})",
            "cuckoo_fpr: 'fingerprint_bits' has 2 values and 'load' 3"},
           {"bloom", R"({"fpr": 0.01)", "theory: --args: not JSON ("},
           {"bloom", R"([0.01])", "theory: bloom: args must be an object"}}) {
    SCOPED_TRACE(std::string(c.formula) + " " + c.args);
    ExpectRefused(Ask(c.formula, c.args), c.says);
  }
  ExpectRefused(Run("--args '{}'"), "theory: --args goes with --formula");
  ExpectRefused(Run("--formula bloom"), "theory: --formula needs --args");
  ExpectRefused(Run(""), "theory: give one of --list, --formula NAME --args JSON, --stdin");
  ExpectRefused(Run("--list --stdin"), "theory: give one of");
}

TEST_F(Theory, StdinStopsAtTheFirstBadLineAfterAnsweringTheOnesBefore) {
  const Outcome o = AskOnStdin({R"({"formula": "bloom", "args": {"fpr": 0.01}})",
                                R"({"formula": "bloom", "args": {"fpr": 2}})",
                                R"({"formula": "bloom", "args": {"fpr": 0.001}})"});
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(Lines(o.out).size(), 1u) << o.out;
  EXPECT_EQ(o.err, "amqbench: theory: line 2 of stdin: bloom: fpr must be in (0, 1], got 2\n");
  ExpectRefused(AskOnStdin({"bloom 0.01"}), "theory: line 1 of stdin: not JSON (");
  ExpectRefused(AskOnStdin({R"({"args": {"fpr": 0.01}})"}),
                "line 1 of stdin: a request is {\"formula\": NAME");
}

}  // namespace
