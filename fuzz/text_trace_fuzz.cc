// fuzz/text_trace_fuzz.cc - feeds ReadTextTrace (traces/trace_io.cc) a text trace: one packet
// a line, "src dst proto sport dport [timestamp_ns]", addresses parsed by traces/flow.cc.
// Finding: a crash, a sanitizer report, an exception other than InputError, a hang, running out
// of memory, or a summary that does not add up (fuzz/trace_check.h).
#include "fuzz/trace_check.h"
#include "traces/trace_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  amq::fuzz::ReadAndCheckTrace(&amq::ReadTextTrace, data, size);
  return 0;
}
