// commands/machine_command.cc - `amqbench machine`: this host's dependent-load latency from
// 4 KiB to a GiB, its random-cache-line ceiling and its sequential bandwidth
// (harness/machine/machine_measure.h), printed as a table and, with --out, written as a result file:
// the usual header and context, then one "machine" line per point, appended and synced as each
// is measured, so an interrupted run keeps the points it finished.
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "commands/commands.h"
#include "commands/kind_options.h"
#include "commands/option_lists.h"
#include "commands/run_plan.h"
#include "core/errors.h"
#include "harness/kinds/machine_kind.h"
#include "harness/machine/machine_report.h"
#include "harness/run/runner.h"

namespace amq {
namespace po = boost::program_options;

int MachineCommand(const Args& args) {
  std::string out_path;
  bool quick = false, force = false;
  po::options_description options(
      "amqbench machine: this host's memory, measured - dependent-load latency from 4 KiB to\n"
      "--max-bytes (one step per cache level, then DRAM), the rate of independent random\n"
      "cache-line reads (the ceiling of a filter lookup that touches one random line) and\n"
      "sequential read bandwidth. Prints a table; --out also writes a result file. The machine\n"
      "kind's plan, run by the same runner as a suite's machine experiment.\nOptions");
  options.add_options()("help,h", "this text");
  const KindOptions kind_options({&kMachineKind}, options);
  options.add_options()
      ("quick", po::bool_switch(&quick), "64 MiB and short runs (a few seconds): for tests and a quick look")
      ("out", po::value(&out_path), "output JSON Lines file: the header and context, one line per point")
      ("force", po::bool_switch(&force), "replace --out even if it holds a finished run");
  const po::variables_map vm = ParseOptions("machine", args, options);
  if (vm.count("help")) {
    std::cout << options << "\nFields of the output: amqbench legend\n";
    return 0;
  }
  const PlanInput in = CommandLineInput(kMachineKind, kind_options.Params(vm, kMachineKind, quick), "machine");
  if (vm.count("out")) {
    CheckWritable(out_path);
    CheckReplaceable(out_path, force);
  }
  InstallInterruptHandlers();
  const auto started = std::chrono::steady_clock::now();
  std::unique_ptr<ExperimentPlan> plan = kMachineKind.plan(in);
  std::vector<Json> records;
  CommandRun run("machine", kMachineKind, args, in, out_path, force);
  run.collected = &records;
  if (const int status = RunOnePlan(*plan, run); status != 0) return status;
  std::cout << MachineTable(records);
  std::fprintf(stderr, "amqbench machine: %zu points in %s%s\n", records.size(),
               FormatSeconds(SecondsSince(started)).c_str(), out_path.empty() ? "" : (", written to " + out_path).c_str());
  return 0;
}

}  // namespace amq
