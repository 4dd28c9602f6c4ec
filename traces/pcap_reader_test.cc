// traces/pcap_reader_test.cc - the pcap/pcapng reader on captures the tests write byte by byte:
// every supported link type, VLAN/QinQ/PPPoE/MPLS, IPv6 extension headers, fragments, snap-length
// cuts, non-IP frames; damaged files (empty, wrong magic, cut header, unsupported link type, cut
// record, random corruption) are InputErrors or counted skips, never a crash.
#include "traces/pcap_reader.h"

#include <gtest/gtest.h>

#include <optional>

#include "core/errors.h"
#include "core/hashing.h"
#include "traces/test_frames.h"
#include "traces/trace_io.h"

namespace amq {
namespace {

using namespace testing_frames;

struct Case {
  std::string what;
  Bytes frame;
  std::optional<FlowKey> flow;  // expected flow, or none when skipped
  SkipReason reason = SkipReason::kNone;
  std::uint32_t caplen = 0;  // 0: the whole frame
};

const FlowKey kIcmp4 = Flow("192.0.2.1", "192.0.2.2", 1);

FlowKey NoPorts(FlowKey f) {
  f.sport = f.dport = 0;
  return f;
}

// An IPv6 packet whose source (at 8) or destination (at 24) is rewritten to the IPv4-mapped
// ::ffff:192.0.2.1.
Bytes WithMappedAddress(Bytes ipv6, std::size_t at) {
  const std::uint8_t mapped[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1};
  std::copy(mapped, mapped + 16, ipv6.begin() + static_cast<long>(at));
  return ipv6;
}

// IPv4 with the fragment field set (offset in 8-byte units, more-fragments flag).
Bytes Fragment4(const FlowKey& f, std::uint16_t offset, bool more) {
  Bytes p = Ip(f);
  const std::uint16_t field = static_cast<std::uint16_t>(offset | (more ? 0x2000 : 0));
  p[6] = static_cast<std::uint8_t>(field >> 8);
  p[7] = static_cast<std::uint8_t>(field);
  return p;
}

Bytes Fragment6(const FlowKey& f, std::uint16_t offset, bool more) {
  const std::uint16_t field = static_cast<std::uint16_t>(offset << 3 | (more ? 1 : 0));
  return WithExtensions(
      Ip(f),
      {{44,
        {static_cast<std::uint8_t>(field >> 8), static_cast<std::uint8_t>(field), 0, 0, 0, 42}}});
}

std::vector<Case> EthernetCases() {
  const Bytes ip4 = Ip(kTcp4);
  Bytes bad_version = Ip(kTcp4);
  bad_version[0] = 0x55;
  Bytes short_ihl = Ip(kTcp4);
  short_ihl[0] = 0x44;
  const Bytes options6 =
      WithExtensions(Ip(kTcp6), {{0, {1, 4, 0, 0, 0, 0}}, {60, {1, 4, 0, 0, 0, 0}}});
  const Bytes routing_ah6 =
      WithExtensions(Ip(kUdp6), {{43, {0, 0, 0, 0, 0, 0}}, {51, Bytes(10, 0)}});
  Bytes esp6 = Ip(kUdp6);
  esp6[6] = 50;
  return {
      {"ipv4 tcp", Ethernet(0x0800, ip4), kTcp4},
      {"ipv4 udp in 802.1Q", Cat({Macs(), Be16(0x8100), Be16(7), Be16(0x0800), Ip(kUdp4)}), kUdp4},
      {"cut inside an 802.1Q tag", Cat({Macs(), Be16(0x8100), Be16(7), Be16(0x0800), Ip(kUdp4)}),
       std::nullopt, SkipReason::kTruncated, 16},
      {"ipv6 tcp in QinQ (88a8 + 8100)",
       Cat({Macs(), Be16(0x88a8), Be16(100), Be16(0x8100), Be16(7), Be16(0x86dd), Ip(kTcp6)}),
       kTcp6},
      {"ipv6 in PPPoE session",
       Cat({Macs(), Be16(0x8864), {0x11, 0, 0x12, 0x34, 0, 0}, Be16(0x0057), Ip(kUdp6)}), kUdp6},
      {"ipv4 under two MPLS labels",
       Cat({Macs(), Be16(0x8847), {0, 0x01, 0x20, 64}, {0, 0x02, 0x21, 64}, ip4}), kTcp4},
      {"ARP", Ethernet(0x0806, Bytes(28, 0)), std::nullopt, SkipReason::kNonIp},
      {"802.3 LLC (length field)", Ethernet(0x0026, Bytes(38, 0x42)), std::nullopt,
       SkipReason::kNonIp},
      {"unknown ethertype", Ethernet(0x88b5, Bytes(46, 0)), std::nullopt, SkipReason::kNonIp},
      {"ipv4 version nibble 5", Ethernet(0x0800, bad_version), std::nullopt, SkipReason::kBadIp},
      {"ipv4 header length 16", Ethernet(0x0800, short_ihl), std::nullopt, SkipReason::kBadIp},
      // Found by fuzz/pcap_fuzz.cc (fuzz/findings/): read as IPv6, converted as IPv4.
      {"ipv6 with an IPv4-mapped source", Ethernet(0x86dd, WithMappedAddress(Ip(kUdp6), 8)),
       std::nullopt, SkipReason::kBadIp},
      {"ipv6 with an IPv4-mapped destination", Ethernet(0x86dd, WithMappedAddress(Ip(kUdp6), 24)),
       std::nullopt, SkipReason::kBadIp},
      {"cut inside the Ethernet header", Ethernet(0x0800, ip4), std::nullopt,
       SkipReason::kTruncated, 10},
      {"cut inside the IPv4 header", Ethernet(0x0800, ip4), std::nullopt, SkipReason::kTruncated,
       14 + 12},
      {"cut before the ports", Ethernet(0x0800, ip4), std::nullopt, SkipReason::kTruncated,
       14 + 20 + 3},
      {"cut right after the ports", Ethernet(0x0800, ip4), kTcp4, SkipReason::kNone, 14 + 20 + 4},
      {"cut inside an IPv6 header", Ethernet(0x86dd, Ip(kTcp6)), std::nullopt,
       SkipReason::kTruncated, 14 + 39},
      {"icmp: no ports", Ethernet(0x0800, Ip(kIcmp4)), kIcmp4},
      {"ipv4 first fragment keeps ports", Ethernet(0x0800, Fragment4(kUdp4, 0, true)), kUdp4},
      {"ipv4 later fragment: ports 0", Ethernet(0x0800, Fragment4(kUdp4, 185, false)),
       NoPorts(kUdp4)},
      {"ipv4 later fragment cut after IP header", Ethernet(0x0800, Fragment4(kUdp4, 185, true)),
       NoPorts(kUdp4), SkipReason::kNone, 14 + 20},
      {"ipv6 hop-by-hop + destination options", Ethernet(0x86dd, options6), kTcp6},
      {"ipv6 routing + AH", Ethernet(0x86dd, routing_ah6), kUdp6},
      {"ipv6 first fragment keeps ports", Ethernet(0x86dd, Fragment6(kTcp6, 0, true)), kTcp6},
      {"ipv6 later fragment: ports 0", Ethernet(0x86dd, Fragment6(kTcp6, 100, false)),
       NoPorts(kTcp6)},
      {"ipv6 ESP: proto 50, no ports", Ethernet(0x86dd, esp6),
       Flow("2001:db8::3", "2001:db8::4", 50)},
      {"ipv6 options cut by the snap length", Ethernet(0x86dd, options6), std::nullopt,
       SkipReason::kTruncated, 14 + 40 + 8 + 1},
  };
}

void ExpectCase(int dlt, const Case& c) {
  SCOPED_TRACE(c.what);
  ParsedPacket parsed;
  const std::size_t caplen = c.caplen ? c.caplen : c.frame.size();
  const SkipReason reason = ParseFrame(dlt, c.frame.data(), caplen, parsed);
  if (c.flow) {
    ASSERT_EQ(reason, SkipReason::kNone) << SkipReasonName(reason);
    EXPECT_EQ(FlowToString(parsed.flow), FlowToString(*c.flow));
    EXPECT_EQ(parsed.flow, *c.flow);
  } else {
    EXPECT_EQ(SkipReasonName(reason), std::string(SkipReasonName(c.reason)));
  }
}

// Writes the cases as one capture of link type `dlt`, reads it back, and checks the kept flows
// (in order) and the skip counts against the cases.
void ExpectCapture(int dlt, const std::vector<Case>& cases) {
  ScratchDir dir;
  const std::string path = dir.File("capture.pcap");
  PcapFileWriter writer(path, dlt);
  std::vector<FlowKey> expected;
  std::array<std::uint64_t, kSkipReasons> skips{};
  std::uint64_t v4 = 0, v6 = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const auto caplen = static_cast<std::uint32_t>(c.caplen ? c.caplen : c.frame.size());
    writer.Write(c.frame.data(), caplen, static_cast<std::uint32_t>(c.frame.size()), 1000 * i);
    if (c.flow) {
      expected.push_back(*c.flow);
      ++(c.flow->is_ipv4() ? v4 : v6);
    } else {
      ++skips[static_cast<std::size_t>(c.reason)];
    }
  }
  writer.Commit();
  std::vector<FlowKey> seen;
  std::vector<std::uint64_t> stamps;
  const ReadSummary s = ReadPcap(path, [&](const TraceRecord& r) {
    seen.push_back(r.flow);
    stamps.push_back(r.timestamp_ns);
  });
  EXPECT_EQ(s.format, "pcap");
  EXPECT_EQ(s.link_type, dlt == 101 ? 12 : dlt);  // libpcap maps LINKTYPE_RAW to DLT_RAW
  EXPECT_EQ(s.records, cases.size());
  EXPECT_EQ(s.ipv4, v4);
  EXPECT_EQ(s.ipv6, v6);
  EXPECT_EQ(s.skipped, skips);
  EXPECT_EQ(s.truncated_records, 0u);
  EXPECT_EQ(seen, expected);
  EXPECT_TRUE(std::is_sorted(stamps.begin(), stamps.end()));
}

TEST(PcapReader, EthernetFrames) {
  for (const Case& c : EthernetCases()) ExpectCase(1, c);
  ExpectCapture(1, EthernetCases());
}

TEST(PcapReader, LinuxCookedV1) {
  const auto sll = [](std::uint16_t protocol, const Bytes& payload) {
    return Cat({{0, 0}, Be16(1), Be16(6), {2, 0, 0, 0, 0, 1, 0, 0}, Be16(protocol), payload});
  };
  std::vector<Case> cases = {
      {"ipv4", sll(0x0800, Ip(kTcp4)), kTcp4},
      {"ipv6", sll(0x86dd, Ip(kUdp6)), kUdp6},
      {"vlan inside", sll(0x8100, Cat({Be16(5), Be16(0x0800), Ip(kUdp4)})), kUdp4},
      {"arp", sll(0x0806, Bytes(28, 0)), std::nullopt, SkipReason::kNonIp},
      {"cut header", sll(0x0800, Ip(kTcp4)), std::nullopt, SkipReason::kTruncated, 15},
  };
  for (const Case& c : cases) ExpectCase(113, c);
  ExpectCapture(113, cases);
}

TEST(PcapReader, LinuxCookedV2) {
  const auto sll2 = [](std::uint16_t protocol, const Bytes& payload) {
    return Cat(
        {Be16(protocol), {0, 0}, {0, 0, 0, 3}, Be16(1), {0, 6}, {2, 0, 0, 0, 0, 1, 0, 0}, payload});
  };
  std::vector<Case> cases = {
      {"ipv4", sll2(0x0800, Ip(kUdp4)), kUdp4},
      {"ipv6", sll2(0x86dd, Ip(kTcp6)), kTcp6},
      {"lldp", sll2(0x88cc, Bytes(20, 0)), std::nullopt, SkipReason::kNonIp},
      {"cut header", sll2(0x0800, Ip(kTcp4)), std::nullopt, SkipReason::kTruncated, 19},
  };
  for (const Case& c : cases) ExpectCase(276, c);
  ExpectCapture(276, cases);
}

TEST(PcapReader, NullAndLoop) {
  const auto le = [](std::uint32_t v) {
    return Bytes{static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(v >> 8),
                 static_cast<std::uint8_t>(v >> 16), static_cast<std::uint8_t>(v >> 24)};
  };
  const auto be = [](std::uint32_t v) {
    return Bytes{static_cast<std::uint8_t>(v >> 24), static_cast<std::uint8_t>(v >> 16),
                 static_cast<std::uint8_t>(v >> 8), static_cast<std::uint8_t>(v)};
  };
  // NULL stores the family in the capturing host's order: either must read.
  std::vector<Case> null_cases = {
      {"AF_INET little-endian", Cat({le(2), Ip(kTcp4)}), kTcp4},
      {"AF_INET big-endian", Cat({be(2), Ip(kUdp4)}), kUdp4},
      {"AF_INET6 macOS (30)", Cat({le(30), Ip(kTcp6)}), kTcp6},
      {"AF_INET6 FreeBSD (28)", Cat({le(28), Ip(kUdp6)}), kUdp6},
      {"AF_INET6 OpenBSD (24)", Cat({be(24), Ip(kUdp6)}), kUdp6},
      {"unknown family", Cat({le(99), Ip(kTcp4)}), std::nullopt, SkipReason::kNonIp},
      {"cut family", Cat({le(2), Ip(kTcp4)}), std::nullopt, SkipReason::kTruncated, 3},
  };
  for (const Case& c : null_cases) ExpectCase(0, c);
  ExpectCapture(0, null_cases);
  std::vector<Case> loop_cases = {
      {"AF_INET", Cat({be(2), Ip(kTcp4)}), kTcp4},
      {"AF_INET6 (24)", Cat({be(24), Ip(kTcp6)}), kTcp6},
  };
  ExpectCapture(108, loop_cases);
}

TEST(PcapReader, RawIpLinkTypes) {
  Bytes junk = Ip(kTcp4);
  junk[0] = 0x20;
  std::vector<Case> raw = {
      {"ipv4", Ip(kTcp4), kTcp4},
      {"ipv6", Ip(kUdp6), kUdp6},
      {"ipv4 later fragment", Fragment4(kTcp4, 8, false), NoPorts(kTcp4)},
      {"ipv6 later fragment", Fragment6(kUdp6, 8, false), NoPorts(kUdp6)},
      {"not IP", junk, std::nullopt, SkipReason::kBadIp},
  };
  for (int dlt : {12, 14, 101}) ExpectCapture(dlt, raw);
  ExpectCapture(228, {{"ipv4", Ip(kUdp4), kUdp4},
                      {"ipv6 under DLT_IPV4", Ip(kTcp6), std::nullopt, SkipReason::kBadIp}});
  ExpectCapture(229, {{"ipv6", Ip(kTcp6), kTcp6},
                      {"ipv4 under DLT_IPV6", Ip(kTcp4), std::nullopt, SkipReason::kBadIp}});
}

TEST(PcapReader, PppAndCiscoHdlc) {
  ExpectCapture(
      9,
      {{"ppp with address/control", Cat({{0xff, 0x03}, Be16(0x0021), Ip(kTcp4)}), kTcp4},
       {"ppp compressed", Cat({Be16(0x0057), Ip(kUdp6)}), kUdp6},
       {"cisco hdlc inside ppp", Cat({{0x0f, 0}, Be16(0x0800), Ip(kUdp4)}), kUdp4},
       {"lcp", Cat({{0xff, 0x03}, Be16(0xc021), Bytes(8, 0)}), std::nullopt, SkipReason::kNonIp}});
  ExpectCapture(104, {{"ipv4", Cat({{0x0f, 0}, Be16(0x0800), Ip(kTcp4)}), kTcp4},
                      {"slarp", Cat({{0x8f, 0}, Be16(0x8035), Bytes(20, 0)}), std::nullopt,
                       SkipReason::kNonIp}});
}

TEST(PcapReader, Pcapng) {
  ScratchDir dir;
  PcapngBuilder b;
  b.Interface(1);
  b.Packet(0, Ethernet(0x0800, Ip(kTcp4)));
  b.Packet(0, Ethernet(0x86dd, Ip(kUdp6)));
  b.Packet(0, Ethernet(0x0806, Bytes(28, 0)));
  b.Save(dir.File("a.pcapng"));
  std::vector<FlowKey> seen;
  const ReadSummary s =
      ReadTrace(dir.File("a.pcapng"), [&](const TraceRecord& r) { seen.push_back(r.flow); });
  EXPECT_EQ(s.format, "pcapng");
  EXPECT_EQ(s.records, 3u);
  EXPECT_EQ(s.skipped[static_cast<std::size_t>(SkipReason::kNonIp)], 1u);
  EXPECT_EQ(seen, (std::vector<FlowKey>{kTcp4, kUdp6}));

  // A second interface of another link type and snap length, as dumpcap writes: each packet is
  // read with its own interface's (libpcap 1.10 stopped at the second interface).
  PcapngBuilder mixed;
  mixed.Interface(1);
  mixed.Packet(0, Ethernet(0x0800, Ip(kTcp4)));
  mixed.Interface(101, 128);
  mixed.Packet(1, Ip(kUdp4));
  mixed.Packet(0, Ethernet(0x86dd, Ip(kTcp6)));
  mixed.Save(dir.File("mixed.pcapng"));
  seen.clear();
  const ReadSummary m =
      ReadTrace(dir.File("mixed.pcapng"), [&](const TraceRecord& r) { seen.push_back(r.flow); });
  EXPECT_EQ(seen, (std::vector<FlowKey>{kTcp4, kUdp4, kTcp6}));
  EXPECT_EQ(m.records, 3u);
  EXPECT_EQ(m.interfaces, 2);
  EXPECT_EQ(m.truncated_records, 0u);
  EXPECT_EQ(m.read_error, "");
}

// A valid three-packet capture to damage.
Bytes SmallCapture(const ScratchDir& dir) {
  PcapFileWriter w(dir.File("good.pcap"), 1);
  w.Write(Ethernet(0x0800, Ip(kTcp4)), 1);
  w.Write(Ethernet(0x0800, Ip(kUdp4)), 2);
  w.Write(Ethernet(0x86dd, Ip(kTcp6)), 3);
  w.Commit();
  return ReadBytes(dir.File("good.pcap"));
}

TEST(PcapReader, BadFilesAreInputErrors) {
  ScratchDir dir;
  const Bytes good = SmallCapture(dir);
  ExpectInputError(dir.File("missing.pcap"), "No such file");
  WriteBytes(dir.File("empty.pcap"), {});
  ExpectInputError(dir.File("empty.pcap"), "is empty");
  ExpectInputError(dir.File(""), "not a regular file");  // the directory itself
  WriteBytes(dir.File("magic.pcap"), {0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3, 0x80, 0x81});
  ExpectInputError(dir.File("magic.pcap"), "not a pcap, pcapng, amqtrace or text trace");
  WriteBytes(dir.File("header.pcap"), Bytes(good.begin(), good.begin() + 12));
  ExpectInputError(dir.File("header.pcap"), "cannot read trace");
  Bytes wifi = good;
  wifi[20] = 105;  // IEEE 802.11
  WriteBytes(dir.File("wifi.pcap"), wifi);
  ExpectInputError(dir.File("wifi.pcap"), "unsupported link type 105");
}

TEST(PcapReader, RecordCutShortKeepsEarlierPackets) {
  ScratchDir dir;
  const Bytes good = SmallCapture(dir);
  // The last record is 16 header bytes + a 74-byte frame: cut inside its data, then its header.
  for (std::size_t cut : {std::size_t{5}, std::size_t{84}}) {
    WriteBytes(dir.File("cut.pcap"), Bytes(good.begin(), good.end() - static_cast<long>(cut)));
    std::vector<FlowKey> seen;
    const ReadSummary s =
        ReadPcap(dir.File("cut.pcap"), [&](const TraceRecord& r) { seen.push_back(r.flow); });
    EXPECT_EQ(seen, (std::vector<FlowKey>{kTcp4, kUdp4})) << "cut " << cut;
    EXPECT_EQ(s.truncated_records, 1u);
    EXPECT_NE(s.read_error.find("truncated"), std::string::npos) << s.read_error;
  }
}

// Any other libpcap read error is a damaged record, not a short file: an InputError naming the
// record, so the command exits 2 instead of reporting the packets before it as the trace.
TEST(PcapReader, DamagedRecordIsAnInputError) {
  ScratchDir dir;
  Bytes bad = SmallCapture(dir);
  const std::size_t second = 24 + 16 + Ethernet(0x0800, Ip(kTcp4)).size();  // its header
  bad[second + 8 + 3] = 0x7f;  // captured length 0x7f......: beyond any snap length
  WriteBytes(dir.File("bad.pcap"), bad);
  ExpectInputError(dir.File("bad.pcap"), "record 2: invalid packet capture length");
}

// Random corruption of a valid capture: every outcome is a summary or an InputError. Run
// under a sanitizer this is a small fuzzer; here it checks that nothing crashes or hangs.
TEST(PcapReader, CorruptedCapturesNeverCrash) {
  ScratchDir dir;
  const Bytes good = SmallCapture(dir);
  XorShift64Star rng(2024);
  int errors = 0, read = 0;
  for (int round = 0; round < 300; ++round) {
    const Bytes bad = Damaged(good, rng, round);
    WriteBytes(dir.File("fuzz.pcap"), bad);
    try {
      const ReadSummary s = ReadTrace(dir.File("fuzz.pcap"), [](const TraceRecord&) {});
      EXPECT_LE(s.records, 3u);
      ++read;
    } catch (const InputError&) {
      ++errors;
    }
  }
  EXPECT_EQ(errors + read, 300);
}

}  // namespace
}  // namespace amq
