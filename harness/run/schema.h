// harness/run/schema.h - every field a result file can hold, each declared once: its name, its
// JSON type, its unit, what it means and which records carry it.
//
// The record fields the harness writes are declared in schema.cc; the statistics a filter
// reports are declared beside its code (F::kStats, core/stat_catalog.h) and join the table
// through the registry. From this one table come `amqbench legend`, the field tables in
// results/README.md and results/schema.json (a JSON Schema the Python loader validates
// against); tests fail when those differ from what the table generates, when one name is
// declared twice with different words, and when a record carries a field the table lacks.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/filter.h"
#include "harness/run/result_file.h"

namespace amq {

struct FilterEntry;  // harness/cell/registry.h

// Version 2: JSON Lines (a header line, one line per record, an end line), cell_id on every
// record, one vocabulary for run and adapt records. Version 1 was one JSON document.
inline constexpr int kResultSchemaVersion = 2;

// What a field's value depends on, which decides how `amqbench compare` (plots/compare.py,
// reading results/schema.json's "x-reproducibility") treats it. The one place this is said.
inline constexpr const char* kDeterministic = "";  // the same at the same seed and parameters,
                                                   // on any host: any difference is a change
inline constexpr const char* kIdentity = "identity";  // names the record: matched on, not compared
inline constexpr const char* kSetting = "setting";    // a run setting outside the cell's identity
inline constexpr const char* kTiming = "timing";      // a time: varies run to run; judged only
                                                      // between runs on one machine
inline constexpr const char* kMachine = "machine";    // a measurement of the machine (memory)
inline constexpr const char* kBuild = "build";        // the same on every run of one build (an
                                                      // instruction count): judged between runs
                                                      // of one compiler, flags and valgrind

struct FieldSpec {
  std::string name;
  std::string type;        // "integer", "number", "string", "boolean", "object", "array"; "|null"
  std::string unit;        // "" when the value has none
  std::string meaning;
  std::string carried_by;  // which records carry it: "every record", "filters", "adapt_*", ...
  std::string reproducibility = kDeterministic;  // one of the k* above; filter statistics are
                                                 // deterministic
  // How a trial's value combines into its cell's summary (the adapt_* kinds' SummarizeTrials):
  // declared here for the kinds' own fields, in F::kStats for a filter's statistics.
  OverTrials over_trials = OverTrials::kNone;
};

// Record fields (every data line), then the filters' statistics, in a stable order.
const std::vector<FieldSpec>& RecordSchema();
// The fields of the header line's `context`.
const std::vector<FieldSpec>& ContextSchema();

const FieldSpec* FindRecordField(std::string_view name);

// Names declared twice with different words, or statistics that shadow a record field: empty
// when the table is sound. A test asserts it is; `amqbench legend` refuses to print otherwise.
std::vector<std::string> SchemaProblems();
// The same check over any list of filters (a test feeds it one with a clash).
std::vector<std::string> SchemaProblems(std::span<const FilterEntry> filters);

// Throws std::logic_error naming the first field `record` carries that the table lacks, or whose
// JSON type is not the declared one: a harness bug, caught by every test that runs a cell.
void CheckRecordAgainstSchema(const Json& record);

// The three views generated from the table.
std::string LegendText();
std::string LegendMarkdown();  // the field tables of results/README.md
Json ResultJsonSchema();       // results/schema.json

}  // namespace amq
