// traces/trace_stats.h - what a trace holds, and the workload it becomes.
//
// Statistics: packets read, IPv4, IPv6, skipped by reason (non-IP frames among them), distinct
// 5-tuples (and per family), the flow-size distribution in power-of-two buckets (flows with 1,
// 2-3, 4-7, ... packets) and the heaviest flows; for pcap and pcapng also the first interface's
// link type, the number of interfaces and their distinct link types. Flows are counted by their
// full 5-tuple, not by its 64-bit hash, so the counts are exact.
//
// Workload: the filter holds a share of the trace's distinct keys (default: the first half in
// order of first appearance, as a filter populated from the start of a capture would), every
// kept packet is replayed as a query in capture order (queries + query_is_member), and the
// negatives are the distinct keys not held. `parameters` carry the file's name, its content hash
// (XXH3-64 of its bytes), the key mode and the statistics, so a result names exactly which
// trace made it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "traces/flow.h"
#include "traces/pcap_reader.h"
#include "core/workload.h"

namespace amq {

struct TraceStats {
  std::string file;          // base name
  std::string content_hash;  // XXH3-64 of the file's bytes, hex
  ReadSummary summary;
  std::uint64_t distinct_flows = 0;
  std::uint64_t distinct_ipv4_flows = 0;
  std::uint64_t distinct_ipv6_flows = 0;
  std::vector<std::uint64_t> size_histogram;  // [b]: flows with 2^b .. 2^(b+1)-1 packets
  std::vector<std::pair<FlowKey, std::uint64_t>> heaviest;  // most packets first

  nlohmann::ordered_json ToJson() const;
  std::string ToText() const;
};

// Reads any supported trace (traces/trace_io.h) and counts.
TraceStats ComputeTraceStats(const std::string& path, std::size_t top = 10);

// The same over records already in memory (the summary is the reader's).
TraceStats StatsOfRecords(const std::vector<TraceRecord>& records, const ReadSummary& summary,
                          std::size_t top = 10);

struct TraceWorkloadOptions {
  KeyMode key = KeyMode::kFiveTuple;
  double member_fraction = 0.5;  // of the distinct keys, in [0, 1]
  bool random_members = false;   // false: the first ones seen; true: a seeded random subset
  std::uint64_t seed = 0;
};

Workload TraceWorkload(const std::string& path, const TraceWorkloadOptions& options = {});

}  // namespace amq
