// harness/machine/thread_team.cc - pinned threads started by one barrier (see the header).
#include "harness/machine/thread_team.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <exception>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace amq {
namespace {

int ReadTopology(int cpu, const char* file) {
  std::ifstream in("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/" + file);
  int value = -1;
  return in >> value ? value : -1;
}

double ThreadCpuNs() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return 1e9 * static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec);
}

// What one thread saw, on a line of its own (no false sharing between the threads' writes).
struct alignas(64) ThreadSlot {
  std::chrono::steady_clock::time_point end;
  double cpu_ns = 0;
  int cpu = -1;
  int cpu_seen = -1;
  bool pinned = false;
  std::exception_ptr error;
};

}  // namespace

std::vector<int> PlacementCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> allowed;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) allowed.push_back(cpu);
    }
  }
  if (allowed.empty()) allowed.push_back(0);
  // Rank each CPU among the CPUs of its physical core (package, core id): every core's first
  // CPU comes before any core's second, in CPU order within a rank.
  std::map<std::pair<int, int>, int> seen_of_core;
  std::vector<std::pair<int, int>> ranked;  // (rank, cpu)
  for (int cpu : allowed) {
    const std::pair<int, int> core{ReadTopology(cpu, "physical_package_id"), ReadTopology(cpu, "core_id")};
    const int rank = core.second < 0 ? 0 : seen_of_core[core]++;
    ranked.emplace_back(rank, cpu);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<int> order;
  for (const auto& [rank, cpu] : ranked) order.push_back(cpu);
  return order;
}

std::vector<int> DefaultThreadCounts(int cpus) {
  std::vector<int> counts;
  for (int t = 1; t < cpus; t *= 2) counts.push_back(t);
  counts.push_back(std::max(cpus, 1));
  return counts;
}

std::vector<int> TeamCpus(int threads) {
  const std::vector<int> placement = PlacementCpus();
  std::vector<int> cpus;
  for (std::size_t t = 0; t < static_cast<std::size_t>(threads); ++t) cpus.push_back(placement[t % placement.size()]);
  return cpus;
}

TeamRun RunTeam(int threads, const std::function<void(int)>& prepare, const std::function<void(int)>& work) {
  return RunTeamOn(TeamCpus(threads), prepare, work);
}

TeamRun RunTeamOn(const std::vector<int>& cpus, const std::function<void(int)>& prepare,
                  const std::function<void(int)>& work) {
  const int threads = static_cast<int>(cpus.size());
  std::vector<ThreadSlot> slots(cpus.size());
  std::chrono::steady_clock::time_point start;
  // The completion runs once, in the last thread to arrive, before any thread is released.
  std::barrier go(threads, [&start]() noexcept { start = std::chrono::steady_clock::now(); });
  std::vector<std::thread> team;
  team.reserve(slots.size());
  for (int t = 0; t < threads; ++t) {
    team.emplace_back([&, t] {
      ThreadSlot& slot = slots[static_cast<std::size_t>(t)];
      slot.cpu = cpus[static_cast<std::size_t>(t)];
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(slot.cpu, &set);
      slot.pinned = pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
      if (!slot.pinned) slot.cpu = -1;
      try {
        prepare(t);
      } catch (...) {
        slot.error = std::current_exception();
      }
      go.arrive_and_wait();  // every thread arrives, failed or not: no one waits forever
      const double cpu_start = ThreadCpuNs();
      if (!slot.error) {
        try {
          work(t);
        } catch (...) {
          slot.error = std::current_exception();
        }
      }
      slot.end = std::chrono::steady_clock::now();
      slot.cpu_ns = ThreadCpuNs() - cpu_start;
      slot.cpu_seen = sched_getcpu();
    });
  }
  for (std::thread& thread : team) thread.join();
  TeamRun run;
  run.pinned = true;
  auto last = start;
  double cpu_ns = 0;
  for (const ThreadSlot& slot : slots) {
    if (slot.error) std::rethrow_exception(slot.error);
    last = std::max(last, slot.end);
    cpu_ns += slot.cpu_ns;
    run.cpus.push_back(slot.cpu);
    run.cpus_seen.push_back(slot.cpu_seen);
    run.pinned = run.pinned && slot.pinned;
  }
  run.wall_ns = std::chrono::duration<double, std::nano>(last - start).count();
  run.cpu_share = run.wall_ns > 0 ? cpu_ns / (double(threads) * run.wall_ns) : 0;
  return run;
}

void PutTeamPlacement(Json& record, const TeamRun& last, double cpu_share) {
  record["thread_cpus"] = last.cpus;
  record["thread_cpus_seen"] = last.cpus_seen;
  record["pinned"] = last.pinned;
  record["cpu_share"] = cpu_share;
}

std::vector<FieldSpec> ThreadTeamFields() {
  // Declared once, by the threads kind; the concurrent_inserts kind and the machine kind's
  // threaded points write the same fields.
  const char* carried = "threads, concurrent_inserts; machine random_lines_threads, sequential_threads";
  const char* carried_with_handoff =
      "threads, concurrent_inserts; machine random_lines_threads, sequential_threads, line_handoff";
  return {
      {"threads", "integer", "count", "threads run at once (T), each pinned to a CPU, started by one barrier", carried, kIdentity},
      {"thread_cpus", "array", "", "the CPU each thread was pinned to, thread 0 first (one CPU per physical core before any SMT sibling, round again past the CPUs; -1: pinning refused), from the last timed run", carried, kMachine},
      {"thread_cpus_seen", "array", "", "the CPU each thread was running on when its loop ended (sched_getcpu), from the last timed run", carried, kMachine},
      {"pinned", "boolean", "", "every thread's pinning to its CPU succeeded", carried_with_handoff, kMachine},
      {"cpu_share", "number", "fraction", "the threads' CPU time / (threads x wall time), median over the timed runs: 1 when no thread lost time slices (to other processes, or to each other past the CPUs)", carried_with_handoff, kMachine},
  };
}

}  // namespace amq
