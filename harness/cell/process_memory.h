// harness/cell/process_memory.h - how much memory a cell takes and how much the machine has.
//
// Three measurements, all from Linux's /proc and cgroup files:
//   - the peak resident set of this process while one cell ran: VmHWM after the high-water
//     mark was reset to the current RSS at the cell's start (writing "5" to
//     /proc/self/clear_refs, Linux 4.0+). It includes what the process held before the cell
//     (the binary, the allocator's retained free memory), so it is what the cell needed the
//     machine to have, not what the cell allocated;
//   - the memory available to a new allocation: MemAvailable, or the cgroup v2 limit minus
//     current usage when that is lower (a container's limit is what the OOM killer enforces);
//   - the peak a piece of work adds, measured in a forked child: the child's resident set
//     grows only by the pages the work touches (large blocks come fresh from mmap there), so
//     the growth from the mark to the peak is the work's own footprint, scratch included.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace amq {

// Resets the peak RSS to the current RSS; false where the kernel does not allow it.
bool ResetPeakRss();
// VmHWM: the peak RSS since the last reset (or since the process started).
std::optional<std::uint64_t> PeakRssBytes();

struct AvailableMemory {
  std::uint64_t bytes = 0;
  std::string source;  // "MemAvailable" or "cgroup memory.max"
};
std::optional<AvailableMemory> AvailableMemoryBytes();

// Runs `work` in a forked child. `work` calls mark() once its inputs are made, and again once
// its result is made, before freeing anything; the result is how far the child's resident set
// rose above its size at the first mark() (nullopt if the child could not be started or did
// not report).
std::optional<std::uint64_t> PeakGrowthInChild(
    const std::function<void(const std::function<void()>& mark)>& work);

// How far a difference of two VmRSS/VmHWM readings can be from the truth on a machine with
// `cpus` CPUs: three per-CPU counters (file, anonymous, shared-memory pages), each holding up
// to percpu_counter_batch = max(32, 2 x cpus) pages per CPU not yet folded in, in each reading.
inline std::uint64_t RssCounterError(std::uint64_t cpus) {
  const std::uint64_t batch = cpus * 2 > 32 ? cpus * 2 : 32;
  return 2 * 3 * batch * cpus * 4096;
}

// A build's growth from the counted peak (VmHWM less VmRSS at the start, off by up to
// `counter_error`) and the exact growth at its end (smaps_rollup): the exact figure, plus what
// of the counted peak lies beyond the counters' error above it. Continuous in both readings, so
// two builds a little apart never land on the two sides of a switch.
inline std::uint64_t GrowthFromReadings(std::uint64_t counted, std::uint64_t exact,
                                        std::uint64_t counter_error) {
  return exact + (counted > exact + counter_error ? counted - exact - counter_error : 0);
}

// Keeps the memory this process frees for its next allocations: no block below 1 GiB gets a
// mapping of its own, and nothing is handed back to the kernel. A kind that builds filter after
// filter then builds on pages already faulted in, not on the kernel's page faults and zeroing:
// glibc's default maps each large block fresh (its threshold rises only to 32 MiB) and trims the
// heap's free top, and build_failures spent 70 of its 186 s in the kernel that way (binary fuse,
// n = 10^3 to 10^5, 100 key sets each). The process's peak resident set stays what its largest
// cell needed. Settings for the whole process, not undone; the kinds that build filter after
// filter (filters, fill_step, build_failures) call it before their builds.
void KeepFreedMemory();

// "1.5 GiB", "312 MiB", "40 KiB".
std::string FormatBytes(double bytes);

}  // namespace amq
