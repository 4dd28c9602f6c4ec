#include "traces/flow.h"

#include <arpa/inet.h>
#include <xxhash.h>

#include <algorithm>
#include <cstring>

#include "core/errors.h"

namespace amq {
namespace {

constexpr std::array<std::uint8_t, 12> kMappedPrefix = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

}  // namespace

bool IsIpv4Mapped(const std::array<std::uint8_t, 16>& a) {
  return std::equal(kMappedPrefix.begin(), kMappedPrefix.end(), a.begin());
}

bool FlowKey::is_ipv4() const { return IsIpv4Mapped(src) && IsIpv4Mapped(dst); }

KeyMode ParseKeyMode(const std::string& text) {
  if (text == "5tuple" || text == "five-tuple") return KeyMode::kFiveTuple;
  if (text == "pair" || text == "address-pair") return KeyMode::kAddressPair;
  if (text == "src" || text == "source") return KeyMode::kSource;
  throw InputError("unknown flow key '" + text + "' (expected 5tuple, pair or src)");
}

const char* KeyModeName(KeyMode mode) {
  switch (mode) {
    case KeyMode::kFiveTuple:
      return "5tuple";
    case KeyMode::kAddressPair:
      return "pair";
    case KeyMode::kSource:
      return "src";
  }
  return "?";
}

std::array<std::uint8_t, kCanonicalFlowBytes> CanonicalBytes(const FlowKey& flow, KeyMode mode) {
  std::array<std::uint8_t, kCanonicalFlowBytes> out{};
  std::copy(flow.src.begin(), flow.src.end(), out.begin());
  if (mode == KeyMode::kSource) return out;
  std::copy(flow.dst.begin(), flow.dst.end(), out.begin() + 16);
  if (mode == KeyMode::kAddressPair) return out;
  out[32] = flow.proto;
  out[33] = static_cast<std::uint8_t>(flow.sport >> 8);
  out[34] = static_cast<std::uint8_t>(flow.sport);
  out[35] = static_cast<std::uint8_t>(flow.dport >> 8);
  out[36] = static_cast<std::uint8_t>(flow.dport);
  return out;
}

std::uint64_t FlowHash(const FlowKey& flow, KeyMode mode) {
  const auto bytes = CanonicalBytes(flow, mode);
  return XXH3_64bits(bytes.data(), bytes.size());
}

void SetIpv4(std::array<std::uint8_t, 16>& out, const std::uint8_t* network_order) {
  std::copy(kMappedPrefix.begin(), kMappedPrefix.end(), out.begin());
  std::memcpy(out.data() + 12, network_order, 4);
}

std::string AddressToString(const std::array<std::uint8_t, 16>& address) {
  char buffer[INET6_ADDRSTRLEN] = {};
  if (IsIpv4Mapped(address)) {
    inet_ntop(AF_INET, address.data() + 12, buffer, sizeof buffer);
  } else {
    inet_ntop(AF_INET6, address.data(), buffer, sizeof buffer);
  }
  return buffer;
}

bool ParseAddress(const std::string& text, std::array<std::uint8_t, 16>& out) {
  std::uint8_t v4[4];
  if (inet_pton(AF_INET, text.c_str(), v4) == 1) {
    SetIpv4(out, v4);
    return true;
  }
  return inet_pton(AF_INET6, text.c_str(), out.data()) == 1;
}

std::string FlowToString(const FlowKey& flow) {
  return AddressToString(flow.src) + " " + AddressToString(flow.dst) + " " +
         std::to_string(flow.proto) + " " + std::to_string(flow.sport) + " " +
         std::to_string(flow.dport);
}

}  // namespace amq
