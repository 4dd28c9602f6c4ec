// fuzz/trace_check.h - one trace reader run over the fuzz input, and what its summary promises
// (traces/pcap_reader.h, traces/trace_io.h): every record read is kept or skipped for exactly
// one reason, the sink sees exactly the kept ones, and the format is one of the four. The
// amqtrace and text readers also refuse a record mixing an IPv4 and an IPv6 address, so from
// them every flow has one family and `ipv4` counts the IPv4 ones. An InputError is the expected
// answer to a bad file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/errors.h"
#include "fuzz/fuzz_support.h"
#include "traces/pcap_reader.h"

namespace amq::fuzz {

using TraceReader = ReadSummary (*)(const std::string& path, const RecordSink& sink);

enum class Families { kAnyAddresses, kOneFamilyPerFlow };

inline void ReadAndCheckTrace(TraceReader reader, Families families, const std::uint8_t* data,
                              std::size_t size) {
  const std::string& path = WriteInput(data, size);
  const bool one_family = families == Families::kOneFamilyPerFlow;
  std::uint64_t delivered = 0, ipv4 = 0;
  ReadSummary summary;
  try {
    summary = reader(path, [&](const TraceRecord& r) {
      ++delivered;
      if (one_family) {
        Require(IsIpv4Mapped(r.flow.src) == IsIpv4Mapped(r.flow.dst),
                "a record mixes an IPv4 and an IPv6 address");
        if (r.flow.is_ipv4()) ++ipv4;
      }
    });
  } catch (const InputError&) {
    return;
  }
  Require(summary.records == summary.kept() + summary.skipped_total(),
          "records != kept + skipped");
  Require(summary.skipped[static_cast<std::size_t>(SkipReason::kNone)] == 0,
          "a record skipped for no reason");
  Require(delivered == summary.kept(), "the sink did not see exactly the kept records");
  if (one_family) Require(ipv4 == summary.ipv4, "ipv4 differs from the IPv4 flows delivered");
  Require(summary.format == "pcap" || summary.format == "pcapng" ||
              summary.format == "amqtrace" || summary.format == "text",
          "unknown format name in the summary");
  Require(summary.truncated_records <= 1, "more than one truncated record");
}

}  // namespace amq::fuzz
