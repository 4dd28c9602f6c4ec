#include "traces/pcap_writer.h"

#include <algorithm>

namespace amq {
namespace {

void PutLe32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

void PutBe16(std::uint8_t* p, std::uint32_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 8);
  p[1] = static_cast<std::uint8_t>(v);
}

std::uint16_t Ipv4Checksum(const std::uint8_t* header) {
  std::uint32_t sum = 0;
  for (int i = 0; i < 20; i += 2) sum += static_cast<std::uint32_t>(header[i] << 8 | header[i + 1]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

std::size_t TransportBytes(std::uint8_t proto) {
  switch (proto) {
    case 6:
      return 20;
    case 17:
    case 1:
    case 58:
      return 8;
    default:
      return 0;
  }
}

}  // namespace

PcapFileWriter::PcapFileWriter(const std::string& path, int link_type, std::uint32_t snaplen)
    : out_(path) {
  std::vector<std::uint8_t> header;
  header.reserve(24);
  PutLe32(header, 0xa1b23c4d);                // nanosecond timestamps
  header.insert(header.end(), {2, 0, 4, 0});  // version 2.4
  PutLe32(header, 0);                         // thiszone
  PutLe32(header, 0);                         // sigfigs
  PutLe32(header, snaplen);
  PutLe32(header, static_cast<std::uint32_t>(link_type));
  out_.stream().write(reinterpret_cast<const char*>(header.data()),
                      static_cast<std::streamsize>(header.size()));
}

void PcapFileWriter::Write(const std::uint8_t* data, std::uint32_t caplen,
                           std::uint32_t wire_length, std::uint64_t timestamp_ns) {
  std::vector<std::uint8_t> record;
  PutLe32(record, static_cast<std::uint32_t>(timestamp_ns / 1000000000ULL));
  PutLe32(record, static_cast<std::uint32_t>(timestamp_ns % 1000000000ULL));
  PutLe32(record, caplen);
  PutLe32(record, std::max(caplen, wire_length));
  record.insert(record.end(), data, data + caplen);
  out_.stream().write(reinterpret_cast<const char*>(record.data()),
                      static_cast<std::streamsize>(record.size()));
}

std::vector<std::uint8_t> BuildIpPacket(const TraceRecord& r) {
  const FlowKey& f = r.flow;
  const bool v4 = f.is_ipv4();
  const std::size_t ip_bytes = v4 ? 20 : 40;
  const std::size_t l4 = TransportBytes(f.proto);
  std::vector<std::uint8_t> p(ip_bytes + l4, 0);
  // The IP length fields describe the packet on the wire (wire_length less Ethernet), never
  // less than the headers written.
  const std::size_t on_wire =
      std::max<std::size_t>(ip_bytes + l4, r.wire_length > 14 ? r.wire_length - 14 : 0);
  if (v4) {
    p[0] = 0x45;
    PutBe16(&p[2], static_cast<std::uint32_t>(std::min<std::size_t>(on_wire, 65535)));
    PutBe16(&p[4], static_cast<std::uint32_t>(r.timestamp_ns & 0xffff));  // identification
    p[6] = 0x40;                                                          // don't fragment
    p[8] = 64;                                                            // TTL
    p[9] = f.proto;
    std::copy(f.src.begin() + 12, f.src.end(), p.begin() + 12);
    std::copy(f.dst.begin() + 12, f.dst.end(), p.begin() + 16);
    PutBe16(&p[10], Ipv4Checksum(p.data()));
  } else {
    p[0] = 0x60;
    PutBe16(&p[4], static_cast<std::uint32_t>(std::min<std::size_t>(on_wire - 40, 65535)));
    p[6] = f.proto;
    p[7] = 64;  // hop limit
    std::copy(f.src.begin(), f.src.end(), p.begin() + 8);
    std::copy(f.dst.begin(), f.dst.end(), p.begin() + 24);
  }
  std::uint8_t* t = p.data() + ip_bytes;
  if (f.proto == 6) {
    PutBe16(t, f.sport);
    PutBe16(t + 2, f.dport);
    t[12] = 5 << 4;          // data offset: 5 words
    t[13] = 0x10;            // ACK
    PutBe16(t + 14, 65535);  // window
  } else if (f.proto == 17) {
    PutBe16(t, f.sport);
    PutBe16(t + 2, f.dport);
    PutBe16(t + 4, static_cast<std::uint32_t>(std::min<std::size_t>(on_wire - ip_bytes, 65535)));
  } else if (f.proto == 1 || f.proto == 58) {
    t[0] = f.proto == 1 ? 8 : 128;  // echo request
  }
  return p;
}

std::vector<std::uint8_t> BuildEthernetFrame(const TraceRecord& r) {
  std::vector<std::uint8_t> frame = {0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02};
  frame.push_back(r.flow.is_ipv4() ? 0x08 : 0x86);
  frame.push_back(r.flow.is_ipv4() ? 0x00 : 0xdd);
  const auto ip = BuildIpPacket(r);
  frame.insert(frame.end(), ip.begin(), ip.end());
  return frame;
}

void WritePcap(const std::string& path, const std::vector<TraceRecord>& records) {
  PcapFileWriter writer(path, /*link_type=*/1);
  for (const TraceRecord& r : records) {
    const auto frame = BuildEthernetFrame(r);
    writer.Write(frame.data(), static_cast<std::uint32_t>(frame.size()), r.wire_length,
                 r.timestamp_ns);
  }
  writer.Commit();
}

}  // namespace amq
