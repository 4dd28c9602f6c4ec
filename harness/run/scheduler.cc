// harness/run/scheduler.cc - Slurm's and Kubernetes' environment, read and checked (see the header).
#include "harness/run/scheduler.h"

#include <charconv>
#include <cstdlib>

#include "core/errors.h"

namespace amq {
namespace {

constexpr int kMostAutoShards = 10000;  // as ParseShard allows

std::string EnvText(const Environment& env, const char* name) {
  const char* value = env(name);
  return value ? value : "";
}

bool EnvIsSet(const Environment& env, const char* name) {
  const char* value = env(name);
  return value && *value;
}

// A whole number >= 0 from an environment variable, the whole string; throws naming it.
std::uint64_t EnvWholeNumber(const Environment& env, const char* name, std::uint64_t most) {
  const std::string text = EnvText(env, name);
  std::uint64_t number = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    throw InputError(std::string(name) + " must be a whole number, got '" + text + "'");
  }
  if (number > most) throw InputError(std::string(name) + " is " + text + ", more than " + std::to_string(most));
  return number;
}

constexpr std::uint64_t kLargestSlurmTaskId = 4000000000u;  // Slurm's MaxArraySize is far below

Shard SlurmArrayShard(std::optional<int> shard_count, const Environment& env) {
  const std::uint64_t id = EnvWholeNumber(env, "SLURM_ARRAY_TASK_ID", kLargestSlurmTaskId);
  if (!EnvIsSet(env, "SLURM_ARRAY_TASK_MIN")) {
    throw InputError("--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_MIN is not");
  }
  const std::uint64_t min = EnvWholeNumber(env, "SLURM_ARRAY_TASK_MIN", kLargestSlurmTaskId);
  const std::uint64_t step = EnvIsSet(env, "SLURM_ARRAY_TASK_STEP") ? EnvWholeNumber(env, "SLURM_ARRAY_TASK_STEP", kLargestSlurmTaskId) : 1;
  if (step == 0) throw InputError("SLURM_ARRAY_TASK_STEP must be at least 1, got 0");
  std::optional<std::uint64_t> count;
  if (EnvIsSet(env, "SLURM_ARRAY_TASK_MAX")) {
    const std::uint64_t max = EnvWholeNumber(env, "SLURM_ARRAY_TASK_MAX", kLargestSlurmTaskId);
    if (max < min || (max - min) % step != 0) {
      throw InputError("--shard auto: the Slurm array's bounds SLURM_ARRAY_TASK_MIN=" + std::to_string(min) +
                       ", SLURM_ARRAY_TASK_MAX=" + std::to_string(max) + ", SLURM_ARRAY_TASK_STEP=" +
                       std::to_string(step) + " are not a range");
    }
    count = (max - min) / step + 1;
  }
  if (EnvIsSet(env, "SLURM_ARRAY_TASK_COUNT")) {
    const std::uint64_t tasks = EnvWholeNumber(env, "SLURM_ARRAY_TASK_COUNT", kLargestSlurmTaskId);
    // A list (--array=1,4,9) has bounds and a count that disagree: no task knows its place.
    if (count && *count != tasks) {
      throw InputError("--shard auto: the Slurm array is not a range (SLURM_ARRAY_TASK_COUNT=" + std::to_string(tasks) +
                       ", but MIN to MAX holds " + std::to_string(*count) + " tasks); submit it as --array=1-N");
    }
    count = tasks;
  }
  if (!count) {
    throw InputError("--shard auto: SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_MAX nor "
                     "SLURM_ARRAY_TASK_COUNT says how many tasks the array has");
  }
  if (*count < 1 || *count > std::uint64_t(kMostAutoShards)) {
    throw InputError("--shard auto: the Slurm array has " + std::to_string(*count) + " tasks; 1 to " +
                     std::to_string(kMostAutoShards) + " shards are allowed");
  }
  if (id < min || (id - min) % step != 0 || (id - min) / step >= *count) {
    throw InputError("--shard auto: SLURM_ARRAY_TASK_ID=" + std::to_string(id) + " is not a task of the array " +
                     std::to_string(min) + ".." + std::to_string(min + (*count - 1) * step) +
                     (step > 1 ? " by " + std::to_string(step) : ""));
  }
  if (shard_count && std::uint64_t(*shard_count) != *count) {
    throw InputError("--shard-count " + std::to_string(*shard_count) + " disagrees with the Slurm array's " +
                     std::to_string(*count) + " tasks");
  }
  return {static_cast<int>((id - min) / step), static_cast<int>(*count)};
}

Shard IndexedJobShard(std::optional<int> shard_count, const Environment& env) {
  const std::uint64_t index = EnvWholeNumber(env, "JOB_COMPLETION_INDEX", kLargestSlurmTaskId);
  std::uint64_t count = 0;
  if (shard_count) {
    count = static_cast<std::uint64_t>(*shard_count);
  } else if (EnvIsSet(env, "AMQ_SHARD_COUNT")) {
    count = EnvWholeNumber(env, "AMQ_SHARD_COUNT", kMostAutoShards);
  } else {
    throw InputError("--shard auto: JOB_COMPLETION_INDEX is set but the shard count is not: pass --shard-count N "
                     "or set AMQ_SHARD_COUNT to the Indexed Job's completions");
  }
  if (count < 1) throw InputError("--shard auto: the shard count must be at least 1, got 0");
  if (index >= count) {
    throw InputError("--shard auto: JOB_COMPLETION_INDEX=" + std::to_string(index) + " is not below the shard count " +
                     std::to_string(count));
  }
  return {static_cast<int>(index), static_cast<int>(count)};
}

}  // namespace

