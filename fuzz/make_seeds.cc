// fuzz/make_seeds.cc - writes the trace fuzz targets' seed corpora with the project's own
// writers and test builders, so no binary capture is committed and the seeds follow the formats
// as the writers change:
//   DIR/pcap/      a capture per supported link type (Ethernet with VLAN, QinQ, PPPoE and MPLS,
//                  Linux SLL and SLL2, NULL, LOOP, raw IP, PPP, Cisco HDLC), two pcapng files
//                  (one interface; a second interface of another link type) and a synthetic
//                  Ethernet trace
//   DIR/amqtrace/  a synthetic trace as amqtrace, with and without timestamps
//   DIR/text/      the same as text traces
// usage: make_seeds DIR   (DIR and its three folders are created)
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "traces/synth.h"
#include "traces/test_frames.h"
#include "traces/trace_io.h"

namespace amq {
namespace {

using namespace testing_frames;

struct Frame {
  Bytes bytes;
  std::uint32_t caplen = 0;  // 0: the whole frame
};

void WriteCapture(const std::string& path, int link_type, const std::vector<Frame>& frames) {
  PcapFileWriter writer(path, link_type);
  std::uint64_t time = 1000;
  for (const Frame& f : frames) {
    const auto size = static_cast<std::uint32_t>(f.bytes.size());
    writer.Write(f.bytes.data(), f.caplen ? f.caplen : size, size, time);
    time += 1000;
  }
  writer.Commit();
}

Bytes Le32(std::uint32_t v) {
  return {static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(v >> 8),
          static_cast<std::uint8_t>(v >> 16), static_cast<std::uint8_t>(v >> 24)};
}

Bytes Be32(std::uint32_t v) {
  return {static_cast<std::uint8_t>(v >> 24), static_cast<std::uint8_t>(v >> 16),
          static_cast<std::uint8_t>(v >> 8), static_cast<std::uint8_t>(v)};
}

void WritePcapSeeds(const std::string& dir) {
  const FlowKey tcp4 = Flow("192.0.2.1", "198.51.100.7", 6, 51234, 443);
  const FlowKey udp4 = Flow("203.0.113.9", "192.0.2.53", 17, 40000, 53);
  const FlowKey tcp6 = Flow("2001:db8::1", "2001:db8:1::2", 6, 50000, 80);
  const FlowKey udp6 = Flow("2001:db8::3", "2001:db8::4", 17, 5353, 5353);
  const FlowKey icmp4 = Flow("192.0.2.1", "192.0.2.2", 1);

  Bytes fragment4 = Ip(udp4);  // a later fragment: offset 185, no more fragments
  fragment4[6] = 0;
  fragment4[7] = 185;
  const Bytes extensions6 = WithExtensions(
      Ip(tcp6), {{0, {1, 4, 0, 0, 0, 0}}, {43, {0, 0, 0, 0, 0, 0}}, {44, {0, 8, 0, 0, 0, 42}}});

  WriteCapture(dir + "/ethernet.pcap", 1,
               {{Ethernet(0x0800, Ip(tcp4))},
                {Cat({Macs(), Be16(0x8100), Be16(7), Be16(0x0800), Ip(udp4)})},
                {Cat({Macs(), Be16(0x88a8), Be16(100), Be16(0x8100), Be16(7), Be16(0x86dd),
                      Ip(tcp6)})},
                {Cat({Macs(), Be16(0x8864), {0x11, 0, 0x12, 0x34, 0, 0}, Be16(0x0057), Ip(udp6)})},
                {Cat({Macs(), Be16(0x8847), {0, 0x01, 0x20, 64}, {0, 0x02, 0x21, 64}, Ip(tcp4)})},
                {Ethernet(0x0806, Bytes(28, 0))},
                {Ethernet(0x0800, Ip(icmp4))},
                {Ethernet(0x0800, fragment4)},
                {Ethernet(0x86dd, extensions6)},
                {Ethernet(0x0800, Ip(tcp4)), 14 + 20 + 3}});
  WriteCapture(dir + "/sll.pcap", 113,
               {{Cat({{0, 0}, Be16(1), Be16(6), {2, 0, 0, 0, 0, 1, 0, 0}, Be16(0x0800), Ip(tcp4)})},
                {Cat({{0, 0}, Be16(1), Be16(6), {2, 0, 0, 0, 0, 1, 0, 0}, Be16(0x8100), Be16(5),
                      Be16(0x86dd), Ip(udp6)})}});
  WriteCapture(dir + "/sll2.pcap", 276,
               {{Cat({Be16(0x0800), {0, 0}, {0, 0, 0, 3}, Be16(1), {0, 6}, {2, 0, 0, 0, 0, 1, 0, 0},
                      Ip(udp4)})},
                {Cat({Be16(0x86dd), {0, 0}, {0, 0, 0, 3}, Be16(1), {0, 6}, {2, 0, 0, 0, 0, 1, 0, 0},
                      Ip(tcp6)})}});
  WriteCapture(dir + "/null.pcap", 0, {{Cat({Le32(2), Ip(tcp4)})}, {Cat({Be32(24), Ip(udp6)})}});
  WriteCapture(dir + "/loop.pcap", 108, {{Cat({Be32(2), Ip(udp4)})}, {Cat({Be32(28), Ip(tcp6)})}});
  for (int link_type : {12, 14, 101}) {
    WriteCapture(dir + "/raw" + std::to_string(link_type) + ".pcap", link_type,
                 {{Ip(tcp4)}, {Ip(udp6)}, {fragment4}});
  }
  WriteCapture(dir + "/ipv4.pcap", 228, {{Ip(udp4)}, {Ip(icmp4)}});
  WriteCapture(dir + "/ipv6.pcap", 229, {{Ip(tcp6)}, {extensions6}});
  WriteCapture(dir + "/ppp.pcap", 9,
               {{Cat({{0xff, 0x03}, Be16(0x0021), Ip(tcp4)})},
                {Cat({Be16(0x0057), Ip(udp6)})},
                {Cat({{0x0f, 0}, Be16(0x0800), Ip(udp4)})}});
  WriteCapture(dir + "/ppp_serial.pcap", 50, {{Cat({{0xff, 0x03}, Be16(0x0057), Ip(tcp6)})}});
  WriteCapture(dir + "/cisco_hdlc.pcap", 104,
               {{Cat({{0x0f, 0}, Be16(0x0800), Ip(tcp4)})},
                {Cat({{0x8f, 0}, Be16(0x8035), Bytes(20, 0)})}});

  PcapngBuilder one;
  one.Interface(1);
  one.Packet(0, Ethernet(0x0800, Ip(tcp4)));
  one.Packet(0, Ethernet(0x86dd, Ip(udp6)));
  one.Packet(0, Ethernet(0x0806, Bytes(28, 0)));
  one.Save(dir + "/one_interface.pcapng");
  PcapngBuilder two;
  two.Interface(1);
  two.Packet(0, Ethernet(0x0800, Ip(tcp4)));
  two.Interface(101);
  two.Packet(1, Ip(udp4));
  two.Save(dir + "/two_link_types.pcapng");
}

std::vector<TraceRecord> SmallSynthTrace() {
  SynthOptions options;
  options.packets = 24;
  options.flows = 12;
  options.ipv6_fraction = 0.25;
  return SynthesizeTrace(options).records;
}

}  // namespace
}  // namespace amq

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_seeds DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  for (const char* sub : {"pcap", "amqtrace", "text"}) std::filesystem::create_directories(dir + "/" + sub);
  try {
    amq::WritePcapSeeds(dir + "/pcap");
    const std::vector<amq::TraceRecord> records = amq::SmallSynthTrace();
    amq::WritePcap(dir + "/pcap/synth.pcap", records);
    amq::WriteBinaryTrace(dir + "/amqtrace/synth.amqtrace", records, false);
    amq::WriteBinaryTrace(dir + "/amqtrace/synth_timestamps.amqtrace", records, true);
    amq::WriteTextTrace(dir + "/text/synth.txt", records, false);
    amq::WriteTextTrace(dir + "/text/synth_timestamps.txt", records, true);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_seeds: %s\n", e.what());
    return 1;
  }
  return 0;
}
