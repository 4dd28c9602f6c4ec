// commands/count_instructions_command.cc - `amqbench count-instructions FILTER KEYS QUERIES SEED`:
// the child the instructions kind runs under valgrind's callgrind (harness/kinds/instructions_kind.h).
// Runs the filter's kernels once each, instrumented alone, one callgrind dump per kernel
// (harness/cell/instruction_count.h), and prints which kernels ran over how many operations and
// whether the filter lost a key, as JSON on stdout. Not for people: run outside valgrind it
// refuses, since nothing would be counted.
#include <iostream>

#include "commands/commands.h"
#include "core/errors.h"
#include "harness/cell/registry.h"

namespace amq {

int CountInstructionsCommand(const Args& args) {
  if (args.size() != 4) throw InputError("count-instructions takes FILTER KEYS QUERIES SEED (the instructions kind runs it)");
  const FilterEntry* filter = FindFilter(args[0]);
  if (!filter) throw InputError("count-instructions: unknown filter '" + args[0] + "'");
  if (!UnderValgrind()) {
    throw InputError("count-instructions runs under valgrind --tool=callgrind only (the instructions kind starts it)");
  }
  InstructionRun run;
  try {
    run.keys = std::stoul(args[1]);
    run.queries = std::stoul(args[2]);
    run.seed = std::stoull(args[3]);
  } catch (const std::exception&) {
    throw InputError("count-instructions: KEYS, QUERIES and SEED are whole numbers");
  }
  if (run.queries > run.keys) throw InputError("count-instructions: QUERIES must be at most KEYS");
  std::cout << InstructionOutcomeJson(filter->count_instructions(run)) << '\n';
  return 0;
}

}  // namespace amq
