// harness/kinds/machine_kind.h - the suite's `machine` kind: `amqbench machine` as an
// experiment, so the report's machine curves and the random-line ceiling that speed_vs_n divides
// by come from the same suite run as the filters they are set beside.
//
// Each planned point (harness/machine/machine_report.h: latency per working set, random lines,
// sequential reads, and the cache_levels summary last) is one cell of the runner, written as a
// "machine" record with the identity `amqbench machine --out` gives it, so a suite's machine
// file and a stand-alone one compare point for point. The buffer (max_bytes, pre-faulted) is
// mapped when the first point runs and released after the last. The threaded points (random
// lines and sequential reads on T threads, `threads`: by default 2, 4, ... up to the CPUs and
// that count) come after the single-thread ones, whose records and cell ids they leave as they
// were: the host's ceiling at T threads, which the threads kind's report sets each filter against.
// With them, where two CPUs are ours, the line handoff: ns for one cache line to pass between
// the placement's first two CPUs, the price of every shared write two inserting threads make.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "harness/machine/machine_report.h"
#include "harness/run/kind.h"
#include "harness/run/runner.h"

namespace amq {

struct MachineParams {
  std::size_t max_bytes = std::size_t{1} << 30;
  int repeats = 5;
  double min_seconds = 0.2;  // each repeat at least this long (CPU time; wall time on threads)
  std::uint64_t min_operations = std::uint64_t{1} << 20;  // and at least this many loads
  HugePages huge_pages = HugePages::kAuto;
  std::uint64_t seed = 1;
  std::vector<int> threads;  // the threaded points' thread counts (MachineRunOptions::threads);
                             // empty: no threaded points and no line handoff
};

std::unique_ptr<ExperimentPlan> MakeMachinePlan(const MachineParams& params, const std::string& experiment);

// The kind's declaration: the suite's machine experiments and `amqbench machine` read it.
extern const KindSpec kMachineKind;

}  // namespace amq
