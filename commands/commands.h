// commands/commands.h - the driver's subcommands. main() picks one by its first argument and
// passes it the remaining arguments; each lives in its own file.
#pragma once

#include <string>
#include <vector>

namespace amq {

using Args = std::vector<std::string>;

int ListCommand(const Args& args);    // commands/run_command.cc: every filter and its capabilities
int LegendCommand(const Args& args);  // commands/run_command.cc: every field of the output
int RunCommand(const Args& args);     // commands/run_command.cc: one grid of filters
int TraceCommand(const Args& args);   // commands/trace_command.cc: stats, synth, convert
int AdaptCommand(const Args& args);   // commands/adapt_command.cc: adaptive-filter experiments
int SuiteCommand(const Args& args);   // commands/suite_command.cc: run a suite file
int MergeCommand(const Args& args);   // commands/suite_command.cc: join --shard outputs
int MachineCommand(const Args& args); // commands/machine_command.cc: this host's latency and bandwidth
int CompareCommand(const Args& args); // commands/compare_command.cc: two runs, cell by cell
int AbCommand(const Args& args);      // commands/ab_command.cc: two builds' timings, in alternating rounds
int TheoryCommand(const Args& args);  // commands/theory_command.cc: theory formulas as JSON
// commands/count_instructions_command.cc: the instructions kind's child, under callgrind only
int CountInstructionsCommand(const Args& args);

}  // namespace amq
