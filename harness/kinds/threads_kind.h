// harness/kinds/threads_kind.h - the threads kind: a filter's lookups on T threads at once, and
// the speedup over one thread (issue 24, item 1).
//
// The VQF, CQF and BuRR papers report lookup throughput against threads; a single thread never
// loads the memory system, which is what differs most between the machines people compare. For
// each selected filter and n, two layouts:
//   - shared: one filter of n keys, built once, read by T threads at the same time, each with its
//     own slice (Q / T keys) of one query stream. The stream is the same for every T, so the
//     counts found are the same at every T (a deterministic field CI can compare);
//   - per_thread: T filters of n / T keys each, thread t building its own (pinned, so its memory
//     is first touched on its own CPU's node) and looking up only its own keys and fresh
//     non-members: how a sharded store uses filters (a key is routed to its shard first). n / T,
//     not n each: the store holds n keys whatever its shard count, so both layouts hold the same
//     keys in about the same bytes, and the comparison is sharing against partitioning, not one
//     filter against T times the memory. T = 1 of this layout is the shared layout's T = 1 (one
//     filter of n keys on one thread): it is not run twice, and per_thread's speedup divides by it.
// Three query streams of Q keys each: members (sampled from the keys the filter holds, with
// replacement), non-members (fresh keys) and a mix with `member_share` members. Each stream is
// run once untimed (warming caches and TLBs), then `repeats` times timed; each run starts every
// thread at one barrier and takes the wall time to the last thread's end
// (harness/machine/thread_team.h: threads pinned one per physical core first, their CPUs
// recorded). Operations per second are Q / that time, the median of the timed runs with the
// fastest and slowest; the speedup is the median over the T = 1 cell's median. Every run,
// warm-up included, counts the members each thread found: their total must be the member
// queries (false_negatives = member_queries - members_found, which must be 0). The per-thread
// loop is harness/cell/kernels.h's CountContainedFlagged, instantiated for the filter's type.
//
// One cell per filter, n, layout and T. The shared filter is built by the first cell of its
// (filter, n) and kept for the next ones (cells run in that order); a shard or a resumed run that
// starts elsewhere builds it again. The speedup needs the T = 1 cell's timings from the same
// process: where that cell ran in another shard or an earlier run, the speedups are null and the
// report divides the recorded medians itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/cell/registry.h"
#include "harness/run/kind.h"
#include "harness/run/runner.h"

namespace amq {

struct ThreadsParams {
  std::vector<const FilterEntry*> filters;
  std::vector<std::size_t> keys;                     // n, one set of cells per n
  std::vector<int> threads;                          // T, ascending, 1 first
  std::vector<std::string> layouts = {"shared", "per_thread"};
  std::size_t queries = 1000000;                     // Q: per stream and run, split into T slices
  double member_share = 0.5;                         // the mixed stream's share of members
  double fpr = 0.01;
  int repeats = 5;
  std::uint64_t seed = 1;
};

std::unique_ptr<ExperimentPlan> MakeThreadsPlan(const ThreadsParams& params);

// A suite's `threads` list, sorted and without repeats, or the default counts for this process's
// CPUs; an InputError unless 1 is among them (every speedup divides by one thread's rate). Shared
// with the concurrent_inserts kind, which reads the same parameter the same way.
std::vector<int> ThreadCountsFrom(const PlanInput& in);

extern const KindSpec kThreadsKind;

}  // namespace amq
