// harness/run/kind.h - an experiment kind, declared once.
//
// A kind (harness/kinds/<name>_kind.cc) declares, beside its plan, the parameters it reads -
// name, type, range, meaning, what --quick sets and, where the kind has a command, the option
// that sets it - as a filter declares its statistics (F::kStats). Both front doors read that
// one declaration: the suite reader (harness/suite/) checks a suite file's keys against it, and
// a command (`amqbench run`, `adapt`, `machine`) builds its options from it; both check a value
// with CheckParam, so a range is written once. Either door then hands the kind's plan factory
// the parameters as JSON. One line of harness/kinds/all.h registers a kind.
#pragma once

#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "harness/cell/registry.h"
#include "harness/run/runner.h"
#include "harness/run/schema.h"

namespace amq {

// The value a parameter holds. kBytes: an integer in a suite file; on the command line also
// with a binary suffix (64M, 1G). kTrace: { path, optional, key } or { synth = {...} }
// (harness/run/trace_source.h). kFilters: a filter selector (harness/suite/suite.h).
enum class ParamType { kInt, kNum, kStr, kBool, kIntList, kNumList, kStrList, kBytes, kTrace, kFilters };

inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

// A closed range by default; an open end says "greater than" / "less than".
struct ParamRange {
  double low = -kUnbounded;
  double high = kUnbounded;
  bool low_open = false;
  bool high_open = false;
};
inline constexpr ParamRange AtLeast(double low) { return {low, kUnbounded}; }
inline constexpr ParamRange Between(double low, double high) { return {low, high}; }
inline constexpr ParamRange Open(double low, double high) { return {low, high, true, true}; }      // (a, b)
inline constexpr ParamRange OpenClosed(double low, double high) { return {low, high, true, false}; }  // (a, b]

struct ParamSpec {
  std::string_view name;   // the suite key, snake_case
  ParamType type;
  ParamRange range = {};   // of every number (each element of a list)
  std::string_view meaning;
  // JSON a command's --quick sets where the user set nothing ("": unchanged). A suite's
  // experiments each say in their own quick table what the suite's --quick changes.
  std::string_view quick = {};
  std::string_view option = {};  // the command's option (without --), "": not on the command line
};

// "1 .. 1000", "at least 1", "(0, 1]": the range as messages and help texts write it.
std::string RangeText(const ParamSpec& spec);

// Checks a value's type and range. `label` names it where it was given: "key 'fpr'" in a suite
// file, "--fpr" on the command line. Throws InputError ("--fpr must be in (0, 1), got 2").
void CheckParam(const ParamSpec& spec, const Json& value, const std::string& label);

// An option's text as the parameter's JSON value: comma lists for the list types, a size with
// K, M or G for kBytes, { "path": text } for kTrace. Throws InputError naming --option.
Json ParseOptionValue(const ParamSpec& spec, const std::string& text);

// What a kind's plan factory is given, from either front door.
struct PlanInput {
  Json params;                               // the checked parameters given (quick applied), and seed
  std::vector<const FilterEntry*> filters;   // the filters selected (kinds that take filters)
  std::string experiment;                    // the experiment's id: "run", "adapt", a suite's id
  bool command_line = false;                 // names in messages: --option, else key 'name'
  std::string micro_native;                  // the micro kind's binaries
  std::string micro_portable;
  std::string cache = "results/cache";       // where synthetic traces are made once and kept
  std::span<const ParamSpec> specs;          // the kind's declaration, for Name()

  // How a message names parameter `name`: "--fpr" or "fpr".
  std::string Name(std::string_view name) const;
  bool Has(std::string_view name) const { return params.contains(std::string(name)); }
  template <class T>
  T Get(std::string_view name, T fallback) const {
    return params.contains(std::string(name)) ? params[std::string(name)].get<T>() : fallback;
  }
};

struct KindSpec {
  std::string_view name;      // "filters", "machine", ...: a suite's kind = "..."
  std::string_view summary;   // one line, for help texts
  std::vector<ParamSpec> params;
  bool takes_filters = true;  // needs a filters selector
  bool writes_own_file = false;  // Google Benchmark's JSON (<id>.json), not JSON Lines
  // Throws InputError (a message naming the parameter through input.Name) for parameters no
  // cell could run with.
  std::unique_ptr<ExperimentPlan> (*plan)(const PlanInput& input);
  // The record fields only this kind writes; they join the one schema (harness/run/schema.h)
  // beside the shared ones and the filters' statistics.
  std::vector<FieldSpec> fields = {};

  const ParamSpec* Find(std::string_view key) const;
};

// The registered kinds, in harness/kinds/all.h's order. Declared on this floor so that the
// schema (which every writer checks records against) can take each kind's fields; defined in
// harness/kinds/all.cc, beside the list. No include runs up: the list stays one floor higher.
std::span<const KindSpec* const> Kinds();

// Joins parameter lists: kinds that share a block of parameters (the adapt_* geometry).
std::vector<ParamSpec> Concat(std::initializer_list<std::span<const ParamSpec>> parts);

}  // namespace amq
