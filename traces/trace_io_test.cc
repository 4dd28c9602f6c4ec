// traces/trace_io_test.cc - binary (AMQTRACE) and text traces: round trips, and every
// validation error the readers promise.
#include "traces/trace_io.h"

#include <gtest/gtest.h>

#include <cstring>

#include "core/errors.h"
#include "traces/synth.h"
#include "traces/test_frames.h"

namespace amq {
namespace {

using namespace testing_frames;

std::vector<TraceRecord> SomeRecords() {
  SynthOptions o;
  o.packets = 3000;
  o.flows = 400;
  o.ipv6_fraction = 0.3;
  o.seed = 17;
  return SynthesizeTrace(o).records;
}

void ExpectSameFlows(const std::vector<TraceRecord>& a, const std::vector<TraceRecord>& b,
                     bool timestamps) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].flow, b[i].flow) << "record " << i;
    ASSERT_EQ(b[i].timestamp_ns, timestamps ? a[i].timestamp_ns : 0) << "record " << i;
  }
}

TEST(TraceIo, BinaryRoundTrip) {
  ScratchDir dir;
  const auto records = SomeRecords();
  for (bool timestamps : {true, false}) {
    const std::string path = dir.File(timestamps ? "t.bin" : "n.bin");
    WriteBinaryTrace(path, records, timestamps);
    EXPECT_EQ(DetectTraceFormat(path), TraceFormat::kBinary);
    EXPECT_EQ(ReadBytes(path).size(), 32 + records.size() * (timestamps ? 48 : 40));
    const auto [back, summary] = ReadTraceRecords(path);
    EXPECT_EQ(summary.format, "amqtrace");
    EXPECT_EQ(summary.has_timestamps, timestamps);
    EXPECT_EQ(summary.records, records.size());
    EXPECT_EQ(summary.ipv4 + summary.ipv6, records.size());
    EXPECT_GT(summary.ipv6, 0u);
    ExpectSameFlows(records, back, timestamps);
  }
}

TEST(TraceIo, TextRoundTrip) {
  ScratchDir dir;
  const auto records = SomeRecords();
  for (bool timestamps : {true, false}) {
    const std::string path = dir.File("t.txt");
    WriteTextTrace(path, records, timestamps);
    EXPECT_EQ(DetectTraceFormat(path), TraceFormat::kText);
    const auto [back, summary] = ReadTraceRecords(path);
    EXPECT_EQ(summary.format, "text");
    EXPECT_EQ(summary.has_timestamps, timestamps);
    ExpectSameFlows(records, back, timestamps);
  }
}

TEST(TraceIo, EmptyTracesRoundTrip) {
  ScratchDir dir;
  WriteBinaryTrace(dir.File("e.bin"), {}, true);
  EXPECT_EQ(ReadTraceRecords(dir.File("e.bin")).first.size(), 0u);
  WriteTextTrace(dir.File("e.txt"), {}, false);  // just the comment line
  EXPECT_EQ(ReadTraceRecords(dir.File("e.txt")).first.size(), 0u);
}

