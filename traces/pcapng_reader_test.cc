// traces/pcapng_reader_test.cc - the pcapng block reader on files the tests write block by
// block: several interfaces of different link types and snap lengths, an unsupported interface
// beside supported ones, sections in both byte orders, timestamp resolutions and offsets,
// simple and obsolete packet blocks, a file cut at every byte, every structural fault (one
// InputError line each), and random damage to a multi-interface file.
#include "traces/pcapng_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <limits>

#include "core/errors.h"
#include "core/hashing.h"
#include "traces/test_frames.h"
#include "traces/trace_io.h"

namespace amq {
namespace {

using namespace testing_frames;

constexpr int kEthernet = 1, kRaw = 101, kDltRaw = 12, kWifi = 105, kSll = 113;

struct Read {
  ReadSummary summary;
  std::vector<TraceRecord> records;

  std::vector<FlowKey> flows() const {
    std::vector<FlowKey> out;
    for (const TraceRecord& r : records) out.push_back(r.flow);
    return out;
  }
  std::vector<std::uint64_t> timestamps() const {
    std::vector<std::uint64_t> out;
    for (const TraceRecord& r : records) out.push_back(r.timestamp_ns);
    return out;
  }
};

Read ReadFile(const std::string& path) {
  Read read;
  read.summary = ReadTrace(path, [&](const TraceRecord& r) { read.records.push_back(r); });
  return read;
}

Read ReadBuilt(const ScratchDir& dir, const PcapngBuilder& b) {
  b.Save(dir.File("t.pcapng"));
  return ReadFile(dir.File("t.pcapng"));
}

std::uint64_t Skipped(const ReadSummary& s, SkipReason reason) {
  return s.skipped[static_cast<std::size_t>(reason)];
}

template <typename T>
std::vector<T> Head(const std::vector<T>& items, std::size_t n) {
  return std::vector<T>(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(n));
}

void PutLe32(Bytes& bytes, std::size_t at, std::uint32_t v) {
  for (std::size_t i = 0; i < 4; ++i) bytes[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

TEST(PcapngReader, InterfacesOfDifferentLinkTypesAndSnapLengths) {
  ScratchDir dir;
  PcapngBuilder b;
  b.Interface(kEthernet, 65535);
  b.Interface(kRaw, 24);  // IPv4 + ports, no more
  const Bytes udp4 = Ip(kUdp4);
  b.Packet(0, Ethernet(0x0800, Ip(kTcp4)), 1);
  b.Packet(1, Head(udp4, 24), 2, static_cast<std::uint32_t>(udp4.size()));
  // Captured beyond its interface's snap length: cut to 24 bytes, inside the IPv6 header.
  b.Packet(1, Ip(kUdp6), 3);
  // The same IPv6 packet on the Ethernet interface keeps its 65535.
  b.Packet(0, Ethernet(0x86dd, Ip(kTcp6)), 4);
  b.Packet(0, Ethernet(0x0806, Bytes(28, 0)), 5);
  const Read r = ReadBuilt(dir, b);
  ASSERT_EQ(r.flows(), (std::vector<FlowKey>{kTcp4, kUdp4, kTcp6}));
  EXPECT_EQ(r.timestamps(), (std::vector<std::uint64_t>{1000, 2000, 4000}));  // microseconds
  EXPECT_EQ(r.records[1].wire_length, udp4.size());
  const ReadSummary& s = r.summary;
  EXPECT_EQ(s.format, "pcapng");
  EXPECT_EQ(s.records, 5u);
  EXPECT_EQ(s.ipv4, 2u);
  EXPECT_EQ(s.ipv6, 1u);
  EXPECT_EQ(Skipped(s, SkipReason::kTruncated), 1u);
  EXPECT_EQ(Skipped(s, SkipReason::kNonIp), 1u);
  EXPECT_EQ(s.link_type, kEthernet);
  EXPECT_EQ(s.link_type_name, "EN10MB");
  EXPECT_EQ(s.interfaces, 2);
  EXPECT_EQ(s.link_types, (std::vector<int>{kEthernet, kDltRaw}));  // 101 reported as DLT_RAW
  EXPECT_EQ(s.truncated_records, 0u);
  EXPECT_EQ(s.read_error, "");
  EXPECT_TRUE(s.has_timestamps);
}

TEST(PcapngReader, UnsupportedInterfaceBesideSupportedOnesIsNonIp) {
  ScratchDir dir;
  PcapngBuilder b;
  b.Interface(kEthernet);
  b.Interface(kWifi);
  b.Interface(kRaw);
  b.Packet(0, Ethernet(0x0800, Ip(kTcp4)));
  b.Packet(1, Bytes(30, 0x08));
  b.Packet(2, Ip(kUdp6));
  b.Packet(1, Bytes(40, 0x88));
  const Read r = ReadBuilt(dir, b);
  EXPECT_EQ(r.flows(), (std::vector<FlowKey>{kTcp4, kUdp6}));
  EXPECT_EQ(r.summary.records, 4u);
  EXPECT_EQ(Skipped(r.summary, SkipReason::kNonIp), 2u);
  EXPECT_EQ(r.summary.interfaces, 3);
  EXPECT_EQ(r.summary.link_types, (std::vector<int>{kEthernet, kWifi, kDltRaw}));

  // The first interface unsupported: the summary still names it, the others are read.
  PcapngBuilder first;
  first.Interface(kWifi);
  first.Interface(kEthernet);
  first.Packet(0, Bytes(30, 0x08));
  first.Packet(1, Ethernet(0x0800, Ip(kUdp4)));
  const Read f = ReadBuilt(dir, first);
  EXPECT_EQ(f.flows(), std::vector<FlowKey>{kUdp4});
  EXPECT_EQ(f.summary.link_type, kWifi);
  EXPECT_EQ(f.summary.link_type_name, "IEEE802_11");

  // Packets only on the unsupported interface: nothing could be a flow.
  PcapngBuilder only;
  only.Interface(kEthernet);
  only.Interface(kWifi);
  only.Packet(1, Bytes(30, 0x08));
  only.Save(dir.File("only.pcapng"));
  ExpectInputError(dir.File("only.pcapng"), "has unsupported link type 105 (IEEE802_11)");
  // No packets, and no interface supported.
  PcapngBuilder empty_wifi;
  empty_wifi.Interface(kWifi);
  empty_wifi.Save(dir.File("wifi.pcapng"));
  ExpectInputError(dir.File("wifi.pcapng"), "has unsupported link type 105");
  // No packets, one interface supported: an empty capture, not an error.
  PcapngBuilder quiet;
  quiet.Interface(kEthernet);
  quiet.Interface(kWifi);
  EXPECT_EQ(ReadBuilt(dir, quiet).summary.records, 0u);
}

TEST(PcapngReader, SectionsInBothByteOrders) {
  ScratchDir dir;
  PcapngBuilder b(/*big_endian=*/true);
  b.Interface(kRaw, 65535, {{9, {9}}});  // nanoseconds, read in big-endian
  b.Packet(0, Ip(kTcp4), 0x0102030405060708ULL);
  b.Section(/*big_endian=*/false);
  b.Interface(kEthernet);  // interface 0 again, of another section
  b.Packet(0, Ethernet(0x86dd, Ip(kUdp6)), 8);
  b.Section(/*big_endian=*/true);
  b.Interface(kSll);
  b.Interface(kEthernet);
  b.Block(5, b.U32(1));  // an interface statistics block: skipped
  b.Packet(1, Ethernet(0x0800, Ip(kUdp4)), 9);
  const Read r = ReadBuilt(dir, b);
  EXPECT_EQ(r.flows(), (std::vector<FlowKey>{kTcp4, kUdp6, kUdp4}));
  EXPECT_EQ(r.timestamps(), (std::vector<std::uint64_t>{0x0102030405060708ULL, 8000, 9000}));
  EXPECT_EQ(r.summary.interfaces, 4);
  EXPECT_EQ(r.summary.link_type, kDltRaw);
  EXPECT_EQ(r.summary.link_types, (std::vector<int>{kDltRaw, kEthernet, kSll}));
  EXPECT_EQ(r.summary.truncated_records, 0u);
}

TEST(PcapngReader, TimestampResolutionsAndOffsetsAreExact) {
  ScratchDir dir;
  PcapngBuilder b;
  const auto seconds = [&](std::int64_t s) { return b.U64(static_cast<std::uint64_t>(s)); };
  b.Interface(kEthernet, 65535, {{9, {9}}});                          // 0: 10^-9 s
  b.Interface(kRaw, 65535, {{9, {0x80 | 20}}, {14, seconds(1000)}});  // 1: 2^-20 s, +1000 s
  b.Interface(kRaw, 65535, {{9, {12}}});                              // 2: 10^-12 s
  b.Interface(kEthernet, 65535, {{2, {'e', 't', 'h', '0'}}, {14, seconds(-1)}});  // 3: µs, -1 s
  b.Interface(kRaw, 65535, {{9, {0}}});          // 4: whole seconds
  b.Interface(kRaw, 65535, {{9, {0x80 | 63}}});  // 5: 2^-63 s
  const Bytes eth = Ethernet(0x0800, Ip(kTcp4)), raw = Ip(kTcp4);
  b.Packet(0, eth, 1700000000123456789ULL);
  b.Packet(1, raw, (std::uint64_t{5} << 20) + 3);               // 5 s + 2861.02 ns
  b.Packet(1, raw, (std::uint64_t{1} << 20) - 1);               // 0.999999046... s
  b.Packet(1, raw, std::numeric_limits<std::uint64_t>::max());  // 2^44 s: past 2^64 ns
  b.Packet(2, raw, 1234567890123456ULL);                        // 1234.567890123456 s
  b.Packet(3, eth, 1500000);                                    // 1.5 s - 1 s
  b.Packet(3, eth, 10);                                         // before the epoch: 0
  b.Packet(4, raw, 3);
  b.Packet(5, raw, (std::uint64_t{1} << 63) + 7);  // 1 s + 7 * 2^-63 s (under a ns)
  const Read r = ReadBuilt(dir, b);
  EXPECT_EQ(r.timestamps(), (std::vector<std::uint64_t>{
                                1700000000123456789ULL,
                                1005000002861ULL,
                                1000999999046ULL,
                                std::numeric_limits<std::uint64_t>::max(),
                                1234567890123ULL,
                                500000000ULL,
                                0,
                                3000000000ULL,
                                1000000000ULL,
                            }));
}

TEST(PcapngReader, SimpleAndObsoletePacketBlocks) {
  ScratchDir dir;
  PcapngBuilder b;
  b.Interface(kEthernet, 60);  // simple packets belong to interface 0
  b.Interface(kRaw);
  const Bytes udp4 = Ethernet(0x0800, Ip(kUdp4)), tcp6 = Ethernet(0x86dd, Ip(kTcp6));
  ASSERT_EQ(tcp6.size(), 74u);  // ports end at byte 58
  b.SimplePacket(udp4);
  // Captured length = min(original 74, snap length 60, bytes in the block): ports kept.
  b.SimplePacket(tcp6);
  // 56 bytes in the block: cut before the ports.
  b.SimplePacket(Head(tcp6, 56), 74);
  b.ObsoletePacket(1, Ip(kTcp4), 2000000);
  const Read r = ReadBuilt(dir, b);
  ASSERT_EQ(r.flows(), (std::vector<FlowKey>{kUdp4, kTcp6, kTcp4}));
  EXPECT_EQ(r.timestamps(), (std::vector<std::uint64_t>{0, 0, 2000000000}));
  EXPECT_EQ(r.records[1].wire_length, 74u);
  EXPECT_EQ(r.summary.records, 4u);
  EXPECT_EQ(Skipped(r.summary, SkipReason::kTruncated), 1u);
  EXPECT_TRUE(r.summary.has_timestamps);

  PcapngBuilder simple;
  simple.Interface(kEthernet);
  simple.SimplePacket(udp4);
  EXPECT_FALSE(ReadBuilt(dir, simple).summary.has_timestamps);  // no packet carries one
}

// A two-interface file with a skipped block, its block and packet block end offsets noted.
struct Layout {
  Bytes bytes;
  std::size_t first_interface_end = 0;
  std::vector<std::size_t> block_ends;
  std::vector<std::size_t> packet_ends;
  std::vector<FlowKey> flows;
};

Layout TwoInterfaceFile() {
  PcapngBuilder b;
  Layout l;
  l.block_ends.push_back(b.size());
  b.Interface(kEthernet);
  l.first_interface_end = b.size();
  l.block_ends.push_back(b.size());
  b.Interface(kRaw, 65535, {{9, {9}}});
  l.block_ends.push_back(b.size());
  const auto packet = [&](std::uint32_t interface, const Bytes& data, const FlowKey& flow) {
    b.Packet(interface, data, 5);
    l.block_ends.push_back(b.size());
    l.packet_ends.push_back(b.size());
    l.flows.push_back(flow);
  };
  packet(0, Ethernet(0x0800, Ip(kTcp4)), kTcp4);
  packet(1, Ip(kUdp6), kUdp6);
  b.Block(4, b.U32(0));  // name resolution: end of records only
  l.block_ends.push_back(b.size());
  packet(1, Ip(kUdp4), kUdp4);
  packet(0, Ethernet(0x86dd, Ip(kTcp6)), kTcp6);
  l.bytes = b.bytes();
  return l;
}

TEST(PcapngReader, FileCutAtEveryByteKeepsTheWholeBlocksBeforeIt) {
  ScratchDir dir;
  const Layout l = TwoInterfaceFile();
  const std::string path = dir.File("cut.pcapng");
  // From 4 bytes on: a shorter file has no magic to call it pcapng (trace_io.h).
  for (std::size_t cut = 4; cut < l.bytes.size(); ++cut) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    WriteBytes(path, Head(l.bytes, cut));
    if (cut < l.first_interface_end) {
      ExpectInputError(path, "describes no interface");
      continue;
    }
    const Read r = ReadFile(path);
    std::size_t whole = 0;
    while (whole < l.packet_ends.size() && l.packet_ends[whole] <= cut) ++whole;
    EXPECT_EQ(r.flows(), Head(l.flows, whole));
    EXPECT_EQ(r.summary.records, whole);
    // Cut exactly between two blocks, the file is a shorter valid capture.
    if (std::find(l.block_ends.begin(), l.block_ends.end(), cut) != l.block_ends.end()) {
      EXPECT_EQ(r.summary.truncated_records, 0u);
      continue;
    }
    EXPECT_EQ(r.summary.truncated_records, 1u);
    EXPECT_NE(r.summary.read_error.find("truncated pcapng file"), std::string::npos)
        << r.summary.read_error;
  }
  // Cut inside the last packet's header and inside its data.
  const std::size_t last = l.packet_ends[2];
  for (std::size_t cut : {last + 6, l.bytes.size() - 5}) {
    WriteBytes(path, Head(l.bytes, cut));
    const Read r = ReadFile(path);
    EXPECT_EQ(r.flows(), Head(l.flows, 3));
    EXPECT_EQ(r.summary.truncated_records, 1u);
    EXPECT_NE(r.summary.read_error.find("byte offset " + std::to_string(last)), std::string::npos)
        << r.summary.read_error;
  }
}

TEST(PcapngReader, StructuralFaultsAreOneLineInputErrors) {
  ScratchDir dir;
  const std::string path = dir.File("bad.pcapng");
  const Layout l = TwoInterfaceFile();
  const std::size_t packet = l.packet_ends[0];  // the second packet block starts here
  const auto damaged = [&](std::size_t at, std::uint32_t value) {
    Bytes bad = l.bytes;
    PutLe32(bad, at, value);
    WriteBytes(path, bad);
  };
  const std::string where = "block at byte offset " + std::to_string(packet) + ": ";
  damaged(packet + 4, 8);
  ExpectInputError(path, where + "block total length 8 is less than 12");
  damaged(packet + 4, 30);
  ExpectInputError(path, where + "block total length 30 is not a multiple of 4");
  const std::uint32_t second_length = static_cast<std::uint32_t>(l.packet_ends[1] - packet);
  damaged(packet + second_length - 4, second_length + 4);
  ExpectInputError(path, where + "block total length " + std::to_string(second_length) +
                             " in the header but " + std::to_string(second_length + 4) +
                             " in the trailer");
  damaged(packet + 8 + 12, 1000);  // captured length
  ExpectInputError(path, where + "Enhanced Packet Block captured length 1000 overruns its block");
  damaged(packet + 8, 2);  // interface id
  ExpectInputError(path, where +
                             "Enhanced Packet Block for interface 2, but the section "
                             "describes 2");
  damaged(8, 0x4d3c2b1b);
  ExpectInputError(path, "block at byte offset 0: bad byte-order magic");

  // Faults in blocks the builder writes whole.
  const auto built = [&](const std::function<void(PcapngBuilder&)>& write) {
    PcapngBuilder b;
    write(b);
    b.Save(path);
    return b.size();
  };
  built([](PcapngBuilder& b) {
    b.Interface(kEthernet);
    b.Section(false);  // interface ids start again: this section describes none
    b.Packet(0, Ethernet(0x0800, Ip(kTcp4)));
  });
  ExpectInputError(path,
                   "block at byte offset 76: Enhanced Packet Block for interface 0, but "
                   "the section describes 0");
  built([](PcapngBuilder& b) { b.SimplePacket(Ethernet(0x0800, Ip(kTcp4))); });
  ExpectInputError(path, "byte offset 28: Simple Packet Block for interface 0");
  built([](PcapngBuilder& b) {
    b.Interface(kEthernet);
    b.Section(true, /*major_version=*/2);
  });
  ExpectInputError(path, "byte offset 48: pcapng version 2.0");
  built([](PcapngBuilder& b) {
    b.Interface(kEthernet);
    b.Section(false);
    b.Block(0x0a0d0d0a, Cat({{1, 2, 3, 4}, Bytes(12, 0)}));  // a second section, bad magic
  });
  ExpectInputError(path, "byte offset 76: bad byte-order magic 0x01020304");
  built([](PcapngBuilder& b) { b.Interface(kEthernet, 65535, {{9, {9, 9}}}); });
  ExpectInputError(path, "byte offset 28: if_tsresol option of 2 bytes, not 1");
  built([](PcapngBuilder& b) { b.Interface(kEthernet, 65535, {{9, {20}}}); });
  ExpectInputError(path, "if_tsresol 10^-20 is too fine");
  built([](PcapngBuilder& b) { b.Interface(kEthernet, 65535, {{9, {0x80 | 64}}}); });
  ExpectInputError(path, "if_tsresol 2^-64 is too fine");
  built([](PcapngBuilder& b) { b.Interface(kEthernet, 65535, {{14, {1, 2, 3, 4}}}); });
  ExpectInputError(path, "if_tsoffset option of 4 bytes, not 8");
  built([](PcapngBuilder& b) {
    b.Block(1, Cat({b.U16(kEthernet), b.U16(0), b.U32(65535), b.U16(2), b.U16(9), Bytes(4, 0)}));
  });
  ExpectInputError(path,
                   "byte offset 28: Interface Description Block option 2 of 9 bytes "
                   "overruns its block");
  built([](PcapngBuilder& b) {
    b.Interface(kEthernet);
    b.Block(6, Bytes(16, 0));
  });
  ExpectInputError(path, "byte offset 48: Enhanced Packet Block too short (16 bytes)");
  built([](PcapngBuilder&) {});
  ExpectInputError(path, "describes no interface");

  // A first block that is not a section header: the format check refuses it before the
  // reader sees it, and the reader itself refuses it too.
  Bytes headless(l.bytes.begin() + 28, l.bytes.end());
  WriteBytes(path, headless);
  ExpectInputError(path, "is not a pcap, pcapng, amqtrace or text trace");
  try {
    ReadPcapng(path, [](const TraceRecord&) {});
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("byte offset 0: the file does not start with a Section "
                                         "Header Block (type 0x00000001)"),
              std::string::npos)
        << e.what();
  }

  // A block over 256 MiB inside the file (sparse: nothing of it is ever read or allocated).
  const std::size_t good = built([](PcapngBuilder& b) {
    b.Interface(kEthernet);
    b.Packet(0, Ethernet(0x0800, Ip(kTcp4)));
  });
  {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    const std::uint8_t header[8] = {6, 0, 0, 0, 0, 0, 0, 0x11};  // type 6, 0x11000000 bytes
    out.write(reinterpret_cast<const char*>(header), sizeof header);
  }
  std::filesystem::resize_file(path, good + 0x11000000 + 64);
  ExpectInputError(path, "byte offset " + std::to_string(good) +
                             ": block total length 285212672 is over the 256 MiB limit");
}

// Random damage to a multi-interface, two-section file: every outcome is a summary or an
// InputError. Run under a sanitizer this is a small fuzzer; here it checks that nothing
// crashes, hangs or reads past its buffer.
TEST(PcapngReader, CorruptedCapturesNeverCrash) {
  ScratchDir dir;
  PcapngBuilder b;
  b.Interface(kEthernet, 65535, {{9, {9}}, {14, b.U64(100)}});
  b.Interface(kRaw, 128, {{9, {0x80 | 20}}});
  b.Interface(kWifi);
  b.Packet(0, Ethernet(0x0800, Ip(kTcp4)));
  b.Packet(1, Ip(kUdp6));
  b.Packet(2, Bytes(30, 0x08));
  b.SimplePacket(Ethernet(0x86dd, Ip(kTcp6)));
  b.Block(5, Bytes(16, 0));
  b.Section(true);
  b.Interface(kSll, 96);
  b.Interface(kRaw);
  b.ObsoletePacket(1, Ip(kUdp4));
  b.Packet(0, Cat({{0, 0}, Be16(1), Be16(6), Bytes(8, 0), Be16(0x0800), Ip(kUdp4)}));
  const Bytes good = b.bytes();
  XorShift64Star rng(2025);
  int errors = 0, read = 0;
  for (int round = 0; round < 600; ++round) {
    const Bytes bad = Damaged(good, rng, round);
    WriteBytes(dir.File("fuzz.pcapng"), bad);
    try {
      const ReadSummary s = ReadTrace(dir.File("fuzz.pcapng"), [](const TraceRecord&) {});
      EXPECT_LE(s.records, bad.size() / 12);  // every record is a block of 12 bytes or more
      ++read;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
      ++errors;
    }
  }
  EXPECT_EQ(errors + read, 600);
  EXPECT_GT(read, 0);
  EXPECT_GT(errors, 0);
}

}  // namespace
}  // namespace amq
