// commands/suite_command.cc - `amqbench suite FILE`: run a suite file's experiments, one result
// file each, into one directory; and `amqbench merge`: join the outputs of --shard runs into
// the files one unsharded run would have written.
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "commands/commands.h"
#include "commands/option_lists.h"
#include "core/errors.h"
#include "harness/kinds/all.h"
#include "harness/cell/process_memory.h"
#include "harness/machine/machine_report.h"
#include "harness/machine/thread_team.h"
#include "harness/run/child_process.h"
#include "harness/run/others_cpu.h"
#include "harness/run/result_file.h"
#include "harness/run/result_writer.h"
#include "harness/run/runner.h"
#include "harness/run/scheduler.h"
#include "harness/suite/suite.h"

namespace amq {
namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

constexpr const char* kManifest = "suite_run.json";

// amqbench_micro beside this very binary: the portable micro-benchmarks of the same build.
std::string MicroBesideSelf() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  return error ? std::string("amqbench_micro") : (self.parent_path() / "amqbench_micro").string();
}

Json SuiteHeader(const Suite& suite, const Shard& shard) {
  return {{"name", suite.name},
          {"file", suite.file},
          {"file_hash", suite.file_hash},
          {"quick", suite.quick},
          {"full", suite.full},
          {"shard", shard.active() ? Json(std::to_string(shard.index + 1) + "/" + std::to_string(shard.count))
                                   : Json(nullptr)}};
}

// The entries of an earlier manifest in out_dir to keep beside this run's: a run of some
// experiments (--only) leaves the record of the others where they were, each marked with the
// run it came from (commit, time, command), so REPORT.md's provenance still lists them. Only
// from a manifest of the same suite file, quick flag and shard, and only for experiments still
// in the suite and not run now; an unreadable manifest is replaced, as before.
std::map<std::string, Json> EarlierEntries(const fs::path& manifest_path, const Json& suite_header,
                                           const Suite& suite, const std::set<std::string>& running) {
  std::map<std::string, Json> kept;
  std::ifstream in(manifest_path);
  if (!in) return kept;
  const Json old = Json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!old.is_object() || !old.contains("suite") || !old.contains("experiments") ||
      !old["experiments"].is_array() || !old["suite"].is_object()) {
    return kept;
  }
  const Json& header = old["suite"];
  for (const char* key : {"name", "file", "quick", "shard"}) {
    if (!header.contains(key) || header[key] != suite_header[key]) return kept;
  }
  const Json& context = old.value("context", Json::object());
  const Json run = {{"git_commit", context.value("git_commit", Json(nullptr))},
                    {"git_dirty", context.value("git_dirty", Json(nullptr))},
                    {"time_utc", context.value("time_utc", Json(nullptr))},
                    {"command_line", context.value("command_line", Json(nullptr))}};
  std::set<std::string> in_suite;
  for (const SuiteExperiment& e : suite.experiments) in_suite.insert(e.id);
  for (const Json& entry : old["experiments"]) {
    if (!entry.is_object() || !entry.contains("id") || !entry["id"].is_string()) continue;
    const std::string id = entry["id"];
    if (running.count(id) || !in_suite.count(id)) continue;
    Json copy = entry;
    if (!copy.contains("from_run")) copy["from_run"] = run;
    kept[id] = std::move(copy);
  }
  return kept;
}

Json ReadJsonFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot read " + path);
  try {
    return Json::parse(in);
  } catch (const Json::exception&) {
    throw InputError(path + " is not JSON");
  }
}

// Every kind's keys, from the kinds' own declarations (harness/kinds/all.h): what a suite's
// [[experiment]] of that kind may say, with each key's type, range and meaning.
std::string KindsHelp() {
  std::string text = "Experiment kinds and their keys (beside id, kind, title, section, charts, timed, quick and full):\n";
  for (const KindSpec* kind : kAllKinds) {
    text += "\n  " + std::string(kind->name) + ": " + std::string(kind->summary) + "\n";
    for (const ParamSpec& p : kind->params) {
      std::string range = RangeText(p);
      text += "    " + std::string(p.name) + (range == "any value" ? "" : " (" + range + ")") + ": " +
              std::string(p.meaning) + "\n";
    }
  }
  return text;
}

