#include "traces/pcapng_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "core/errors.h"
#include "core/file_util.h"

namespace amq {
namespace {

constexpr std::uint32_t kSectionHeader = 0x0a0d0d0a;  // the same in either byte order
constexpr std::uint32_t kInterfaceDescription = 1;
constexpr std::uint32_t kObsoletePacket = 2;
constexpr std::uint32_t kSimplePacket = 3;
constexpr std::uint32_t kEnhancedPacket = 6;
constexpr std::uint32_t kByteOrderMagic = 0x1a2b3c4d;

constexpr std::uint16_t kOptEndOfOptions = 0;
constexpr std::uint16_t kOptTsresol = 9;
constexpr std::uint16_t kOptTsoffset = 14;

// type + total length ... total length again; a section header adds its byte-order magic,
// version and section length.
constexpr std::uint64_t kBlockFrameBytes = 12;
constexpr std::uint64_t kMinSectionHeaderBytes = 28;
// Far above any real block (libpcap's own cap is 16 MiB), low enough that a corrupt length
// never asks for a huge buffer.
constexpr std::uint64_t kMaxBlockBytes = std::uint64_t{256} << 20;

// Named apart from pcap_reader.cc's constants: unity builds may put both files in one unit.
constexpr int kPcapngLinktypeRaw = 101;
constexpr int kPcapngDltRaw = 12;
constexpr std::uint64_t kNsPerSecond = 1000000000;

struct Interface {
  int link_type = 0;          // as libpcap reports it
  std::uint32_t snaplen = 0;  // 0: no limit
  std::uint64_t units_per_second = 1000000;
  std::int64_t offset_seconds = 0;
  bool supported = false;
};

// Integers in the current section's byte order.
struct ByteOrder {
  bool big_endian = false;

  std::uint64_t Get(const std::uint8_t* p, int bytes) const {
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = v << 8 | p[big_endian ? i : bytes - 1 - i];
    return v;
  }
  std::uint16_t U16(const std::uint8_t* p) const { return static_cast<std::uint16_t>(Get(p, 2)); }
  std::uint32_t U32(const std::uint8_t* p) const { return static_cast<std::uint32_t>(Get(p, 4)); }
  std::uint64_t U64(const std::uint8_t* p) const { return Get(p, 8); }
};

// A timestamp in units of 1 / units_per_second, plus the interface's offset, in nanoseconds.
// Whole seconds and the fraction are scaled apart so that nothing overflows before the clamp.
std::uint64_t Nanoseconds(std::uint64_t ticks, const Interface& i) {
  const std::uint64_t units = i.units_per_second;
  const __int128 whole = static_cast<__int128>(ticks / units) * kNsPerSecond;
  const auto fraction =
      static_cast<__int128>(static_cast<unsigned __int128>(ticks % units) * kNsPerSecond / units);
  const __int128 ns = whole + fraction +
                      static_cast<__int128>(i.offset_seconds) * static_cast<__int128>(kNsPerSecond);
  if (ns < 0) return 0;
  if (ns > static_cast<__int128>(std::numeric_limits<std::uint64_t>::max())) {
    return std::numeric_limits<std::uint64_t>::max();
  }
  return static_cast<std::uint64_t>(ns);
}

std::string Hex32(std::uint32_t v) {
  char hex[11];
  std::snprintf(hex, sizeof hex, "0x%08x", v);
  return hex;
}

class Reader {
 public:
  Reader(const std::string& path, const RecordSink& sink)
      : path_(path), sink_(sink), file_(std::fopen(path.c_str(), "rb"), &std::fclose) {
    if (!file_) throw InputError("cannot read trace '" + path + "': " + std::strerror(errno));
    std::error_code error;
    size_ = std::filesystem::file_size(path, error);
    if (error) throw InputError("cannot read trace '" + path + "': " + error.message());
    summary_.format = "pcapng";
  }

