#include "traces/synth.h"

#include <array>
#include <cmath>
#include <set>
#include <unordered_set>

#include "core/errors.h"
#include "core/hashing.h"
#include "core/zipf.h"

namespace amq {
namespace {

constexpr std::size_t kIpv4Prefixes = 300;
constexpr std::size_t kIpv6Prefixes = 100;
constexpr std::size_t kServersPerPrefix = 256;
constexpr std::size_t kClientsPerPrefix = 65534;
constexpr std::uint64_t kMaxPackets = 100000000;  // 10^8 records is ~5.6 GB in memory
constexpr std::uint64_t kStartNs = 1767225600ULL * 1000000000ULL;  // 2026-01-01T00:00:00Z

struct Weighted {
  std::uint16_t port;
  double weight;
};

// Server ports by share of flows; what is left of 1 is a random port.
constexpr std::array<Weighted, 8> kTcpPorts = {{{443, 0.50},
                                                {80, 0.22},
                                                {22, 0.04},
                                                {25, 0.03},
                                                {8080, 0.03},
                                                {993, 0.03},
                                                {3389, 0.02},
                                                {8443, 0.03}}};
constexpr std::array<Weighted, 7> kUdpPorts = {
    {{53, 0.40}, {443, 0.30}, {123, 0.08}, {500, 0.03}, {4500, 0.03}, {1900, 0.03}, {5353, 0.03}}};

template <std::size_t N>
std::uint16_t PickPort(const std::array<Weighted, N>& table, XorShift64Star& rng) {
  double u = UnitDouble(rng);
  for (const Weighted& w : table) {
    if (u < w.weight) return w.port;
    u -= w.weight;
  }
  return static_cast<std::uint16_t>(1024 + ReduceRange(rng.Next(), 65536 - 1024));
}

bool UsableIpv4Prefix(std::uint8_t a, std::uint8_t b) {
  if (a == 0 || a == 10 || a == 127 || a >= 224) return false;  // this net, private, loop, mcast
  if (a == 100 && b >= 64 && b < 128) return false;             // carrier-grade NAT
  if (a == 169 && b == 254) return false;                       // link local
  if (a == 172 && b >= 16 && b < 32) return false;              // private
  if (a == 192 && b == 168) return false;                       // private
  return true;
}

// A seeded permutation of 0..n-1: rank r of a Zipf draw is item perm[r - 1].
std::vector<std::size_t> Permutation(std::size_t n, XorShift64Star& rng) {
  std::vector<std::size_t> perm(n);
  for (std::size_t i = 0; i < n; ++i) perm[i] = i;
  for (std::size_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[ReduceRange(rng.Next(), i)]);
  return perm;
}

class FlowMaker {
 public:
  FlowMaker(const SynthOptions& o, XorShift64Star& rng)
      : o_(o),
        rng_(rng),
        prefix4_(kIpv4Prefixes, 1.0),
        prefix6_(kIpv6Prefixes, 1.0),
        server_(kServersPerPrefix, 1.0),
        client_(kClientsPerPrefix, 1.0) {
    std::set<std::array<std::uint8_t, 2>> seen4;
    while (v4_.size() < kIpv4Prefixes) {
      const std::uint64_t r = rng_.Next();
      const std::array<std::uint8_t, 2> p = {static_cast<std::uint8_t>(r >> 56),
                                             static_cast<std::uint8_t>(r >> 48)};
      if (UsableIpv4Prefix(p[0], p[1]) && seen4.insert(p).second) v4_.push_back(p);
    }
    std::set<std::array<std::uint8_t, 6>> seen6;
    while (v6_.size() < kIpv6Prefixes) {
      const std::uint64_t r = rng_.Next();
      std::array<std::uint8_t, 6> p;
      for (int i = 0; i < 6; ++i) p[i] = static_cast<std::uint8_t>(r >> (56 - 8 * i));
      p[0] = static_cast<std::uint8_t>(0x20 | (p[0] & 0x1f));  // 2000::/3, global unicast
      if (seen6.insert(p).second) v6_.push_back(p);
    }
    client4_ = Permutation(kIpv4Prefixes, rng_);
    server4_ = Permutation(kIpv4Prefixes, rng_);
    client6_ = Permutation(kIpv6Prefixes, rng_);
    server6_ = Permutation(kIpv6Prefixes, rng_);
  }

