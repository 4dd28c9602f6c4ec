// harness/kinds/concurrent_inserts_kind.h - the concurrent_inserts kind: T threads loading one
// filter at once through its concurrent insert mode (core/concurrent_insert.h; issue 24, item 2),
// and the speedup over one thread.
//
// The CQF and VQF papers report insert throughput against threads, and a store that loads a
// filter from several writers needs to know what sharing it costs. For each selected filter
// (those with the mode: filters/all.h's ConcurrentInsertFilters), n and T: a fresh filter sized
// for n keys is made and its pages written (untimed: the constructor zero-fills them, so no
// thread faults a page inside the timed loop), then T pinned threads start at one barrier
// (harness/machine/thread_team.h) and thread t inserts keys [t n / T, (t+1) n / T) of one key
// set, the same at every T. Inserts per second are n / the wall time to the last thread's end,
// the median of `repeats` timed runs after an untimed warm-up run, with min and max; the speedup
// is that median over the T = 1 cell's. Every run, warm-up included, is checked against the
// exact key set afterwards: every key whose insert was accepted must be found
// (false_negatives, which must be 0). The filter's locks (InsertLocks, one byte each) are
// reported beside its bytes.
//
// One-thread cells run the same insert_concurrent as the others: its atomics and locks cost
// something against the sequential insert(), which the micro kind times; the speedup is the
// mode against itself, the honest base for "how far does it scale".
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "harness/cell/registry.h"
#include "harness/run/kind.h"

namespace amq {

struct ConcurrentInsertsParams {
  std::vector<const FilterEntry*> filters;
  std::vector<std::size_t> keys;  // n, one set of cells per n
  std::vector<int> threads;       // T, ascending, 1 first
  std::size_t queries = 100000;   // fresh non-members looked up after the last run (its FPR)
  double fpr = 0.01;
  int repeats = 5;
  std::uint64_t seed = 1;
};

std::unique_ptr<ExperimentPlan> MakeConcurrentInsertsPlan(const ConcurrentInsertsParams& params);

extern const KindSpec kConcurrentInsertsKind;

}  // namespace amq