  ReadSummary Read() {
    while (ReadBlock()) {
      Dispatch();
      offset_ += block_.size();
    }
    if (summary_.interfaces == 0) {
      throw InputError("pcapng trace '" + path_ + "' describes no interface" +
                       (summary_.read_error.empty() ? "" : " (" + summary_.read_error + ")"));
    }
    // Packets only on unsupported interfaces (or none, and no supported interface at all):
    // nothing in the file could ever be a flow.
    if (supported_packets_ == 0) {
      if (first_unsupported_with_packets_) Unsupported(*first_unsupported_with_packets_);
      if (!any_supported_interface_) Unsupported(summary_.link_type);
    }
    summary_.has_timestamps = !(simple_packets_ > 0 && simple_packets_ == summary_.records);
    return std::move(summary_);
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    throw InputError("pcapng trace '" + path_ + "': block at byte offset " +
                     std::to_string(offset_) + ": " + what);
  }

  [[noreturn]] void Unsupported(int link_type) const {
    throw InputError("trace '" + path_ + "' has unsupported link type " +
                     std::to_string(link_type) + " (" + LinkTypeName(link_type) + ")");
  }

  // The file ends inside the block at offset_: the last record is cut, the read ends normally.
  bool Truncated(std::uint64_t have, std::optional<std::uint64_t> need) {
    summary_.truncated_records = 1;
    summary_.read_error = "truncated pcapng file: the block at byte offset " +
                          std::to_string(offset_) + " is cut after " + std::to_string(have) +
                          (need ? " of its " + std::to_string(*need) : std::string()) + " bytes";
    return false;
  }

  std::size_t ReadInto(std::uint8_t* out, std::size_t bytes) {
    return std::fread(out, 1, bytes, file_.get());
  }

  // Reads the whole block at offset_ into block_, checking its frame. False at the end of the
  // file, or when the file ends inside the block.
  bool ReadBlock() {
    const std::uint64_t remaining = size_ - std::min(size_, offset_);
    if (remaining == 0) return false;
    block_.resize(kBlockFrameBytes);
    const std::size_t head = ReadInto(block_.data(), kBlockFrameBytes);
    if (head < kBlockFrameBytes) return Truncated(head, std::nullopt);
    const std::uint8_t* b = block_.data();
    const bool section = ByteOrder{}.U32(b) == kSectionHeader;
    if (offset_ == 0 && !section) {
      Fail("the file does not start with a Section Header Block (type " +
           Hex32(ByteOrder{}.U32(b)) + ")");
    }
    if (section) {
      // The byte-order magic says how to read everything in the section, its own length too.
      const std::uint32_t magic = ByteOrder{}.U32(b + 8);
      if (magic == kByteOrderMagic) {
        order_.big_endian = false;
      } else if (__builtin_bswap32(magic) == kByteOrderMagic) {
        order_.big_endian = true;
      } else {
        Fail("bad byte-order magic " + Hex32(ByteOrder{true}.U32(b + 8)) +
             " in a Section Header Block");
      }
    }
    const std::uint64_t total = order_.U32(b + 4);
    const std::uint64_t minimum = section ? kMinSectionHeaderBytes : kBlockFrameBytes;
    if (total < minimum) {
      Fail("block total length " + std::to_string(total) + " is less than " +
           std::to_string(minimum));
    }
    if (total % 4 != 0) {
      Fail("block total length " + std::to_string(total) + " is not a multiple of 4");
    }
    if (total > remaining) return Truncated(remaining, total);
    if (total > kMaxBlockBytes) {
      Fail("block total length " + std::to_string(total) + " is over the 256 MiB limit");
    }
    block_.resize(total);
    const std::size_t rest = ReadInto(block_.data() + kBlockFrameBytes, total - kBlockFrameBytes);
    if (rest < total - kBlockFrameBytes) return Truncated(kBlockFrameBytes + rest, total);
    const std::uint32_t trailer = order_.U32(block_.data() + total - 4);
    if (trailer != total) {
      Fail("block total length " + std::to_string(total) + " in the header but " +
           std::to_string(trailer) + " in the trailer");
    }
    return true;
  }