// The experiments `--jobs N` runs beside each other: those whose report reads no timing
// (timed = false), not skipped; on --resume, not one already begun in out_dir, which continues
// in place as without --jobs. Positions in `chosen`.
std::vector<std::size_t> ExperimentsBesideEachOther(const Suite& suite, const std::vector<std::size_t>& chosen,
                                                    const std::string& out_dir, bool resume) {
  std::vector<std::size_t> picked;
  for (std::size_t n = 0; n < chosen.size(); ++n) {
    const SuiteExperiment& e = suite.experiments[chosen[n]];
    if (e.timed || !e.plan->SkipReason().empty()) continue;
    if (resume && fs::exists(fs::path(out_dir) / e.output_name())) continue;
    picked.push_back(n);
  }
  return picked;
}

// N shards at once need N times the largest cell's memory: refused, as one run's is, when
// the machine has less available (unless --allow-oversubscribe).
void CheckJobsFitInMemory(const Suite& suite, const std::vector<std::size_t>& chosen,
                          const std::vector<std::size_t>& picked, int jobs, bool allow) {
  std::uint64_t largest = 0;
  std::string which;
  for (std::size_t n : picked) {
    ExperimentPlan& plan = *suite.experiments[chosen[n]].plan;
    for (std::size_t i = 0; i < plan.cells().size(); ++i) {
      const std::optional<MemoryEstimate> e = plan.EstimateMemory(i);
      if (e && e->total() > largest) {
        largest = e->total();
        which = plan.cells()[i].label;
      }
    }
  }
  const std::optional<AvailableMemory> available = AvailableMemoryForRun();
  if (!available || largest * std::uint64_t(jobs) <= available->bytes) return;
  const std::string what = "--jobs " + std::to_string(jobs) + " may run " + std::to_string(jobs) +
                           " cells like '" + which + "' at once, about " +
                           FormatBytes(double(largest * std::uint64_t(jobs))) + " by estimate, and " +
                           FormatBytes(double(available->bytes)) + " is available (" + available->source + ")";
  if (!allow) throw InputError(what + "; use fewer --jobs or --allow-oversubscribe");
  std::fprintf(stderr, "amqbench: warning: %s; running anyway (--allow-oversubscribe)\n", what.c_str());
}

}  // namespace

