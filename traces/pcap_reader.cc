#include "traces/pcap_reader.h"

#include <pcap/pcap.h>

#include <cstdio>
#include <memory>

#include "core/errors.h"
#include "core/file_util.h"

namespace amq {
namespace {

// Link types by number, not by the DLT_ macros: DLT_RAW and DLT_LOOP differ between OpenBSD
// and everyone else, and a file written on one must read on the other.
constexpr int kDltNull = 0;
constexpr int kDltEthernet = 1;
constexpr int kDltPpp = 9;
constexpr int kDltRaw12 = 12;
constexpr int kDltRaw14 = 14;
constexpr int kDltPppSerial = 50;
constexpr int kLinktypeRaw = 101;
constexpr int kDltCiscoHdlc = 104;
constexpr int kDltLoop = 108;
constexpr int kDltLinuxSll = 113;
constexpr int kDltIpv4 = 228;
constexpr int kDltIpv6 = 229;
constexpr int kDltLinuxSll2 = 276;

constexpr std::uint16_t kEtherIpv4 = 0x0800;
constexpr std::uint16_t kEtherIpv6 = 0x86dd;
constexpr std::uint8_t kTcp = 6;
constexpr std::uint8_t kUdp = 17;

std::uint16_t Be16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] << 8 | p[1]); }
std::uint32_t Be32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3];
}

bool CarriesPorts(std::uint8_t proto) { return proto == kTcp || proto == kUdp; }

SkipReason ParseIpv4(const std::uint8_t* p, std::size_t len, ParsedPacket& out) {
  if (len < 20) return SkipReason::kTruncated;
  if (p[0] >> 4 != 4) return SkipReason::kBadIp;
  const std::size_t header = static_cast<std::size_t>(p[0] & 0x0f) * 4;
  if (header < 20) return SkipReason::kBadIp;
  // Total length 0 is what TSO/LRO captures record; otherwise it bounds the transport header
  // (Ethernet pads short frames, and padding is not a port number).
  const std::size_t total = Be16(p + 2);
  if (total != 0 && total < header) return SkipReason::kBadIp;
  if (len < header) return SkipReason::kTruncated;
  FlowKey& f = out.flow;
  f = FlowKey{};
  SetIpv4(f.src, p + 12);
  SetIpv4(f.dst, p + 16);
  f.proto = p[9];
  out.ip_version = 4;
  out.later_fragment = (Be16(p + 6) & 0x1fff) != 0;
  if (CarriesPorts(f.proto) && !out.later_fragment) {
    if (len < header + 4 || (total != 0 && total < header + 4)) return SkipReason::kTruncated;
    f.sport = Be16(p + header);
    f.dport = Be16(p + header + 2);
  }
  return SkipReason::kNone;
}

SkipReason ParseIpv6(const std::uint8_t* p, std::size_t len, ParsedPacket& out) {
  if (len < 40) return SkipReason::kTruncated;
  if (p[0] >> 4 != 6) return SkipReason::kBadIp;
  FlowKey& f = out.flow;
  f = FlowKey{};
  std::copy(p + 8, p + 24, f.src.begin());
  std::copy(p + 24, p + 40, f.dst.begin());
  // An IPv4-mapped address (::ffff:0:0/96) never appears in an IPv6 header on the wire (RFC
  // 4038, section 4.2), and a flow stores IPv4 addresses in exactly that form: kept, such a
  // packet would turn into an IPv4 flow, or a flow of both families, once converted.
  if (IsIpv4Mapped(f.src) || IsIpv4Mapped(f.dst)) return SkipReason::kBadIp;
  out.ip_version = 6;
  out.later_fragment = false;
  std::uint8_t next = p[6];
  std::size_t offset = 40;
  // Every extension header is at least 8 bytes, so the walk ends within len / 8 steps.
  for (bool walking = true; walking;) {
    switch (next) {
      case 0:    // hop-by-hop options
      case 43:   // routing
      case 60:   // destination options
      case 135:  // mobility
      case 139:  // HIP
      case 140:  // shim6
        if (len < offset + 2) return SkipReason::kTruncated;
        next = p[offset];
        offset += (static_cast<std::size_t>(p[offset + 1]) + 1) * 8;
        break;
      case 51:  // AH: length in 4-byte units, minus 2
        if (len < offset + 2) return SkipReason::kTruncated;
        next = p[offset];
        offset += (static_cast<std::size_t>(p[offset + 1]) + 2) * 4;
        break;
      case 44:  // fragment
        if (len < offset + 8) return SkipReason::kTruncated;
        next = p[offset];
        out.later_fragment = (Be16(p + offset + 2) >> 3) != 0;
        offset += 8;
        walking = !out.later_fragment;
        break;
      default:
        walking = false;
    }
  }
  f.proto = next;
  if (CarriesPorts(next) && !out.later_fragment) {
    if (len < offset + 4) return SkipReason::kTruncated;
    f.sport = Be16(p + offset);
    f.dport = Be16(p + offset + 2);
  }
  return SkipReason::kNone;
}

