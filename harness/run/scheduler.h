// harness/run/scheduler.h - what a batch scheduler tells the process it started, read from the
// environment it sets: which scheduler, job, task and node a result came from (recorded in every
// file's context), which shard a `--shard auto` task is, and the memory a Slurm job was given.
//
// Slurm (a job array, sbatch --array=MIN-MAX[:STEP]): SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN,
//   SLURM_ARRAY_TASK_MAX, SLURM_ARRAY_TASK_STEP, SLURM_ARRAY_TASK_COUNT, SLURM_ARRAY_JOB_ID (the
//   array's id, shared by its tasks), SLURM_JOB_ID, SLURMD_NODENAME, SLURM_MEM_PER_NODE (MB).
// Kubernetes (an Indexed Job, completionMode: Indexed): JOB_COMPLETION_INDEX (0-based). The pod
//   is not told the job's completions, its name or its node, so scripts/k8s_indexed_job.yaml
//   passes them in: AMQ_SHARD_COUNT (or --shard-count), and from the downward API AMQ_JOB_ID (the
//   job-name label) and AMQ_NODE_NAME (spec.nodeName: a pod's host name is the pod's, not the
//   machine's). KUBERNETES_SERVICE_HOST, set in every pod, marks a pod that is not an Indexed Job.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "harness/cell/process_memory.h"
#include "harness/run/result_file.h"
#include "harness/run/runner.h"

namespace amq {

// Looks up one environment variable: nullptr when unset. The process's own is std::getenv;
// tests pass a table.
using Environment = std::function<const char*(const char*)>;
const char* ProcessEnvironment(const char* name);

// Where a scheduler placed this process; every field "" outside a scheduler.
struct SchedulerPlacement {
  std::string scheduler;  // "slurm", "kubernetes" or ""
  std::string job_id;     // SLURM_ARRAY_JOB_ID, else SLURM_JOB_ID; Kubernetes: AMQ_JOB_ID
  std::string task_id;    // SLURM_ARRAY_TASK_ID; Kubernetes: JOB_COMPLETION_INDEX
  std::string node;       // SLURMD_NODENAME; Kubernetes: AMQ_NODE_NAME
};
SchedulerPlacement ReadSchedulerPlacement(const Environment& env = ProcessEnvironment);

// The context's scheduler fields (scheduler, scheduler_job_id, scheduler_task_id, null outside
// one) and node: the scheduler's name for the machine, else `host_name`. Merge tells hosts
// apart by node, so two pods of one Kubernetes node (two host names) count as one host.
void AddSchedulerContext(Json& context, const std::string& host_name,
                         const Environment& env = ProcessEnvironment);

// `--shard auto`: this task's shard of a Slurm job array (the task's place in MIN..MAX by STEP,
// out of the array's tasks) or of a Kubernetes Indexed Job (JOB_COMPLETION_INDEX out of
// `shard_count`, else AMQ_SHARD_COUNT). A Slurm array must be a range (--array=1-N, or with a
// step), not a list; `shard_count`, when given, must equal its task count. Throws InputError
// (one line naming the variable) for a missing, non-numeric or out-of-range value, and where
// neither scheduler set its variables: a shard is never guessed.
Shard ShardFromScheduler(std::optional<int> shard_count, const Environment& env = ProcessEnvironment);

// SLURM_MEM_PER_NODE in bytes (Slurm sets megabytes); nullopt when unset or 0 (--mem=0: the
// whole node). Throws InputError for anything but a whole number.
std::optional<std::uint64_t> SlurmMemoryBytes(const Environment& env = ProcessEnvironment);

// The memory a run may use: the machine's (AvailableMemoryBytes: MemAvailable or the cgroup's
// limit), capped by the Slurm job's allocation where one is set, since a job past it is killed
// even on a node with more free. Throws as SlurmMemoryBytes does.
std::optional<AvailableMemory> AvailableMemoryForRun(const Environment& env = ProcessEnvironment);

// The cap itself, given the machine's figure: AvailableMemoryForRun reads MemAvailable, which
// moves from one read to the next, so tests state the machine's figure here instead.
std::optional<AvailableMemory> CapBySlurmAllocation(std::optional<AvailableMemory> machine,
                                                    const Environment& env);

}  // namespace amq
