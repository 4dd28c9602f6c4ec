// traces/trace_stats_test.cc - trace statistics on a capture with known contents, and the
// trace-to-workload conversion: members are the first half of the distinct flows, every packet
// is a query whose membership flag is exact, negatives are the flows not held.
#include "traces/trace_stats.h"

#include <gtest/gtest.h>

#include <set>
#include <unordered_set>

#include "core/errors.h"
#include "traces/synth.h"
#include "traces/test_frames.h"
#include "traces/trace_io.h"

namespace amq {
namespace {

using namespace testing_frames;

TEST(TraceStats, KnownCapture) {
  ScratchDir dir;
  const FlowKey a = Flow("192.0.2.1", "192.0.2.2", 6, 1000, 80);
  const FlowKey b = Flow("2001:db8::1", "2001:db8::2", 17, 53, 53);
  const FlowKey c = Flow("192.0.2.9", "192.0.2.2", 1);
  PcapFileWriter w(dir.File("k.pcap"), 1);
  // a: 5 packets, b: 2, c: 1; plus one ARP frame and one frame cut inside its IP header.
  for (int i = 0; i < 5; ++i) w.Write(Ethernet(0x0800, Ip(a)), i);
  w.Write(Ethernet(0x86dd, Ip(b)), 10);
  w.Write(Ethernet(0x86dd, Ip(b)), 11);
  w.Write(Ethernet(0x0800, Ip(c)), 12);
  w.Write(Ethernet(0x0806, Bytes(28, 0)), 13);
  const Bytes cut = Ethernet(0x0800, Ip(a));
  w.Write(cut.data(), 20, static_cast<std::uint32_t>(cut.size()), 14);
  w.Commit();

  const TraceStats s = ComputeTraceStats(dir.File("k.pcap"), 2);
  EXPECT_EQ(s.file, "k.pcap");
  EXPECT_EQ(s.content_hash.size(), 16u);
  EXPECT_EQ(s.summary.records, 10u);
  EXPECT_EQ(s.summary.ipv4, 6u);
  EXPECT_EQ(s.summary.ipv6, 2u);
  EXPECT_EQ(s.summary.skipped[static_cast<std::size_t>(SkipReason::kNonIp)], 1u);
  EXPECT_EQ(s.summary.skipped[static_cast<std::size_t>(SkipReason::kTruncated)], 1u);
  EXPECT_EQ(s.distinct_flows, 3u);
  EXPECT_EQ(s.distinct_ipv4_flows, 2u);
  EXPECT_EQ(s.distinct_ipv6_flows, 1u);
  EXPECT_EQ(s.size_histogram, (std::vector<std::uint64_t>{1, 1, 1}));  // 1 | 2-3 | 4-7
  ASSERT_EQ(s.heaviest.size(), 2u);
  EXPECT_EQ(s.heaviest[0], std::make_pair(a, std::uint64_t{5}));
  EXPECT_EQ(s.heaviest[1], std::make_pair(b, std::uint64_t{2}));

  const auto j = s.ToJson();
  EXPECT_EQ(j["packets"], 10);
  EXPECT_EQ(j["non_ip"], 1);
  EXPECT_EQ(j["skipped"]["truncated"], 1);
  EXPECT_EQ(j["flow_size_histogram"][2]["min_packets"], 4);
  EXPECT_EQ(j["flow_size_histogram"][2]["max_packets"], 7);
  EXPECT_EQ(j["heaviest_flows"][0]["flow"], "192.0.2.1 192.0.2.2 6 1000 80");
  EXPECT_NE(s.ToText().find("distinct flows      3 (IPv4 2, IPv6 1)"), std::string::npos)
      << s.ToText();
}

// A pcapng file's interfaces: how many, and their link types, beside the first one's.
TEST(TraceStats, InterfacesOfAPcapngFile) {
  ScratchDir dir;
  PcapngBuilder b;
  b.Interface(1);
  b.Interface(101, 128);
  b.Interface(1);
  b.Packet(0, Ethernet(0x0800, Ip(Flow("192.0.2.1", "192.0.2.2", 17, 5, 6))));
  b.Packet(1, Ip(Flow("2001:db8::1", "2001:db8::2", 6, 7, 8)));
  b.Save(dir.File("i.pcapng"));
  const TraceStats s = ComputeTraceStats(dir.File("i.pcapng"));
  const auto j = s.ToJson();
  EXPECT_EQ(j["link_type"], 1);
  EXPECT_EQ(j["interfaces"], 3);
  EXPECT_EQ(j["link_types"], nlohmann::ordered_json::array({1, 12}));
  EXPECT_EQ(j["packets"], 2);
  EXPECT_NE(s.ToText().find("pcapng (link type 1, EN10MB; 3 interfaces, link types 1 12)"),
            std::string::npos)
      << s.ToText();

  PcapFileWriter w(dir.File("one.pcap"), 1);
  w.Write(Ethernet(0x0800, Ip(Flow("192.0.2.1", "192.0.2.2", 17, 5, 6))), 0);
  w.Commit();
  const TraceStats one = ComputeTraceStats(dir.File("one.pcap"));
  EXPECT_EQ(one.ToJson()["interfaces"], 1);
  EXPECT_EQ(one.ToText().find("interfaces"), std::string::npos) << one.ToText();
}

TEST(TraceStats, WorkloadFromTrace) {
  ScratchDir dir;
  SynthOptions o;
  o.packets = 5000;
  o.flows = 701;  // odd: the member count rounds
  o.seed = 3;
  const SynthTrace trace = SynthesizeTrace(o);
  WritePcap(dir.File("w.pcap"), trace.records);

  const Workload w = TraceWorkload(dir.File("w.pcap"));
  EXPECT_EQ(w.name, "trace:w.pcap");
  EXPECT_EQ(w.keys.size() + w.negatives.size(), 701u);
  EXPECT_EQ(w.keys.size(), 351u);  // llround(350.5)
  // Members: the first distinct flows in order of appearance.
  std::vector<std::uint64_t> first_seen;
  std::unordered_set<std::uint64_t> seen;
  for (const TraceRecord& r : trace.records) {
    const std::uint64_t k = FlowHash(r.flow);
    if (seen.insert(k).second) first_seen.push_back(k);
  }
  EXPECT_TRUE(std::equal(w.keys.begin(), w.keys.end(), first_seen.begin()));
  const std::set<std::uint64_t> members(w.keys.begin(), w.keys.end());
  EXPECT_EQ(members.size(), w.keys.size());
  for (std::uint64_t k : w.negatives) EXPECT_FALSE(members.count(k));
  ASSERT_EQ(w.queries.size(), 5000u);
  ASSERT_EQ(w.query_is_member.size(), 5000u);
  std::size_t positives = 0;
  for (std::size_t i = 0; i < w.queries.size(); ++i) {
    EXPECT_EQ(w.queries[i], FlowHash(trace.records[i].flow));
    EXPECT_EQ(w.query_is_member[i], members.count(w.queries[i]) ? 1 : 0);
    positives += w.query_is_member[i];
  }
  EXPECT_EQ(w.parameters["queries"]["positives"], positives);
  EXPECT_EQ(w.parameters["content_hash"].get<std::string>().size(), 16u);
  EXPECT_EQ(w.parameters["trace"]["packets"], 5000);
  EXPECT_EQ(w.parameters["key_collisions"], 0);

  // Coarser keys: fewer distinct ones, still consistent.
  TraceWorkloadOptions by_source;
  by_source.key = KeyMode::kSource;
  by_source.member_fraction = 0.25;
  by_source.random_members = true;
  by_source.seed = 9;
  const Workload s = TraceWorkload(dir.File("w.pcap"), by_source);
  EXPECT_LT(s.keys.size() + s.negatives.size(), 701u);
  const std::set<std::uint64_t> held(s.keys.begin(), s.keys.end());
  for (std::size_t i = 0; i < s.queries.size(); ++i) {
    EXPECT_EQ(s.query_is_member[i], held.count(s.queries[i]) ? 1 : 0);
  }
  EXPECT_EQ(s.parameters["key"], "src");
  EXPECT_EQ(s.parameters["member_selection"], "random");

  TraceWorkloadOptions bad;
  bad.member_fraction = 1.5;
  EXPECT_THROW(TraceWorkload(dir.File("w.pcap"), bad), InputError);
}

TEST(FlowHash, CanonicalLayout) {
  const FlowKey f = Flow("192.0.2.1", "198.51.100.2", 6, 0x1234, 0x0050);
  const auto bytes = CanonicalBytes(f, KeyMode::kFiveTuple);
  // ::ffff:192.0.2.1, then ::ffff:198.51.100.2, proto, ports big-endian.
  EXPECT_EQ(bytes[10], 0xff);
  EXPECT_EQ(bytes[12], 192);
  EXPECT_EQ(bytes[16 + 15], 2);
  EXPECT_EQ(bytes[32], 6);
  EXPECT_EQ(bytes[33], 0x12);
  EXPECT_EQ(bytes[34], 0x34);
  EXPECT_EQ(bytes[36], 0x50);
  FlowKey other_ports = f;
  other_ports.sport = 1;
  EXPECT_NE(FlowHash(f), FlowHash(other_ports));
  EXPECT_EQ(FlowHash(f, KeyMode::kAddressPair), FlowHash(other_ports, KeyMode::kAddressPair));
  FlowKey other_dst = f;
  other_dst.dst[15] = 9;
  EXPECT_EQ(FlowHash(f, KeyMode::kSource), FlowHash(other_dst, KeyMode::kSource));
  EXPECT_NE(FlowHash(f, KeyMode::kAddressPair), FlowHash(other_dst, KeyMode::kAddressPair));
  EXPECT_THROW(ParseKeyMode("ports"), InputError);
  EXPECT_EQ(ParseKeyMode("pair"), KeyMode::kAddressPair);
}

}  // namespace
}  // namespace amq
