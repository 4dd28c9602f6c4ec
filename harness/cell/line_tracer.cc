// harness/cell/line_tracer.cc - cache lines touched, by page protection and single-stepping (see
// the header).
#include "harness/cell/line_tracer.h"

#include <algorithm>

#if defined(__x86_64__) && defined(__linux__) && !defined(__SANITIZE_ADDRESS__)
#define AMQ_LINE_TRACER 1
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#else
#define AMQ_LINE_TRACER 0
#endif

namespace amq {

#if AMQ_LINE_TRACER
namespace {

constexpr long long kTrapFlag = 0x100;  // EFLAGS.TF: trap after the next instruction

// The handlers' state. The record buffer is mapped on pages of its own, so it can never share
// a page with the traced region (the handler writing to it would fault on itself).
std::uintptr_t g_lo = 0, g_hi = 0;  // the protected pages
std::uintptr_t g_page = 0;          // the page size
std::uintptr_t* g_record = nullptr;
std::size_t g_capacity = 0;
volatile std::size_t g_count = 0;
// The pages the current instruction was let through (more than one when an access straddles a
// page boundary, or a gather reads several pages), closed again after it ran. While any is
// open the instruction is being stepped: its later faults open their pages but count no line,
// so such an instruction counts once, as one straddling two lines inside a page does.
constexpr std::size_t kMaxOpenPages = 16;  // a 16-lane gather
std::uintptr_t g_open[kMaxOpenPages] = {};
volatile std::size_t g_open_count = 0;

void OnFault(int, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  if (address < g_lo || address >= g_hi || g_open_count == kMaxOpenPages) {
    // A real crash, not our pages: let it happen with the default action.
    signal(SIGSEGV, SIG_DFL);
    return;
  }
  if (g_open_count == 0) {
    if (g_count < g_capacity) g_record[g_count] = address / kTracedLineBytes;
    g_count = g_count + 1;
  }
  // Only the faulting page is opened, not the region: a page's protection costs the same
  // whatever the region's size, where the whole region's grew with it (a filter of 1.5 MB is
  // 384 pages) and made the locality experiments most of the untimed suite's time.
  const std::uintptr_t page = address / g_page * g_page;
  mprotect(reinterpret_cast<void*>(page), g_page, PROT_READ | PROT_WRITE);
  g_open[g_open_count] = page;
  g_open_count = g_open_count + 1;
  static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_EFL] |= kTrapFlag;
}

void OnTrap(int, siginfo_t*, void* context) {
  static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_EFL] &= ~kTrapFlag;
  for (std::size_t i = 0; i < g_open_count; ++i) mprotect(reinterpret_cast<void*>(g_open[i]), g_page, PROT_NONE);
  g_open_count = 0;
}

}  // namespace

bool LineTracingAvailable() { return true; }

// The handlers' pointers are process-wide, hence one session at a time.
struct sigaction g_old_fault = {}, g_old_trap = {};

LineTraceSession::LineTraceSession(std::span<const std::uint8_t> region, std::size_t max_accesses)
    : region_(region) {
  if (region.empty()) return;
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  g_page = page;
  g_open_count = 0;
  const auto begin = reinterpret_cast<std::uintptr_t>(region.data());
  g_lo = begin / page * page;
  g_hi = (begin + region.size() + page - 1) / page * page;
  buffer_bytes_ = (max_accesses * sizeof(std::uintptr_t) + page - 1) / page * page;
  buffer_ = mmap(nullptr, buffer_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buffer_ == MAP_FAILED) {
    buffer_ = nullptr;
    return;
  }
  g_record = static_cast<std::uintptr_t*>(buffer_);
  g_capacity = max_accesses;

  struct sigaction fault = {}, trap = {};
  fault.sa_sigaction = OnFault;
  fault.sa_flags = SA_SIGINFO;
  sigemptyset(&fault.sa_mask);
  trap.sa_sigaction = OnTrap;
  trap.sa_flags = SA_SIGINFO;
  sigemptyset(&trap.sa_mask);
  sigaction(SIGSEGV, &fault, &g_old_fault);
  sigaction(SIGTRAP, &trap, &g_old_trap);
  ready_ = mprotect(reinterpret_cast<void*>(g_lo), g_hi - g_lo, PROT_NONE) == 0;
}

LineTraceSession::~LineTraceSession() {
  if (buffer_ == nullptr) return;
  mprotect(reinterpret_cast<void*>(g_lo), g_hi - g_lo, PROT_READ | PROT_WRITE);
  sigaction(SIGSEGV, &g_old_fault, nullptr);
  sigaction(SIGTRAP, &g_old_trap, nullptr);
  munmap(buffer_, buffer_bytes_);
  g_record = nullptr;
}

std::optional<std::vector<std::uintptr_t>> LineTraceSession::Trace(const std::function<void()>& fn) {
  if (region_.empty()) {
    fn();
    return std::vector<std::uintptr_t>{};
  }
  if (!ready_) return std::nullopt;
  g_count = 0;
  fn();
  if (g_count > g_capacity) return std::nullopt;
  std::vector<std::uintptr_t> lines(g_record, g_record + g_count);
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  return lines;
}

std::optional<std::vector<std::uintptr_t>> TraceLines(std::span<const std::uint8_t> region,
                                                      const std::function<void()>& fn,
                                                      std::size_t max_accesses) {
  LineTraceSession session(region, max_accesses);
  return session.Trace(fn);
}

#else

bool LineTracingAvailable() { return false; }

LineTraceSession::LineTraceSession(std::span<const std::uint8_t> region, std::size_t) : region_(region) {}
LineTraceSession::~LineTraceSession() = default;
std::optional<std::vector<std::uintptr_t>> LineTraceSession::Trace(const std::function<void()>&) {
  return std::nullopt;
}

std::optional<std::vector<std::uintptr_t>> TraceLines(std::span<const std::uint8_t>,
                                                      const std::function<void()>&, std::size_t) {
  return std::nullopt;
}

#endif

}  // namespace amq
