// harness/run/scheduler_test.cc - --shard auto from a Slurm array's and an Indexed Job's
// variables, every bad value refused with one line naming it; the context's scheduler fields;
// SLURM_MEM_PER_NODE as a cap on the memory available.
#include "harness/run/scheduler.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/errors.h"

namespace amq {
namespace {

using Variables = std::map<std::string, std::string>;

Environment From(const Variables& variables) {
  return [variables](const char* name) -> const char* {
    const auto it = variables.find(name);
    return it == variables.end() ? nullptr : it->second.c_str();
  };
}

// What Slurm sets in task `id` of sbatch --array=MIN-MAX (step 1).
Variables SlurmTask(int id, int min, int max) {
  return {{"SLURM_JOB_ID", "900" + std::to_string(id)}, {"SLURM_ARRAY_JOB_ID", "900"},
          {"SLURM_ARRAY_TASK_ID", std::to_string(id)},  {"SLURM_ARRAY_TASK_MIN", std::to_string(min)},
          {"SLURM_ARRAY_TASK_MAX", std::to_string(max)}, {"SLURM_ARRAY_TASK_STEP", "1"},
          {"SLURM_ARRAY_TASK_COUNT", std::to_string(max - min + 1)}, {"SLURMD_NODENAME", "node7"}};
}

std::string Refusal(const Variables& variables, std::optional<int> count = std::nullopt) {
  try {
    ShardFromScheduler(count, From(variables));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ShardFromScheduler, SlurmArrayTasksAreShardsInOrder) {
  for (int id = 1; id <= 3; ++id) {
    const Shard shard = ShardFromScheduler(std::nullopt, From(SlurmTask(id, 1, 3)));
    EXPECT_EQ(shard.index, id - 1);
    EXPECT_EQ(shard.count, 3);
  }
  // A zero-based array, a stepped one (--array=10-30:10), and the count checked when given.
  EXPECT_EQ(ShardFromScheduler(std::nullopt, From(SlurmTask(0, 0, 3))).index, 0);
  Variables stepped = SlurmTask(20, 10, 30);
  stepped["SLURM_ARRAY_TASK_STEP"] = "10";
  stepped["SLURM_ARRAY_TASK_COUNT"] = "3";
  const Shard middle = ShardFromScheduler(3, From(stepped));
  EXPECT_EQ(middle.index, 1);
  EXPECT_EQ(middle.count, 3);
  // Bounds without the count, or the count without the bounds' top.
  Variables no_count = SlurmTask(2, 1, 3);
  no_count.erase("SLURM_ARRAY_TASK_COUNT");
  EXPECT_EQ(ShardFromScheduler(std::nullopt, From(no_count)).count, 3);
  Variables no_max = SlurmTask(2, 1, 3);
  no_max.erase("SLURM_ARRAY_TASK_MAX");
  EXPECT_EQ(ShardFromScheduler(std::nullopt, From(no_max)).count, 3);
}

TEST(ShardFromScheduler, IndexedJobNeedsItsCountPassedIn) {
  const Variables pod = {{"JOB_COMPLETION_INDEX", "2"}, {"KUBERNETES_SERVICE_HOST", "10.0.0.1"}};
  const Shard from_option = ShardFromScheduler(4, From(pod));
  EXPECT_EQ(from_option.index, 2);
  EXPECT_EQ(from_option.count, 4);
  Variables with_count = pod;
  with_count["AMQ_SHARD_COUNT"] = "3";
  EXPECT_EQ(ShardFromScheduler(std::nullopt, From(with_count)).count, 3);
  EXPECT_EQ(ShardFromScheduler(5, From(with_count)).count, 5) << "--shard-count wins over the variable";
  EXPECT_NE(Refusal(pod).find("--shard-count N or set AMQ_SHARD_COUNT"), std::string::npos) << Refusal(pod);
}

TEST(ShardFromScheduler, EveryBadValueIsOneLineNamingIt) {
  const auto with = [](Variables v, const std::string& name, const std::string& value) {
    if (value.empty()) {
      v.erase(name);
    } else {
      v[name] = value;
    }
    return v;
  };
  const Variables task = SlurmTask(2, 1, 3);
  const std::vector<std::pair<Variables, std::string>> refused = {
      {{}, "neither is set"},
      {with(task, "SLURM_ARRAY_TASK_ID", "two"), "SLURM_ARRAY_TASK_ID must be a whole number, got 'two'"},
      {with(task, "SLURM_ARRAY_TASK_ID", "-1"), "SLURM_ARRAY_TASK_ID must be a whole number"},
      {with(task, "SLURM_ARRAY_TASK_ID", "4"), "SLURM_ARRAY_TASK_ID=4 is not a task of the array 1..3"},
      {with(task, "SLURM_ARRAY_TASK_MIN", ""), "SLURM_ARRAY_TASK_MIN is not"},
      {with(task, "SLURM_ARRAY_TASK_MAX", "3x"), "SLURM_ARRAY_TASK_MAX must be a whole number"},
      {with(with(task, "SLURM_ARRAY_TASK_MAX", ""), "SLURM_ARRAY_TASK_COUNT", ""), "neither SLURM_ARRAY_TASK_MAX nor"},
      {with(task, "SLURM_ARRAY_TASK_COUNT", "2"), "not a range"},  // --array=1,3
      {with(task, "SLURM_ARRAY_TASK_STEP", "0"), "SLURM_ARRAY_TASK_STEP must be at least 1"},
      {with(task, "SLURM_ARRAY_TASK_STEP", "2"), "is not a range (SLURM_ARRAY_TASK_COUNT=3, but MIN to MAX holds 2"},
      {with(task, "SLURM_ARRAY_TASK_MAX", "0"), "are not a range"},
      {{{"JOB_COMPLETION_INDEX", "x"}, {"AMQ_SHARD_COUNT", "2"}}, "JOB_COMPLETION_INDEX must be a whole number"},
      {{{"JOB_COMPLETION_INDEX", "2"}, {"AMQ_SHARD_COUNT", "2"}}, "JOB_COMPLETION_INDEX=2 is not below the shard count 2"},
      {{{"JOB_COMPLETION_INDEX", "0"}, {"AMQ_SHARD_COUNT", "0"}}, "at least 1"},
      {{{"JOB_COMPLETION_INDEX", "0"}, {"AMQ_SHARD_COUNT", "20000"}}, "AMQ_SHARD_COUNT is 20000, more than 10000"},
  };
  for (const auto& [variables, expected] : refused) {
    const std::string line = Refusal(variables);
    EXPECT_NE(line.find(expected), std::string::npos) << "expected '" << expected << "', got '" << line << "'";
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  }
  EXPECT_NE(Refusal(task, 4).find("--shard-count 4 disagrees with the Slurm array's 3 tasks"), std::string::npos);
  EXPECT_NE(Refusal(task, 0).find("--shard-count must be 1 to 10000"), std::string::npos);
}

TEST(SchedulerContext, SaysWhichSchedulerJobTaskAndNode) {
  Json slurm;
  AddSchedulerContext(slurm, "login1", From(SlurmTask(2, 1, 3)));
  EXPECT_EQ(slurm["scheduler"], "slurm");
  EXPECT_EQ(slurm["scheduler_job_id"], "900") << "the array's id, shared by its tasks";
  EXPECT_EQ(slurm["scheduler_task_id"], "2");
  EXPECT_EQ(slurm["node"], "node7");
  Json plain_job;
  AddSchedulerContext(plain_job, "login1", From({{"SLURM_JOB_ID", "41"}}));
  EXPECT_EQ(plain_job["scheduler_job_id"], "41");
  EXPECT_TRUE(plain_job["scheduler_task_id"].is_null());
  EXPECT_EQ(plain_job["node"], "login1") << "no node name from the scheduler: the host name";
  Json pod;
  AddSchedulerContext(pod, "sweep-1-x7k2p",
                      From({{"JOB_COMPLETION_INDEX", "1"}, {"AMQ_JOB_ID", "sweep"}, {"AMQ_NODE_NAME", "worker-3"}}));
  EXPECT_EQ(pod["scheduler"], "kubernetes");
  EXPECT_EQ(pod["scheduler_job_id"], "sweep");
  EXPECT_EQ(pod["scheduler_task_id"], "1");
  EXPECT_EQ(pod["node"], "worker-3");
  Json none;
  AddSchedulerContext(none, "laptop", From({}));
  EXPECT_TRUE(none["scheduler"].is_null());
  EXPECT_TRUE(none["scheduler_job_id"].is_null());
  EXPECT_EQ(none["node"], "laptop");
}

TEST(SlurmMemory, CapsTheMemoryAvailable) {
  EXPECT_FALSE(SlurmMemoryBytes(From({})));
  EXPECT_FALSE(SlurmMemoryBytes(From({{"SLURM_MEM_PER_NODE", "0"}}))) << "--mem=0: the whole node";
  EXPECT_EQ(*SlurmMemoryBytes(From({{"SLURM_MEM_PER_NODE", "2048"}})), 2048ull << 20);
  for (const char* bad : {"2G", "-5", "", " 12", "1.5"}) {
    if (!*bad) continue;  // unset, not bad
    EXPECT_THROW(SlurmMemoryBytes(From({{"SLURM_MEM_PER_NODE", bad}})), InputError) << bad;
  }
  const std::optional<AvailableMemory> one_megabyte = AvailableMemoryForRun(From({{"SLURM_MEM_PER_NODE", "1"}}));
  ASSERT_TRUE(one_megabyte);
  EXPECT_EQ(one_megabyte->bytes, 1u << 20);
  EXPECT_NE(one_megabyte->source.find("SLURM_MEM_PER_NODE"), std::string::npos);
  // The machine's figure is stated, not read: MemAvailable moves between two reads while
  // other tests run.
  const AvailableMemory machine{8ull << 30, "MemAvailable"};
  const std::optional<AvailableMemory> huge =
      CapBySlurmAllocation(machine, From({{"SLURM_MEM_PER_NODE", "1000000000"}}));
  ASSERT_TRUE(huge);
  EXPECT_EQ(huge->bytes, machine.bytes) << "an allocation above what the machine has is not the limit";
  EXPECT_EQ(huge->source, "MemAvailable");
  const std::optional<AvailableMemory> smaller = CapBySlurmAllocation(machine, From({{"SLURM_MEM_PER_NODE", "4096"}}));
  ASSERT_TRUE(smaller);
  EXPECT_EQ(smaller->bytes, 4096ull << 20);
  EXPECT_EQ(CapBySlurmAllocation(machine, From({}))->bytes, machine.bytes) << "no allocation: the machine's";
  const std::optional<AvailableMemory> unknown_machine =
      CapBySlurmAllocation(std::nullopt, From({{"SLURM_MEM_PER_NODE", "2048"}}));
  ASSERT_TRUE(unknown_machine) << "the allocation alone is still a limit";
  EXPECT_EQ(unknown_machine->bytes, 2048ull << 20);
  EXPECT_FALSE(CapBySlurmAllocation(std::nullopt, From({})));
}

}  // namespace
}  // namespace amq
