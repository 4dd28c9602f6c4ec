// harness/kinds/micro_kind.h - the "micro" kind: the Google Benchmark micro-benchmarks
// (harness/micro_bench/micro_bench.cc and the family benchmark files) for the filters a suite selects, run
// as one cell whose output is Google Benchmark's own JSON (<out-dir>/<id>.json), which every
// tool that reads gbench output understands. A -march=native build is a second binary; where it
// is missing the experiment is skipped and the run says why. `keys` is amqbench_micro's --keys: a
// list of n gives one benchmark per (filter, operation, n); empty, the binary's default 10^6.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness/run/kind.h"
#include "harness/run/runner.h"

namespace amq {

struct MicroParams {
  std::vector<std::string> filters;     // benchmark names start with "<filter>/"
  std::vector<std::string> benchmarks;  // family benchmarks: regular-expression prefixes ("static")
  std::vector<std::string> operations;  // of the filters' benchmarks; empty: every one
  std::string build = "portable";
  std::string binary;                   // the amqbench_micro to run
  std::vector<std::size_t> keys;        // n of every size-taking benchmark; empty: 10^6
  int repetitions = 5;
  double min_time = 0;                  // 0: Google Benchmark's default
};

std::unique_ptr<ExperimentPlan> MakeMicroPlan(const MicroParams& params);

// The operations amqbench_micro times per filter (harness/micro_bench/micro_bench.cc says what each is).
inline constexpr std::string_view kMicroOperations[] = {
    "insert", "build", "insert_cold", "build_cold", "erase", "query_present", "query_absent",
    "query_present_noinline", "query_absent_noinline", "query_present_batched", "query_absent_batched",
    "random_lines", "random_lines_hashed"};
std::string MicroOperationsText();  // "insert, build, ..."

// The regular expression that selects exactly those benchmarks: ^(a|b|c)/ for filters a, b and
// family prefix c, ^((a|b)/(insert|query_absent)/|c/) when operations are named.
std::string MicroBenchmarkFilter(const MicroParams& params);

extern const KindSpec kMicroKind;

}  // namespace amq
