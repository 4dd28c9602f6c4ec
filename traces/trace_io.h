// traces/trace_io.h - the trace formats besides pcap, and one reader for all of them.
//
// Binary ("amqtrace"), all integers little-endian:
//   header, 32 bytes:  magic "AMQTRACE" | u32 version = 1 | u32 flags (bit 0: timestamps)
//                      | u64 record count | u32 record size (40, or 48 with timestamps)
//                      | u32 reserved = 0
//   record:            src[16] | dst[16] | u16 sport | u16 dport | u8 proto | 3 zero bytes
//                      [| u64 timestamp in ns]
// Addresses are the 16-byte form of traces/flow.h (IPv4 mapped). Fixed-size records make a
// replay a single read and let the reader check the file size against the count exactly, so a
// truncated or padded file is refused rather than half-read.
//
// Text: one packet per line, "src dst proto sport dport [timestamp_ns]", addresses in their
// usual notation (192.0.2.1, 2001:db8::1); blank lines and lines starting with '#' are ignored.
// Every line has the timestamp or none does.
//
// ReadTrace() tells the four formats apart by their first bytes (pcap and pcapng magics,
// "AMQTRACE", printable text) and throws InputError for anything else; every validation error
// names the file and, for text, the line.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "traces/flow.h"
#include "traces/pcap_reader.h"

namespace amq {

enum class TraceFormat { kPcap, kPcapng, kBinary, kText };

inline constexpr char kBinaryTraceMagic[8] = {'A', 'M', 'Q', 'T', 'R', 'A', 'C', 'E'};
inline constexpr std::uint32_t kBinaryTraceVersion = 1;
inline constexpr std::uint32_t kBinaryFlagTimestamps = 1;
inline constexpr std::size_t kBinaryHeaderBytes = 32;

// Throws InputError for a missing, empty or unrecognised file.
TraceFormat DetectTraceFormat(const std::string& path);

// Streams every kept packet of any supported trace to `sink`.
ReadSummary ReadTrace(const std::string& path, const RecordSink& sink);

// The whole trace in memory.
std::pair<std::vector<TraceRecord>, ReadSummary> ReadTraceRecords(const std::string& path);

ReadSummary ReadBinaryTrace(const std::string& path, const RecordSink& sink);
ReadSummary ReadTextTrace(const std::string& path, const RecordSink& sink);

// Writers: atomically (temporary file, then rename). Timestamps are written when asked.
void WriteBinaryTrace(const std::string& path, const std::vector<TraceRecord>& records,
                      bool timestamps);
void WriteTextTrace(const std::string& path, const std::vector<TraceRecord>& records,
                    bool timestamps);

}  // namespace amq
