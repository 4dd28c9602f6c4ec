#include "traces/trace_io.h"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "core/errors.h"
#include "core/file_util.h"
#include "traces/pcapng_reader.h"

namespace amq {
namespace {

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

File OpenForRead(const std::string& path) {
  File file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw InputError("cannot read trace '" + path + "': " + std::strerror(errno));
  return file;
}

std::uint64_t GetLe(const std::uint8_t* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

void PutLe(std::uint8_t* p, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

std::size_t RecordBytes(bool timestamps) { return timestamps ? 48 : 40; }

void CountFamily(const FlowKey& flow, ReadSummary& summary) {
  ++(flow.is_ipv4() ? summary.ipv4 : summary.ipv6);
}

bool MixedFamilies(const FlowKey& flow) { return IsIpv4Mapped(flow.src) != IsIpv4Mapped(flow.dst); }

bool IsTextByte(unsigned char c) {
  return c == '\n' || c == '\r' || c == '\t' || (c >= 0x20 && c < 0x7f);
}

// Parses an unsigned decimal field with an upper bound; false on anything else.
bool ParseUnsigned(const std::string& text, std::uint64_t max, std::uint64_t& out) {
  if (text.empty() || text.size() > 20) return false;
  std::uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
    if (v > (max - digit) / 10) return false;
    v = v * 10 + digit;
  }
  out = v;
  return true;
}

}  // namespace

TraceFormat DetectTraceFormat(const std::string& path) {
  CheckReadableFile(path, "trace");
  File file = OpenForRead(path);
  std::uint8_t head[4096];
  const std::size_t got = std::fread(head, 1, sizeof head, file.get());
  if (got >= 4) {
    const std::uint32_t le = static_cast<std::uint32_t>(GetLe(head, 4));
    const std::uint32_t be = __builtin_bswap32(le);
    for (std::uint32_t magic : {le, be}) {
      // Microsecond, nanosecond and Kuznetzov's modified pcap.
      if (magic == 0xa1b2c3d4 || magic == 0xa1b23c4d || magic == 0xa1b2cd34) {
        return TraceFormat::kPcap;
      }
    }
    if (le == 0x0a0d0d0a) return TraceFormat::kPcapng;
  }
  if (got >= 8 && std::memcmp(head, kBinaryTraceMagic, 8) == 0) return TraceFormat::kBinary;
  bool text = true;
  for (std::size_t i = 0; i < got && text; ++i) text = IsTextByte(head[i]);
  if (text) return TraceFormat::kText;
  char hex[9];
  std::snprintf(hex, sizeof hex, "%02x%02x%02x%02x", head[0], got > 1 ? head[1] : 0,
                got > 2 ? head[2] : 0, got > 3 ? head[3] : 0);
  throw InputError("trace '" + path +
                   "' is not a pcap, pcapng, amqtrace or text trace (it starts with 0x" + hex +
                   ")");
}

ReadSummary ReadTrace(const std::string& path, const RecordSink& sink) {
  switch (DetectTraceFormat(path)) {
    case TraceFormat::kPcap:
      return ReadPcap(path, sink);
    case TraceFormat::kPcapng:
      return ReadPcapng(path, sink);
    case TraceFormat::kBinary:
      return ReadBinaryTrace(path, sink);
    case TraceFormat::kText:
      return ReadTextTrace(path, sink);
  }
  throw InputError("unreachable trace format");
}

std::pair<std::vector<TraceRecord>, ReadSummary> ReadTraceRecords(const std::string& path) {
  std::vector<TraceRecord> records;
  ReadSummary summary = ReadTrace(path, [&](const TraceRecord& r) { records.push_back(r); });
  return {std::move(records), std::move(summary)};
}

ReadSummary ReadBinaryTrace(const std::string& path, const RecordSink& sink) {
  CheckReadableFile(path, "trace");
  File file = OpenForRead(path);
  const std::string where = "binary trace '" + path + "'";
  std::uint8_t header[kBinaryHeaderBytes];
  if (std::fread(header, 1, sizeof header, file.get()) != sizeof header) {
    throw InputError(where + " is shorter than its 32-byte header");
  }
  if (std::memcmp(header, kBinaryTraceMagic, 8) != 0) {
    throw InputError(where + " does not start with the magic AMQTRACE");
  }
  const auto version = GetLe(header + 8, 4), flags = GetLe(header + 12, 4);
  const auto count = GetLe(header + 16, 8), record_size = GetLe(header + 24, 4);
  if (version != kBinaryTraceVersion) {
    throw InputError(where + " has version " + std::to_string(version) + "; this build reads " +
                     std::to_string(kBinaryTraceVersion));
  }
  if ((flags & ~std::uint64_t{kBinaryFlagTimestamps}) != 0) {
    throw InputError(where + " has unknown flags " + std::to_string(flags));
  }
  const bool timestamps = (flags & kBinaryFlagTimestamps) != 0;
  if (record_size != RecordBytes(timestamps)) {
    throw InputError(where + " declares " + std::to_string(record_size) +
                     "-byte records; its flags imply " + std::to_string(RecordBytes(timestamps)));
  }
  if (GetLe(header + 28, 4) != 0) throw InputError(where + " has a nonzero reserved field");
  std::fseek(file.get(), 0, SEEK_END);
  const auto size = static_cast<std::uint64_t>(std::ftell(file.get()));
  std::fseek(file.get(), kBinaryHeaderBytes, SEEK_SET);
  // Division, not multiplication: a corrupt count must not overflow into a matching size.
  if ((size - kBinaryHeaderBytes) % record_size != 0 ||
      (size - kBinaryHeaderBytes) / record_size != count) {
    throw InputError(where + " declares " + std::to_string(count) + " records but holds " +
                     std::to_string(size - kBinaryHeaderBytes) + " bytes of " +
                     std::to_string(record_size) + "-byte records (truncated or padded)");
  }

  ReadSummary summary;
  summary.format = "amqtrace";
  summary.has_timestamps = timestamps;
  std::vector<std::uint8_t> buffer(record_size * 4096);
  TraceRecord record;
  std::uint64_t index = 0;
  while (index < count) {
    const std::uint64_t batch = std::min<std::uint64_t>(count - index, 4096);
    if (std::fread(buffer.data(), record_size, batch, file.get()) != batch) {
      throw InputError(where + ": read error at record " + std::to_string(index));
    }
    for (std::uint64_t i = 0; i < batch; ++i, ++index) {
      const std::uint8_t* p = buffer.data() + i * record_size;
      std::copy(p, p + 16, record.flow.src.begin());
      std::copy(p + 16, p + 32, record.flow.dst.begin());
      record.flow.sport = static_cast<std::uint16_t>(GetLe(p + 32, 2));
      record.flow.dport = static_cast<std::uint16_t>(GetLe(p + 34, 2));
      record.flow.proto = p[36];
      if (p[37] != 0 || p[38] != 0 || p[39] != 0) {
        throw InputError(where + ": record " + std::to_string(index) + " has nonzero padding");
      }
      if (MixedFamilies(record.flow)) {
        throw InputError(where + ": record " + std::to_string(index) +
                         " mixes an IPv4 and an IPv6 address");
      }
      record.timestamp_ns = timestamps ? GetLe(p + 40, 8) : 0;
      ++summary.records;
      CountFamily(record.flow, summary);
      sink(record);
    }
  }
  return summary;
}

ReadSummary ReadTextTrace(const std::string& path, const RecordSink& sink) {
  CheckReadableFile(path, "trace");
  std::ifstream in(path);
  if (!in) throw InputError("cannot read trace '" + path + "'");
  ReadSummary summary;
  summary.format = "text";
  std::string line;
  std::uint64_t line_number = 0;
  int fields_expected = 0;  // 5 or 6, fixed by the first data line
  TraceRecord record;
  while (std::getline(in, line)) {
    ++line_number;
    const auto fail = [&](const std::string& what) {
      throw InputError("text trace '" + path + "' line " + std::to_string(line_number) + ": " +
                       what);
    };
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string word; fields >> word;) f.push_back(word);
    if (f.size() != 5 && f.size() != 6) {
      fail("expected 'src dst proto sport dport [timestamp_ns]', got " + std::to_string(f.size()) +
           " fields");
    }
    if (fields_expected == 0) fields_expected = static_cast<int>(f.size());
    if (static_cast<int>(f.size()) != fields_expected) {
      fail("every line must have a timestamp or none must");
    }
    if (!ParseAddress(f[0], record.flow.src)) fail("bad source address '" + f[0] + "'");
    if (!ParseAddress(f[1], record.flow.dst)) fail("bad destination address '" + f[1] + "'");
    if (MixedFamilies(record.flow)) fail("mixes an IPv4 and an IPv6 address");
    std::uint64_t proto, sport, dport, ts = 0;
    if (!ParseUnsigned(f[2], 255, proto)) fail("bad protocol '" + f[2] + "' (0..255)");
    if (!ParseUnsigned(f[3], 65535, sport)) fail("bad source port '" + f[3] + "'");
    if (!ParseUnsigned(f[4], 65535, dport)) fail("bad destination port '" + f[4] + "'");
    if (f.size() == 6 && !ParseUnsigned(f[5], UINT64_MAX, ts)) {
      fail("bad timestamp '" + f[5] + "' (nanoseconds, unsigned)");
    }
    record.flow.proto = static_cast<std::uint8_t>(proto);
    record.flow.sport = static_cast<std::uint16_t>(sport);
    record.flow.dport = static_cast<std::uint16_t>(dport);
    record.timestamp_ns = ts;
    ++summary.records;
    CountFamily(record.flow, summary);
    sink(record);
  }
  if (in.bad()) throw InputError("error reading trace '" + path + "'");
  summary.has_timestamps = fields_expected == 6;
  return summary;
}

void WriteBinaryTrace(const std::string& path, const std::vector<TraceRecord>& records,
                      bool timestamps) {
  AtomicOutput output(path);
  std::uint8_t header[kBinaryHeaderBytes] = {};
  std::memcpy(header, kBinaryTraceMagic, 8);
  PutLe(header + 8, kBinaryTraceVersion, 4);
  PutLe(header + 12, timestamps ? kBinaryFlagTimestamps : 0, 4);
  PutLe(header + 16, records.size(), 8);
  PutLe(header + 24, RecordBytes(timestamps), 4);
  output.stream().write(reinterpret_cast<const char*>(header), sizeof header);
  const std::size_t size = RecordBytes(timestamps);
  std::vector<std::uint8_t> buffer;
  buffer.reserve(size * 4096);
  for (std::size_t i = 0; i < records.size(); ++i) {
    const TraceRecord& r = records[i];
    std::uint8_t p[48] = {};
    std::copy(r.flow.src.begin(), r.flow.src.end(), p);
    std::copy(r.flow.dst.begin(), r.flow.dst.end(), p + 16);
    PutLe(p + 32, r.flow.sport, 2);
    PutLe(p + 34, r.flow.dport, 2);
    p[36] = r.flow.proto;
    if (timestamps) PutLe(p + 40, r.timestamp_ns, 8);
    buffer.insert(buffer.end(), p, p + size);
    if (buffer.size() >= size * 4096 || i + 1 == records.size()) {
      output.stream().write(reinterpret_cast<const char*>(buffer.data()),
                            static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  output.Commit();
}

void WriteTextTrace(const std::string& path, const std::vector<TraceRecord>& records,
                    bool timestamps) {
  AtomicOutput output(path);
  std::ostream& out = output.stream();
  out << "# amqbench text trace: src dst proto sport dport" << (timestamps ? " timestamp_ns" : "")
      << "\n";
  for (const TraceRecord& r : records) {
    out << FlowToString(r.flow);
    if (timestamps) out << ' ' << r.timestamp_ns;
    out << '\n';
  }
  output.Commit();
}

}  // namespace amq
