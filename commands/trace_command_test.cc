// commands/trace_command_test.cc - `amqbench trace` called in-process: synth, stats, convert, and
// bad input as InputError (including boost's own parse errors).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "commands/commands.h"
#include "core/errors.h"
#include "traces/test_frames.h"
#include "traces/trace_io.h"

namespace amq {
namespace {

using namespace testing_frames;

std::string RunTrace(const Args& args) {
  ::testing::internal::CaptureStdout();
  try {
    EXPECT_EQ(TraceCommand(args), 0);
  } catch (...) {
    ::testing::internal::GetCapturedStdout();
    throw;
  }
  return ::testing::internal::GetCapturedStdout();
}

void ExpectInputError(const Args& args, const std::string& fragment) {
  try {
    RunTrace(args);
    ADD_FAILURE() << "no InputError: " << fragment;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(TraceCommand, SynthStatsConvert) {
  ScratchDir dir;
  const std::string pcap = dir.File("s.pcap");
  const std::string out = RunTrace({"synth", "--out", pcap, "--packets", "3000", "--flows", "300",
                                    "--alpha", "1.1", "--seed", "4", "--ipv6-fraction", "0.1"});
  EXPECT_NE(out.find("3000 packets, 300 flows"), std::string::npos) << out;
  EXPECT_EQ(DetectTraceFormat(pcap), TraceFormat::kPcap);

  const auto stats = nlohmann::json::parse(RunTrace({"stats", pcap, "--json", "--top", "4"}));
  EXPECT_EQ(stats["packets"], 3000);
  EXPECT_EQ(stats["distinct_flows"], 300);
  EXPECT_EQ(stats["heaviest_flows"].size(), 4u);
  EXPECT_NE(RunTrace({"stats", pcap}).find("distinct flows      300"), std::string::npos);

  RunTrace({"convert", pcap, dir.File("s.bin")});
  RunTrace({"convert", pcap, dir.File("s.txt")});
  RunTrace(
      {"convert", dir.File("s.txt"), dir.File("s2.bin"), "--format", "bin", "--no-timestamps"});
  EXPECT_EQ(DetectTraceFormat(dir.File("s.bin")), TraceFormat::kBinary);
  EXPECT_EQ(DetectTraceFormat(dir.File("s.txt")), TraceFormat::kText);
  const auto a = ReadTraceRecords(pcap).first, b = ReadTraceRecords(dir.File("s.bin")).first,
             c = ReadTraceRecords(dir.File("s2.bin")).first;
  ASSERT_EQ(a.size(), 3000u);
  ASSERT_EQ(b.size(), 3000u);
  ASSERT_EQ(c.size(), 3000u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].flow, b[i].flow);
    ASSERT_EQ(a[i].timestamp_ns, b[i].timestamp_ns);
    ASSERT_EQ(a[i].flow, c[i].flow);
    ASSERT_EQ(c[i].timestamp_ns, 0u);
  }
  RunTrace({"synth", "--out", dir.File("t.bin"), "--packets", "100", "--flows", "10"});
  EXPECT_EQ(DetectTraceFormat(dir.File("t.bin")), TraceFormat::kBinary);
}

TEST(TraceCommand, Help) {
  EXPECT_NE(RunTrace({"--help"}).find("subcommands:"), std::string::npos);
  EXPECT_NE(RunTrace({"synth", "--help"}).find("--ipv6-fraction"), std::string::npos);
  EXPECT_NE(RunTrace({"stats", "--help"}).find("--json"), std::string::npos);
  EXPECT_NE(RunTrace({"convert", "--help"}).find("--no-timestamps"), std::string::npos);
}

TEST(TraceCommand, BadInput) {
  ScratchDir dir;
  ExpectInputError({}, "no subcommand");
  ExpectInputError({"frobnicate"}, "unknown subcommand 'frobnicate'");
  ExpectInputError({"stats"}, "no FILE given");
  ExpectInputError({"stats", dir.File("missing.pcap")}, "No such file");
  ExpectInputError({"stats", "a", "b"}, "trace stats:");   // boost: too many positionals
  ExpectInputError({"synth", "--bogus"}, "trace synth:");  // boost: unknown option
  ExpectInputError({"synth"}, "--out FILE is required");
  ExpectInputError({"synth", "--out", dir.File("x"), "--packets", "-5"},
                   "--packets expects a non-negative integer");
  ExpectInputError({"synth", "--out", dir.File("x"), "--alpha", "big"}, "--alpha expects");
  ExpectInputError({"synth", "--out", dir.File("x"), "--packets", "5", "--flows", "9"},
                   "must be at least --flows");
  ExpectInputError({"synth", "--out", dir.File("x"), "--format", "json"}, "--format must be");
  ExpectInputError({"synth", "--out", dir.File("none/x.pcap"), "--packets", "10", "--flows", "1"},
                   "cannot write");
  ExpectInputError({"convert", dir.File("missing")}, "IN and OUT are required");
  ExpectInputError({"synth", "--out"}, "trace synth:");  // boost: missing argument
}

}  // namespace
}  // namespace amq
