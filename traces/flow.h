// traces/flow.h - what a packet contributes to a benchmark: its flow (5-tuple), and the 64-bit
// key that flow becomes.
//
// Addresses are held in 16-byte IPv6 form, IPv4 as the mapped address ::ffff:a.b.c.d (RFC 4291
// 2.5.5.2), so one layout serves both families and an IPv4 flow can never equal an IPv6 one.
// The key is XXH3-64 over a canonical 37-byte layout: src[16] dst[16] proto[1] sport[2]
// dport[2], ports big-endian. A key mode that ignores some fields zeroes them in that layout,
// so the key of a flow never depends on the host's byte order or struct padding.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>

namespace amq {

struct FlowKey {
  std::array<std::uint8_t, 16> src{};
  std::array<std::uint8_t, 16> dst{};
  std::uint8_t proto = 0;   // the upper-layer protocol after IPv6 extension headers
  std::uint16_t sport = 0;  // 0 unless TCP/UDP and the first fragment
  std::uint16_t dport = 0;

  bool is_ipv4() const;  // both addresses are IPv4-mapped
  auto operator<=>(const FlowKey&) const = default;
};

// One packet of a trace as every reader and writer sees it.
struct TraceRecord {
  FlowKey flow;
  std::uint64_t timestamp_ns = 0;  // 0 when the source has none
  std::uint32_t wire_length = 0;   // bytes on the wire, when known (pcap len); 0 otherwise
};

// Which fields of the 5-tuple make a packet's key.
enum class KeyMode { kFiveTuple, kAddressPair, kSource };

KeyMode ParseKeyMode(const std::string& text);  // "5tuple", "pair", "src"; throws InputError
const char* KeyModeName(KeyMode mode);

inline constexpr std::size_t kCanonicalFlowBytes = 37;
std::array<std::uint8_t, kCanonicalFlowBytes> CanonicalBytes(const FlowKey& flow, KeyMode mode);
std::uint64_t FlowHash(const FlowKey& flow, KeyMode mode = KeyMode::kFiveTuple);

// Address helpers. IsIpv4Mapped: ::ffff:0:0/96. SetIpv4 takes the 4 address bytes in network order.
bool IsIpv4Mapped(const std::array<std::uint8_t, 16>& address);
void SetIpv4(std::array<std::uint8_t, 16>& out, const std::uint8_t* network_order);
std::string AddressToString(const std::array<std::uint8_t, 16>& address);
bool ParseAddress(const std::string& text, std::array<std::uint8_t, 16>& out);
std::string FlowToString(const FlowKey& flow);  // "src dst proto sport dport"

struct FlowKeyHasher {
  std::size_t operator()(const FlowKey& flow) const { return FlowHash(flow); }
};

}  // namespace amq