int SuiteCommand(const Args& args) {
  std::string file, only, out_dir, shard_text = "1/1", micro_native = "build-native/amqbench_micro";
  bool quick = false, full = false, resume = false, list = false, force = false, allow_oversubscribe = false;
  bool machine = false;
  int jobs = 1;
  std::optional<int> shard_count;
  po::options_description options(
      "amqbench suite FILE: run every experiment of a suite file (suites/default.toml) into one\n"
      "directory, <out-dir>/<id>.jsonl each (Google Benchmark's <id>.json for micro), with\n"
      "progress on stderr and a manifest, suite_run.json, of what ran and how long it took\n"
      "(with --only, the other experiments keep their entries from the run that made them).\n"
      "Options");
  options.add_options()("help,h", "this text")(
      "quick", po::bool_switch(&quick), "every experiment shrunk as its quick table says")(
      "full", po::bool_switch(&full), "the sweeps extended as each experiment's full table says (micro_n to 2^26 keys)")(
      "only", po::value(&only), "experiment ids, comma list: run only these")(
      "out-dir", po::value(&out_dir), "where results go (default results, or results/quick with --quick)")(
      "resume", po::bool_switch(&resume),
      "keep the cells already recorded in out-dir and run only the others (after Ctrl-C, a reboot, a kill)")(
      "shard", po::value(&shard_text),
      "K/N: run a deterministic 1/N of the cells, balanced by cost (join with amqbench merge); auto: "
      "this task's shard of a Slurm job array or a Kubernetes Indexed Job (README.md, \"Sweeps on a scheduler\")")(
      "shard-count", po::value<int>()->notifier([&](int n) { shard_count = n; }),
      "with --shard auto: N, the shard count, where the scheduler does not say it (a Kubernetes Indexed Job's "
      "completions; AMQ_SHARD_COUNT also sets it); under Slurm, checked against the array's tasks")(
      "micro-native", po::value(&micro_native)->default_value(micro_native),
      "amqbench_micro of a -DAMQ_MARCH_NATIVE=ON build, for micro experiments with build = \"native\"")(
      "force", po::bool_switch(&force), "replace finished result files in out-dir (without it, and without --resume, they are kept and the suite refuses)")(
      "allow-oversubscribe", po::bool_switch(&allow_oversubscribe),
      "run cells whose estimated peak memory exceeds what the machine has available (refused without it)")(
      "list", po::bool_switch(&list), "check the suite file and list its experiments and cells; run nothing")(
      "machine", po::bool_switch(&machine),
      "measure this machine briefly first (amqbench machine --quick, a few seconds) and record its "
      "latency per level, random-line ceiling and bandwidth in every file's context")(
      "jobs", po::value(&jobs)->default_value(jobs),
      "run the experiments whose report reads no timing (timed = false) as this many shards at "
      "once, first, then every timed one alone (default 1: one cell at a time throughout)")(
      "file", po::value(&file), "the suite file");
  po::positional_options_description positional;
  positional.add("file", 1);
  const po::variables_map vm = ParseOptions("suite", args, options, positional);
  if (vm.count("help")) {
    std::cout << "usage: amqbench suite FILE [--quick] [--only ID,...] [--out-dir DIR] [--resume] "
                 "[--shard K/N | --shard auto [--shard-count N]]\n"
              << options << "\n" << KindsHelp();
    return 0;
  }
  if (file.empty()) throw InputError("suite needs a suite file (e.g. suites/default.toml)");
  if (shard_count && shard_text != "auto") throw InputError("--shard-count goes with --shard auto only");
  const Shard shard = shard_text == "auto" ? ShardFromScheduler(shard_count) : ParseShard(shard_text);
  SlurmMemoryBytes();  // a bad SLURM_MEM_PER_NODE is refused before anything runs, estimated or not
  if (quick && full) throw InputError("--quick and --full do not combine");
  if (jobs < 1 || jobs > 64) throw InputError("--jobs must be 1 to 64, got " + std::to_string(jobs));
  if (jobs > 1 && shard.active()) throw InputError("--jobs and --shard do not combine: --jobs shards the untimed experiments itself");
  if (out_dir.empty()) out_dir = quick ? "results/quick" : "results";

  SuiteOptions suite_options;
  suite_options.quick = quick;
  suite_options.full = full;
  suite_options.micro_native = micro_native;
  suite_options.micro_portable = MicroBesideSelf();
  suite_options.cache = (fs::path(out_dir) / "cache").string();
  // Every experiment is read, checked and planned before the first cell runs; a signal
  // meanwhile ends the command at once, since nothing has been written.
  InstallInterruptHandlers();
  auto preparing = std::make_unique<AbandonableWork>(
      "amqbench: interrupted while reading the suite's inputs; nothing was run");
  Suite suite = LoadSuite(file, suite_options);
  const std::vector<std::size_t> chosen = SelectExperiments(suite, only);
  if (list) {
    std::printf("suite %s (%s)%s: %zu experiments\n", suite.name.c_str(), suite.file.c_str(),
                quick ? ", quick" : "", chosen.size());
    for (std::size_t i : chosen) {
      const SuiteExperiment& e = suite.experiments[i];
      double cost = 0;
      for (const CellPlan& c : e.plan->cells()) cost += c.cost;
      std::printf("  %-24s %-18s %5zu cells  cost %.3g  -> %s%s\n", e.id.c_str(), e.kind.c_str(),
                  e.plan->cells().size(), cost, e.output_name().c_str(),
                  e.plan->SkipReason().empty() ? "" : ("  (skipped: " + e.plan->SkipReason() + ")").c_str());
    }
    return 0;
  }
  // A finished result file is replaced only on purpose: --force, or --resume (which keeps it).
  if (!resume) {
    for (std::size_t i : chosen) {
      CheckReplaceable((fs::path(out_dir) / suite.experiments[i].output_name()).string(), force);
    }
  }
  // Every experiment's inputs are read and checked before the first cell of the suite runs.
  const auto for_each_experiment = [&](const auto& step) {
    for (std::size_t i : chosen) {
      SuiteExperiment& e = suite.experiments[i];
      if (!e.plan->SkipReason().empty()) continue;
      try {
        step(*e.plan);
      } catch (const InputError& error) {
        throw InputError(e.where + ": experiment '" + e.id + "': " + error.what());
      }
    }
  };
  for_each_experiment([](ExperimentPlan& plan) { plan.Prepare(); });
  const std::vector<std::size_t> beside =
      jobs > 1 ? ExperimentsBesideEachOther(suite, chosen, out_dir, resume) : std::vector<std::size_t>{};
  // The memory checks' estimates first, on every core this process may use (taskset, cgroups,
  // a scheduler's allocation), at most 8 at once: each holds a scaled build of up to 2^19 keys.
  // The cells of this shard, and every cell of the experiments --jobs runs beside each other
  // (their check reads them all).
  std::vector<std::pair<ExperimentPlan*, std::size_t>> estimated;
  for (std::size_t n = 0; n < chosen.size(); ++n) {
    ExperimentPlan& plan = *suite.experiments[chosen[n]].plan;
    if (!plan.SkipReason().empty()) continue;
    const bool all = std::find(beside.begin(), beside.end(), n) != beside.end();
    const std::vector<bool> mine = CellsOfShard(plan.cells(), shard);
    for (std::size_t i = 0; i < plan.cells().size(); ++i) {
      if (all || mine[i]) estimated.emplace_back(&plan, i);
    }
  }
  WarmMemoryEstimates(estimated, static_cast<unsigned>(std::min<std::size_t>(PlacementCpus().size(), 8)));
  for_each_experiment([&](ExperimentPlan& plan) { CheckFitsInMemory(plan, shard, allow_oversubscribe); });
  if (!beside.empty()) CheckJobsFitInMemory(suite, chosen, beside, jobs, allow_oversubscribe);
  preparing.reset();  // the inputs are read: from here a signal stops at the next cell
  if (Interrupted()) {
    std::fprintf(stderr, "amqbench: interrupted while reading the suite's inputs; nothing was run\n");
    return InterruptExitStatus();
  }
  std::error_code made;
  fs::create_directories(out_dir, made);
  if (!fs::is_directory(out_dir)) throw InputError("cannot create --out-dir " + out_dir);
  CheckWritable((fs::path(out_dir) / kManifest).string());

  Json context = RunContext(CommandLine("suite", args), suite.seed);
  if (machine) context["machine"] = QuickMachineSummary();
  context["jobs"] = jobs;
  Json manifest = {{"suite", SuiteHeader(suite, shard)},
                   {"context", context},
                   {"experiments", Json::array()},
                   {"complete", false}};
  std::set<std::string> running;
  for (std::size_t i : chosen) running.insert(suite.experiments[i].id);
  const std::map<std::string, Json> earlier =
      EarlierEntries(fs::path(out_dir) / kManifest, manifest["suite"], suite, running);
  std::map<std::string, Json> ran_now;
  // In the suite's order: this run's entries so far and the earlier runs' kept ones.
  const auto write_manifest = [&] {
    Json entries = Json::array();
    for (const SuiteExperiment& e : suite.experiments) {
      if (const auto now = ran_now.find(e.id); now != ran_now.end()) {
        entries.push_back(now->second);
      } else if (const auto kept = earlier.find(e.id); kept != earlier.end()) {
        entries.push_back(kept->second);
      }
    }
    manifest["experiments"] = std::move(entries);
    WriteJsonAtomically((fs::path(out_dir) / kManifest).string(), manifest);
  };
  double total_cost = 0;
  std::vector<double> costs;
  for (std::size_t i : chosen) {
    double cost = 0;
    const auto mine = CellsOfShard(suite.experiments[i].plan->cells(), shard);
    for (std::size_t c = 0; c < mine.size(); ++c) cost += mine[c] ? suite.experiments[i].plan->cells()[c].cost : 0;
    costs.push_back(cost);
    total_cost += cost;
  }

  const auto started = std::chrono::steady_clock::now();
  double cost_before = 0;
  std::size_t broken = 0;
  bool interrupted = false;
  // --jobs N: the untimed experiments first, N at a time, each in a child of this binary
  // (`suite --only ID` into OUT/jobs/ID, which keeps its cells if interrupted), the longest by
  // the plans' cost first and the next to whichever child finishes; each file is moved into OUT
  // when its experiment is complete. Their timings are recorded as every cell's are, but were
  // taken beside another experiment: the files' context and the manifest say so ("jobs").
  if (!beside.empty()) {
    std::error_code self_error;
    const std::string self = fs::read_symlink("/proc/self/exe", self_error).string();
    if (self_error) throw InputError("--jobs: cannot find this binary (/proc/self/exe) to start its children");
    std::vector<std::size_t> order = beside;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
    std::string ids;
    for (std::size_t n : order) ids += (ids.empty() ? "" : ",") + suite.experiments[chosen[n]].id;
    std::fprintf(stderr, "[jobs] %zu untimed experiments, %d at a time, longest first: %s\n", order.size(), jobs, ids.c_str());
    const auto dir_of = [&](std::size_t n) { return (fs::path(out_dir) / "jobs" / suite.experiments[chosen[n]].id).string(); };
    std::vector<std::optional<ChildOutcome>> outcomes(order.size());
    std::mutex taking;
    std::size_t next = 0;
    const auto worker = [&] {
      for (;;) {
        std::size_t i = 0;
        {
          const std::lock_guard<std::mutex> lock(taking);
          if (next == order.size() || Interrupted()) return;
          i = next++;
        }
        std::vector<std::string> child = {self, "suite", file, "--only", suite.experiments[chosen[order[i]]].id,
                                          "--out-dir", dir_of(order[i]), "--micro-native", micro_native,
                                          resume ? "--resume" : "--force"};
        if (quick) child.push_back("--quick");
        if (full) child.push_back("--full");
        if (allow_oversubscribe) child.push_back("--allow-oversubscribe");
        outcomes[i] = RunChild(child);
      }
    };
    std::vector<std::thread> workers;
    for (int k = 0; k < jobs; ++k) workers.emplace_back(worker);
    for (std::thread& t : workers) t.join();
    const auto exit_code = [](const ChildOutcome& o) { return WIFEXITED(o.status) ? WEXITSTATUS(o.status) : -1; };
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (!outcomes[i] || outcomes[i]->interrupted || Interrupted()) {
        std::fprintf(stderr, "amqbench: interrupted; the finished cells are kept in %s (amqbench suite %s --resume --jobs %d continues)\n",
                     (fs::path(out_dir) / "jobs").c_str(), file.c_str(), jobs);
        return Interrupted() ? InterruptExitStatus() : 130;
      }
      // 1: false negatives or a broken invariant (the file is whole and kept), or a failure
      // inside (its manifest is unfinished: refused below).
      if (exit_code(*outcomes[i]) != 0 && exit_code(*outcomes[i]) != 1) {
        throw std::runtime_error("--jobs: experiment " + suite.experiments[chosen[order[i]]].id + " failed (exit status " +
                                 std::to_string(exit_code(*outcomes[i])) + "); its finished cells are in " +
                                 dir_of(order[i]) + " and --resume --jobs " + std::to_string(jobs) + " continues");
      }
      broken += exit_code(*outcomes[i]) == 1;
    }
    for (std::size_t n : beside) {  // in the suite's order
      const SuiteExperiment& e = suite.experiments[chosen[n]];
      const Json child = ReadJsonFile((fs::path(dir_of(n)) / kManifest).string());
      if (!child.value("complete", false) || !child["experiments"].is_array() || child["experiments"].size() != 1) {
        throw std::runtime_error("--jobs: " + dir_of(n) + " holds an unfinished run of " + e.id + " (--resume --jobs continues it)");
      }
      Json entry = child["experiments"][0];
      if (entry["skipped"].is_null()) fs::rename(fs::path(dir_of(n)) / e.output_name(), fs::path(out_dir) / e.output_name());
      entry["jobs"] = jobs;
      ran_now[e.id] = entry;
      fs::remove_all(dir_of(n));
      cost_before += costs[n];
    }
    std::error_code ignored;
    fs::remove(fs::path(out_dir) / "jobs", ignored);  // only when empty
    manifest["jobs"] = {{"count", jobs}, {"experiments", Json::array()}, {"wall_seconds", SecondsSince(started)}};
    for (std::size_t n : beside) manifest["jobs"]["experiments"].push_back(suite.experiments[chosen[n]].id);
    manifest["wall_seconds"] = SecondsSince(started);
    write_manifest();
  }
  for (std::size_t n = 0; n < chosen.size() && !interrupted; ++n) {
    if (std::find(beside.begin(), beside.end(), n) != beside.end()) continue;
    SuiteExperiment& e = suite.experiments[chosen[n]];
    const std::string prefix = "[experiment " + std::to_string(n + 1) + "/" +
                               std::to_string(chosen.size()) + " " + e.id + "] ";
    const std::string out = (fs::path(out_dir) / e.output_name()).string();
    Json entry = {{"id", e.id}, {"kind", e.kind}, {"file", e.output_name()}, {"skipped", nullptr}};
    const auto experiment_started = std::chrono::steady_clock::now();
    const CpuSample cpu_before = SampleCpu();
    if (const std::string why = e.plan->SkipReason(); !why.empty()) {
      std::fprintf(stderr, "%sskipped: %s\n", prefix.c_str(), why.c_str());
      entry["skipped"] = why;
    } else {
      RunOptions run;
      run.out_path = out;
      run.header = {{"experiment",
                     {{"id", e.id},
                      {"kind", e.kind},
                      {"title", e.title},
                      {"section", e.section},
                      {"charts", e.charts},
                      {"timed", e.timed},
                      {"params", e.params}}},
                    {"suite", SuiteHeader(suite, shard)},
                    {"context", context}};
      run.resume = resume;
      run.shard = shard;
      run.progress_prefix = prefix;
      run.suite_cost_before = cost_before;
      run.suite_cost_after = total_cost - cost_before - costs[n];
      run.suite_seconds_before = SecondsSince(started);
      run.memory_checked = true;  // every experiment was checked before the first ran
      run.resume_hint = "; amqbench suite " + file + " --resume continues";
      const RunOutcome outcome = RunPlan(*e.plan, run);
      broken += outcome.broken;
      interrupted = outcome.interrupted;
      entry["cells"] = outcome.cells_planned - outcome.cells_other_shards;
      entry["cells_run"] = outcome.cells_run;
      entry["cells_kept"] = outcome.cells_kept;
      entry["complete"] = outcome.complete;
      // Whether the machine was quiet while it ran (harness/run/others_cpu.h): the report shows
      // it beside each experiment's time, and a timed one run beside other work is named now.
      if (const auto others = OthersCores(cpu_before, SampleCpu())) {
        entry["others_cpu_cores"] = std::round(*others * 1000) / 1000;
        if (e.timed && *others > kQuietMachineMaxOthersCores && SecondsSince(experiment_started) >= 1) {
          std::fprintf(stderr, "%swarning: other processes used %.2f cores on average while it ran; its timings are not a quiet machine's\n",
                       prefix.c_str(), *others);
        }
      }
    }
    cost_before += costs[n];
    entry["seconds"] = SecondsSince(experiment_started);
    ran_now[e.id] = entry;
    manifest["wall_seconds"] = SecondsSince(started);
    write_manifest();
  }
  if (interrupted) {
    std::fprintf(stderr, "amqbench: interrupted after %s; finished cells are kept in %s (amqbench suite %s --resume continues)\n",
                 FormatSeconds(SecondsSince(started)).c_str(), out_dir.c_str(), file.c_str());
    return Interrupted() ? InterruptExitStatus() : 130;
  }
  manifest["complete"] = true;
  write_manifest();
  std::fprintf(stderr, "amqbench: suite %s%s: %zu experiments in %s, into %s\n", suite.name.c_str(),
               quick ? " (quick)" : "", chosen.size(), FormatSeconds(SecondsSince(started)).c_str(),
               out_dir.c_str());
  return broken ? 1 : 0;
}

