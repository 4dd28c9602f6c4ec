// fuzz/pcap_fuzz.cc - feeds ReadTrace a capture: the format detection every command reads
// through, then libpcap and the link-layer/IP decoder of traces/pcap_reader.cc (pcap and
// pcapng; a mutation that turns the bytes into text or an amqtrace goes to those readers).
// Finding: a crash, a sanitizer report, an exception other than InputError, a hang, running out
// of memory, or a summary that does not add up (fuzz/trace_check.h).
#include "fuzz/trace_check.h"
#include "traces/trace_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Any address pair: an IPv6 packet may carry an IPv4-mapped address on one side only.
  amq::fuzz::ReadAndCheckTrace(&amq::ReadTrace, amq::fuzz::Families::kAnyAddresses, data, size);
  return 0;
}
