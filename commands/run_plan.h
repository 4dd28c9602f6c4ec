// commands/run_plan.h - what `run` and `adapt` share: one plan run by the one runner into one
// result file, with the exit status every command uses (0 done, 1 a cell broke an invariant,
// 128 + the signal when interrupted: 130, 143, 129; bad input is an InputError, exit 2, from main).
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "core/errors.h"
#include "commands/commands.h"
#include "harness/run/result_file.h"
#include "harness/run/result_writer.h"
#include "harness/machine/machine_report.h"
#include "harness/run/kind.h"
#include "harness/run/runner.h"

namespace amq {

// --out must never name an input: writing results over a capture or a key list destroys it.
inline void CheckNotAnInput(const std::string& out, const std::string& input, const std::string& what) {
  std::error_code e1, e2;
  const auto a = std::filesystem::weakly_canonical(out, e1), b = std::filesystem::weakly_canonical(input, e2);
  if (!e1 && !e2 && a == b) throw InputError("--out " + out + " is " + what + " this run reads; not overwriting it");
}

// How a command runs its one plan.
struct CommandRun {
  // The experiment is named after the command: {"id": command, "kind": kind}; the seed is the
  // plan's (PlanInput's "seed", 1 by default).
  CommandRun(const std::string& command, const KindSpec& kind, const Args& args, const PlanInput& in,
             std::string out, bool replace)
      : experiment({{"id", command}, {"kind", std::string(kind.name)}}),
        command_line(CommandLine(command, args)),
        seed(in.Get<std::uint64_t>("seed", 1)),
        out_path(std::move(out)),
        force(replace) {}

  Json experiment;              // {"id": "run", "kind": "filters"}
  std::string command_line;     // recorded in the context
  std::uint64_t seed = 1;
  std::string out_path;         // "": no file (the lines still reach `collected`)
  bool force = false;           // replace a finished --out
  bool allow_oversubscribe = false;
  bool measure_machine = false;  // run --machine: the brief machine summary in the context
  std::vector<Json>* collected = nullptr;
};

// The header (experiment, context) is built here for every command, and in suite_command.cc
// for a suite's experiments (which add the suite); the runner writes it.
inline int RunOnePlan(ExperimentPlan& plan, const CommandRun& run) {
  if (!run.out_path.empty()) {
    CheckWritable(run.out_path);
    CheckReplaceable(run.out_path, run.force);
  }
  RunOptions options;
  options.out_path = run.out_path;
  options.header = {{"experiment", run.experiment}, {"suite", nullptr},
                    {"context", RunContext(run.command_line, run.seed)}};
  // run --machine: the brief machine measurement (harness/machine/machine_report.h) beside the
  // host, once the output is known to be writable.
  if (run.measure_machine) options.header["context"]["machine"] = QuickMachineSummary();
  options.allow_oversubscribe = run.allow_oversubscribe;
  options.collected = run.collected;
  const RunOutcome outcome = RunPlan(plan, options);
  const std::string where = run.out_path.empty() ? "" : " in " + run.out_path;
  if (outcome.interrupted) {
    std::fprintf(stderr, "amqbench: interrupted; %zu of %zu cells kept%s\n", outcome.cells_run,
                 outcome.cells_planned, where.c_str());
    return InterruptExitStatus();
  }
  if (!run.out_path.empty()) {
    std::fprintf(stderr, "amqbench: %zu cells written to %s\n", outcome.cells_run, run.out_path.c_str());
  }
  // A filter that loses a key is broken, not slow: the run says so in its exit status.
  return outcome.broken ? 1 : 0;
}

}  // namespace amq
