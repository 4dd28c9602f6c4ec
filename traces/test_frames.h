// traces/test_frames.h - helpers for the trace tests: packet builders, a scratch directory, and
// a minimal pcapng writer (libpcap writes only classic pcap). Test-only; no .cc, so the driver
// library never links it.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

#include "traces/flow.h"
#include "traces/pcap_writer.h"

namespace amq::testing_frames {

using Bytes = std::vector<std::uint8_t>;

// A fresh directory under the test temp dir, removed with everything in it at scope exit.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = ::testing::TempDir() + "amqtrace_XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    const char* made = mkdtemp(buffer.data());
    EXPECT_NE(made, nullptr);
    path_ = made ? made : "";
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline FlowKey Flow(const std::string& src, const std::string& dst, std::uint8_t proto,
                    std::uint16_t sport = 0, std::uint16_t dport = 0) {
  FlowKey f;
  EXPECT_TRUE(ParseAddress(src, f.src)) << src;
  EXPECT_TRUE(ParseAddress(dst, f.dst)) << dst;
  f.proto = proto;
  f.sport = sport;
  f.dport = dport;
  return f;
}

// IPv4 or IPv6 packet with its transport header (traces/pcap_writer.h builds it).
inline Bytes Ip(const FlowKey& flow) {
  TraceRecord r;
  r.flow = flow;
  return BuildIpPacket(r);
}

inline Bytes Cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

inline Bytes Be16(std::uint16_t v) {
  return {static_cast<std::uint8_t>(v >> 8), static_cast<std::uint8_t>(v)};
}

inline Bytes Macs() { return {0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2}; }

inline Bytes Ethernet(std::uint16_t type, const Bytes& payload) {
  return Cat({Macs(), Be16(type), payload});
}

// Inserts IPv6 extension headers (type, body without the 2-byte next/length prefix for generic
// ones) after the fixed header of `ipv6`, chaining next-header values.
inline Bytes WithExtensions(Bytes ipv6, const std::vector<std::pair<std::uint8_t, Bytes>>& exts) {
  const std::uint8_t upper = ipv6[6];
  Bytes chain;
  for (std::size_t i = 0; i < exts.size(); ++i) {
    const std::uint8_t next = i + 1 < exts.size() ? exts[i + 1].first : upper;
    Bytes h = {next, 0};
    h.insert(h.end(), exts[i].second.begin(), exts[i].second.end());
    if (exts[i].first == 51) {
      h[1] = static_cast<std::uint8_t>(h.size() / 4 - 2);
    } else if (exts[i].first != 44) {
      h[1] = static_cast<std::uint8_t>(h.size() / 8 - 1);
    }
    chain.insert(chain.end(), h.begin(), h.end());
  }
  ipv6[6] = exts.empty() ? upper : exts[0].first;
  ipv6.insert(ipv6.begin() + 40, chain.begin(), chain.end());
  return ipv6;
}

// A minimal pcapng file: section header, one interface description per link type, and
// enhanced packet blocks (interface index, bytes).
class PcapngBuilder {
 public:
  PcapngBuilder() {
    Bytes body;
    Le32(body, 0x1a2b3c4d);                            // byte-order magic
    body.insert(body.end(), {1, 0, 0, 0});             // version 1.0
    for (int i = 0; i < 8; ++i) body.push_back(0xff);  // section length: unknown
    Block(0x0a0d0d0a, body);
  }
  void Interface(std::uint16_t link_type) {
    Bytes body = {static_cast<std::uint8_t>(link_type), static_cast<std::uint8_t>(link_type >> 8),
                  0, 0};
    Le32(body, 65535);  // snap length
    Block(1, body);
  }
  void Packet(std::uint32_t interface, const Bytes& data) {
    Bytes body;
    Le32(body, interface);
    Le32(body, 0);     // timestamp high
    Le32(body, 1000);  // timestamp low
    Le32(body, static_cast<std::uint32_t>(data.size()));
    Le32(body, static_cast<std::uint32_t>(data.size()));
    body.insert(body.end(), data.begin(), data.end());
    while (body.size() % 4) body.push_back(0);
    Block(6, body);
  }
  void Save(const std::string& path) const {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes_.data()),
              static_cast<std::streamsize>(bytes_.size()));
  }

 private:
  static void Le32(Bytes& b, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void Block(std::uint32_t type, const Bytes& body) {
    const auto total = static_cast<std::uint32_t>(body.size() + 12);
    Le32(bytes_, type);
    Le32(bytes_, total);
    bytes_.insert(bytes_.end(), body.begin(), body.end());
    Le32(bytes_, total);
  }
  Bytes bytes_;
};

inline void WriteBytes(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

inline Bytes ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace amq::testing_frames
