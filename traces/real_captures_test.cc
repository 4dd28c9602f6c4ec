// traces/real_captures_test.cc - the reader on real traffic: nDPI's 542 test captures (shared
// data, beside the project; the test skips when absent) and pathspider's real.pcap (fetched by
// scripts/fetch_real_pcap.sh into results/cache; skipped when not fetched).
//
// The nDPI folder's README gives its totals as counted with libpcap: ~109,000 packets, ~103,000
// IPv4, ~5,300 IPv6, ~11,100 distinct IPv4 5-tuples; and its link types per file. Totals are
// checked loosely (a decoder may reasonably differ on odd packets: tunnels, fuzzed headers),
// the link-type census and a few small files exactly. The per-file numbers below were checked
// against tcpdump 4.99 (`tcpdump --count -r FILE ip` / `ip6`).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <unordered_set>

#include "core/errors.h"
#include "traces/trace_io.h"
#include "traces/trace_stats.h"

namespace amq {
namespace {

const std::string kNdpi = AMQ_SOURCE_DIR "/../shared/data/ndpi-pcaps";
const std::string kRealPcap = AMQ_SOURCE_DIR "/results/cache/pathspider/real.pcap";

struct FileResult {
  ReadSummary summary;
  std::string error;
};

TEST(RealCaptures, NdpiCorpus) {
  if (!std::filesystem::is_directory(kNdpi)) GTEST_SKIP() << kNdpi << " is absent";
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(kNdpi)) {
    if (entry.is_regular_file() && entry.path().extension() != ".md") {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 500u);

  std::map<std::string, FileResult> results;
  std::unordered_set<FlowKey, FlowKeyHasher> ipv4_tuples;
  std::uint64_t packets = 0, ipv4 = 0, ipv6 = 0;
  std::map<int, int> files_by_link_type;
  for (const std::string& path : files) {
    FileResult& r = results[std::filesystem::path(path).filename().string()];
    try {
      r.summary = ReadTrace(path, [&](const TraceRecord& rec) {
        if (rec.flow.is_ipv4()) ipv4_tuples.insert(rec.flow);
      });
      packets += r.summary.records;
      ipv4 += r.summary.ipv4;
      ipv6 += r.summary.ipv6;
      ++files_by_link_type[r.summary.link_type];
    } catch (const InputError& e) {
      r.error = e.what();
    }
  }
  const auto near = [](double value, double expected, double tolerance) {
    return std::abs(value - expected) <= tolerance * expected;
  };
  EXPECT_PRED3(near, packets, 109000, 0.03);
  EXPECT_PRED3(near, ipv4, 103000, 0.03);
  EXPECT_PRED3(near, ipv6, 5300, 0.05);
  EXPECT_PRED3(near, ipv4_tuples.size(), 11100, 0.05);
  std::cout << "[ ndpi     ] " << files.size() << " files: " << packets << " packets, " << ipv4
            << " IPv4, " << ipv6 << " IPv6, " << ipv4_tuples.size() << " distinct IPv4 5-tuples\n";

  // The README's census by link type (Ethernet, RAW as 12 or 101, SLL, NULL, IPv4, PPP, HDLC).
  EXPECT_EQ(files_by_link_type[1], 495);
  EXPECT_EQ(files_by_link_type[12] + files_by_link_type[101], 15);
  EXPECT_EQ(files_by_link_type[113], 15);
  EXPECT_EQ(files_by_link_type[0], 8);
  EXPECT_EQ(files_by_link_type[228], 4);
  EXPECT_EQ(files_by_link_type[9], 2);
  EXPECT_EQ(files_by_link_type[104], 1);

  const auto& ppi = results["tests_cfgs_default_pcap_someip_sd_sample.pcap"];
  EXPECT_NE(ppi.error.find("unsupported link type 192"), std::string::npos) << ppi.error;
  const auto& empty = results["tests_cfgs_default_pcap_WebattackXSS.pcap"];
  EXPECT_NE(empty.error.find("is empty"), std::string::npos) << empty.error;

  const auto expect_file = [&](const std::string& name, int link_type, std::uint64_t records,
                               std::uint64_t v4, std::uint64_t v6) {
    const FileResult& r = results["tests_cfgs_default_pcap_" + name];
    EXPECT_EQ(r.error, "") << name;
    EXPECT_EQ(r.summary.link_type, link_type) << name;
    EXPECT_EQ(r.summary.records, records) << name;
    EXPECT_EQ(r.summary.ipv4, v4) << name;
    EXPECT_EQ(r.summary.ipv6, v6) << name;
  };
  expect_file("KakaoTalk_talk.pcap", 113, 3203, 3203, 0);       // Linux SLL
  expect_file("openvpn-tlscrypt.pcap", 0, 13, 0, 13);           // NULL, IPv6
  expect_file("ocs.pcap", 12, 946, 946, 0);                     // raw IP
  expect_file("tls_heur__vmess-tcp.pcapng", 113, 100, 63, 37);  // pcapng, SLL
  expect_file("log4j-webapp-exploit.pcap", 113, 426, 422, 0);   // 4 non-IP frames
  // A fuzzed capture cut inside its only record's header: no packets, reported.
  const FileResult& fuzz = results["tests_cfgs_default_pcap_fuzz-2021-10-13.pcap"];
  EXPECT_EQ(fuzz.summary.truncated_records, 1u);
}

TEST(RealCaptures, PathspiderRealPcap) {
  if (!std::filesystem::exists(kRealPcap)) {
    GTEST_SKIP() << kRealPcap << " not fetched (scripts/fetch_real_pcap.sh)";
  }
  const TraceStats s = ComputeTraceStats(kRealPcap);
  // tcpdump --count: 62781 packets, 62038 `ip`, 743 ARP.
  EXPECT_EQ(s.summary.records, 62781u);
  EXPECT_EQ(s.summary.ipv4, 62038u);
  EXPECT_EQ(s.summary.ipv6, 0u);
  EXPECT_EQ(s.summary.skipped[static_cast<std::size_t>(SkipReason::kNonIp)], 743u);
  EXPECT_EQ(s.distinct_flows, 11978u);
  const Workload w = TraceWorkload(kRealPcap);
  EXPECT_EQ(w.keys.size(), 5989u);
  EXPECT_EQ(w.queries.size(), 62038u);
}

}  // namespace
}  // namespace amq
