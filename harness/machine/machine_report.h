// harness/machine/machine_report.h - a machine measurement (harness/machine/machine_measure.h) as result-file
// records: which points are measured, one "machine" record per point, the cache levels read
// off the latency curve beside the caches the system reports, the short summary a run's
// context carries (run/suite --machine), and the table printed for people.
//
// Machine lines are their own record type, "machine", not "cell": a cell line is one filter
// measured (the schema requires `filter` on it), and no filter runs here. They keep the identity
// every data line has (cell_id, experiment, kind, seed), so two machines compare point for
// point on cell_id, as two runs of a suite do.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "harness/machine/machine_measure.h"
#include "harness/run/result_file.h"

namespace amq {

// The smallest largest working set a run may ask for: the latency curve needs room past L2.
inline constexpr std::size_t kMachineMinBytes = std::size_t{1} << 22;

// The machine's default thread counts: DefaultThreadCounts (harness/machine/thread_team.h) but 1.
std::vector<int> DefaultMachineThreads();

struct MachineRunOptions {
  std::size_t max_bytes = std::size_t{1} << 30;
  HugePages huge_pages = HugePages::kAuto;
  MachineTiming timing;
  std::string experiment = "machine";  // the records' experiment field
  // Thread counts of the threaded points (random_lines_threads, sequential_threads at every
  // throughput size, after the single-thread points): by default 2, 4, ... up to the CPUs this
  // process may use, and that count; empty: none (the context's --machine summary). Not empty,
  // with two CPUs or more: the line_handoff point too, between the placement's first two CPUs.
  std::vector<int> threads = DefaultMachineThreads();
  // The random_lines points again on a second buffer of the kernel's default pages (no madvise:
  // random_lines_default_pages), the pages every filter's table gets: the ceiling a filter's
  // lookups are set against (issue 26: measured on the page size the filters use). Skipped
  // where huge_pages is already kDefault, and in the context's summary.
  bool default_pages_lines = true;
};

// Short runs for tests and for a run's context: 64 MiB at most, 3 repeats of >= 2 ms.
MachineRunOptions QuickMachineOptions();

struct MachinePoint {
  std::string test;  // latency, random_lines, random_lines_default_pages, sequential,
                     // random_lines_threads, sequential_threads, line_handoff, cache_levels
  std::size_t working_set_bytes = 0;  // 0 for line_handoff and cache_levels
  Json identity;     // what cell_id hashes: kind, test and working set
  std::string cell_id;
  int threads = 1;   // the *_threads points' T
  std::vector<int> cpus;  // line_handoff: the two CPUs the line goes between
};
// In the order measured: latency at every size, random lines (on the buffer's pages, then on the
// default pages' buffer), sequential, then per thread count
// the threaded random lines and sequential reads, the line handoff, and the cache_levels summary
// last. The handoff's identity is its test alone: its CPUs are recorded, not matched on, so two
// machines' handoffs compare whichever CPUs each placement put first.
std::vector<MachinePoint> PlanMachine(const MachineRunOptions& options);

// Bytes the measurement holds at its peak: the buffer and the permutation of its lines, and the
// default pages' buffer beside them where its points are planned.
std::size_t MachineMemoryNeeded(std::size_t max_bytes, bool default_pages_buffer = false);
// Whether a plan measures random_lines_default_pages (on a buffer of their own).
bool PlansDefaultPagesLines(const MachineRunOptions& options);

// Measures one planned point in `buffer` (at least options.max_bytes; for
// random_lines_default_pages, the default pages' buffer) and returns its record;
// latency points add themselves to `curve`, which the cache_levels point reads.
Json MeasureMachinePoint(const MachineRunOptions& options, const MachineBuffer& buffer,
                         const MachinePoint& point, std::vector<LatencyPoint>& curve);

// A few words about a record for progress lines: "latency 4 KiB: 1.02 ns/load",
// "line_handoff CPUs 0, 1: 412 ns/handoff [380, 520]".
std::string DescribeMachineRecord(const Json& record);

// The cache_levels record's fields for a latency curve: levels (plateaus, each beside the
// reported cache nearest its capacity when one is within a factor of 2), steps,
// reported_caches.
Json CacheLevelsFields(const std::vector<LatencyPoint>& curve, const std::vector<ReportedCache>& reported,
                       std::size_t largest_bytes);

// What a result's context carries under "machine": the plateaus, the random-line ceiling and
// the sequential bandwidth at the largest size, and whether huge pages backed the buffer.
Json MachineSummary(const std::vector<Json>& records);

// Measures this machine briefly (QuickMachineOptions, a few seconds) and returns its
// MachineSummary: what run and suite --machine put in the context.
Json QuickMachineSummary();

// The records as a table for people: the latency curve, the levels beside the reported
// caches, the random-line ceiling, the bandwidth and the line handoff.
std::string MachineTable(const std::vector<Json>& records);

}  // namespace amq
