// harness/machine/machine_measure.h - the machine itself, measured: what any filter running here can
// reach at best, so a filter's lookup time can be read against the memory it touches.
//
// Three measurements over one pre-faulted buffer, each a plain function returning numbers, and
// one between two CPUs:
//   - dependent-load latency: a pointer chase through a random cyclic permutation of
//     cache-line-sized nodes (Sattolo's algorithm), so every load waits for the one before
//     and no prefetcher can guess the next line; from 4 KiB to GiBs it steps up once per
//     cache level and once more at DRAM;
//   - random-line throughput: 16 independent streams of random line indices, so many loads
//     are in flight at once; the ceiling any filter whose lookup touches one random cache
//     line can reach (lines per second);
//   - sequential read bandwidth: 64-bit words summed in order;
//   - line handoff: two threads pinned to two CPUs take turns writing one counter on a cache
//     line of its own, each waiting for the other's write; ns per one-way handoff is what
//     every write to a line the other CPU wrote last pays (a shared filter's word or lock, two
//     threads inserting at once), and why two threads can insert slower than one.
// Each point is timed R times after a calibration pass (which also warms caches and TLBs),
// on the thread's CPU clock (a shared machine's other work is not counted as ours; the
// threaded points and the handoff, whose threads spin on each other, on the wall clock); the
// median is reported beside the min and max. Nothing here formats output.
//
// Pages: with transparent huge pages the buffer is one 2 MiB-aligned madvise(MADV_HUGEPAGE)
// mapping, so the large sizes measure memory, not page walks; with 4 KiB pages a random load
// over GiBs also misses the TLB and pays a page walk, and the latencies say so by recording
// which pages backed the buffer (read back from /proc/self/smaps, not assumed).
//
// (Named _measure, not _bench: harness/*_bench.cc are the Google Benchmark micro-benchmarks.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/random_lines.h"
#include "core/stats.h"

