// commands/main.cc - amqbench: picks a subcommand, and turns bad input into one line on
// stderr and exit status 2.
#include <cstring>
#include <exception>
#include <iostream>

#include "commands/commands.h"
#include "core/errors.h"

namespace {

constexpr const char* kUsage =
    "usage: amqbench COMMAND [options]\n"
    "  list      every filter, its family, capabilities and parameters\n"
    "  run       build and measure filters over a grid of parameters, write JSON\n"
    "  legend    every field of run's JSON records, explained\n"
    "  trace     network traces: stats, synth, convert\n"
    "  adapt     adaptive cuckoo filter experiments\n"
    "  suite     run a suite file (suites/default.toml): every experiment, resumable, shardable\n"
    "  merge     join the outputs of suite --shard runs\n"
    "  machine   this host measured: load latency per cache level and DRAM, random-line ceiling, bandwidth\n"
    "  compare   two runs (result files, directories, Google Benchmark JSON), cell by cell\n"
    "  ab        two builds' Google Benchmark binaries timed in alternating rounds, paired, judged\n"
    "  theory    the filters' theory formulas evaluated on lists of arguments, as JSON\n"
    "'amqbench COMMAND --help' documents each command's options.\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::cout << kUsage;
    return argc < 2 ? amq::kExitBadInput : 0;
  }
  const std::string command = argv[1];
  const amq::Args args(argv + 2, argv + argc);
  try {
    if (command == "list") return amq::ListCommand(args);
    if (command == "legend") return amq::LegendCommand(args);
    if (command == "run") return amq::RunCommand(args);
    if (command == "trace") return amq::TraceCommand(args);
    if (command == "adapt") return amq::AdaptCommand(args);
    if (command == "suite") return amq::SuiteCommand(args);
    if (command == "merge") return amq::MergeCommand(args);
    if (command == "machine") return amq::MachineCommand(args);
    if (command == "compare") return amq::CompareCommand(args);
    if (command == "ab") return amq::AbCommand(args);
    if (command == "theory") return amq::TheoryCommand(args);
    // Not in the usage text: the instructions kind's child, which refuses outside valgrind.
    if (command == "count-instructions") return amq::CountInstructionsCommand(args);
    throw amq::InputError("unknown command '" + command + "' (amqbench --help lists them)");
  } catch (const amq::InputError& e) {
    std::cerr << "amqbench: " << e.what() << '\n';
    return amq::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "amqbench: internal error: " << e.what() << '\n';
    return 1;
  }
}
