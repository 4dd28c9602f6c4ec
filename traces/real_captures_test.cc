// traces/real_captures_test.cc - the reader on real traffic: nDPI's 542 test captures (shared
// data, beside the project; the test skips when absent) and pathspider's real.pcap (fetched by
// scripts/fetch_real_pcap.sh into results/cache; skipped when not fetched).
//
// The nDPI folder's README gives its totals as counted with libpcap: ~109,000 packets, ~103,000
// IPv4, ~5,300 IPv6, ~11,100 distinct IPv4 5-tuples; and its link types per file. Totals are
// checked loosely (a decoder may reasonably differ on odd packets: tunnels, fuzzed headers),
// the link-type census and a few small files exactly. The per-file numbers below were checked
// against tcpdump 4.99 (`tcpdump --count -r FILE ip` / `ip6`).
//
// Multi-interface pcapng: the README's "pcapng files whose interfaces carry several link types"
// are not in this copy. Its 19 pcapng files with several interfaces (2 to 22) give them all one
// link type and one snap length, which libpcap already read; the pcapng block reader
// (traces/pcapng_reader.h) reads every file of the folder to the same packets, flows and
// timestamps as libpcap did (compared file by file through `trace convert --format text`), so
// the totals and the census below did not change with it. What the folder lacks is made from it:
// MergedCapturesOfFourLinkTypes interleaves four of its captures as one pcapng file of four
// interfaces, as mergecap or dumpcap would write them.
#include <gtest/gtest.h>
#include <pcap/pcap.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <unordered_set>

#include "core/errors.h"
#include "traces/test_frames.h"
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

// Four classic captures of four link types (Linux SLL, raw IP, NULL, Ethernet), their frames
// interleaved one by one into one pcapng file with an interface each (its snap length and
// nanosecond timestamps): it must read as the sum of its parts, flow for flow. The totals were
// checked independently: `mergecap -w m.pcapng` of the same four files gives a pcapng file of
// the same four interfaces that tshark 4.0 counts as 5885 packets, and that this reader reads
// as 5885 packets, 5808 IPv4, 77 IPv6 (libpcap 1.10 read 0 of them and stopped).
TEST(RealCaptures, MergedCapturesOfFourLinkTypes) {
  if (!std::filesystem::is_directory(kNdpi)) GTEST_SKIP() << kNdpi << " is absent";
  const std::vector<std::string> names = {"KakaoTalk_talk.pcap", "ocs.pcap",
                                          "openvpn-tlscrypt.pcap", "1kxun.pcap"};
  struct Frame {
    std::uint64_t ns;
    testing_frames::Bytes data;
    std::uint32_t original;
  };
  std::vector<std::vector<Frame>> frames(names.size());
  testing_frames::PcapngBuilder b;
  std::multiset<std::pair<std::uint64_t, FlowKey>> expected;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string path = kNdpi + "/tests_cfgs_default_pcap_" + names[i];
    char errbuf[PCAP_ERRBUF_SIZE] = {};
    std::unique_ptr<pcap_t, void (*)(pcap_t*)> pcap(
        pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, errbuf),
        &pcap_close);
    ASSERT_TRUE(pcap) << errbuf;
    const int dlt = pcap_datalink(pcap.get());
    b.Interface(static_cast<std::uint16_t>(dlt == 12 ? 101 : dlt),  // DLT_RAW as a LINKTYPE
                static_cast<std::uint32_t>(pcap_snapshot(pcap.get())), {{9, {9}}});
    pcap_pkthdr* header = nullptr;
    const std::uint8_t* data = nullptr;
    while (pcap_next_ex(pcap.get(), &header, &data) == 1) {
      frames[i].push_back({static_cast<std::uint64_t>(header->ts.tv_sec) * 1000000000ULL +
                               static_cast<std::uint64_t>(header->ts.tv_usec),
                           testing_frames::Bytes(data, data + header->caplen), header->len});
    }
    ReadTrace(path, [&](const TraceRecord& r) { expected.emplace(r.timestamp_ns, r.flow); });
  }
  for (std::size_t at = 0, written = 1; written > 0; ++at) {
    written = 0;
    for (std::size_t i = 0; i < frames.size(); ++i) {
      if (at >= frames[i].size()) continue;
      const Frame& f = frames[i][at];
      b.Packet(static_cast<std::uint32_t>(i), f.data, f.ns, f.original);
      ++written;
    }
  }
  testing_frames::ScratchDir dir;
  b.Save(dir.File("merged.pcapng"));
  std::multiset<std::pair<std::uint64_t, FlowKey>> seen;
  const ReadSummary s = ReadTrace(dir.File("merged.pcapng"), [&](const TraceRecord& r) {
    seen.emplace(r.timestamp_ns, r.flow);
  });
  EXPECT_EQ(s.records, 5885u);
  EXPECT_EQ(s.ipv4, 5808u);
  EXPECT_EQ(s.ipv6, 77u);
  EXPECT_EQ(s.interfaces, 4);
  EXPECT_EQ(s.link_types, (std::vector<int>{113, 12, 0, 1}));
  EXPECT_EQ(s.truncated_records, 0u);
  EXPECT_EQ(seen, expected);
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
