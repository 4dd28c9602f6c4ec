// harness/suite/suite.h - a suite file (TOML, e.g. suites/default.toml) read into experiments the
// runner can run. Every experiment appears once: an id (its output file), a kind, the kind's
// parameters, what --quick changes (every experiment says), what --full extends (where a sweep
// is too long for the default run), the report section that shows it, the charts it feeds and
// whether the report reads its timings (timed = false lets suite --jobs run it beside others).
// Filters are chosen by family or capability:
//
//   filters = { family = "quotient" }                    one selector: every condition holds
//   filters = [{ family = "xor", fixed_width = true }, { library = true }]    a union
//   selector keys: names, group ([suite.groups]), family, dynamic, erasable, adaptive,
//                  fixed_width, library (a production library wrapper)
//
// Bad input - an unknown key, a wrong type or range, an unknown filter, kind or group, a
// duplicate id, an experiment without a quick table - is an InputError naming the file, line
// and key ("my_study.toml:12:1: experiment 'space': key 'fpr': ..."), before anything runs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/run/result_file.h"
#include "harness/run/kind.h"
#include "harness/run/runner.h"

namespace amq {

struct SuiteExperiment {
  std::string id;
  std::string kind;      // a kind of harness/kinds/all.h
  const KindSpec* spec = nullptr;  // its declaration
  std::string title;
  std::string section;   // the report section that shows it
  std::vector<std::string> charts;
  // false: the report reads no timing from it (counts, rates, space), so `suite --jobs N` may run
  // it beside other such experiments; timed experiments always run alone.
  bool timed = true;
  Json params;           // the parameters in effect (quick applied), recorded in the header
  std::string where;     // "FILE:LINE" of its table, for messages
  std::unique_ptr<ExperimentPlan> plan;
  std::string output_name() const { return id + (spec && spec->writes_own_file ? ".json" : ".jsonl"); }
};

struct SuiteOptions {
  bool quick = false;
  bool full = false;  // apply each experiment's `full` table (its sweep extended), where it has one
  std::string micro_native;  // amqbench_micro of a -march=native build
  std::string micro_portable;  // amqbench_micro beside this binary, by default
  std::string cache = "results/cache";  // where synthetic traces are made once and kept
};

struct Suite {
  std::string name;
  std::string file;
  std::string file_hash;  // XXH3 of the file's bytes: shards of one suite must agree on it
  std::string description;
  std::uint64_t seed = 1;
  bool quick = false;
  bool full = false;
  std::vector<SuiteExperiment> experiments;
};

// Reads, validates and plans every experiment. Throws InputError.
Suite LoadSuite(const std::string& path, const SuiteOptions& options);

// The ids an --only list names, checked against the suite. Throws InputError.
std::vector<std::size_t> SelectExperiments(const Suite& suite, const std::string& only);

}  // namespace amq