  FlowKey Make() {
    FlowKey f;
    if (UnitDouble(rng_) < o_.ipv6_fraction) {
      const std::size_t c = client6_[prefix6_(rng_) - 1], s = server6_[prefix6_(rng_) - 1];
      std::copy(v6_[c].begin(), v6_[c].end(), f.src.begin());
      // Client k of the prefix: a fixed random-looking interface id and subnet.
      const std::uint64_t iid = MurmurMix64(c << 32 | client_(rng_)) | 1;
      for (int i = 0; i < 8; ++i) f.src[8 + i] = static_cast<std::uint8_t>(iid >> (56 - 8 * i));
      f.src[6] = static_cast<std::uint8_t>(iid >> 3);
      std::copy(v6_[s].begin(), v6_[s].end(), f.dst.begin());
      f.dst[15] = static_cast<std::uint8_t>(server_(rng_));
    } else {
      const std::size_t c = client4_[prefix4_(rng_) - 1], s = server4_[prefix4_(rng_) - 1];
      const std::uint64_t host = MurmurMix64(c << 32 | client_(rng_));
      std::uint8_t src[4] = {v4_[c][0], v4_[c][1], static_cast<std::uint8_t>(host >> 8),
                             static_cast<std::uint8_t>(host)};
      // Server host k of prefix s sits at a fixed, spread-out address inside the /16.
      const std::uint64_t spot = MurmurMix64(s * kServersPerPrefix + server_(rng_));
      std::uint8_t dst[4] = {v4_[s][0], v4_[s][1], static_cast<std::uint8_t>(spot >> 8),
                             static_cast<std::uint8_t>(spot | 1)};
      SetIpv4(f.src, src);
      SetIpv4(f.dst, dst);
    }
    const bool v4 = f.is_ipv4();
    const double u = UnitDouble(rng_);
    if (u < 0.80) {
      f.proto = 6;
      f.dport = PickPort(kTcpPorts, rng_);
    } else if (u < 0.97) {
      f.proto = 17;
      f.dport = PickPort(kUdpPorts, rng_);
    } else if (u < 0.995) {
      f.proto = v4 ? 1 : 58;
    } else {
      f.proto = UnitDouble(rng_) < 0.5 ? 47 : 50;
    }
    if (f.proto == 6 || f.proto == 17) {
      f.sport = static_cast<std::uint16_t>(32768 + ReduceRange(rng_.Next(), 60999 - 32768 + 1));
    }
    return f;
  }

 private:
  const SynthOptions& o_;
  XorShift64Star& rng_;
  ZipfSampler prefix4_, prefix6_, server_, client_;
  std::vector<std::array<std::uint8_t, 2>> v4_;
  std::vector<std::array<std::uint8_t, 6>> v6_;
  std::vector<std::size_t> client4_, server4_, client6_, server6_;
};

std::uint32_t WireLength(const FlowKey& f, XorShift64Star& rng) {
  const std::uint32_t ip = f.is_ipv4() ? 20 : 40;
  const std::uint32_t l4 = f.proto == 6                                       ? 20
                           : (f.proto == 17 || f.proto == 1 || f.proto == 58) ? 8
                                                                              : 0;
  const std::uint32_t headers = 14 + ip + l4;
  const double u = UnitDouble(rng);
  if (f.proto == 6 && u < 0.4) return std::max<std::uint32_t>(headers, 60);  // ACK, padded
  if (u < 0.8 && f.proto != 1 && f.proto != 58) return 1514;
  return headers + static_cast<std::uint32_t>(ReduceRange(rng.Next(), 1514 - headers + 1));
}

}  // namespace

void ValidateSynthOptions(const SynthOptions& o) {
  if (o.flows == 0) throw InputError("synthetic trace: --flows must be at least 1");
  if (o.packets < o.flows) {
    throw InputError("synthetic trace: --packets (" + std::to_string(o.packets) +
                     ") must be at least --flows (" + std::to_string(o.flows) +
                     "): every flow sends a packet");
  }
  if (o.packets > kMaxPackets) {
    throw InputError("synthetic trace: at most " + std::to_string(kMaxPackets) + " packets");
  }
  if (!(o.alpha >= 0 && o.alpha <= 100)) {
    throw InputError("synthetic trace: --alpha must be in [0, 100]");
  }
  if (!(o.ipv6_fraction >= 0 && o.ipv6_fraction <= 1)) {
    throw InputError("synthetic trace: --ipv6-fraction must be in [0, 1]");
  }
}

SynthTrace SynthesizeTrace(const SynthOptions& o) {
  ValidateSynthOptions(o);
  XorShift64Star rng(SpreadSeed(o.seed ^ 0x74726163ULL));
  SynthTrace trace;
  FlowMaker maker(o, rng);
  std::unordered_set<FlowKey, FlowKeyHasher> seen;
  seen.reserve(o.flows);
  // Duplicate tuples are redrawn; the address space dwarfs any flow count allowed here, so the
  // loop ends after a handful of redraws at most.
  while (trace.flows.size() < o.flows) {
    FlowKey f = maker.Make();
    if (seen.insert(f).second) trace.flows.push_back(f);
  }

  trace.packets_per_flow.assign(o.flows, 1);
  const ZipfSampler popularity(o.flows, o.alpha);
  for (std::uint64_t i = o.flows; i < o.packets; ++i) ++trace.packets_per_flow[popularity(rng) - 1];

  std::vector<std::uint32_t> order;
  order.reserve(o.packets);
  for (std::uint32_t f = 0; f < o.flows; ++f) {
    order.insert(order.end(), trace.packets_per_flow[f], f);
  }
  for (std::size_t i = order.size(); i > 1; --i) {
    std::swap(order[i - 1], order[ReduceRange(rng.Next(), i)]);
  }

  trace.records.resize(o.packets);
  double offset_ns = 0;  // from the start; a double holds it to well under 1 ns
  for (std::size_t i = 0; i < order.size(); ++i) {
    TraceRecord& r = trace.records[i];
    r.flow = trace.flows[order[i]];
    offset_ns += -std::log1p(-UnitDouble(rng)) * 1000.0;  // exponential gap, mean 1 us
    r.timestamp_ns = kStartNs + static_cast<std::uint64_t>(offset_ns);
    r.wire_length = WireLength(r.flow, rng);
  }
  return trace;
}

}  // namespace amq