const char* ProcessEnvironment(const char* name) { return std::getenv(name); }

SchedulerPlacement ReadSchedulerPlacement(const Environment& env) {
  SchedulerPlacement placement;
  if (EnvIsSet(env, "SLURM_JOB_ID")) {
    placement.scheduler = "slurm";
    placement.job_id = EnvIsSet(env, "SLURM_ARRAY_JOB_ID") ? EnvText(env, "SLURM_ARRAY_JOB_ID") : EnvText(env, "SLURM_JOB_ID");
    placement.task_id = EnvText(env, "SLURM_ARRAY_TASK_ID");
    placement.node = EnvText(env, "SLURMD_NODENAME");
  } else if (EnvIsSet(env, "JOB_COMPLETION_INDEX") || EnvIsSet(env, "KUBERNETES_SERVICE_HOST")) {
    placement.scheduler = "kubernetes";
    placement.job_id = EnvText(env, "AMQ_JOB_ID");
    placement.task_id = EnvText(env, "JOB_COMPLETION_INDEX");
    placement.node = EnvText(env, "AMQ_NODE_NAME");
  }
  return placement;
}

void AddSchedulerContext(Json& context, const std::string& host_name, const Environment& env) {
  const SchedulerPlacement placement = ReadSchedulerPlacement(env);
  const auto or_null = [](const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); };
  context["scheduler"] = or_null(placement.scheduler);
  context["scheduler_job_id"] = or_null(placement.job_id);
  context["scheduler_task_id"] = or_null(placement.task_id);
  context["node"] = placement.node.empty() ? host_name : placement.node;
}

Shard ShardFromScheduler(std::optional<int> shard_count, const Environment& env) {
  if (shard_count && (*shard_count < 1 || *shard_count > kMostAutoShards)) {
    throw InputError("--shard-count must be 1 to " + std::to_string(kMostAutoShards) + ", got " +
                     std::to_string(*shard_count));
  }
  if (EnvIsSet(env, "SLURM_ARRAY_TASK_ID")) return SlurmArrayShard(shard_count, env);
  if (EnvIsSet(env, "JOB_COMPLETION_INDEX")) return IndexedJobShard(shard_count, env);
  throw InputError("--shard auto needs a Slurm job array (SLURM_ARRAY_TASK_ID) or a Kubernetes Indexed Job "
                   "(JOB_COMPLETION_INDEX), and neither is set; give the shard as --shard K/N");
}

std::optional<std::uint64_t> SlurmMemoryBytes(const Environment& env) {
  if (!EnvIsSet(env, "SLURM_MEM_PER_NODE")) return std::nullopt;
  const std::uint64_t megabytes = EnvWholeNumber(env, "SLURM_MEM_PER_NODE", std::uint64_t(1) << 40);
  if (megabytes == 0) return std::nullopt;
  return megabytes << 20;
}

std::optional<AvailableMemory> CapBySlurmAllocation(std::optional<AvailableMemory> machine,
                                                    const Environment& env) {
  const std::optional<std::uint64_t> slurm = SlurmMemoryBytes(env);
  if (slurm && (!machine || *slurm < machine->bytes)) {
    return AvailableMemory{*slurm, "the Slurm job's SLURM_MEM_PER_NODE"};
  }
  return machine;
}

std::optional<AvailableMemory> AvailableMemoryForRun(const Environment& env) {
  return CapBySlurmAllocation(AvailableMemoryBytes(), env);
}

}  // namespace amq
