// commands/suite_command_test.cc - `amqbench suite` and `amqbench merge` from the outside: the
// default suite parses (full and quick), every kind of bad suite file is refused with its file,
// line and key, an interrupted suite (SIGINT or SIGKILL) resumes to every cell exactly once,
// two shards merged equal one unsharded run on every deterministic field, and --shard auto reads
// a scheduler's shard and merge refuses timed cells from two hosts.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <thread>

#include "commands/binary_test_support.h"
#include "harness/machine/machine_report.h"
#include "harness/run/schema.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using amq::testing::ReadFile;

const std::string kSource = AMQ_SOURCE_DIR;

// Starts amqbench in the background, its stderr into `err` (default: discarded); returns its pid.
pid_t Spawn(std::vector<std::string> args, const std::string& err = "/dev/null") {
  args.insert(args.begin(), AMQ_BINARY);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, AMQ_BINARY, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return spawned == 0 ? pid : -1;
}

// Waits (at most 60 s) until `path` holds `text`.
void WaitFor(const fs::path& path, const std::string& text) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline && ReadFile(path).find(text) == std::string::npos) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

class Suite : public amq::testing::BinaryTest {
 protected:
  // Every line of every .jsonl file in a directory, by file name.
  std::map<std::string, std::vector<json>> Lines(const fs::path& dir) {
    std::map<std::string, std::vector<json>> files;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() != ".jsonl") continue;
      std::istringstream in(ReadFile(entry.path()));
      for (std::string line; std::getline(in, line);) {
        if (!line.empty()) files[entry.path().filename().string()].push_back(json::parse(line));
      }
    }
    return files;
  }

  // The count of each (file, cell_id) among cell lines, and whether every file is complete.
  void ExpectEveryCellOnce(const fs::path& dir, std::size_t cells) {
    std::size_t total = 0;
    for (const auto& [name, lines] : Lines(dir)) {
      ASSERT_FALSE(lines.empty());
      const json& header = lines.front();
      ASSERT_EQ(header["record"], "header") << name;
      EXPECT_EQ(lines.back()["record"], "end") << name << " is not complete";
      std::map<std::string, int> seen;
      for (std::size_t i = 1; i < lines.size(); ++i) {
        if (lines[i]["record"] == "cell") ++seen[lines[i]["cell_id"].get<std::string>()];
        EXPECT_NE(lines[i]["record"], "header") << name << ": a second header";
      }
      for (const json& id : header["cells"]) {
        EXPECT_EQ(seen[id.get<std::string>()], 1) << name << " cell " << id;
        ++total;
      }
      EXPECT_EQ(seen.size(), header["cells"].size()) << name << " has cells it did not plan";
    }
    EXPECT_EQ(total, cells);
  }
};

TEST_F(Suite, DefaultSuiteParsesFullAndQuick) {
  for (const std::string quick : {"", " --quick"}) {
    const Outcome o = Run("suite " + kSource + "/suites/default.toml --list" + quick);
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.out.find("seed_lab"), std::string::npos);
    EXPECT_NE(o.out.find("adapt_adversarial"), std::string::npos);
    EXPECT_NE(o.out.find("micro_native"), std::string::npos);
  }
}