namespace amq {

inline constexpr std::size_t kCacheLineBytes = kRandomLineBytes;  // one definition of the line
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// kDefault asks for nothing (no madvise): the pages any allocation gets, a filter's table among
// them (std::vector memory): 4 KiB under THP "madvise" or "never", huge pages under "always".
enum class HugePages { kAuto, kOn, kOff, kDefault };
HugePages ParseHugePages(const std::string& text);  // auto|on|off|default; throws InputError
const char* HugePagesName(HugePages mode);

// The kernel's transparent-huge-page mode: "always", "madvise" or "never" (the bracketed word
// of /sys/kernel/mm/transparent_hugepage/enabled), or "" where the file is absent.
std::string TransparentHugePageMode();

// An anonymous mapping of at least `bytes`, every page touched before it is returned.
// kAuto asks for huge pages where the kernel offers them; kOn insists (InputError where THP is
// "never" or absent); kOff forbids them (MADV_NOHUGEPAGE, even under THP "always"); kDefault
// leaves the kernel's default (no madvise), as a filter's allocation does.
class MachineBuffer {
 public:
  MachineBuffer(std::size_t bytes, HugePages mode);
  ~MachineBuffer();
  MachineBuffer(const MachineBuffer&) = delete;
  MachineBuffer& operator=(const MachineBuffer&) = delete;

  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool huge_pages_requested() const { return huge_requested_; }
  // Share of the buffer backed by huge pages after pre-faulting (AnonHugePages / size).
  double huge_page_fraction() const { return huge_fraction_; }
  // "Mostly huge pages": at least 90% of the buffer.
  bool huge_pages() const { return huge_fraction_ >= 0.9; }

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t mapped_ = 0;
  bool huge_requested_ = false;
  double huge_fraction_ = 0;
};

// How long each point is timed.
struct MachineTiming {
  int repeats = 5;                          // timed repeats per point
  double min_seconds = 0.2;                 // each repeat runs at least this long (CPU time; wall
                                            // time on threads and for the line handoff)
  std::uint64_t min_operations = 1u << 20;  // and at least this many loads (sequential: lines;
                                            // line handoff: 1/64 as many round trips)
  std::uint64_t seed = 1;                   // of the permutation and the random streams
};

// One point's R repeats: median, fastest and slowest (in the measurement's own unit), as
// core/stats.h's Summarize gives them.
using Spread = Summary;

// ns per dependent load over the first `working_set` bytes of `buffer`.
Spread MeasureLatency(const MachineBuffer& buffer, std::size_t working_set, const MachineTiming& timing);
// Independent random cache-line reads per second over the first `working_set` bytes: 16
// streams of plain loads (as many in flight as the core's window holds), or the same lines each
// prefetched 64 lines before it is loaded (as many as the miss buffers hold). The ceiling of a
// lookup is the faster of the two.
enum class RandomLinesMethod { kLoads, kPrefetch };
const char* RandomLinesMethodName(RandomLinesMethod method);
Spread MeasureRandomLines(const MachineBuffer& buffer, std::size_t working_set, const MachineTiming& timing,
                          RandomLinesMethod method = RandomLinesMethod::kLoads);
// Bytes read per second, in order, over the first `working_set` bytes.
Spread MeasureSequential(const MachineBuffer& buffer, std::size_t working_set, const MachineTiming& timing);

// The random-line and sequential rates on `threads` threads at once (harness/machine/thread_team.h:
// pinned, started by one barrier), for the ceiling of T threads' lookups: every thread reads
// random lines over the whole working set (as T threads read one shared filter), each with its
// own 16 streams; for sequential reads thread t sums its own 1/T of the working set. The rate is
// the operations of all threads over the wall time from the barrier to the last thread's end
// (not CPU time, as the single-thread points are: T threads' ceiling is what they reach
// together), each repeat at least min_seconds of it. cpu_share is the median of the repeats'
// (under 1: threads lost time slices, and the rate is low by about that much).
struct ThreadedSpread {
  Spread spread;  // in the measurement's unit: a rate, or the line handoff's ns
  double cpu_share = 0;
  std::vector<int> cpus, cpus_seen;  // of the last repeat
  bool pinned = false;
};
ThreadedSpread MeasureRandomLinesThreads(const MachineBuffer& buffer, std::size_t working_set, const MachineTiming& timing,
                                         RandomLinesMethod method, int threads);
ThreadedSpread MeasureSequentialThreads(const MachineBuffer& buffer, std::size_t working_set, const MachineTiming& timing,
                                        int threads);

// ns per one-way handoff of one 64-byte line between a thread pinned to cpu_a and one pinned to
// cpu_b (round trip / 2), over the wall time of each repeat (at least min_seconds of it) after
// untimed warm-up runs. A waiting thread spins with a pause hint and yields its CPU now and
// then, so a descheduled partner (or pinning refused: `pinned` false, both threads perhaps on
// one CPU) slows the figure but never hangs it; cpu_share under 1 says a partner was away.
ThreadedSpread MeasureLineHandoff(int cpu_a, int cpu_b, const MachineTiming& timing);

// Latency sizes: powers of two and the 1.5x steps between them, from 4 KiB up to max_bytes
// (max_bytes itself last when it is neither).
std::vector<std::size_t> LatencySizes(std::size_t max_bytes);
// Throughput sizes (random lines, sequential): powers of four from 16 KiB (one in L1, one in
// L2, ..., every level gets a point or two), and max_bytes last.
std::vector<std::size_t> ThroughputSizes(std::size_t max_bytes);

// A data or unified cache of CPU 0 as the system reports it.
struct ReportedCache {
  int level = 0;
  std::string type;    // "Data", "Unified"
  std::uint64_t bytes = 0;
  std::string source;  // "sysfs" or "sysconf" (glibc's CPUID view, where sysfs has none)
};
// Smallest level first; instruction caches left out (a load never goes there).
std::vector<ReportedCache> ReportedCaches();
// "48 KiB", "1 MiB": the sizes in tables and cache names.
std::string FormatCacheSize(std::uint64_t bytes);

// The latency curve cut into plateaus: one per cache level found, and the memory behind them.
struct LatencyPoint {
  std::size_t bytes = 0;
  double ns = 0;
};
struct CacheLevel {
  double ns_per_load = 0;  // the plateau's latency (median of its points)
  // The largest size still on the plateau: the level's capacity as the curve shows it. None
  // for the last plateau (memory, or the largest level the sizes reached).
  std::optional<std::size_t> capacity_bytes;
};
// Steps are where latency rises by more than `step_ratio` over a doubling of the working set;
// neighbouring rising sizes are one step (a level's edge is gradual: half a working set twice
// the cache still hits). Upward noise is taken out first: latency never falls as the working
// set grows, so each point is replaced by the lowest latency at its size or above.
std::vector<CacheLevel> DetectCacheLevels(const std::vector<LatencyPoint>& curve, double step_ratio = 1.5);

}  // namespace amq
