// traces/pcap_reader.h - packets of a pcap or pcapng capture, as flows.
//
// Classic pcap goes through libpcap (pcap_open_offline), which hands over each record's
// captured bytes. pcapng is parsed block by block in traces/pcapng_reader.h, not by libpcap:
// libpcap 1.10 allows one link type and snap length per file and stops at the second interface
// of a multi-interface capture (as dumpcap writes them); that file says why it is not
// Wireshark's libwiretap either. ReadPcap dispatches on the file's magic. Neither library
// decodes packets: this file decodes the link layer and IP itself (ParseFrame), for both.
//
// Link types: Ethernet (802.1Q / 802.1ad / QinQ tags, PPPoE sessions, MPLS label stacks), raw IP
// (DLT 12, 14, LINKTYPE_RAW 101), IPv4 (228), IPv6 (229), Linux SLL (113) and SLL2 (276), NULL
// (0, host byte order) and LOOP (108, network order), PPP (9, 50; Cisco HDLC frames stored under
// them are recognised by their 0x0f/0x8f address) and Cisco HDLC (104). Any other link type
// makes a pcap file an InputError: guessing would count garbage as flows. In pcapng an
// interface of another link type is allowed beside a supported one, its packets skipped as
// non_ip (traces/pcapng_reader.h).
//
// A packet's flow is its outermost IP header's 5-tuple. IPv6 extension headers (hop-by-hop,
// routing, fragment, destination options, AH, mobility, HIP, shim6) are walked to find TCP/UDP;
// ESP and unknown headers end the walk with ports 0. Ports are 0 for non-TCP/UDP packets and for
// fragments other than the first, which carry no transport header.
//
// Errors. A bad file - missing, empty, wrong magic, a cut file header, an unsupported link type,
// a structural fault inside it - throws InputError (one line; the command exits 2). A bad
// packet inside a good file is skipped and counted by reason:
//   truncated  the captured bytes (snap length) end inside the link, IP, or port fields
//   non_ip     the link layer carries something else (ARP, LLC, LLDP, an unknown ethertype), or
//              (pcapng) the packet's interface has an unsupported link type
//   bad_ip     an IP header that cannot be right (wrong version, header length < 20, total
//              length shorter than the header)
// A file that ends in the middle of its last record is read up to that point: the packets
// before it are kept, `truncated_records` is 1 and `read_error` says so. The stats and the
// JSON carry both, so a damaged trace never passes silently, yet a capture cut short by a full
// disk - the usual case - still gives its packets. That is the only read error that returns
// normally: in classic pcap, a libpcap read error other than its truncated-file message
// ("truncated dump file" / "truncated pcap file") is an InputError naming the record.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "traces/flow.h"

namespace amq {

enum class SkipReason : std::uint8_t { kNone, kTruncated, kNonIp, kBadIp };
inline constexpr std::size_t kSkipReasons = 4;
const char* SkipReasonName(SkipReason reason);

struct ParsedPacket {
  FlowKey flow;
  int ip_version = 0;           // 4 or 6
  bool later_fragment = false;  // a fragment other than the first: ports are 0
};

bool IsSupportedLinkType(int dlt);
std::string LinkTypeName(int dlt);  // libpcap's name, or the number

// Decodes one captured frame of link type `dlt` (as pcap_datalink reports it).
SkipReason ParseFrame(int dlt, const std::uint8_t* data, std::size_t caplen, ParsedPacket& out);

// What reading a trace file found. Binary and text traces fill the same fields (they have no
// skips); `records` counts every record read, kept or skipped.
struct ReadSummary {
  std::string format;  // "pcap", "pcapng", "amqtrace", "text"
  int link_type = -1;  // pcap/pcapng only; pcapng: the first interface's
  std::string link_type_name;
  int interfaces = 0;           // pcap: 1; pcapng: Interface Description Blocks, all sections
  std::vector<int> link_types;  // pcap/pcapng: the distinct link types, first seen first
  std::uint64_t records = 0;
  std::uint64_t ipv4 = 0;
  std::uint64_t ipv6 = 0;
  std::array<std::uint64_t, kSkipReasons> skipped{};  // indexed by SkipReason
  std::uint64_t truncated_records = 0;
  std::string read_error;
  bool has_timestamps = false;

  std::uint64_t kept() const { return ipv4 + ipv6; }
  std::uint64_t skipped_total() const;
};

using RecordSink = std::function<void(const TraceRecord&)>;

// Streams every kept packet of a classic pcap file to `sink`, in file order, through libpcap.
// pcapng files are read by ReadPcapng (traces/pcapng_reader.h); ReadTrace picks by the magic.
ReadSummary ReadPcap(const std::string& path, const RecordSink& sink);

}  // namespace amq
