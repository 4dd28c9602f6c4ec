// traces/pcap_writer.h - writing classic pcap files, so synthetic traces replay through the same
// reader as real ones.
//
// Frames are rebuilt from a record's flow: Ethernet II + IPv4 (20 bytes, checksum set) or IPv6
// (40 bytes) + a TCP (20 bytes), UDP (8) or ICMP (8) header; other protocols end at the IP
// header. Only TCP and UDP carry the record's ports, as on the wire. Like CAIDA's anonymized
// traces the capture holds headers only: caplen is the header bytes, and the record's
// wire_length (when larger) is the packet length and the IP length fields. The file is the
// little-endian, nanosecond-resolution variant (magic a1b23c4d) that libpcap reads natively.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/file_util.h"
#include "traces/flow.h"

namespace amq {

// Low level: any link type, any bytes (tests write damaged frames with it).
class PcapFileWriter {
 public:
  PcapFileWriter(const std::string& path, int link_type, std::uint32_t snaplen = 65535);
  void Write(const std::uint8_t* data, std::uint32_t caplen, std::uint32_t wire_length,
             std::uint64_t timestamp_ns);
  void Write(const std::vector<std::uint8_t>& frame, std::uint64_t timestamp_ns = 0) {
    Write(frame.data(), static_cast<std::uint32_t>(frame.size()),
          static_cast<std::uint32_t>(frame.size()), timestamp_ns);
  }
  void Commit() { out_.Commit(); }

 private:
  AtomicOutput out_;
};

// The IP packet (IPv4 or IPv6 by the flow's addresses) with its transport header.
std::vector<std::uint8_t> BuildIpPacket(const TraceRecord& record);
// The same behind an Ethernet II header.
std::vector<std::uint8_t> BuildEthernetFrame(const TraceRecord& record);

// Writes every record as an Ethernet frame.
void WritePcap(const std::string& path, const std::vector<TraceRecord>& records);

}  // namespace amq