// What --quick changes, it shrinks: every experiment of the default suite costs less quick.
TEST_F(Suite, QuickShrinksEveryExperiment) {
  const Outcome full = Run("suite " + kSource + "/suites/default.toml --list");
  const Outcome quick = Run("suite " + kSource + "/suites/default.toml --list --quick");
  ASSERT_EQ(full.status, 0);
  ASSERT_EQ(quick.status, 0);
  const std::regex row(R"(^  (\S+)\s+\S+\s+\d+ cells  cost (\S+))");
  std::map<std::string, double> full_cost;
  std::istringstream f(full.out), q(quick.out);
  for (std::string line; std::getline(f, line);) {
    std::smatch m;
    if (std::regex_search(line, m, row)) full_cost[m[1]] = std::stod(m[2]);
  }
  std::size_t compared = 0;
  for (std::string line; std::getline(q, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    EXPECT_LT(std::stod(m[2]), full_cost.at(m[1])) << m[1] << " does not shrink with --quick";
    ++compared;
  }
  EXPECT_EQ(compared, full_cost.size());
}

// The suite's ETA divides seconds so far by cost so far and multiplies by the cost left, across
// experiments of different kinds: the costs must share one unit (key operations at about 10^7 a
// second, harness/run/runner.h). Checked against the committed full run (results/suite_run.json):
// every experiment that took 20 s or more there is planned within a factor of 4 of its time.
// A kind counted in a unit of its own (the machine kind's points once cost 1 each) fails here.
TEST_F(Suite, CostsPredictTheCommittedRunsSecondsWithinFourTimes) {
  const fs::path committed = fs::path(kSource) / "results/suite_run.json";
  if (!fs::exists(committed)) GTEST_SKIP() << "no committed full run in results/";
  const json run = json::parse(ReadFile(committed));
  if (run["suite"].value("quick", true)) GTEST_SKIP() << "the committed run is a quick one";
  const Outcome full = Run("suite " + kSource + "/suites/default.toml --list");
  ASSERT_EQ(full.status, 0) << full.err;
  const std::regex row(R"(^  (\S+)\s+\S+\s+\d+ cells  cost (\S+))");
  std::map<std::string, double> cost;
  std::istringstream f(full.out);
  for (std::string line; std::getline(f, line);) {
    std::smatch m;
    if (std::regex_search(line, m, row)) cost[m[1]] = std::stod(m[2]);
  }
  std::size_t checked = 0;
  for (const json& e : run["experiments"]) {
    const std::string id = e["id"];
    if (!e.value("complete", false) || !e["seconds"].is_number() || !cost.count(id)) continue;
    const double seconds = e["seconds"];
    if (seconds < 20) continue;
    const double predicted = cost.at(id) / 1e7;
    EXPECT_GT(predicted, seconds / 4) << id << ": planned " << predicted << " s, took " << seconds;
    EXPECT_LT(predicted, seconds * 4) << id << ": planned " << predicted << " s, took " << seconds;
    ++checked;
  }
  EXPECT_GE(checked, 5u);
}

TEST_F(Suite, BadSuiteFilesAreRefusedWithTheirLineAndKey) {
  const std::string good =
      "[suite]\nname = \"t\"\n\n[[experiment]]\nid = \"a\"\nkind = \"filters\"\n"
      "filters = { names = [\"bloom\"] }\nkeys = [1000]\nquick = { keys = [100] }\n";
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {good + "colour = \"red\"\n", ":10:10: experiment 'a': unknown key 'colour' for kind filters"},
      {good + "queries = \"many\"\n", ":10:11: experiment 'a': key 'queries': must be an integer"},
      {good + "fpr = [0.01, 2]\n", ":10:14: experiment 'a': key 'fpr' must be in (0, 1), got 2"},
      {"[suite]\nname = \"t\"\n[[experiment]]\nid = \"a\"\nkind = \"filters\"\n"
       "filters = { names = [\"nosuchfilter\"] }\nquick = {}\n",
       ":6:21: experiment 'a': filters: unknown filter 'nosuchfilter'"},
      {"[suite]\nname = \"t\"\n[[experiment]]\nid = \"a\"\nkind = \"teleport\"\n"
       "filters = { names = [\"bloom\"] }\nquick = {}\n",
       ":5:8: experiment 'a': unknown kind 'teleport'"},
      {good + "\n[[experiment]]\nid = \"a\"\nkind = \"filters\"\nfilters = { names = [\"bloom\"] }\n"
              "quick = {}\n",
       ":12:6: duplicate experiment id 'a'"},
      {"[suite]\nname = \"t\"\n[[experiment]]\nid = \"a\"\nkind = \"filters\"\n"
       "filters = { names = [\"bloom\"] }\n",
       ":3:1: experiment 'a': has no quick table"},
      {good + "quick2 = 1\n", "unknown key 'quick2'"},
      {"[suite]\nname = \"t\"\n[[experiment]]\nid = \"a\"\nkind = \"filters\"\n"
       "filters = { names = [\"bloom\"] }\nquick = { colour = 1 }\n",
       ":7:20: experiment 'a': quick: key 'colour' is not a parameter of kind filters"},
      {good + "full = { colour = 1 }\n", ":10:19: experiment 'a': full: key 'colour' is not a parameter of kind filters"},
      {good + "full = 3\n", ":10:8: experiment 'a': key 'full': must be a table of what --full changes"},
      {good + "timed = \"no\"\n", ":10:9: experiment 'a': key 'timed': must be"},
      {"[suite]\nname = \"t\"\n[[experiment]\n", ":3:"},
      {"[suite]\nname = \"t\"\n[[experiment]]\nid = \"a\"\nkind = \"adapt_synthetic\"\n"
       "filters = { names = [\"bloom\"] }\nquick = {}\n",
       "filter 'bloom' cannot take part in adaptive experiments"},
      {"[suite]\nname = \"t\"\nbogus = 1\n", ":3:9: [suite]: unknown key 'bogus'"},
      {"[suite]\nname = \"t\"\n[[experiment]]\nid = \"m\"\nkind = \"micro\"\n"
       "filters = { names = [\"bloom\"] }\noperations = [\"inserts\"]\nquick = {}\n",
       ":3:1: experiment 'm': operations: unknown operation 'inserts'"},
      {"[suite]\nname = \"t\"\n[[experiment]]\nid = \"h\"\nkind = \"machine\"\n"
       "filters = { names = [\"bloom\"] }\nquick = {}\n",
       ":6:11: experiment 'h': unknown key 'filters' for kind machine"},
      {"[suite]\nname = \"t\"\n[[experiment]]\nid = \"h\"\nkind = \"machine\"\n"
       "max_bytes = 4096\nquick = {}\n",
       ":6:13: experiment 'h': key 'max_bytes' must be in 4M .. 128G, got 4096"},
      {"[suite]\nname = \"t\"\n[[experiment]]\nid = \"h\"\nkind = \"machine\"\n"
       "huge_pages = \"always\"\nquick = {}\n",
       "experiment 'h': "},
  };
  for (const Case& c : cases) {
    const fs::path file = dir_ / "bad.toml";
    std::ofstream(file) << c.text;
    const fs::path out = dir_ / "out";
    const Outcome o = Run("suite " + file.string() + " --out-dir " + out.string());
    EXPECT_EQ(o.status, 2) << c.text;
    const std::string expected = c.message[0] == ':' ? file.string() + c.message : c.message;
    EXPECT_NE(o.err.find(expected), std::string::npos) << "expected '" << expected << "' in: " << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_FALSE(fs::exists(out)) << "a refused suite created its output directory";
  }
  const Outcome missing = Run("suite " + (dir_ / "none.toml").string());
  EXPECT_EQ(missing.status, 2);
  const Outcome only = Run("suite " + kSource + "/suites/default.toml --list --only seed_lab,nope");
  EXPECT_EQ(only.status, 2);
  EXPECT_NE(only.err.find("--only: no experiment 'nope'"), std::string::npos) << only.err;
  const Outcome shard = Run("suite " + kSource + "/suites/default.toml --list --shard 3/2");
  EXPECT_EQ(shard.status, 2);
  const Outcome both = Run("suite " + kSource + "/suites/default.toml --list --quick --full");
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.err.find("--quick and --full do not combine"), std::string::npos) << both.err;
}