void ExpectError(const std::string& path, const std::string& fragment) {
  try {
    ReadTrace(path, [](const TraceRecord&) {});
    ADD_FAILURE() << "no InputError for " << fragment;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(TraceIo, BinaryValidation) {
  ScratchDir dir;
  const std::string path = dir.File("v.bin");
  WriteBinaryTrace(path, SomeRecords(), true);
  const Bytes good = ReadBytes(path);
  const auto damaged = [&](auto change) {
    Bytes b = good;
    change(b);
    WriteBytes(path, b);
    return path;
  };
  ExpectError(damaged([](Bytes& b) { b[8] = 2; }), "has version 2");
  ExpectError(damaged([](Bytes& b) { b[12] = 3; }), "unknown flags");
  ExpectError(damaged([](Bytes& b) { b[24] = 40; }), "declares 40-byte records");
  ExpectError(damaged([](Bytes& b) { b[28] = 1; }), "reserved");
  ExpectError(damaged([](Bytes& b) { b.pop_back(); }), "truncated or padded");
  ExpectError(damaged([](Bytes& b) { b.push_back(0); }), "truncated or padded");
  ExpectError(damaged([](Bytes& b) { b[16] ^= 1; }), "truncated or padded");
  ExpectError(damaged([](Bytes& b) { b[23] = 0x80; }), "truncated or padded");  // huge count
  ExpectError(damaged([](Bytes& b) { b[32 + 48 + 38] = 1; }), "record 1 has nonzero padding");
  // Record 0 with an IPv4-mapped source and a native IPv6 destination.
  ExpectError(damaged([](Bytes& b) {
                std::memset(&b[32], 0, 32);
                b[32 + 10] = b[32 + 11] = 0xff;
                b[32 + 16] = 0x20;
              }),
              "mixes an IPv4 and an IPv6 address");
  ExpectError(damaged([](Bytes& b) { b.resize(20); }), "shorter than its 32-byte header");
  ExpectError(damaged([](Bytes& b) { b[7] = 0; }), "not a pcap, pcapng, amqtrace or text");
}

TEST(TraceIo, TextValidation) {
  ScratchDir dir;
  const std::string path = dir.File("v.txt");
  const auto text = [&](const std::string& body) {
    WriteBytes(path, Bytes(body.begin(), body.end()));
    return path;
  };
  const auto [ok, s] = ReadTraceRecords(
      text("# comment\n\n192.0.2.1 192.0.2.2 6 1 2\r\n  2001:db8::1 2001:db8::2 17 53 53\n"));
  ASSERT_EQ(ok.size(), 2u);
  EXPECT_EQ(ok[0].flow, Flow("192.0.2.1", "192.0.2.2", 6, 1, 2));
  EXPECT_EQ(ok[1].flow, Flow("2001:db8::1", "2001:db8::2", 17, 53, 53));
  EXPECT_EQ(s.ipv4, 1u);
  EXPECT_EQ(s.ipv6, 1u);

  ExpectError(text("192.0.2.1 192.0.2.2 6 1\n"), "line 1: expected 'src dst proto sport dport");
  ExpectError(text("192.0.2.1 192.0.2.2 6 1 2\n192.0.2.1 192.0.2.300 6 1 2\n"),
              "line 2: bad destination address '192.0.2.300'");
  ExpectError(text("host 192.0.2.2 6 1 2\n"), "bad source address");
  ExpectError(text("192.0.2.1 192.0.2.2 256 1 2\n"), "bad protocol '256'");
  ExpectError(text("192.0.2.1 192.0.2.2 6 65536 2\n"), "bad source port '65536'");
  ExpectError(text("192.0.2.1 192.0.2.2 6 1 -2\n"), "bad destination port '-2'");
  ExpectError(text("192.0.2.1 192.0.2.2 6 1 2 12x\n"), "bad timestamp");
  ExpectError(text("192.0.2.1 192.0.2.2 6 1 2 5\n192.0.2.1 192.0.2.2 6 1 2\n"),
              "line 2: every line must have a timestamp or none must");
  ExpectError(text("192.0.2.1 2001:db8::2 6 1 2\n"), "mixes an IPv4 and an IPv6 address");
}

TEST(TraceIo, WritesAreAtomic) {
  ScratchDir dir;
  // An unwritable target directory: InputError, and nothing left behind.
  EXPECT_THROW(WriteBinaryTrace(dir.File("no/such/dir/x.bin"), SomeRecords(), true), InputError);
  // A failure halfway leaves the old file intact: AtomicOutput destroyed without Commit().
  WriteTextTrace(dir.File("keep.txt"), SomeRecords(), false);
  const Bytes before = ReadBytes(dir.File("keep.txt"));
  {
    AtomicOutput out(dir.File("keep.txt"));
    out.stream() << "partial";
  }
  EXPECT_EQ(ReadBytes(dir.File("keep.txt")), before);
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.File(""))) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1u) << "a temporary file was left behind";
}

}  // namespace
}  // namespace amq
