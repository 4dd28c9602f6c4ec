// fuzz/amqtrace_fuzz.cc - feeds ReadBinaryTrace (traces/trace_io.cc) an "amqtrace" file: the
// 32-byte header, the record count checked against the file size, the records.
// Finding: a crash, a sanitizer report, an exception other than InputError, a hang, running out
// of memory, or a summary that does not add up (fuzz/trace_check.h).
#include "fuzz/trace_check.h"
#include "traces/trace_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  amq::fuzz::ReadAndCheckTrace(&amq::ReadBinaryTrace, data, size);
  return 0;
}