// --full applies an experiment's full table over its parameters (and only --full does).
TEST_F(Suite, FullExtendsWhatItsTableSays) {
  const std::string text =
      "[suite]\nname = \"t\"\n\n[[experiment]]\nid = \"a\"\nkind = \"filters\"\n"
      "filters = { names = [\"bloom\"] }\nkeys = [1000]\nqueries = 1000\nrepeats = 1\n"
      "quick = { keys = [100] }\nfull = { keys = [1000, 2000] }\n";
  const fs::path file = dir_ / "full.toml";
  std::ofstream(file) << text;
  for (const bool full : {false, true}) {
    const fs::path out = dir_ / (full ? "full" : "default");
    const Outcome o = Run("suite " + file.string() + (full ? " --full" : "") + " --out-dir " + out.string());
    ASSERT_EQ(o.status, 0) << o.err;
    const std::vector<json> lines = Lines(out).at("a.jsonl");
    EXPECT_EQ(lines.front()["suite"]["full"], full);
    EXPECT_EQ(lines.front()["experiment"]["params"]["keys"], (full ? json{1000, 2000} : json{1000}));
    EXPECT_EQ(lines.front()["cells"].size(), full ? 2u : 1u);
  }
}

// Interrupted between two cells (SIGINT: the running cell finishes) or anywhere at all (SIGKILL:
// a cell may be half written), then resumed: every planned cell is recorded exactly once.
TEST_F(Suite, ResumeAfterAnInterruptRunsEveryCellExactlyOnce) {
  for (const int signal : {SIGINT, SIGKILL}) {
    const fs::path out = dir_ / ("out" + std::to_string(signal));
    const std::string suite = kSource + "/commands/testdata/slow_suite.toml";
    const pid_t pid = Spawn({"suite", suite, "--out-dir", out.string()});
    ASSERT_GT(pid, 0);
    // Wait for the first finished cell, then stop the run in the middle of the next one.
    WaitFor(out / "first.jsonl", "\"record\":\"cell\"");
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    kill(pid, signal);
    int status = 0;
    waitpid(pid, &status, 0);
    if (signal == SIGINT) {
      ASSERT_TRUE(WIFEXITED(status));
      EXPECT_EQ(WEXITSTATUS(status), 130);
    } else {
      EXPECT_TRUE(WIFSIGNALED(status));
    }
    const Outcome resumed = Run("suite " + suite + " --out-dir " + out.string() + " --resume");
    ASSERT_EQ(resumed.status, 0) << resumed.err;
    EXPECT_NE(resumed.err.find("kept "), std::string::npos) << "nothing was kept: " << resumed.err;
    ExpectEveryCellOnce(out, 12);
    // Resuming a finished suite runs nothing and changes nothing.
    const std::string before = ReadFile(out / "first.jsonl") + ReadFile(out / "second.jsonl");
    ASSERT_EQ(Run("suite " + suite + " --out-dir " + out.string() + " --resume").status, 0);
    EXPECT_EQ(ReadFile(out / "first.jsonl") + ReadFile(out / "second.jsonl"), before);
  }
}

// Timings and memory measurements aside (the schema says which those are), a line's fields are
// deterministic at a fixed seed.
json Deterministic(json line) {
  for (auto it = line.begin(); it != line.end();) {
    const amq::FieldSpec* field = amq::FindRecordField(it.key());
    if (field && (field->reproducibility == amq::kTiming || field->reproducibility == amq::kMachine)) {
      it = line.erase(it);
    } else {
      ++it;
    }
  }
  return line;
}

