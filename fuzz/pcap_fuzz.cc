// fuzz/pcap_fuzz.cc - feeds ReadTrace a capture: the format detection every command reads
// through, then libpcap (pcap) or traces/pcapng_reader.cc (pcapng), and the link-layer/IP
// decoder of traces/pcap_reader.cc (a mutation that turns the bytes into text or an amqtrace
// goes to those readers). fuzz/findings/*.pcap join the seed corpus (scripts/fuzz.sh).
// Finding: a crash, a sanitizer report, an exception other than InputError, a hang, running out
// of memory, or a summary that does not add up (fuzz/trace_check.h).
#include "fuzz/trace_check.h"
#include "traces/trace_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  amq::fuzz::ReadAndCheckTrace(&amq::ReadTrace, data, size);
  return 0;
}
