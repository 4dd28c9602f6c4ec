// traces/test_frames.h - helpers for the trace tests: packet builders, a scratch directory, and
// a pcapng writer (libpcap writes only classic pcap). Test-only; no .cc, so the driver
// library never links it.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "core/hashing.h"
#include "traces/flow.h"
#include "traces/pcap_writer.h"
#include "traces/trace_io.h"

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

// A pcapng file written block by block (traces/pcapng_reader.h reads it): sections in either
// byte order, interface descriptions with options, enhanced, simple and obsolete packet blocks,
// and any other block raw. A new builder starts with a little-endian section.
class PcapngBuilder {
 public:
  using Option = std::pair<std::uint16_t, Bytes>;  // code, value (padded when written)

  explicit PcapngBuilder(bool big_endian = false) { Section(big_endian); }

  // A new section: its own byte order, interface ids from 0 again.
  void Section(bool big_endian, std::uint16_t major_version = 1) {
    big_endian_ = big_endian;
    Bytes body = U32(0x1a2b3c4d);  // byte-order magic
    Append(body, U16(major_version));
    Append(body, U16(0));                              // minor version
    for (int i = 0; i < 8; ++i) body.push_back(0xff);  // section length: unknown
    Block(0x0a0d0d0a, body);
  }
  void Interface(std::uint16_t link_type, std::uint32_t snaplen = 65535,
                 const std::vector<Option>& options = {}) {
    Bytes body = U16(link_type);
    Append(body, U16(0));
    Append(body, U32(snaplen));
    for (const auto& [code, value] : options) {
      Append(body, U16(code));
      Append(body, U16(static_cast<std::uint16_t>(value.size())));
      Append(body, value);
      while (body.size() % 4) body.push_back(0);
    }
    if (!options.empty()) Append(body, U32(0));  // opt_endofopt
    Block(1, body);
  }
  // Enhanced Packet Block: timestamp in the interface's units; `original` 0 = the data's size.
  void Packet(std::uint32_t interface, const Bytes& data, std::uint64_t timestamp = 1000,
              std::uint32_t original = 0) {
    Bytes body = U32(interface);
    AppendPacket(body, data, timestamp, original);
    Block(6, body);
  }
  // Obsolete Packet Block: a 16-bit interface id and a drop count.
  void ObsoletePacket(std::uint16_t interface, const Bytes& data, std::uint64_t timestamp = 1000,
                      std::uint32_t original = 0) {
    Bytes body = U16(interface);
    Append(body, U16(0));
    AppendPacket(body, data, timestamp, original);
    Block(2, body);
  }
  // Simple Packet Block: interface 0, no timestamp; `original` 0 = the data's size.
  void SimplePacket(const Bytes& data, std::uint32_t original = 0) {
    Bytes body = U32(original ? original : static_cast<std::uint32_t>(data.size()));
    Append(body, data);
    while (body.size() % 4) body.push_back(0);
    Block(3, body);
  }
  // Any block, framed by its type and total length in the section's byte order.
  void Block(std::uint32_t type, const Bytes& body) {
    const auto total = static_cast<std::uint32_t>(body.size() + 12);
    Append(bytes_, U32(type));
    Append(bytes_, U32(total));
    Append(bytes_, body);
    Append(bytes_, U32(total));
  }

  // Integers in the current section's byte order.
  Bytes U16(std::uint16_t v) const { return Int(v, 2); }
  Bytes U32(std::uint32_t v) const { return Int(v, 4); }
  Bytes U64(std::uint64_t v) const { return Int(v, 8); }

  const Bytes& bytes() const { return bytes_; }
  std::size_t size() const { return bytes_.size(); }
  void Save(const std::string& path) const {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes_.data()),
              static_cast<std::streamsize>(bytes_.size()));
  }

 private:
  Bytes Int(std::uint64_t v, int bytes) const {
    Bytes b(static_cast<std::size_t>(bytes));
    for (int i = 0; i < bytes; ++i) {
      b[static_cast<std::size_t>(big_endian_ ? bytes - 1 - i : i)] =
          static_cast<std::uint8_t>(v >> (8 * i));
    }
    return b;
  }
  static void Append(Bytes& to, const Bytes& more) {
    to.insert(to.end(), more.begin(), more.end());
  }
  void AppendPacket(Bytes& body, const Bytes& data, std::uint64_t timestamp,
                    std::uint32_t original) {
    const auto captured = static_cast<std::uint32_t>(data.size());
    Append(body, U32(static_cast<std::uint32_t>(timestamp >> 32)));
    Append(body, U32(static_cast<std::uint32_t>(timestamp)));
    Append(body, U32(captured));
    Append(body, U32(original ? original : captured));
    Append(body, data);
    while (body.size() % 4) body.push_back(0);
  }

  bool big_endian_ = false;
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

// A copy of `good` with 1 to 8 random bytes changed past its first four (the file's magic, or
// the first block's type, survives, so the damage reaches the reader's later checks); every
// 7th round it is also cut at a random length. The readers' corruption tests feed these.
inline Bytes Damaged(const Bytes& good, XorShift64Star& rng, int round) {
  Bytes bad = good;
  const int flips = 1 + static_cast<int>(rng.Next() % 8);
  for (int i = 0; i < flips; ++i) {
    const std::size_t at = 4 + ReduceRange(rng.Next(), bad.size() - 4);
    bad[at] = static_cast<std::uint8_t>(rng.Next());
  }
  if (round % 7 == 0) bad.resize(ReduceRange(rng.Next(), bad.size()) + 1);
  return bad;
}

// Flows the reader tests write and expect back: TCP and UDP over IPv4 and IPv6.
inline const FlowKey kTcp4 = Flow("192.0.2.1", "198.51.100.7", 6, 51234, 443);
inline const FlowKey kUdp4 = Flow("203.0.113.9", "192.0.2.53", 17, 40000, 53);
inline const FlowKey kTcp6 = Flow("2001:db8::1", "2001:db8:1::2", 6, 50000, 80);
inline const FlowKey kUdp6 = Flow("2001:db8::3", "2001:db8::4", 17, 5353, 5353);

// Reading `path` must throw an InputError naming the file and containing `fragment`, on one line.
inline void ExpectInputError(const std::string& path, const std::string& fragment) {
  try {
    ReadTrace(path, [](const TraceRecord&) {});
    ADD_FAILURE() << path << ": no InputError; expected '" << fragment << "'";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(fragment), std::string::npos) << what;
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << "one line: " << what;
  }
}

}  // namespace amq::testing_frames