TEST_F(Suite, TwoShardsMergedEqualOneRun) {
  const std::string suite = kSource + "/commands/testdata/small_suite.toml";
  const fs::path whole = dir_ / "whole", a = dir_ / "a", b = dir_ / "b", merged = dir_ / "merged";
  ASSERT_EQ(Run("suite " + suite + " --out-dir " + whole.string()).status, 0);
  const Outcome one = Run("suite " + suite + " --out-dir " + a.string() + " --shard 1/2");
  const Outcome two = Run("suite " + suite + " --out-dir " + b.string() + " --shard 2/2");
  ASSERT_EQ(one.status, 0) << one.err;
  ASSERT_EQ(two.status, 0) << two.err;
  // Each shard runs some cells, and together they run each once.
  const auto lines_a = Lines(a), lines_b = Lines(b);
  std::size_t cells_a = 0, cells_b = 0;
  for (const auto& [name, lines] : lines_a) {
    for (const json& l : lines) cells_a += l["record"] == "cell";
  }
  for (const auto& [name, lines] : lines_b) {
    for (const json& l : lines) cells_b += l["record"] == "cell";
  }
  EXPECT_GT(cells_a, 0u);
  EXPECT_GT(cells_b, 0u);
  EXPECT_EQ(cells_a + cells_b, 14u);
  const Outcome m = Run("merge --out-dir " + merged.string() + " " + a.string() + " " + b.string());
  ASSERT_EQ(m.status, 0) << m.err;
  const auto expected = Lines(whole), got = Lines(merged);
  ASSERT_EQ(got.size(), expected.size());
  for (const auto& [name, lines] : expected) {
    const auto& other = got.at(name);
    ASSERT_EQ(other.size(), lines.size()) << name;
    EXPECT_EQ(other.front()["cells"], lines.front()["cells"]) << name;
    for (std::size_t i = 1; i < lines.size(); ++i) {
      EXPECT_EQ(Deterministic(other[i]), Deterministic(lines[i])) << name << " line " << i;
    }
  }
  // Shards of different suites, a shard given twice, or one missing: refused.
  EXPECT_EQ(Run("merge --out-dir " + (dir_ / "x").string() + " " + a.string() + " " + a.string()).status, 2);
  EXPECT_EQ(Run("merge --out-dir " + (dir_ / "x").string() + " " + a.string() + " " + whole.string()).status, 2);
  const fs::path quick = dir_ / "quick";
  ASSERT_EQ(Run("suite " + suite + " --quick --out-dir " + quick.string() + " --shard 2/2").status, 0);
  const Outcome mixed = Run("merge --out-dir " + (dir_ / "x").string() + " " + a.string() + " " + quick.string());
  EXPECT_EQ(mixed.status, 2);
  EXPECT_NE(mixed.err.find("another suite"), std::string::npos) << mixed.err;
  // A damaged manifest (a field of the wrong type, a shard that is not K/N): one line, exit 2.
  const auto damage = [&](const std::string& name, const auto& edit) {
    const fs::path copy = dir_ / name;
    fs::copy(a, copy, fs::copy_options::recursive);
    json manifest = json::parse(std::ifstream(copy / "suite_run.json"));
    edit(manifest);
    std::ofstream(copy / "suite_run.json") << manifest.dump();
    return copy;
  };
  const fs::path bad_list = damage("bad_list", [](json& m) { m["experiments"] = 5; });
  const fs::path bad_part = damage("bad_part", [](json& m) { m["suite"]["shard"] = "1/two"; });
  for (const fs::path& bad : {bad_list, bad_part}) {
    const Outcome o = Run("merge --out-dir " + (dir_ / "y").string() + " " + bad.string() + " " + b.string());
    EXPECT_EQ(o.status, 2) << bad << ": " << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  }
}