// Raw IP: the version nibble says which.
SkipReason ParseIp(const std::uint8_t* p, std::size_t len, ParsedPacket& out) {
  if (len < 1) return SkipReason::kTruncated;
  switch (p[0] >> 4) {
    case 4:
      return ParseIpv4(p, len, out);
    case 6:
      return ParseIpv6(p, len, out);
    default:
      return SkipReason::kBadIp;
  }
}

SkipReason ParsePppProtocol(std::uint16_t protocol, const std::uint8_t* p, std::size_t len,
                            ParsedPacket& out) {
  if (protocol == 0x0021) return ParseIpv4(p, len, out);
  if (protocol == 0x0057) return ParseIpv6(p, len, out);
  return SkipReason::kNonIp;
}

// An ethertype at p[offset - 2 .. offset), its payload at p + offset: peels VLAN tags, PPPoE
// sessions and MPLS labels, each bounded by the captured length.
SkipReason ParseEthertype(std::uint16_t type, const std::uint8_t* p, std::size_t len,
                          std::size_t offset, ParsedPacket& out) {
  for (;;) {
    switch (type) {
      case 0x8100:  // 802.1Q
      case 0x88a8:  // 802.1ad (QinQ outer tag)
      case 0x9100:  // pre-standard QinQ
      case 0x9200:
        if (len < offset + 4) return SkipReason::kTruncated;
        type = Be16(p + offset + 2);
        offset += 4;
        continue;
      case 0x8864:  // PPPoE session: 6-byte header, then the PPP protocol
        if (len < offset + 8) return SkipReason::kTruncated;
        return ParsePppProtocol(Be16(p + offset + 6), p + offset + 8, len - offset - 8, out);
      case 0x8847:  // MPLS unicast / multicast: labels until bottom-of-stack, then IP
      case 0x8848:
        for (;;) {
          if (len < offset + 4) return SkipReason::kTruncated;
          const bool bottom = (p[offset + 2] & 1) != 0;
          offset += 4;
          if (bottom) break;
        }
        if (len <= offset) return SkipReason::kTruncated;
        if (p[offset] >> 4 != 4 && p[offset] >> 4 != 6) return SkipReason::kNonIp;
        return ParseIp(p + offset, len - offset, out);
      case kEtherIpv4:
        return ParseIpv4(p + offset, len - offset, out);
      case kEtherIpv6:
        return ParseIpv6(p + offset, len - offset, out);
      default:
        return SkipReason::kNonIp;  // ARP, LLDP, 802.3 length fields (LLC), unknown types
    }
  }
}

// BSD address families as NULL/LOOP headers carry them: AF_INET is 2 everywhere; AF_INET6 is
// 24 (NetBSD/OpenBSD), 28 (FreeBSD), 30 (macOS) or 10 (Linux).
SkipReason ParseFamily(std::uint32_t family, const std::uint8_t* p, std::size_t len,
                       ParsedPacket& out) {
  switch (family) {
    case 2:
      return ParseIpv4(p, len, out);
    case 10:
    case 24:
    case 28:
    case 30:
      return ParseIpv6(p, len, out);
    default:
      return SkipReason::kNonIp;
  }
}

// libpcap's words for a file that ends inside a record (1.10: "truncated dump file"; later
// releases: "truncated pcap file"). Every other read error means a damaged record.
bool IsTruncationMessage(const std::string& message) {
  return message.find("truncated dump file") != std::string::npos ||
         message.find("truncated pcap file") != std::string::npos;
}

}  // namespace

const char* SkipReasonName(SkipReason reason) {
  switch (reason) {
    case SkipReason::kNone:
      return "none";
    case SkipReason::kTruncated:
      return "truncated";
    case SkipReason::kNonIp:
      return "non_ip";
    case SkipReason::kBadIp:
      return "bad_ip";
  }
  return "?";
}

std::uint64_t ReadSummary::skipped_total() const {
  std::uint64_t total = 0;
  for (std::uint64_t count : skipped) total += count;
  return total;
}

bool IsSupportedLinkType(int dlt) {
  switch (dlt) {
    case kDltNull:
    case kDltEthernet:
    case kDltPpp:
    case kDltRaw12:
    case kDltRaw14:
    case kDltPppSerial:
    case kLinktypeRaw:
    case kDltCiscoHdlc:
    case kDltLoop:
    case kDltLinuxSll:
    case kDltIpv4:
    case kDltIpv6:
    case kDltLinuxSll2:
      return true;
    default:
      return false;
  }
}

std::string LinkTypeName(int dlt) {
  const char* name = pcap_datalink_val_to_name(dlt);
  return name ? name : std::to_string(dlt);
}

