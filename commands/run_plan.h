// commands/run_plan.h - what `run` and `adapt` share: one plan run by the one runner into one
// result file, with the exit status every command uses (0 done, 1 a cell broke an invariant,
// 128 + the signal when interrupted: 130, 143, 129; bad input is an InputError, exit 2, from main).
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "core/errors.h"
#include "harness/result_file.h"
#include "harness/result_writer.h"
#include "harness/machine_report.h"
#include "harness/runner.h"

namespace amq {

// --out must never name an input: writing results over a capture or a key list destroys it.
inline void CheckNotAnInput(const std::string& out, const std::string& input, const std::string& what) {
  std::error_code e1, e2;
  const auto a = std::filesystem::weakly_canonical(out, e1), b = std::filesystem::weakly_canonical(input, e2);
  if (!e1 && !e2 && a == b) throw InputError("--out " + out + " is " + what + " this run reads; not overwriting it");
}

inline int RunOnePlan(ExperimentPlan& plan, const Json& experiment, const std::string& command_line,
                      std::uint64_t seed, const std::string& out_path, bool force,
                      bool allow_oversubscribe = false, bool measure_machine = false) {
  CheckWritable(out_path);
  CheckReplaceable(out_path, force);
  RunOptions options;
  options.out_path = out_path;
  options.header = {{"experiment", experiment}, {"suite", nullptr},
                    {"context", RunContext(command_line, seed)}};
  // run --machine: the brief machine measurement (harness/machine_report.h) beside the host,
  // once the output is known to be writable.
  if (measure_machine) options.header["context"]["machine"] = QuickMachineSummary();
  options.allow_oversubscribe = allow_oversubscribe;
  const RunOutcome outcome = RunPlan(plan, options);
  if (outcome.interrupted) {
    std::fprintf(stderr, "amqbench: interrupted; %zu of %zu cells kept in %s\n", outcome.cells_run,
                 outcome.cells_planned, out_path.c_str());
    return InterruptExitStatus();
  }
  std::fprintf(stderr, "amqbench: %zu cells written to %s\n", outcome.cells_run, out_path.c_str());
  // A filter that loses a key is broken, not slow: the run says so in its exit status.
  return outcome.broken ? 1 : 0;
}

}  // namespace amq
