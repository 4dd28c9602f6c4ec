// fuzz/trace_check.h - one trace reader run over the fuzz input, and what its summary promises
// (traces/pcap_reader.h, traces/trace_io.h): every record read is kept or skipped for exactly
// one reason, the sink sees exactly the kept ones, and the format is one of the four. Every
// reader keeps one address family per flow (the amqtrace and text readers refuse a record
// mixing them; the pcap reader skips an IPv6 packet with an IPv4-mapped address as bad_ip),
// so `ipv4` counts the IPv4 flows delivered. An InputError is the expected answer to a bad file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/errors.h"
#include "fuzz/fuzz_support.h"
#include "traces/pcap_reader.h"

namespace amq::fuzz {

using TraceReader = ReadSummary (*)(const std::string& path, const RecordSink& sink);

inline void ReadAndCheckTrace(TraceReader reader, const std::uint8_t* data, std::size_t size) {
  const std::string& path = WriteInput(data, size);
  std::uint64_t delivered = 0, ipv4 = 0;
  ReadSummary summary;
  try {
    summary = reader(path, [&](const TraceRecord& r) {
      ++delivered;
      Require(IsIpv4Mapped(r.flow.src) == IsIpv4Mapped(r.flow.dst),
              "a record mixes an IPv4 and an IPv6 address");
      if (r.flow.is_ipv4()) ++ipv4;
    });
  } catch (const InputError&) {
    return;
  }
  Require(summary.records == summary.kept() + summary.skipped_total(),
          "records != kept + skipped");
  Require(summary.skipped[static_cast<std::size_t>(SkipReason::kNone)] == 0,
          "a record skipped for no reason");
  Require(delivered == summary.kept(), "the sink did not see exactly the kept records");
  Require(ipv4 == summary.ipv4, "ipv4 differs from the IPv4 flows delivered");
  Require(summary.format == "pcap" || summary.format == "pcapng" ||
              summary.format == "amqtrace" || summary.format == "text",
          "unknown format name in the summary");
  Require(summary.truncated_records <= 1, "more than one truncated record");
}

}  // namespace amq::fuzz
