// harness/kinds/instructions_kind.h - the instructions kind: what each filter's insert (or
// build) and lookups cost in instructions and simulated cache misses per operation, counted by
// valgrind's callgrind, the same on every run of one build.
//
// Timings on these shared machines move by up to 2x between identical runs, so CI cannot judge
// them against a stored baseline; an instruction count can be. Each cell runs
// `valgrind --tool=callgrind --instr-atstart=no ... amqbench count-instructions FILTER ...` in a
// child process: the micro-benchmarks' kernels, each once over fixed key sets, instrumentation
// on around each kernel only (harness/cell/instruction_count.h), one callgrind dump per kernel.
// This kind reads the dumps and records instructions, D1 misses and last-level misses per
// operation. The cache simulator is given a fixed geometry (kCacheModel), not this host's, so
// the counts depend on the build alone: `amqbench compare` judges the instruction counts (schema
// class "build") only between records of one compiler, flags and valgrind, with a threshold, and
// shows the miss counts without judging them: they move with the binary's memory layout (the
// checkout's path, compiled in, shifts static data), by up to 4.1% between two checkouts.
#pragma once

#include <string>
#include <vector>

#include "core/sanitizers.h"  // kBuiltWithAddressSanitizer: valgrind cannot run such a build
#include "harness/cell/registry.h"
#include "harness/run/kind.h"
#include "harness/run/runner.h"

namespace amq {

// The simulated caches (callgrind's --I1, --D1, --LL: bytes, ways, line bytes): a 32 KiB L1
// and a 1 MiB last level, the sizes at which the CI suite's filters at n = 20,000 (tens of KiB)
// fit the last level and some outgrow the first.
inline constexpr const char* kCacheModel = "--I1=32768,8,64 --D1=32768,8,64 --LL=1048576,16,64";

struct InstructionsParams {
  std::vector<const FilterEntry*> filters;
  std::size_t keys = 20000;
  std::size_t queries = 20000;
  std::uint64_t seed = 1;
  std::string binary;  // the amqbench whose kernels are counted; "" = this one
};

// What one callgrind dump holds: the client request that wrote it (the operation) and its
// total counts by event name (Ir, D1mr, DLmw, ...; events callgrind left off are 0).
struct CallgrindDump {
  std::string trigger;
  std::vector<std::pair<std::string, double>> events;
  double Event(const std::string& name) const;
};
// Parses one dump file's text; throws std::runtime_error when it has no events or totals line.
CallgrindDump ParseCallgrindDump(const std::string& text);

std::unique_ptr<ExperimentPlan> MakeInstructionsPlan(const InstructionsParams& params);

extern const KindSpec kInstructionsKind;

}  // namespace amq
