// harness/machine/thread_team.h - T threads pinned to CPUs, started together, timed together: what
// the threads kind (a filter's lookups on T threads) and the machine's threaded points (random
// lines and sequential reads on T threads) both run on, so a filter's threaded rate and the
// host's threaded ceiling are measured the same way.
//
// Placement: the CPUs this process may run on (sched_getaffinity, so taskset and cgroups are
// honoured), ordered one CPU per physical core first and the cores' SMT siblings after
// (/sys/devices/system/cpu/cpuN/topology), so T threads up to the core count never share a
// core; thread t is pinned (pthread_setaffinity_np) to the t-th CPU of that order, round again
// when T exceeds it. hwloc would say the same on the machines we run on; sysfs needs no package.
// Each run reports which CPU each thread was pinned to and which it was seen on at its end.
//
// Timing: every thread runs `prepare` (untimed: build, fault in, warm), then waits at one barrier;
// the barrier's completion (run once, before any thread is released) reads the clock, and the run
// takes from there to the last thread's end: wall time, as a user of T threads waits. Each
// thread's own CPU time is read too: cpu_share = sum of CPU time / (T x wall) is 1 when every
// thread ran the whole time, less when another process (or T > CPUs) took time slices.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "harness/run/schema.h"

namespace amq {

// The CPUs threads are placed on, in placement order (see above).
std::vector<int> PlacementCpus();

// The CPU each of `threads` threads is pinned to: thread t on the placement's t-th CPU, round
// again when there are more threads than CPUs.
std::vector<int> TeamCpus(int threads);

// The default thread counts up to `cpus`: 1, 2, 4, ... and `cpus` itself.
std::vector<int> DefaultThreadCounts(int cpus);

struct TeamRun {
  double wall_ns = 0;               // barrier release to the last thread's end
  double cpu_share = 0;             // sum of the threads' CPU time / (threads x wall)
  std::vector<int> cpus;            // the CPU each thread was pinned to (-1: pinning refused)
  std::vector<int> cpus_seen;       // the CPU each thread ran on at its end (sched_getcpu)
  bool pinned = false;              // every thread's pinning succeeded
};

// Runs prepare(t) then, after one barrier, work(t) on `threads` pinned threads (t = 0..T-1).
// An exception in a thread is rethrown here after every thread has finished.
TeamRun RunTeam(int threads, const std::function<void(int)>& prepare, const std::function<void(int)>& work);
// The same with thread t pinned to cpus[t]: one thread per CPU named, whatever the placement
// order (the machine's line handoff runs between two chosen CPUs).
TeamRun RunTeamOn(const std::vector<int>& cpus, const std::function<void(int)>& prepare,
                  const std::function<void(int)>& work);

// Thread t's share of `count` items is [TeamSliceBegin(count, t, T), TeamSliceBegin(count, t + 1, T)):
// the slices tile [0, count) and differ in size by one at most.
inline std::size_t TeamSliceBegin(std::size_t count, int t, int threads) {
  return count * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads);
}

// A record's placement fields: where the last timed run's threads were pinned and seen, whether
// every pinning held, and cpu_share (the caller's median over its timed runs).
void PutTeamPlacement(Json& record, const TeamRun& last, double cpu_share);

// The record fields a threaded measurement writes (threads, thread_cpus, thread_cpus_seen,
// pinned, cpu_share): declared once, joined to the threads kind's and the machine kind's fields.
std::vector<FieldSpec> ThreadTeamFields();

}  // namespace amq