  void Dispatch() {
    const std::uint32_t type = order_.U32(block_.data());
    const std::uint8_t* body = block_.data() + 8;
    const std::size_t body_bytes = block_.size() - kBlockFrameBytes;
    switch (type) {
      case kSectionHeader:
        return SectionHeader(body);
      case kInterfaceDescription:
        return InterfaceDescription(body, body_bytes);
      case kEnhancedPacket:
        return TimestampedPacket(body, body_bytes, /*obsolete=*/false);
      case kSimplePacket:
        return SimplePacket(body, body_bytes);
      case kObsoletePacket:
        return TimestampedPacket(body, body_bytes, /*obsolete=*/true);
      default:
        return;  // name resolution, statistics, secrets, custom blocks: nothing for a flow
    }
  }

  void SectionHeader(const std::uint8_t* body) {
    const unsigned major = order_.U16(body + 4), minor = order_.U16(body + 6);
    if (major != 1) {
      Fail("pcapng version " + std::to_string(major) + "." + std::to_string(minor) +
           " (only 1.x is read)");
    }
    interfaces_.clear();  // interface ids count from 0 again in every section
  }

  void InterfaceDescription(const std::uint8_t* body, std::size_t bytes) {
    if (bytes < 8) {
      Fail("Interface Description Block too short (" + std::to_string(bytes) + " bytes)");
    }
    Interface i;
    const int linktype = order_.U16(body);
    i.link_type = linktype == kPcapngLinktypeRaw ? kPcapngDltRaw : linktype;
    i.snaplen = order_.U32(body + 4);
    i.supported = IsSupportedLinkType(i.link_type);
    for (std::size_t at = 8; at + 4 <= bytes;) {
      const std::uint16_t code = order_.U16(body + at), length = order_.U16(body + at + 2);
      if (code == kOptEndOfOptions) break;
      const std::size_t value = at + 4;
      if (value + length > bytes) {
        Fail("Interface Description Block option " + std::to_string(code) + " of " +
             std::to_string(length) + " bytes overruns its block");
      }
      if (code == kOptTsresol) {
        if (length != 1) Fail("if_tsresol option of " + std::to_string(length) + " bytes, not 1");
        i.units_per_second = UnitsPerSecond(body[value]);
      } else if (code == kOptTsoffset) {
        if (length != 8) Fail("if_tsoffset option of " + std::to_string(length) + " bytes, not 8");
        i.offset_seconds = static_cast<std::int64_t>(order_.U64(body + value));
      }
      at = value + (static_cast<std::size_t>(length) + 3) / 4 * 4;
    }
    if (summary_.interfaces == 0) {
      summary_.link_type = i.link_type;
      summary_.link_type_name = LinkTypeName(i.link_type);
    }
    ++summary_.interfaces;
    if (std::find(summary_.link_types.begin(), summary_.link_types.end(), i.link_type) ==
        summary_.link_types.end()) {
      summary_.link_types.push_back(i.link_type);
    }
    any_supported_interface_ = any_supported_interface_ || i.supported;
    interfaces_.push_back(i);
  }

  // if_tsresol: bit 7 clear, 10^-x seconds; set, 2^-x. Finer than a 64-bit count of units per
  // second can hold is refused rather than approximated.
  std::uint64_t UnitsPerSecond(std::uint8_t resolution) const {
    const unsigned exponent = resolution & 0x7f;
    if (resolution & 0x80) {
      if (exponent > 63) Fail("if_tsresol 2^-" + std::to_string(exponent) + " is too fine");
      return std::uint64_t{1} << exponent;
    }
    if (exponent > 19) Fail("if_tsresol 10^-" + std::to_string(exponent) + " is too fine");
    std::uint64_t units = 1;
    for (unsigned e = 0; e < exponent; ++e) units *= 10;
    return units;
  }

