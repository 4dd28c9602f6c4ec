// harness/cell/instruction_count.h - the micro-benchmarks' kernels run once each under valgrind's
// callgrind, with instrumentation on around each kernel only, so that what they cost is counted
// in instructions (and simulated cache misses) rather than timed: the same count on every run
// of one build, which a timing on a shared machine is not (issue 27; the instructions kind,
// harness/kinds/instructions_kind.h, starts the child that runs this and reads its dumps).
//
// The filter is sized as amqbench_micro sizes it (harness/cell/micro_size.h) and the kernels are
// harness/cell/kernels.h's, the loops the micro-benchmarks time, each run exactly once over
// fixed key sets: `keys` members (seed), `queries` of them and `queries` non-members; last, a
// filter that erases has every key it took erased. Key generation, allocation and the
// false-negative check run outside the instrumentation. After each kernel,
// CALLGRIND_DUMP_STATS_AT(<operation>) writes a dump named after the operation and zeroes the
// counters. Without valgrind's headers (AMQ_HAVE_VALGRIND unset) nothing is counted.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/filter.h"
#include "core/json.h"
#include "harness/cell/kernels.h"
#include "harness/cell/micro_size.h"
#include "workloads/uniform.h"
#ifdef AMQ_HAVE_VALGRIND
#include <valgrind/callgrind.h>
#endif

namespace amq {

struct InstructionRun {
  std::size_t keys = 0;
  std::size_t queries = 0;
  std::uint64_t seed = 1;
};

// One counted kernel: its operation name (as amqbench_micro names it) and how many operations
// it ran, the divisor of its dump's counts.
struct CountedKernel {
  std::string operation;
  std::size_t operations = 0;
};

struct InstructionOutcome {
  std::vector<CountedKernel> kernels;
  std::size_t false_negatives = 0;  // members the finished filter does not hold (not refused)
  std::size_t refused_inserts = 0;
};

// True when this process runs under valgrind (only then are the counts taken).
inline bool UnderValgrind() {
#ifdef AMQ_HAVE_VALGRIND
  return RUNNING_ON_VALGRIND != 0;
#else
  return false;
#endif
}

namespace instruction_detail {

// Runs `kernel` with callgrind's instrumentation on, then dumps its counts as `operation`.
// Under plain execution the client requests are no-ops and the kernel just runs.
template <class Kernel>
void Counted(const char* operation, Kernel&& kernel) {
#ifdef AMQ_HAVE_VALGRIND
  CALLGRIND_START_INSTRUMENTATION;
  kernel();
  CALLGRIND_STOP_INSTRUMENTATION;
  CALLGRIND_DUMP_STATS_AT(operation);
#else
  (void)operation;
  kernel();
#endif
}

}  // namespace instruction_detail

template <Filter F>
InstructionOutcome CountInstructions(const InstructionRun& run) {
  using instruction_detail::Counted;
  const auto members = UniformKeys(run.seed, KeyStream::kMembers, run.keys);
  const auto absent = UniformKeys(run.seed, KeyStream::kNonMembers, run.queries);
  const std::span<const std::uint64_t> present(members.data(), std::min(run.queries, members.size()));
  FilterParams params = MicroFilterParams(run.keys, MicroSizingOf<F>());
  params.seed = run.seed;
  InstructionOutcome out;
  std::vector<std::size_t> failed;
  std::optional<F> filter;
  if constexpr (StaticFilter<F>) {
    Counted("build", [&] { filter.emplace(F::build(members, params)); });
    out.kernels.push_back({"build", members.size()});
  } else {
    filter.emplace(params);
    Counted("insert", [&] { KeepAlive(InsertAll(*filter, members, failed)); });
    out.kernels.push_back({"insert", members.size()});
  }
  out.refused_inserts = failed.size();
  std::vector<bool> refused(members.size(), false);
  for (std::size_t i : failed) refused[i] = true;
  for (std::size_t i = 0; i < members.size(); ++i) {
    out.false_negatives += (!refused[i] && !filter->contains(members[i])) ? 1 : 0;
  }
  std::size_t held = 0;
  Counted("query_present", [&] { held = CountContained(*filter, present); });
  KeepAlive(held);
  out.kernels.push_back({"query_present", present.size()});
  std::size_t false_positives = 0;
  Counted("query_absent", [&] { false_positives = CountContained(*filter, absent); });
  KeepAlive(false_positives);
  out.kernels.push_back({"query_absent", absent.size()});
  if constexpr (BatchedFilter<F>) {
    std::vector<std::uint8_t> answers(std::max(present.size(), absent.size()), 0);
    Counted("query_present_batched", [&] { held = CountContainedBatched(*filter, present, answers); });
    KeepAlive(held);
    out.kernels.push_back({"query_present_batched", present.size()});
    Counted("query_absent_batched", [&] { false_positives = CountContainedBatched(*filter, absent, answers); });
    KeepAlive(false_positives);
    out.kernels.push_back({"query_absent_batched", absent.size()});
  }
  if constexpr (DynamicFilter<F> && ErasableFilter<F>) {
    // Every key the filter took, erased in the order they went in, full to empty (as
    // amqbench_micro's erase benchmark does). A held key whose erase is refused is a lost key,
    // counted with the false negatives.
    std::vector<std::uint64_t> taken;
    taken.reserve(members.size());
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (!refused[i]) taken.push_back(members[i]);
    }
    std::size_t erased = 0;
    Counted("erase", [&] { erased = EraseAll(*filter, taken); });
    out.false_negatives += taken.size() - erased;
    out.kernels.push_back({"erase", taken.size()});
  }
  return out;
}

// What the counted child prints on stdout for the instructions kind: the kernels run, with their
// operation counts, and whether the filter lost a key.
inline std::string InstructionOutcomeJson(const InstructionOutcome& out) {
  Json kernels = Json::array();
  for (const CountedKernel& k : out.kernels) kernels.push_back({{"operation", k.operation}, {"operations", k.operations}});
  return Json{{"kernels", kernels}, {"false_negatives", out.false_negatives}, {"refused_inserts", out.refused_inserts}}.dump();
}

}  // namespace amq
