#include "traces/trace_stats.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <unordered_map>

#include "core/errors.h"
#include "core/hashing.h"
#include "core/file_util.h"
#include "traces/trace_io.h"

namespace amq {

TraceStats StatsOfRecords(const std::vector<TraceRecord>& records, const ReadSummary& summary,
                          std::size_t top) {
  TraceStats s;
  s.summary = summary;
  std::unordered_map<FlowKey, std::uint64_t, FlowKeyHasher> counts;
  for (const TraceRecord& r : records) ++counts[r.flow];
  s.distinct_flows = counts.size();
  std::vector<std::pair<FlowKey, std::uint64_t>> flows(counts.begin(), counts.end());
  for (const auto& [flow, packets] : flows) {
    ++(flow.is_ipv4() ? s.distinct_ipv4_flows : s.distinct_ipv6_flows);
    const std::size_t bucket = static_cast<std::size_t>(std::bit_width(packets)) - 1;
    if (s.size_histogram.size() <= bucket) s.size_histogram.resize(bucket + 1, 0);
    ++s.size_histogram[bucket];
  }
  // Ties broken by the tuple, so the list does not depend on hash-table order.
  const auto heavier = [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  };
  const std::size_t shown = std::min(top, flows.size());
  std::partial_sort(flows.begin(), flows.begin() + static_cast<std::ptrdiff_t>(shown), flows.end(),
                    heavier);
  s.heaviest.assign(flows.begin(), flows.begin() + static_cast<std::ptrdiff_t>(shown));
  return s;
}

TraceStats ComputeTraceStats(const std::string& path, std::size_t top) {
  auto [records, summary] = ReadTraceRecords(path);
  TraceStats s = StatsOfRecords(records, summary, top);
  s.file = BaseName(path);
  s.content_hash = FileContentHash(path);
  return s;
}

nlohmann::ordered_json TraceStats::ToJson() const {
  nlohmann::ordered_json j;
  j["file"] = file;
  j["content_hash"] = content_hash;
  j["format"] = summary.format;
  if (summary.link_type >= 0) {
    j["link_type"] = summary.link_type;
    j["link_type_name"] = summary.link_type_name;
    j["interfaces"] = summary.interfaces;
    j["link_types"] = summary.link_types;
  }
  j["packets"] = summary.records;
  j["ipv4"] = summary.ipv4;
  j["ipv6"] = summary.ipv6;
  j["non_ip"] = summary.skipped[static_cast<std::size_t>(SkipReason::kNonIp)];
  j["skipped_total"] = summary.skipped_total();
  auto& skipped = j["skipped"];
  skipped = nlohmann::ordered_json::object();
  for (std::size_t r = 1; r < kSkipReasons; ++r) {
    skipped[SkipReasonName(static_cast<SkipReason>(r))] = summary.skipped[r];
  }
  j["truncated_records"] = summary.truncated_records;
  if (!summary.read_error.empty()) j["read_error"] = summary.read_error;
  j["has_timestamps"] = summary.has_timestamps;
  j["distinct_flows"] = distinct_flows;
  j["distinct_ipv4_flows"] = distinct_ipv4_flows;
  j["distinct_ipv6_flows"] = distinct_ipv6_flows;
  auto& histogram = j["flow_size_histogram"];
  histogram = nlohmann::ordered_json::array();
  for (std::size_t b = 0; b < size_histogram.size(); ++b) {
    histogram.push_back({{"min_packets", std::uint64_t{1} << b},
                         {"max_packets", (std::uint64_t{2} << b) - 1},
                         {"flows", size_histogram[b]}});
  }
  auto& heavy = j["heaviest_flows"];
  heavy = nlohmann::ordered_json::array();
  for (const auto& [flow, packets] : heaviest) {
    heavy.push_back({{"flow", FlowToString(flow)}, {"packets", packets}});
  }
  return j;
}

std::string TraceStats::ToText() const {
  std::ostringstream out;
  const auto row = [&out](const std::string& label) -> std::ostream& {
    return out << std::left << std::setw(20) << label;
  };
  row("file") << file << "\n";
  row("content hash") << content_hash << "\n";
  row("format") << summary.format;
  if (summary.link_type >= 0) {
    out << " (link type " << summary.link_type << ", " << summary.link_type_name;
    if (summary.interfaces > 1) {
      out << "; " << summary.interfaces << " interfaces, link types";
      for (int link_type : summary.link_types) out << " " << link_type;
    }
    out << ")";
  }
  out << "\n";
  row("packets") << summary.records << "\n";
  row("  IPv4") << summary.ipv4 << "\n";
  row("  IPv6") << summary.ipv6 << "\n";
  row("  skipped") << summary.skipped_total() << "\n";
  for (std::size_t r = 1; r < kSkipReasons; ++r) {
    row(std::string("    ") + SkipReasonName(static_cast<SkipReason>(r)))
        << summary.skipped[r] << "\n";
  }
  if (summary.truncated_records > 0) {
    row("truncated records") << summary.truncated_records << " (" << summary.read_error << ")\n";
  }
  row("distinct flows") << distinct_flows << " (IPv4 " << distinct_ipv4_flows << ", IPv6 "
                        << distinct_ipv6_flows << ")\n";
  out << "flow sizes (packets: flows)\n";
  for (std::size_t b = 0; b < size_histogram.size(); ++b) {
    const std::uint64_t lo = std::uint64_t{1} << b, hi = (std::uint64_t{2} << b) - 1;
    // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on "-" + string.
    std::string label = "  ";
    label += std::to_string(lo);
    if (hi > lo) {
      label += '-';
      label += std::to_string(hi);
    }
    row(label) << size_histogram[b] << "\n";
  }
  if (!heaviest.empty()) out << "heaviest flows (src dst proto sport dport: packets)\n";
  for (const auto& [flow, packets] : heaviest) {
    out << "  " << FlowToString(flow) << ": " << packets << "\n";
  }
  return out.str();
}

Workload TraceWorkload(const std::string& path, const TraceWorkloadOptions& o) {
  if (!(o.member_fraction >= 0 && o.member_fraction <= 1)) {
    throw InputError("trace workload: member fraction must be in [0, 1]");
  }
  auto [records, summary] = ReadTraceRecords(path);
  // A capture without IP packets has no flows: replaying it would ask about nothing at all.
  if (records.empty()) throw InputError("trace " + path + " has no IP packets");
  TraceStats stats = StatsOfRecords(records, summary);
  stats.file = BaseName(path);
  stats.content_hash = FileContentHash(path);

  // Distinct keys in order of first appearance. Two distinct (masked) tuples with one 64-bit
  // key are one key to a filter; they are counted, and the workload stays consistent because
  // membership is decided by the key.
  std::unordered_map<std::uint64_t, std::size_t> index;  // key -> position in `distinct`
  std::vector<std::uint64_t> distinct;
  std::unordered_map<std::uint64_t, std::array<std::uint8_t, kCanonicalFlowBytes>> tuple_of;
  std::uint64_t collisions = 0;
  std::vector<std::uint64_t> packet_keys(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto bytes = CanonicalBytes(records[i].flow, o.key);
    const std::uint64_t key = FlowHash(records[i].flow, o.key);
    packet_keys[i] = key;
    auto [it, inserted] = index.emplace(key, distinct.size());
    if (inserted) {
      distinct.push_back(key);
      tuple_of.emplace(key, bytes);
    } else if (tuple_of[key] != bytes) {
      ++collisions;
    }
  }
  tuple_of.clear();

  std::vector<std::uint64_t> order = distinct;
  if (o.random_members) {
    XorShift64Star rng(SpreadSeed(o.seed ^ 0x6d656d62ULL));
    for (std::size_t i = order.size(); i > 1; --i) {
      std::swap(order[i - 1], order[ReduceRange(rng.Next(), i)]);
    }
  }
  const auto members =
      static_cast<std::size_t>(std::llround(o.member_fraction * static_cast<double>(order.size())));
  Workload w;
  w.name = "trace:" + stats.file;
  w.seed = o.random_members ? o.seed : 0;
  w.keys.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(members));
  w.negatives.assign(order.begin() + static_cast<std::ptrdiff_t>(members), order.end());
  std::unordered_map<std::uint64_t, bool> is_member;
  is_member.reserve(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) is_member[order[i]] = i < members;
  w.queries = std::move(packet_keys);
  w.query_is_member.resize(w.queries.size());
  std::size_t positives = 0;
  for (std::size_t i = 0; i < w.queries.size(); ++i) {
    w.query_is_member[i] = is_member[w.queries[i]] ? 1 : 0;
    positives += w.query_is_member[i];
  }

  auto& p = w.parameters;
  p["kind"] = "trace";
  p["file"] = stats.file;
  p["content_hash"] = stats.content_hash;
  p["key"] = KeyModeName(o.key);
  p["member_fraction"] = o.member_fraction;
  p["member_selection"] = o.random_members ? "random" : "first_seen";
  p["seed"] = w.seed;
  p["n"] = w.keys.size();
  p["negatives"] = w.negatives.size();
  p["distinct_keys"] = distinct.size();
  p["key_collisions"] = collisions;
  p["queries"] = {{"count", w.queries.size()},
                  {"positives", positives},
                  {"positive_fraction",
                   w.queries.empty() ? 0.0 : static_cast<double>(positives) / w.queries.size()},
                  {"dist", "trace"}};
  p["trace"] = stats.ToJson();
  return w;
}

}  // namespace amq