// Environment variables set for the commands a test runs, and put back after it. Every
// scheduler's variable is cleared first, so the tests see the same environment inside a Slurm
// job or a pod as outside one.
class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(const std::map<std::string, std::string>& variables) {
    for (const char* name : {"SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN",
                             "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP", "SLURM_ARRAY_TASK_COUNT",
                             "SLURMD_NODENAME", "SLURM_MEM_PER_NODE", "JOB_COMPLETION_INDEX", "AMQ_SHARD_COUNT",
                             "AMQ_JOB_ID", "AMQ_NODE_NAME", "KUBERNETES_SERVICE_HOST"}) {
      Save(name);
      unsetenv(name);
    }
    for (const auto& [name, value] : variables) {
      Save(name);
      setenv(name.c_str(), value.c_str(), 1);
    }
  }
  ~ScopedEnvironment() {
    for (const auto& [name, value] : saved_) {
      if (value) {
        setenv(name.c_str(), value->c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  void Save(const std::string& name) {
    if (saved_.count(name)) return;
    const char* value = std::getenv(name.c_str());
    saved_[name] = value ? std::optional<std::string>(value) : std::nullopt;
  }
  std::map<std::string, std::optional<std::string>> saved_;
};

// What Slurm sets in task `id` of sbatch --array=1-2 on node `node`.
std::map<std::string, std::string> SlurmArrayTask(int id, const std::string& node) {
  return {{"SLURM_JOB_ID", std::to_string(500 + id)}, {"SLURM_ARRAY_JOB_ID", "500"},
          {"SLURM_ARRAY_TASK_ID", std::to_string(id)}, {"SLURM_ARRAY_TASK_MIN", "1"},
          {"SLURM_ARRAY_TASK_MAX", "2"}, {"SLURM_ARRAY_TASK_COUNT", "2"}, {"SLURMD_NODENAME", node}};
}

// --shard auto takes the shard from a Slurm array task or an Indexed Job's index and records
// where it ran; merge says which hosts it joined and refuses timed cells from two unless asked.
// A scheduler's bad variable, or none, is one line and exit status 2.
TEST_F(Suite, ShardAutoFromASchedulerAndMergeByHost) {
  const std::string suite = kSource + "/commands/testdata/small_suite.toml";
  const fs::path one = dir_ / "one", two = dir_ / "two", pod = dir_ / "pod", merged = dir_ / "merged";
  const auto run = [&](const std::map<std::string, std::string>& variables, const std::string& args) {
    const ScopedEnvironment environment(variables);
    return Run(args);
  };
  const Outcome first = run(SlurmArrayTask(1, "n1"), "suite " + suite + " --shard auto --out-dir " + one.string());
  const Outcome second = run(SlurmArrayTask(2, "n1"), "suite " + suite + " --shard auto --out-dir " + two.string());
  ASSERT_EQ(first.status, 0) << first.err;
  ASSERT_EQ(second.status, 0) << second.err;
  const json manifest = json::parse(ReadFile(two / "suite_run.json"));
  EXPECT_EQ(manifest["suite"]["shard"], "2/2");
  EXPECT_EQ(manifest["context"]["scheduler"], "slurm");
  EXPECT_EQ(manifest["context"]["scheduler_job_id"], "500");
  EXPECT_EQ(manifest["context"]["scheduler_task_id"], "2");
  EXPECT_EQ(manifest["context"]["node"], "n1");
  EXPECT_EQ(Lines(two).at("grid.jsonl").front()["context"]["scheduler_task_id"], "2");
  const Outcome joined = run({}, "merge --out-dir " + merged.string() + " " + one.string() + " " + two.string());
  ASSERT_EQ(joined.status, 0) << joined.err;
  EXPECT_EQ(joined.out, "merged 2 shards from 1 host: n1\n");
  const json merged_manifest = json::parse(ReadFile(merged / "suite_run.json"));
  EXPECT_EQ(merged_manifest["hosts"], json({"n1"}));
  EXPECT_EQ(merged_manifest["merged_from"][1]["scheduler_task_id"], "2");
  // Each merged file names the shard, task and node every cell ran on.
  const json grid = Lines(merged).at("grid.jsonl").front();
  std::size_t cells = 0;
  for (const json& origin : grid["context"]["merged_from"]) cells += origin["cells"].size();
  EXPECT_EQ(cells, grid["cells"].size());

  // Shard 2/2 again, as the second pod of an Indexed Job on another node: not merged with n1's.
  const Outcome indexed = run({{"JOB_COMPLETION_INDEX", "1"}, {"AMQ_SHARD_COUNT", "2"}, {"AMQ_NODE_NAME", "k2"}},
                              "suite " + suite + " --shard auto --out-dir " + pod.string());
  ASSERT_EQ(indexed.status, 0) << indexed.err;
  EXPECT_EQ(json::parse(ReadFile(pod / "suite_run.json"))["context"]["scheduler"], "kubernetes");
  const Outcome mixed = run({}, "merge --out-dir " + (dir_ / "mixed").string() + " " + one.string() + " " + pod.string());
  EXPECT_EQ(mixed.status, 2);
  EXPECT_NE(mixed.err.find("come from 2 hosts (k2, n1)"), std::string::npos) << mixed.err;
  EXPECT_EQ(std::count(mixed.err.begin(), mixed.err.end(), '\n'), 1) << mixed.err;
  EXPECT_FALSE(fs::exists(dir_ / "mixed")) << "a refused merge wrote files";
  const Outcome allowed = run({}, "merge --allow-mixed-hosts --out-dir " + (dir_ / "mixed").string() + " " +
                                      one.string() + " " + pod.string());
  ASSERT_EQ(allowed.status, 0) << allowed.err;
  EXPECT_EQ(allowed.out, "merged 2 shards from 2 hosts: k2, n1\n");

  // Neither scheduler, or a bad variable: one line, exit status 2, nothing written.
  const fs::path refused = dir_ / "refused";
  const std::vector<std::pair<std::map<std::string, std::string>, std::string>> bad = {
      {{}, "neither is set"},
      {{{"SLURM_ARRAY_TASK_ID", "two"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "2"}},
       "SLURM_ARRAY_TASK_ID must be a whole number, got 'two'"},
      {{{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "2"}},
       "SLURM_ARRAY_TASK_ID=3 is not a task of the array 1..2"},
      {{{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "1"}}, "neither SLURM_ARRAY_TASK_MAX nor"},
      {{{"JOB_COMPLETION_INDEX", "0"}}, "pass --shard-count N or set AMQ_SHARD_COUNT"},
      {{{"JOB_COMPLETION_INDEX", "0"}, {"AMQ_SHARD_COUNT", "2"}, {"SLURM_MEM_PER_NODE", "4G"}},
       "SLURM_MEM_PER_NODE must be a whole number, got '4G'"},
      {{{"SLURM_MEM_PER_NODE", "1"}}, "1.0 MiB is available (the Slurm job's SLURM_MEM_PER_NODE)"},
  };
  for (const auto& [variables, expected] : bad) {
    const std::string shard = variables.count("SLURM_MEM_PER_NODE") && variables.size() == 1 ? "" : " --shard auto";
    const Outcome o = run(variables, "suite " + suite + shard + " --out-dir " + refused.string());
    EXPECT_EQ(o.status, 2) << expected;
    EXPECT_NE(o.err.find(expected), std::string::npos) << "expected '" << expected << "' in: " << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_FALSE(fs::exists(refused)) << expected;
  }
  EXPECT_EQ(run({}, "suite " + suite + " --shard 1/2 --shard-count 2 --list").status, 2);
}

// --jobs 2 runs the untimed experiments (timed = false) two at a time, then the timed one
// alone: the same cells as one run, its scratch directories gone, the manifest saying which
// ran beside each other. A resumed run keeps them; bad --jobs values are refused.
TEST_F(Suite, JobsRunTheUntimedExperimentsTwoAtATimeAndEqualOneRun) {
  std::string text = ReadFile(kSource + "/commands/testdata/small_suite.toml");
  for (std::size_t at = 0; (at = text.find("section = \"adaptive\"\n", at)) != std::string::npos;) {
    at += std::string("section = \"adaptive\"\n").size();
    text.insert(at, "timed = false\n");
  }
  const fs::path suite = dir_ / "untimed.toml";
  std::ofstream(suite) << text;
  const fs::path whole = dir_ / "whole", jobs = dir_ / "jobs";
  ASSERT_EQ(Run("suite " + suite.string() + " --out-dir " + whole.string()).status, 0);
  const Outcome two = Run("suite " + suite.string() + " --jobs 2 --out-dir " + jobs.string());
  ASSERT_EQ(two.status, 0) << two.err;
  EXPECT_NE(two.err.find("[jobs] 2 untimed experiments, 2 at a time, longest first: "), std::string::npos) << two.err;
  EXPECT_FALSE(fs::exists(jobs / "jobs"));
  const auto expected = Lines(whole), got = Lines(jobs);
  ASSERT_EQ(got.size(), expected.size());
  for (const auto& [name, lines] : expected) {
    const auto& other = got.at(name);
    ASSERT_EQ(other.size(), lines.size()) << name;
    for (std::size_t i = 1; i < lines.size(); ++i) {
      EXPECT_EQ(Deterministic(other[i]), Deterministic(lines[i])) << name << " line " << i;
    }
  }
  const json manifest = json::parse(ReadFile(jobs / "suite_run.json"));
  EXPECT_TRUE(manifest["complete"]);
  EXPECT_EQ(manifest["context"]["jobs"], 2);
  EXPECT_EQ(manifest["jobs"]["experiments"], (json{"synthetic", "adversarial"}));
  std::vector<std::string> order;
  for (const json& e : manifest["experiments"]) {
    order.push_back(e["id"]);
    EXPECT_EQ(e.contains("jobs"), e["id"] != "grid") << e["id"];
  }
  EXPECT_EQ(order, (std::vector<std::string>{"grid", "synthetic", "adversarial"}));
  // The untimed files were written by children of their own, whose headers say so.
  const std::string child = got.at("synthetic.jsonl").front()["context"]["command_line"];
  EXPECT_NE(child.find("--only synthetic --out-dir " + (jobs / "jobs" / "synthetic").string()), std::string::npos) << child;
  // Resumed: every file is finished, so nothing runs again.
  const Outcome resumed = Run("suite " + suite.string() + " --jobs 2 --resume --out-dir " + jobs.string());
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_EQ(resumed.err.find("[jobs]"), std::string::npos) << resumed.err;
  EXPECT_EQ(Lines(jobs), got);
  for (const std::string bad : {"--jobs 0", "--jobs 65", "--jobs two", "--jobs 2 --shard 1/2"}) {
    const Outcome o = Run("suite " + suite.string() + " " + bad + " --out-dir " + (dir_ / "bad").string());
    EXPECT_EQ(o.status, 2) << bad;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << bad << ": " << o.err;
  }
}

// Two runs writing one file would interleave their cells: the second fails at once. A killed
// run's temporary file is cleaned up by the next run on that output.
TEST_F(Suite, OneWriterPerOutputAndNoStaleTemporaries) {
  const fs::path out = dir_ / "busy.jsonl";
  const pid_t pid = Spawn({"run", "--filter", "bloom,xor8,cuckoo12,rsqf", "--keys", "2000000",
                           "--repeats", "3", "--out", out.string()});
  ASSERT_GT(pid, 0);
  WaitFor(out, "\"record\":\"header\"");
  const Outcome second = Run("run --filter bloom --keys 1000 --out " + out.string());
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  EXPECT_EQ(second.status, 2);
  EXPECT_NE(second.err.find("is being written by another amqbench run"), std::string::npos) << second.err;

  // A temporary whose process is gone: the next run removes it.
  const pid_t gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  const fs::path stale = out.string() + ".tmp." + std::to_string(gone);
  std::ofstream(stale) << "half a header";
  ASSERT_EQ(Run("run --filter bloom --keys 1000 --queries 1000 --out " + out.string()).status, 0);
  EXPECT_FALSE(fs::exists(stale));
}

// SIGTERM and SIGHUP stop a run as SIGINT does, with their conventional statuses, keeping
// the cells it finished.
TEST_F(Suite, TerminateAndHangUpExitWithTheirStatus) {
  for (const auto& [signal, status] : {std::pair{SIGTERM, 143}, std::pair{SIGHUP, 129}}) {
    const fs::path out = dir_ / ("stopped" + std::to_string(signal) + ".jsonl");
    const pid_t pid = Spawn({"run", "--filter", "bloom,xor8,cuckoo12,rsqf,blocked_bloom",
                             "--keys", "1000000", "--repeats", "2", "--out", out.string()});
    ASSERT_GT(pid, 0);
    WaitFor(out, "\"record\":\"cell\"");
    kill(pid, signal);
    int raw = 0;
    waitpid(pid, &raw, 0);
    ASSERT_TRUE(WIFEXITED(raw)) << "killed by the signal instead of stopping";
    EXPECT_EQ(WEXITSTATUS(raw), status);
    const auto records = amq::testing::ReadRecords(out);
    EXPECT_GE(records.size(), 1u);
    EXPECT_LT(records.size(), 5u);
  }
}

// A signal in the middle of a long cell stops the run within about a second, whatever the
// cell's size: the cell is abandoned (not recorded) and the last line says what was kept. The
// cell here - 400 timed repeats over 2 million keys - runs for a minute or more, so a stop
// well inside the bound below can only come from abandoning it.
TEST_F(Suite, ASignalMidCellAbandonsTheCellAtOnce) {
  for (const auto& [signal, status] : {std::pair{SIGINT, 130}, std::pair{SIGTERM, 143}}) {
    const fs::path out = dir_ / ("long" + std::to_string(signal) + ".jsonl");
    const fs::path err = dir_ / ("long" + std::to_string(signal) + ".err");
    const pid_t pid = Spawn({"run", "--filter", "bloom", "--keys", "2000000", "--repeats", "400",
                             "--out", out.string()}, err.string());
    ASSERT_GT(pid, 0);
    WaitFor(out, "\"record\":\"header\"");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const auto sent = std::chrono::steady_clock::now();
    kill(pid, signal);
    int raw = 0;
    waitpid(pid, &raw, 0);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
    ASSERT_TRUE(WIFEXITED(raw)) << "killed by the signal instead of stopping";
    EXPECT_EQ(WEXITSTATUS(raw), status);
    EXPECT_LT(seconds, 15.0);
    const std::string said = ReadFile(err);
    EXPECT_NE(said.find("abandoned the running cell (bloom"), std::string::npos) << said;
    EXPECT_NE(said.find("0 of 1 cells are in"), std::string::npos) << said;
    EXPECT_TRUE(amq::testing::ReadRecords(out).empty());
  }
}

// A suite whose largest cell will not fit the machine is refused before its first experiment.
TEST_F(Suite, ASuiteTooBigForTheMachineIsRefusedBeforeItStarts) {
  const fs::path file = dir_ / "huge.toml";
  std::ofstream(file) << "[suite]\nname = \"huge\"\n"
                         "[[experiment]]\nid = \"small\"\nkind = \"filters\"\n"
                         "filters = { names = [\"bloom\"] }\nkeys = [1000]\nquick = {}\n"
                         "[[experiment]]\nid = \"huge\"\nkind = \"filters\"\n"
                         "filters = { names = [\"xor8\"] }\nkeys = [4000000000]\nquick = {}\n";
  const fs::path out = dir_ / "huge_out";
  const Outcome o = Run("suite " + file.string() + " --out-dir " + out.string());
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.err.find("experiment 'huge': cell 'xor8"), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_FALSE(fs::exists(out)) << "a refused suite created its output directory";
}

// The machine kind writes amqbench machine's points as records of their own, one per planned
// cell, with the cell ids `amqbench machine --out` gives the same points: a suite's machine file
// and a stand-alone one compare point for point. Timings are not judged here.
TEST_F(Suite, AMachineExperimentRecordsEveryPointOnce) {
  const fs::path file = dir_ / "machine.toml";
  std::ofstream(file) << "[suite]\nname = \"m\"\n"
                         "[[experiment]]\nid = \"host\"\nkind = \"machine\"\n"
                         "max_bytes = 4194304\nrepeats = 1\nmin_seconds = 0.001\nquick = {}\n";
  const fs::path out = dir_ / "machine_out";
  const Outcome o = Run("suite " + file.string() + " --out-dir " + out.string());
  ASSERT_EQ(o.status, 0) << o.err;
  const std::vector<json> lines = Lines(out).at("host.jsonl");
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines.front()["experiment"]["kind"], "machine");
  EXPECT_EQ(lines.back()["record"], "end");
  amq::MachineRunOptions options;
  options.max_bytes = std::size_t{1} << 22;
  std::vector<std::string> planned;
  for (const amq::MachinePoint& p : amq::PlanMachine(options)) planned.push_back(p.cell_id);
  std::vector<std::string> recorded;
  for (std::size_t i = 1; i + 1 < lines.size(); ++i) {
    EXPECT_EQ(lines[i]["record"], "machine");
    EXPECT_EQ(lines[i]["experiment"], "host");
    recorded.push_back(lines[i]["cell_id"]);
  }
  EXPECT_EQ(recorded, planned);
  EXPECT_EQ(lines[lines.size() - 2]["test"], "cache_levels");
  EXPECT_FALSE(lines[lines.size() - 2]["levels"].empty());
}

// trial_lines = false leaves each trial's line out and writes the same cell lines: the summary
// is computed from the trials either way.
TEST_F(Suite, TrialLinesCanBeLeftOutWithoutChangingTheCells) {
  const std::string experiment =
      "[[experiment]]\nid = \"adv\"\nkind = \"adapt_adversarial\"\n"
      "filters = { names = [\"acf_cuckooing\", \"acf_cyclic\"] }\nslots = 1024\nbits_per_slot = [8]\n"
      "fp_set = [1]\nattack = [\"random_set\"]\nqueries_per_set = [100]\ntrials = 20\nquick = {}\n";
  std::map<bool, std::vector<json>> cells;
  for (const bool trial_lines : {true, false}) {
    const fs::path file = dir_ / (trial_lines ? "with.toml" : "without.toml");
    std::ofstream(file) << "[suite]\nname = \"t\"\n" << experiment
                        << (trial_lines ? "" : "trial_lines = false\n");
    const fs::path out = dir_ / (trial_lines ? "with" : "without");
    const Outcome o = Run("suite " + file.string() + " --out-dir " + out.string());
    ASSERT_EQ(o.status, 0) << o.err;
    std::size_t trials = 0;
    const auto files = Lines(out);  // held: a range-for over a temporary's member dangles
    for (const json& line : files.at("adv.jsonl")) {
      if (line["record"] == "trial") ++trials;
      if (line["record"] == "cell") cells[trial_lines].push_back(line);
    }
    EXPECT_EQ(trials, trial_lines ? 40u : 0u);
  }
  ASSERT_EQ(cells[true].size(), 2u);
  ASSERT_EQ(cells[false].size(), cells[true].size());
  for (std::size_t i = 0; i < cells[true].size(); ++i) {
    for (const char* field : {"cell_id", "false_positives", "false_positives_static", "fpr", "trials"}) {
      EXPECT_EQ(cells[true][i][field], cells[false][i][field]) << field;
    }
  }
}

TEST_F(Suite, SameCellSameIdAcrossRunsAndSeeds) {
  const std::string suite = kSource + "/commands/testdata/small_suite.toml";
  ASSERT_EQ(Run("suite " + suite + " --out-dir " + (dir_ / "r1").string()).status, 0);
  // Finished results are kept unless replaced on purpose (--force) or continued (--resume).
  const Outcome again = Run("suite " + suite + " --out-dir " + (dir_ / "r1").string());
  EXPECT_EQ(again.status, 2);
  EXPECT_NE(again.err.find("holds a finished run"), std::string::npos) << again.err;
  EXPECT_EQ(Run("suite " + suite + " --out-dir " + (dir_ / "r1").string() + " --resume").status, 0);
  ASSERT_EQ(Run("suite " + suite + " --out-dir " + (dir_ / "r2").string()).status, 0);
  const auto r1 = Lines(dir_ / "r1"), r2 = Lines(dir_ / "r2");
  for (const auto& [name, lines] : r1) {
    EXPECT_EQ(lines.front()["cells"], r2.at(name).front()["cells"]) << name;
    std::set<std::string> ids;
    for (const json& id : lines.front()["cells"]) ids.insert(id);
    EXPECT_EQ(ids.size(), lines.front()["cells"].size()) << name << ": two cells share an id";
  }
}

// A run of some experiments (--only) keeps the manifest's entries of the others, each marked
// with the run it came from, in the suite's order; the experiments it ran carry no mark.
TEST_F(Suite, AnOnlyRunKeepsTheManifestEntriesOfTheOthers) {
  const std::string suite = kSource + "/commands/testdata/small_suite.toml";
  const std::string out = (dir_ / "parts").string();
  ASSERT_EQ(Run("suite " + suite + " --out-dir " + out).status, 0);
  const json first = json::parse(ReadFile(fs::path(out) / "suite_run.json"));
  ASSERT_EQ(first["experiments"].size(), 3u);
  // Each experiment says how much CPU others took while it ran (harness/run/others_cpu.h):
  // a figure, never negative, wherever /proc/stat exists; its size depends on the machine.
  if (fs::exists("/proc/stat")) {
    for (const json& e : first["experiments"]) {
      ASSERT_TRUE(e.contains("others_cpu_cores") && e["others_cpu_cores"].is_number()) << e.dump();
      EXPECT_GE(e["others_cpu_cores"].get<double>(), 0.0) << e["id"];
    }
  }
  ASSERT_EQ(Run("suite " + suite + " --only adversarial --force --out-dir " + out).status, 0);
  const json second = json::parse(ReadFile(fs::path(out) / "suite_run.json"));
  ASSERT_EQ(second["experiments"].size(), 3u);
  std::vector<std::string> order;
  for (const json& e : second["experiments"]) order.push_back(e["id"]);
  EXPECT_EQ(order, (std::vector<std::string>{"grid", "synthetic", "adversarial"}));
  for (int i : {0, 1}) {
    const json& kept = second["experiments"][i];
    EXPECT_EQ(kept["seconds"], first["experiments"][i]["seconds"]) << kept["id"];
    EXPECT_EQ(kept["from_run"]["time_utc"], first["context"]["time_utc"]) << kept["id"];
    EXPECT_EQ(kept["from_run"]["command_line"], first["context"]["command_line"]) << kept["id"];
  }
  EXPECT_FALSE(second["experiments"][2].contains("from_run"));
  EXPECT_TRUE(second["complete"]);
  // Another suite's manifest (or a damaged one) is replaced, not merged.
  std::ofstream(fs::path(out) / "suite_run.json") << "{\"suite\": {\"name\": \"other\"}, \"experiments\": []}";
  ASSERT_EQ(Run("suite " + suite + " --only grid --force --out-dir " + out).status, 0);
  const json third = json::parse(ReadFile(fs::path(out) / "suite_run.json"));
  ASSERT_EQ(third["experiments"].size(), 1u);
  EXPECT_EQ(third["experiments"][0]["id"], "grid");
}

}  // namespace