namespace {

// The shard number N of "K/N", checked.
int ShardCount(const std::string& dir, const std::string& part) {
  const std::size_t slash = part.find('/');
  int n = 0;
  const char* first = part.c_str() + (slash == std::string::npos ? part.size() : slash + 1);
  const auto [end, error] = std::from_chars(first, part.c_str() + part.size(), n);
  if (slash == std::string::npos || error != std::errc() || *end != '\0' || n < 1) {
    throw InputError(dir + " names its shard '" + part + "', not K/N");
  }
  return n;
}

// The host a shard's context names: its node (the scheduler's name for the machine), or, in a
// file from before that field, its host name.
std::string NodeOf(const Json& context) {
  if (context.contains("node") && context["node"].is_string()) return context["node"];
  return context.value("host_name", std::string("unknown"));
}

// Where a shard ran, for the merged manifest and files: which shard, node and scheduler task.
Json ShardOrigin(const std::string& part, const Json& context) {
  Json origin = {{"shard", part}, {"node", NodeOf(context)}, {"host_name", context.value("host_name", Json(nullptr))}};
  for (const char* key : {"scheduler", "scheduler_job_id", "scheduler_task_id"}) {
    origin[key] = context.value(key, Json(nullptr));
  }
  return origin;
}

// The first line of a result file, its header; null where it is missing or not JSON (the
// merge proper then refuses the file with its reason).
Json ResultHeader(const fs::path& path) {
  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  return Json::parse(first, nullptr, /*allow_exceptions=*/false);
}

std::string JoinSet(const std::set<std::string>& words) {
  std::string text;
  for (const std::string& w : words) text += (text.empty() ? "" : ", ") + w;
  return text;
}

int MergeShards(const std::string& out_dir, const std::vector<std::string>& shards, bool allow_mixed_hosts) {
  // The shards must be the N parts of one run: same suite file and quick flag, same build.
  std::vector<Json> manifests;
  std::set<std::string> parts;
  int count = 0;
  for (const std::string& dir : shards) {
    const Json m = ReadJsonFile((fs::path(dir) / kManifest).string());
    if (!m.value("complete", false)) throw InputError(dir + " holds an unfinished shard (resume it first)");
    const Json& s = m["suite"];
    if (!s["shard"].is_string()) throw InputError(dir + " is not a --shard run");
    const std::string part = s["shard"];
    const int n = ShardCount(dir, part);
    if (count == 0) count = n;
    if (n != count) throw InputError(dir + " is shard " + part + " of another split");
    if (!parts.insert(part).second) throw InputError("shard " + part + " is given twice");
    if (!manifests.empty()) {
      const Json& first = manifests.front();
      if (s["file_hash"] != first["suite"]["file_hash"] || s["quick"] != first["suite"]["quick"] ||
          s.value("full", false) != first["suite"].value("full", false)) {
        throw InputError(dir + " comes from another suite file (or --quick or --full differs); refusing to merge");
      }
      for (const char* key : {"git_commit", "compiler_flags", "march_native", "build_type"}) {
        if (m["context"][key] != first["context"][key]) {
          throw InputError(dir + " comes from another build (" + std::string(key) + " differs); refusing to merge");
        }
      }
    }
    manifests.push_back(m);
  }
  if (static_cast<int>(parts.size()) != count) {
    throw InputError("merge needs all " + std::to_string(count) + " shards, got " + std::to_string(parts.size()));
  }
  // Timings taken on two machines are not one measurement: an experiment whose report reads
  // timings (timed, the default) is merged from one host only, unless --allow-mixed-hosts.
  // Checked for every experiment before the first file is written.
  std::set<std::string> hosts;
  Json origins = Json::array();
  for (const Json& m : manifests) {
    hosts.insert(NodeOf(m["context"]));
    origins.push_back(ShardOrigin(m["suite"]["shard"], m["context"]));
  }
  for (const Json& entry : manifests.front()["experiments"]) {
    if (allow_mixed_hosts || hosts.size() < 2) break;
    const std::string name = entry["file"];
    std::set<std::string> file_hosts;
    bool timed = true;
    for (const std::string& dir : shards) {
      const Json header = ResultHeader(fs::path(dir) / name);
      if (!header.is_object() || !header.contains("context")) continue;
      file_hosts.insert(NodeOf(header["context"]));
      timed = timed && header.contains("experiment") && header["experiment"].value("timed", true);
    }
    if (timed && file_hosts.size() > 1) {
      throw InputError(name + ": its timed cells come from " + std::to_string(file_hosts.size()) + " hosts (" +
                       JoinSet(file_hosts) + "), whose timings one file cannot compare; rerun on one host, or "
                       "merge anyway with --allow-mixed-hosts");
    }
  }

  std::error_code made;
  fs::create_directories(out_dir, made);
  if (!fs::is_directory(out_dir)) throw InputError("cannot create --out-dir " + out_dir);
  Json merged = manifests.front();
  merged["suite"]["shard"] = nullptr;
  merged["experiments"] = Json::array();
  merged["hosts"] = hosts;
  merged["merged_from"] = origins;
  double wall = 0;
  for (const Json& m : manifests) wall = std::max(wall, m.value("wall_seconds", 0.0));
  merged["wall_seconds"] = wall;
  for (const Json& entry : manifests.front()["experiments"]) {
    const std::string name = entry["file"];
    Json out_entry = entry;
    out_entry.erase("cells_run");
    out_entry.erase("cells_kept");
    double seconds = 0;
    std::vector<std::string> present;
    for (const std::string& dir : shards) {
      if (fs::exists(fs::path(dir) / name)) present.push_back(dir);
    }
    for (const Json& m : manifests) {
      for (const Json& e : m["experiments"]) {
        if (e["id"] == entry["id"]) seconds += e.value("seconds", 0.0);
      }
    }
    out_entry["seconds"] = seconds;
    const std::string target = (fs::path(out_dir) / name).string();
    // A kind that writes its own file (Google Benchmark's JSON) is one cell: copied, not merged.
    if (const KindSpec* kind = FindKind(entry["kind"].get<std::string>()); kind && kind->writes_own_file) {
      if (present.size() > 1) throw InputError(name + " is in more than one shard");
      if (present.size() == 1) fs::copy_file(fs::path(present[0]) / name, target, fs::copy_options::overwrite_existing);
      if (present.empty()) out_entry["skipped"] = "not run by any shard";
      merged["experiments"].push_back(out_entry);
      continue;
    }
    if (present.empty()) {
      merged["experiments"].push_back(out_entry);
      continue;
    }
    // Every shard's lines, grouped by cell; written back in the plan's order.
    Json header;
    std::map<std::string, std::vector<Json>> by_cell;
    std::set<std::string> file_hosts;
    Json merged_from = Json::array();
    for (const std::string& dir : present) {
      Json h;
      bool complete = false;
      const std::vector<Json> lines = ReadResultLines((fs::path(dir) / name).string(), &h, &complete);
      if (!complete) throw InputError(dir + "/" + name + " is unfinished");
      if (header.is_null()) header = h;
      if (h["cells"] != header["cells"]) throw InputError(dir + "/" + name + " plans other cells");
      file_hosts.insert(NodeOf(h["context"]));
      Json origin = ShardOrigin(h["suite"]["shard"], h["context"]);
      origin["cells"] = Json::array();
      for (const Json& line : lines) {
        if (line.value("record", "") == "cell") origin["cells"].push_back(line["cell_id"]);
      }
      merged_from.push_back(std::move(origin));
      // Grouped by cell_id: a cell's trial rows carry their own seeds (the cell's seed + trial).
      std::set<std::string> seen_here;
      for (const Json& line : lines) {
        const std::string id = line["cell_id"];
        if (by_cell.count(id) && !seen_here.count(id)) {
          throw InputError("cell " + id + " of " + name + " is in more than one shard");
        }
        seen_here.insert(id);
        by_cell[id].push_back(line);
      }
    }
    out_entry["hosts"] = file_hosts;
    header["suite"]["shard"] = nullptr;
    header["context"]["merged_from"] = std::move(merged_from);
    ResultWriter writer = ResultWriter::Create(target, header);
    std::size_t cells = 0;
    for (const Json& id : header["cells"]) {
      const auto it = by_cell.find(id.get<std::string>());
      if (it == by_cell.end()) throw InputError("no shard ran cell " + id.get<std::string>() + " of " + name);
      writer.AppendCell(it->second);
      by_cell.erase(it);
      ++cells;
    }
    writer.Finish(cells);
    merged["experiments"].push_back(out_entry);
  }
  WriteJsonAtomically((fs::path(out_dir) / kManifest).string(), merged);
  std::fprintf(stderr, "amqbench: merged %zu shards into %s\n", shards.size(), out_dir.c_str());
  std::printf("merged %zu shards from %zu host%s: %s\n", shards.size(), hosts.size(), hosts.size() == 1 ? "" : "s",
              JoinSet(hosts).c_str());
  return 0;
}

}  // namespace

