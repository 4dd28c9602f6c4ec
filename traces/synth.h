// traces/synth.h - a synthetic trace shaped like a CAIDA backbone capture, for machines that
// have no real one. Deterministic by seed: the same options give the same bytes.
//
// Flows. F distinct 5-tuples, each sent at least one packet; the remaining P - F packets go to
// flows drawn by Zipf(alpha) popularity over the flows' ranks. So a few flows are heavy (rank 1
// gets ~ (P - F) / H(F, alpha) packets) while the tail keeps its single packet: the many
// one-packet flows and the heavy head that backbone traces show. Packets of all flows are
// interleaved by a seeded shuffle; timestamps advance by exponential gaps (mean 1 us).
//
// Addresses. IPv4: 300 /16 prefixes from the unicast space (no 0/8, 10/8, 127/8, multicast or
// reserved), client and server prefixes each picked by Zipf(1) popularity; within a prefix the
// client is one of 65534 hosts and the server one of 256, again by Zipf(1), so busy hosts open
// many flows (source and address-pair keys recur, as in real traces). IPv6 (a fraction of the
// flows): 100 /48s under 2000::/3 likewise, clients with random-looking interface ids, servers
// with small ones (::1 .. ::ff).
//
// Protocols and ports. ~80% TCP, ~17% UDP, ~2.5% ICMP/ICMPv6, ~0.5% GRE/ESP (no ports). Server
// ports follow the usual weights (TCP 443, 80, 22, 25, 8080, ...; UDP 53, 443 (QUIC), 123, ...)
// with a tenth random; client ports are ephemeral (32768-60999). Packet lengths are bimodal:
// ~40% header-only (ACKs), ~40% full 1500-byte frames, the rest in between.
#pragma once

#include <cstdint>
#include <vector>

#include "traces/flow.h"

namespace amq {

struct SynthOptions {
  std::uint64_t packets = 1000000;
  std::uint64_t flows = 100000;
  double alpha = 1.2;  // Zipf exponent of flow popularity, >= 0 (1.2: ~55% one-packet flows)
  std::uint64_t seed = 1;
  double ipv6_fraction = 0.05;  // of flows
};

struct SynthTrace {
  std::vector<TraceRecord> records;             // the packets, in time order
  std::vector<FlowKey> flows;                   // distinct, by popularity rank
  std::vector<std::uint64_t> packets_per_flow;  // same order as flows
};

// Throws InputError for options that cannot be met (packets < flows, alpha < 0, ...).
void ValidateSynthOptions(const SynthOptions& options);
SynthTrace SynthesizeTrace(const SynthOptions& options);

}  // namespace amq
