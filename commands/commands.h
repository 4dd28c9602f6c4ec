// commands/commands.h - the driver's subcommands. main() picks one by its first argument and
// passes it the remaining arguments; each lives in its own file.
#pragma once

#include <string>
#include <vector>

namespace amq {

using Args = std::vector<std::string>;

int ListCommand(const Args& args);    // harness/cli.cc: every filter and its parameters
int LegendCommand(const Args& args);  // harness/cli.cc: every field of the output
int RunCommand(const Args& args);     // harness/cli.cc: the benchmark grid
int TraceCommand(const Args& args);   // traces/trace_command.cc: stats, synth, convert
int AdaptCommand(const Args& args);   // harness/adapt_command.cc: adaptive-filter experiments

}  // namespace amq