SkipReason ParseFrame(int dlt, const std::uint8_t* p, std::size_t len, ParsedPacket& out) {
  switch (dlt) {
    case kDltEthernet:
      if (len < 14) return SkipReason::kTruncated;
      return ParseEthertype(Be16(p + 12), p, len, 14, out);
    case kDltRaw12:
    case kDltRaw14:
    case kLinktypeRaw:
      return ParseIp(p, len, out);
    case kDltIpv4:
      return ParseIpv4(p, len, out);
    case kDltIpv6:
      return ParseIpv6(p, len, out);
    case kDltLinuxSll:  // packet type, ARPHRD, address length, address[8], protocol
      if (len < 16) return SkipReason::kTruncated;
      if (Be16(p + 2) == 824) return SkipReason::kNonIp;  // ARPHRD_NETLINK: not packets
      return ParseEthertype(Be16(p + 14), p, len, 16, out);
    case kDltLinuxSll2:  // protocol, reserved, ifindex, ARPHRD, packet type, address length,
                         // address[8]
      if (len < 20) return SkipReason::kTruncated;
      if (Be16(p + 8) == 824) return SkipReason::kNonIp;
      return ParseEthertype(Be16(p), p, len, 20, out);
    case kDltNull: {  // the capturing host's byte order: whichever reading is small is right
      if (len < 4) return SkipReason::kTruncated;
      std::uint32_t family = Be32(p);
      if (family > 0xffff) family = __builtin_bswap32(family);
      return ParseFamily(family, p + 4, len - 4, out);
    }
    case kDltLoop:
      if (len < 4) return SkipReason::kTruncated;
      return ParseFamily(Be32(p), p + 4, len - 4, out);
    case kDltPpp:
    case kDltPppSerial: {  // optional address/control 0xff 0x03, then the protocol
      // Cisco HDLC frames (address 0x0f unicast / 0x8f broadcast) are stored under the PPP
      // link types too, by routers that speak both on a serial line.
      if (len >= 4 && (p[0] == 0x0f || p[0] == 0x8f)) {
        return ParseEthertype(Be16(p + 2), p, len, 4, out);
      }
      std::size_t offset = (len >= 2 && p[0] == 0xff && p[1] == 0x03) ? 2 : 0;
      if (len < offset + 2) return SkipReason::kTruncated;
      return ParsePppProtocol(Be16(p + offset), p + offset + 2, len - offset - 2, out);
    }
    case kDltCiscoHdlc:  // address, control, ethertype
      if (len < 4) return SkipReason::kTruncated;
      return ParseEthertype(Be16(p + 2), p, len, 4, out);
    default:
      return SkipReason::kNonIp;
  }
}

ReadSummary ReadPcap(const std::string& path, const RecordSink& sink) {
  CheckReadableFile(path, "trace");
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  // Nanosecond precision: libpcap scales microsecond files up, so timestamps are always ns.
  std::unique_ptr<pcap_t, void (*)(pcap_t*)> pcap(
      pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, errbuf),
      &pcap_close);
  if (!pcap) throw InputError("cannot read trace '" + path + "': " + errbuf);

  ReadSummary summary;
  summary.format = "pcap";
  summary.link_type = pcap_datalink(pcap.get());
  summary.link_type_name = LinkTypeName(summary.link_type);
  summary.interfaces = 1;
  summary.link_types = {summary.link_type};
  summary.has_timestamps = true;
  if (!IsSupportedLinkType(summary.link_type)) {
    throw InputError("trace '" + path + "' has unsupported link type " +
                     std::to_string(summary.link_type) + " (" + summary.link_type_name + ")");
  }

  pcap_pkthdr* header = nullptr;
  const std::uint8_t* data = nullptr;
  ParsedPacket parsed;
  TraceRecord record;
  for (;;) {
    const int status = pcap_next_ex(pcap.get(), &header, &data);
    if (status == PCAP_ERROR_BREAK) break;  // end of file
    if (status != 1) {
      const std::string message = pcap_geterr(pcap.get());
      if (!IsTruncationMessage(message)) {
        throw InputError("pcap trace '" + path + "': record " +
                         std::to_string(summary.records + 1) + ": " + message);
      }
      summary.truncated_records = 1;
      summary.read_error = message;
      break;
    }
    ++summary.records;
    const SkipReason reason = ParseFrame(summary.link_type, data, header->caplen, parsed);
    if (reason != SkipReason::kNone) {
      ++summary.skipped[static_cast<std::size_t>(reason)];
      continue;
    }
    ++(parsed.ip_version == 4 ? summary.ipv4 : summary.ipv6);
    record.flow = parsed.flow;
    record.timestamp_ns = static_cast<std::uint64_t>(header->ts.tv_sec) * 1000000000ULL +
                          static_cast<std::uint64_t>(header->ts.tv_usec);
    record.wire_length = header->len;
    sink(record);
  }
  return summary;
}

}  // namespace amq
