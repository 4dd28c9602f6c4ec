// traces/synth_test.cc - the synthetic trace generator: replayed through the pcap writer and
// reader it gives back exactly the flows and packet counts it made; it is deterministic by seed;
// and its heaviest flow's size matches the Zipf popularity it was given.
#include "traces/synth.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "core/errors.h"
#include "core/stats.h"
#include "traces/pcap_writer.h"
#include "traces/test_frames.h"
#include "traces/trace_io.h"
#include "traces/trace_stats.h"
#include "core/zipf.h"

namespace amq {
namespace {

using namespace testing_frames;

SynthOptions Small() {
  SynthOptions o;
  o.packets = 20000;
  o.flows = 2500;
  o.alpha = 1.1;
  o.ipv6_fraction = 0.2;
  o.seed = 5;
  return o;
}

TEST(Synth, PcapReplayGivesBackExactlyTheGeneratedFlows) {
  ScratchDir dir;
  const SynthTrace trace = SynthesizeTrace(Small());
  ASSERT_EQ(trace.records.size(), 20000u);
  ASSERT_EQ(trace.flows.size(), 2500u);
  WritePcap(dir.File("s.pcap"), trace.records);

  const auto [back, summary] = ReadTraceRecords(dir.File("s.pcap"));
  EXPECT_EQ(summary.format, "pcap");
  EXPECT_EQ(summary.records, trace.records.size());
  EXPECT_EQ(summary.skipped_total(), 0u);
  ASSERT_EQ(back.size(), trace.records.size());
  for (std::size_t i = 0; i < back.size(); ++i) {
    ASSERT_EQ(back[i].flow, trace.records[i].flow) << "packet " << i;
    ASSERT_EQ(back[i].timestamp_ns, trace.records[i].timestamp_ns) << "packet " << i;
    ASSERT_EQ(back[i].wire_length, trace.records[i].wire_length) << "packet " << i;
  }
  std::map<FlowKey, std::uint64_t> counted;
  for (const TraceRecord& r : back) ++counted[r.flow];
  ASSERT_EQ(counted.size(), trace.flows.size());
  std::uint64_t v6 = 0;
  for (std::size_t f = 0; f < trace.flows.size(); ++f) {
    EXPECT_EQ(counted[trace.flows[f]], trace.packets_per_flow[f]);
    v6 += trace.flows[f].is_ipv4() ? 0 : 1;
  }
  EXPECT_EQ(summary.ipv6 + summary.ipv4, trace.records.size());
  // The IPv6 share of flows is Binomial(2500, 0.2).
  const Interval band = BinomialBand(2500, 0.2);
  EXPECT_GE(static_cast<double>(v6), band.low);
  EXPECT_LE(static_cast<double>(v6), band.high);

  const TraceStats stats = ComputeTraceStats(dir.File("s.pcap"), 3);
  EXPECT_EQ(stats.distinct_flows, 2500u);
  EXPECT_EQ(stats.distinct_ipv6_flows, v6);
  ASSERT_EQ(stats.heaviest.size(), 3u);
  EXPECT_EQ(stats.heaviest.front().second,
            *std::max_element(trace.packets_per_flow.begin(), trace.packets_per_flow.end()));
  std::uint64_t in_histogram = 0;
  for (std::uint64_t flows : stats.size_histogram) in_histogram += flows;
  EXPECT_EQ(in_histogram, 2500u);
}

TEST(Synth, BinaryReplayToo) {
  ScratchDir dir;
  const SynthTrace trace = SynthesizeTrace(Small());
  WriteBinaryTrace(dir.File("s.bin"), trace.records, true);
  const auto [back, summary] = ReadTraceRecords(dir.File("s.bin"));
  ASSERT_EQ(back.size(), trace.records.size());
  for (std::size_t i = 0; i < back.size(); ++i) ASSERT_EQ(back[i].flow, trace.records[i].flow);
}

TEST(Synth, DeterministicBySeed) {
  ScratchDir dir;
  WritePcap(dir.File("a.pcap"), SynthesizeTrace(Small()).records);
  WritePcap(dir.File("b.pcap"), SynthesizeTrace(Small()).records);
  SynthOptions other = Small();
  other.seed = 6;
  WritePcap(dir.File("c.pcap"), SynthesizeTrace(other).records);
  EXPECT_EQ(ReadBytes(dir.File("a.pcap")), ReadBytes(dir.File("b.pcap")));
  EXPECT_NE(ReadBytes(dir.File("a.pcap")), ReadBytes(dir.File("c.pcap")));
}

// Every flow gets one packet, then each of the other P - F packets goes to rank 1 with
// probability p1 = 1 / H(F, alpha): rank 1's size - 1 is Binomial(P - F, p1).
TEST(Synth, HeaviestFlowFollowsZipf) {
  for (double alpha : {0.8, 1.2}) {
    SynthOptions o = Small();
    o.alpha = alpha;
    const SynthTrace trace = SynthesizeTrace(o);
    const double p1 = ZipfPmf(o.flows, alpha)[0];
    const Interval band = BinomialBand(o.packets - o.flows, p1);
    const double extra = static_cast<double>(trace.packets_per_flow[0] - 1);
    EXPECT_GE(extra, band.low) << "alpha " << alpha;
    EXPECT_LE(extra, band.high) << "alpha " << alpha;
  }
}

TEST(Synth, RejectsImpossibleOptions) {
  SynthOptions o = Small();
  o.packets = 10;
  EXPECT_THROW(SynthesizeTrace(o), InputError);
  o = Small();
  o.flows = 0;
  EXPECT_THROW(SynthesizeTrace(o), InputError);
  o = Small();
  o.alpha = -1;
  EXPECT_THROW(SynthesizeTrace(o), InputError);
  o = Small();
  o.ipv6_fraction = 1.5;
  EXPECT_THROW(SynthesizeTrace(o), InputError);
}

TEST(Synth, EveryFlowIsOnePacketWhenPacketsEqualFlows) {
  SynthOptions o = Small();
  o.packets = o.flows = 1000;
  const SynthTrace trace = SynthesizeTrace(o);
  for (std::uint64_t n : trace.packets_per_flow) EXPECT_EQ(n, 1u);
}

}  // namespace
}  // namespace amq