int MergeCommand(const Args& args) {
  std::string out_dir;
  std::vector<std::string> shards;
  bool allow_mixed_hosts = false;
  po::options_description options(
      "amqbench merge --out-dir DIR SHARD_DIR...: join the output directories of `amqbench suite\n"
      "--shard K/N` runs (every K of one N, same suite file, same build) into the files one\n"
      "unsharded run would have written; says on stdout which hosts the shards ran on.\nOptions");
  options.add_options()("help,h", "this text")("out-dir", po::value(&out_dir), "where the merged files go")(
      "allow-mixed-hosts", po::bool_switch(&allow_mixed_hosts),
      "merge an experiment whose report reads timings (timed) from shards that ran on different hosts "
      "(refused without it; the merged manifest and each file's context.merged_from say which cells ran where)")(
      "shards", po::value(&shards)->multitoken(), "the shard output directories");
  po::positional_options_description positional;
  positional.add("shards", -1);
  const po::variables_map vm = ParseOptions("merge", args, options, positional);
  if (vm.count("help")) {
    std::cout << options;
    return 0;
  }
  if (out_dir.empty()) throw InputError("merge needs --out-dir DIR");
  if (shards.size() < 2) throw InputError("merge needs at least two shard directories");
  // A shard's manifest or result file with a field missing or of the wrong type (damaged, or
  // written by something else) is bad input, not an internal error.
  try {
    return MergeShards(out_dir, shards, allow_mixed_hosts);
  } catch (const Json::exception& e) {
    throw InputError("merge: a shard's files are not what `amqbench suite --shard` writes (" +
                     std::string(e.what()) + ")");
  }
}

}  // namespace amq
