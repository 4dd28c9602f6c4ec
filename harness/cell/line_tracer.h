// harness/cell/line_tracer.h - which 64-byte cache lines of a memory region a piece of code reads:
// memory locality per lookup, counted from the addresses the code itself touches, not timed.
//
// How: the region's pages are made inaccessible (mprotect PROT_NONE) and the code is run. Each
// access to them faults; the SIGSEGV handler records the line of the faulting address, opens
// that page and sets the trap flag, so the faulting instruction runs once more and then traps;
// the SIGTRAP handler closes the page again. Every access to the region is therefore seen, in
// order, at the address it starts at. What it cannot see: the second line of one access that
// straddles two lines (an unaligned word at a line boundary), and the lines after the first of
// one instruction that reads several (a gather); both count once. Lines are counted over whole
// pages around the region, so storage a filter reads just past its reported bytes (a padding
// block) is counted too.
//
// x86-64 Linux only (the trap flag and the signal context are the CPU's and the kernel's);
// elsewhere, and under AddressSanitizer (which owns SIGSEGV), Available() is false. Not
// thread-safe: one trace at a time per process, and the traced code must not allocate or touch
// other data on the region's pages from another thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace amq {

// The line size traced (machine_measure.h's kCacheLineBytes is the same 64; this header stays
// free of that one's dependencies).
inline constexpr std::size_t kTracedLineBytes = 64;

// Whether TraceLines works in this build on this machine.
bool LineTracingAvailable();

// Traces many calls over one region: the region's pages are protected once, when the session
// starts, and opened again when it ends, so each traced call pays only for the pages it touches
// (protecting the whole region around every call cost time in proportion to the filter's size:
// most of the locality experiments' time). While a session is open nothing but the traced calls
// may touch the region, and no second session may start.
class LineTraceSession {
 public:
  explicit LineTraceSession(std::span<const std::uint8_t> region, std::size_t max_accesses = 1 << 16);
  ~LineTraceSession();
  LineTraceSession(const LineTraceSession&) = delete;
  LineTraceSession& operator=(const LineTraceSession&) = delete;

  // The distinct lines (address / 64, ascending) that `fn` touched in the pages spanning the
  // region; nullopt when tracing is not available or more than `max_accesses` faults happened.
  std::optional<std::vector<std::uintptr_t>> Trace(const std::function<void()>& fn);

 private:
  // Unused where tracing is unavailable (the twin that returns nullopt).
  [[maybe_unused]] std::span<const std::uint8_t> region_;
  [[maybe_unused]] std::size_t buffer_bytes_ = 0;
  [[maybe_unused]] void* buffer_ = nullptr;
  [[maybe_unused]] bool ready_ = false;
};

// One call traced in a session of its own.
std::optional<std::vector<std::uintptr_t>> TraceLines(std::span<const std::uint8_t> region,
                                                      const std::function<void()>& fn,
                                                      std::size_t max_accesses = 1 << 16);

}  // namespace amq