  Interface& InterfaceOf(std::uint32_t id, const char* block) {
    if (id >= interfaces_.size()) {
      Fail(std::string(block) + " for interface " + std::to_string(id) + ", but the section " +
           "describes " + std::to_string(interfaces_.size()));
    }
    return interfaces_[id];
  }

  void CheckCaptured(std::uint32_t captured, std::size_t room, const char* block) const {
    if (captured > room) {
      Fail(std::string(block) + " captured length " + std::to_string(captured) +
           " overruns its block (" + std::to_string(room) + " bytes of packet data)");
    }
  }

  // Enhanced (type 6) and obsolete (type 2) packet blocks share one layout but for the
  // interface id: 32 bits in the first; 16 bits, then a 16-bit drop count, in the second.
  void TimestampedPacket(const std::uint8_t* body, std::size_t bytes, bool obsolete) {
    const char* block = obsolete ? "Packet Block" : "Enhanced Packet Block";
    if (bytes < 20) Fail(std::string(block) + " too short (" + std::to_string(bytes) + " bytes)");
    Interface& i = InterfaceOf(obsolete ? order_.U16(body) : order_.U32(body), block);
    const std::uint64_t ticks = std::uint64_t{order_.U32(body + 4)} << 32 | order_.U32(body + 8);
    const std::uint32_t captured = order_.U32(body + 12);
    CheckCaptured(captured, bytes - 20, block);
    Packet(i, body + 20, captured, order_.U32(body + 16), Nanoseconds(ticks, i));
  }

  // No interface id, no timestamp, no captured length: the block's size and the snap length
  // bound the original length (the data is padded to 4 bytes).
  void SimplePacket(const std::uint8_t* body, std::size_t bytes) {
    if (bytes < 4) Fail("Simple Packet Block too short (" + std::to_string(bytes) + " bytes)");
    Interface& i = InterfaceOf(0, "Simple Packet Block");
    const std::uint32_t original = order_.U32(body);
    const auto captured = static_cast<std::uint32_t>(std::min<std::uint64_t>(original, bytes - 4));
    ++simple_packets_;
    Packet(i, body + 4, captured, original, 0);
  }

  void Packet(const Interface& i, const std::uint8_t* data, std::uint32_t captured,
              std::uint32_t original, std::uint64_t timestamp_ns) {
    ++summary_.records;
    if (!i.supported) {
      ++summary_.skipped[static_cast<std::size_t>(SkipReason::kNonIp)];
      if (!first_unsupported_with_packets_) first_unsupported_with_packets_ = i.link_type;
      return;
    }
    ++supported_packets_;
    if (i.snaplen != 0) captured = std::min(captured, i.snaplen);
    const SkipReason reason = ParseFrame(i.link_type, data, captured, parsed_);
    if (reason != SkipReason::kNone) {
      ++summary_.skipped[static_cast<std::size_t>(reason)];
      return;
    }
    ++(parsed_.ip_version == 4 ? summary_.ipv4 : summary_.ipv6);
    record_.flow = parsed_.flow;
    record_.timestamp_ns = timestamp_ns;
    record_.wire_length = original;
    sink_(record_);
  }

  const std::string& path_;
  const RecordSink& sink_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
  std::uint64_t size_ = 0;
  std::uint64_t offset_ = 0;         // of the block being read
  std::vector<std::uint8_t> block_;  // that block, whole
  ByteOrder order_;
  std::vector<Interface> interfaces_;  // the current section's, by id
  ReadSummary summary_;
  ParsedPacket parsed_;
  TraceRecord record_;
  std::uint64_t supported_packets_ = 0;
  std::uint64_t simple_packets_ = 0;
  std::optional<int> first_unsupported_with_packets_;
  bool any_supported_interface_ = false;
};

}  // namespace

ReadSummary ReadPcapng(const std::string& path, const RecordSink& sink) {
  CheckReadableFile(path, "trace");
  return Reader(path, sink).Read();
}

}  // namespace amq
