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
std::uintptr_t* g_record = nullptr;
std::size_t g_capacity = 0;
volatile std::size_t g_count = 0;

void OnFault(int, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  if (address < g_lo || address >= g_hi) {
    // A real crash, not our pages: let it happen with the default action.
    signal(SIGSEGV, SIG_DFL);
    return;
  }
  if (g_count < g_capacity) g_record[g_count] = address / kTracedLineBytes;
  g_count = g_count + 1;
  mprotect(reinterpret_cast<void*>(g_lo), g_hi - g_lo, PROT_READ | PROT_WRITE);
  static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_EFL] |= kTrapFlag;
}

void OnTrap(int, siginfo_t*, void* context) {
  static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_EFL] &= ~kTrapFlag;
  mprotect(reinterpret_cast<void*>(g_lo), g_hi - g_lo, PROT_NONE);
}

}  // namespace

bool LineTracingAvailable() { return true; }

std::optional<std::vector<std::uintptr_t>> TraceLines(std::span<const std::uint8_t> region,
                                                      const std::function<void()>& fn,
                                                      std::size_t max_accesses) {
  if (region.empty()) {
    fn();
    return std::vector<std::uintptr_t>{};
  }
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(region.data());
  g_lo = begin / page * page;
  g_hi = (begin + region.size() + page - 1) / page * page;
  const std::size_t buffer_bytes = (max_accesses * sizeof(std::uintptr_t) + page - 1) / page * page;
  void* buffer = mmap(nullptr, buffer_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buffer == MAP_FAILED) return std::nullopt;
  g_record = static_cast<std::uintptr_t*>(buffer);
  g_capacity = max_accesses;
  g_count = 0;

  struct sigaction fault = {}, trap = {}, old_fault = {}, old_trap = {};
  fault.sa_sigaction = OnFault;
  fault.sa_flags = SA_SIGINFO;
  sigemptyset(&fault.sa_mask);
  trap.sa_sigaction = OnTrap;
  trap.sa_flags = SA_SIGINFO;
  sigemptyset(&trap.sa_mask);
  sigaction(SIGSEGV, &fault, &old_fault);
  sigaction(SIGTRAP, &trap, &old_trap);
  const bool protected_ok = mprotect(reinterpret_cast<void*>(g_lo), g_hi - g_lo, PROT_NONE) == 0;
  if (protected_ok) fn();
  mprotect(reinterpret_cast<void*>(g_lo), g_hi - g_lo, PROT_READ | PROT_WRITE);
  sigaction(SIGSEGV, &old_fault, nullptr);
  sigaction(SIGTRAP, &old_trap, nullptr);

  std::optional<std::vector<std::uintptr_t>> lines;
  if (protected_ok && g_count <= g_capacity) {
    lines.emplace(g_record, g_record + g_count);
    std::sort(lines->begin(), lines->end());
    lines->erase(std::unique(lines->begin(), lines->end()), lines->end());
  }
  munmap(buffer, buffer_bytes);
  g_record = nullptr;
  return lines;
}

#else

bool LineTracingAvailable() { return false; }

std::optional<std::vector<std::uintptr_t>> TraceLines(std::span<const std::uint8_t>,
                                                      const std::function<void()>&, std::size_t) {
  return std::nullopt;
}

#endif

}  // namespace amq
