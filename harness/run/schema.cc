// harness/run/schema.cc - the field table (see schema.h) and the views generated from it.
#include "harness/run/schema.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>

#include "harness/cell/registry.h"
#include "harness/run/kind.h"

namespace amq {
namespace {

// Who carries a field. "filters" is the kind `amqbench run` and suite experiments of kind
// filters write; "adapt_*" the three adaptive-filter kinds; rows are "cell", "trial", "window", "step".
// "Every data line" but machine lines, which measure the host, not a filter: they carry only
// the identity fields (kEveryDataLine) and their own (kMachineLines).
constexpr const char* kEvery = "every cell, trial and window line";
constexpr const char* kEveryDataLine = "every data line (machine too)";
constexpr const char* kMachineLines = "machine";  // a field whose carried_by says machine is on machine lines
constexpr const char* kFilters = "filters";

// One row per record field the harness writes, in the order records carry them.
const std::vector<FieldSpec> kRecordFields = {
    // Identity: what the line is and which cell it belongs to.
    {"record", "string", "", "what the line is: cell (one cell of the grid), trial (one trial of an adapt cell), window (one window of an adapt_trace replay), step (one step of a fill_step cell) or machine (one point of amqbench machine)", kEveryDataLine, kIdentity},
    {"cell_id", "string", "", "16 hex digits: XXH3 of what defines the cell (kind, filter, every parameter, the workload), independent of host, build and seed; two runs are matched cell for cell on (cell_id, seed)", kEveryDataLine, kIdentity},
    {"experiment", "string", "", "the experiment's id (suite file), or run / adapt / machine for those commands", kEveryDataLine, kIdentity},
    {"kind", "string", "", "experiment kind: filters, adapt_synthetic, adapt_trace, adapt_adversarial, counting, machine", kEveryDataLine, kIdentity},
    {"seed", "integer", "", "seed of keys, queries and every hash function (adapt trials: the trial's own seed; machine: of the permutation and the random streams)", kEveryDataLine, kIdentity},
    {"filter", "string", "", "registered filter name (amqbench list)", kEvery},
    {"family", "string", "", "filter family; theory curves are drawn per family", kFilters},
    // The cell's parameters.
    {"workload", "object", "", "what the keys and queries were: {kind, seed, queries: {count, positive_fraction, dist}, ...}; a trace adds its file, hash and statistics", kFilters},
    {"keys", "integer", "keys", "keys offered to the filter (n)", kFilters},
    {"capacity", "integer", "keys", "keys the filter was sized for: capacity, or n", kFilters},
    {"target_fpr", "number|null", "fraction", "FPR target of this cell, or null", kFilters},
    {"target_bits_per_key", "number|null", "bits/key", "bits-per-key target of this cell, or null", kFilters},
    {"max_load", "number|null", "fraction", "table fill limit of this cell, or null (the family's default)", kFilters},
    {"max_kicks", "integer", "count", "cuckoo family: evictions before an insert gives up", kFilters},
    {"queries", "integer", "keys", "keys per timed query loop (Q)", kFilters},
    {"positive_fraction", "number", "fraction", "share of members in the mixed query loop", kFilters},
    {"repeats", "integer", "count", "timed repeats (R); timings are median, _min and _max over them, and _samples each", "filters, machine", kSetting},
    {"dynamic", "boolean", "", "true: built key by key (insert_ns); false: built at once (build_ns)", kFilters},
    {"erasable", "boolean", "", "true if the filter supports erase", kFilters},
    // Timings.
    {"insert_ns", "number|null", "ns/key", "dynamic filters: ns per key to insert all n keys, median of R (pre-faulted memory)", "filters, dynamic", kTiming},
    {"insert_ns_min", "number", "ns/key", "fastest of the R inserts", "filters, dynamic", kTiming},
    {"insert_ns_max", "number", "ns/key", "slowest of the R inserts", "filters, dynamic", kTiming},
    {"insert_ns_samples", "array", "ns/key", "each of the R inserts, in the order they ran (their spread; amqbench compare shows the medians' ratio, amqbench ab judges timings)", "filters, dynamic", kTiming},
    {"build_ns", "number|null", "ns/key", "static filters: ns per key to build over all n keys, median of R (after a warm-up build)", "filters, static", kTiming},
    {"build_ns_min", "number", "ns/key", "fastest of the R builds", "filters, static", kTiming},
    {"build_ns_max", "number", "ns/key", "slowest of the R builds", "filters, static", kTiming},
    {"build_ns_samples", "array", "ns/key", "each of the R builds, in the order they ran", "filters, static", kTiming},
    {"build_failed", "boolean", "", "true if a static filter could not be built (then error says why)", kFilters},
    {"error", "string", "", "why the build failed", "filters, build_failed"},
    {"query_ns_positive", "number|null", "ns/key", "ns per lookup of Q members sampled with replacement (median of R)", kFilters, kTiming},
    {"query_ns_positive_min", "number", "ns/key", "fastest pass", kFilters, kTiming},
    {"query_ns_positive_max", "number", "ns/key", "slowest pass", kFilters, kTiming},
    {"query_ns_positive_samples", "array", "ns/key", "each of the R passes, in the order they ran", kFilters, kTiming},
    {"query_ns_negative", "number|null", "ns/key", "ns per lookup of Q distinct non-members (median of R)", kFilters, kTiming},
    {"query_ns_negative_min", "number", "ns/key", "fastest pass", kFilters, kTiming},
    {"query_ns_negative_max", "number", "ns/key", "slowest pass", kFilters, kTiming},
    {"query_ns_negative_samples", "array", "ns/key", "each of the R passes, in the order they ran", kFilters, kTiming},
    {"query_ns_mixed", "number|null", "ns/key", "ns per lookup of the query stream: Q queries at positive_fraction with the cell's popularity, or every packet of a trace (median of R)", kFilters, kTiming},
    {"query_ns_mixed_min", "number", "ns/key", "fastest pass", kFilters, kTiming},
    {"query_ns_mixed_max", "number", "ns/key", "slowest pass", kFilters, kTiming},
    {"query_ns_mixed_samples", "array", "ns/key", "each of the R passes, in the order they ran", kFilters, kTiming},
    // Correctness.
    {"false_negatives", "integer", "keys", "inserted keys (and stream queries about them) the filter did not find: must be 0, checked on every run against the exact key set", kEvery, kDeterministic, OverTrials::kSum},
    {"stream_queries", "integer", "queries", "queries in the stream (query_ns_mixed's loop)", kFilters},
    {"churn_ns", "number|null", "ns/step", "churn: ns per churn step (erase, insert or query), median of R passes", "filters, churn", kTiming},
    {"churn_ns_min", "number", "ns/step", "fastest churn pass", "filters, churn", kTiming},
    {"churn_ns_max", "number", "ns/step", "slowest churn pass", "filters, churn", kTiming},
    {"churn_ns_samples", "array", "ns/step", "each of the R churn passes, in the order they ran", "filters, churn", kTiming},
    {"churn_rounds", "integer", "rounds", "churn rounds run", "filters, churn"},
    {"churn_resident", "integer", "keys", "keys held during churn: 90% of n, so the other 10% circulate", "filters, churn"},
    {"churn_ops", "integer", "steps", "churn steps timed (each round: one erase, one insert, churn_queries queries)", "filters, churn"},
    {"churn_false_negatives", "integer", "queries", "churn queries about held keys answered absent (also in false_negatives)", "filters, churn"},
    {"churn_insert_failures", "integer", "count", "churn inserts the filter refused", "filters, churn"},
    {"churn_fpr", "number|null", "fraction", "churn queries about non-members answered present / those queries", "filters, churn"},
    {"churn_fpr_theory", "number", "fraction", "FPR the family's formula predicts in the state churn leaves (at churn_load_factor, not load_factor)", "filters, churn"},
    {"churn_load_factor", "number", "fraction", "table families: occupied slots / slots after churn (about 90% of load_factor)", "filters, churn"},
    {"stream_negative_queries", "integer", "queries", "stream queries about non-members (a query asked again counts each time)", kFilters},
    {"stream_false_positives", "integer", "queries", "stream queries about non-members answered present", kFilters},
    {"stream_fpr", "number|null", "fraction", "stream_false_positives / stream_negative_queries: the FPR the stream's users see", kFilters},
    {"keys_inserted", "integer", "keys", "keys the filter holds (offered minus refused inserts)", kEvery},
    {"insert_failures", "integer", "count", "inserts the filter refused (a full table)", kEvery, kDeterministic, OverTrials::kSum},
    // Space and accuracy.
    {"size_bytes", "integer", "bytes", "the filter's storage", kEvery, kDeterministic, OverTrials::kFirst},
    {"bits_per_key", "number", "bits/key", "8 * size_bytes / keys_inserted", kEvery, kDeterministic, OverTrials::kMean},
    {"bits_per_key_theory", "number", "bits/key", "bits per key the family's space formula gives at the cell's target (capacity, or n for static filters; FPR or width; max load), never read back from the allocation: bits_per_key differs by the table's rounding (powers of two, whole blocks, overflow) and by any keys short of capacity (see the filter's header)", kFilters},
    {"fpr", "number|null", "fraction", "measured false-positive rate: false_positives / negative_queries (adapt cell rows: the mean over trials); null without negative queries", kEvery, kDeterministic, OverTrials::kMeanRange},
    {"fpr_ci_low", "number", "fraction", "lower end of fpr's 95% Wilson interval: over the queries (filters kind: distinct non-members, each an independent draw); over the flows for adapt_synthetic and adapt_trace, at effective_flows draws (a flow asked ten times is one draw; cell rows pool every trial's flows)", kEvery},
    {"fpr_ci_high", "number", "fraction", "upper end of fpr's 95% Wilson interval (see fpr_ci_low for its draws)", kEvery},
    {"fpr_theory", "number", "fraction", "FPR the family's formula predicts for the filter's actual geometry and load", kFilters},
    {"false_positives", "integer", "queries", "non-member queries answered present (adapt cell rows: summed over trials)", kEvery, kDeterministic, OverTrials::kSum},
    {"query_ns_positive_batched", "number|null", "ns/key", "ns per lookup of the same Q members through contains_many (hash a group, prefetch, probe; median of R); filters with a batched path", kFilters, kTiming},
    {"query_ns_positive_batched_min", "number", "ns/key", "fastest pass", kFilters, kTiming},
    {"query_ns_positive_batched_max", "number", "ns/key", "slowest pass", kFilters, kTiming},
    {"query_ns_positive_batched_samples", "array", "ns/key", "each of the R passes, in the order they ran", kFilters, kTiming},
    {"query_ns_negative_batched", "number|null", "ns/key", "ns per lookup of the same Q distinct non-members through contains_many (hash a group, prefetch, probe; median of R); filters with a batched path", kFilters, kTiming},
    {"query_ns_negative_batched_min", "number", "ns/key", "fastest pass", kFilters, kTiming},
    {"query_ns_negative_batched_max", "number", "ns/key", "slowest pass", kFilters, kTiming},
    {"query_ns_negative_batched_samples", "array", "ns/key", "each of the R passes, in the order they ran", kFilters, kTiming},
    {"batched_disagreements", "integer", "queries", "keys contains_many answered differently from contains (must be 0); filters with a batched path", kFilters},
    {"query_cycles_positive", "number", "cycles/key", "CPU cycles per positive lookup, first pass (perf_event_open, user space); absent where the machine has no hardware counters (context hardware_counters says why)", kFilters, kMachine},
    {"query_instructions_positive", "number", "instructions/key", "instructions retired per positive lookup, first pass; absent without hardware counters", kFilters, kMachine},
    {"query_cache_misses_positive", "number", "misses/key", "last-level cache misses per positive lookup, first pass; absent without hardware counters", kFilters, kMachine},
    {"query_cycles_negative", "number", "cycles/key", "CPU cycles per negative lookup, first pass (perf_event_open, user space); absent where the machine has no hardware counters (context hardware_counters says why)", kFilters, kMachine},
    {"query_instructions_negative", "number", "instructions/key", "instructions retired per negative lookup, first pass; absent without hardware counters", kFilters, kMachine},
    {"query_cache_misses_negative", "number", "misses/key", "last-level cache misses per negative lookup, first pass; absent without hardware counters", kFilters, kMachine},
    {"negative_queries", "integer", "queries", "non-member queries asked (filters: distinct non-members; adapt: every query to a non-member)", kEvery, kDeterministic, OverTrials::kSum},
    {"space_overhead_pct", "number|null", "percent", "100 * (bits_per_key / log2(1/fpr_theory) - 1): excess over the lower bound", kFilters},
    {"load_factor", "number", "fraction", "table families: occupied slots / slots", kEvery, kDeterministic, OverTrials::kMean},
    // What the cell took from the machine (harness/cell/process_memory.h, harness/cell/memory_estimate.h).
    {"memory_estimate_bytes", "integer", "bytes", "the cell's peak memory as estimated before the run: the filter and its build measured at a small scale in a child process and scaled up, plus the key and query buffers; absent for trace cells and the adapt kinds; on machine points, the measurement's buffer", "filters cells, machine points", kMachine},
    {"peak_rss_bytes", "integer", "bytes", "the process's peak resident set while the cell ran (VmHWM, reset at the cell's start), including memory held from before the cell; absent where /proc/self/clear_refs cannot be written", "cell rows, machine points", kMachine},
    // Memory locality (filters experiments with cache_lines = T; harness/cell/line_tracer.h). Marked
    // machine: where a bucket or block falls against line boundaries depends on the address the
    // allocator gave the storage.
    {"cache_lines_member_mean", "number|null", "lines", "mean distinct 64-byte lines of the filter's storage one member lookup touches, over the first T member queries, traced from the addresses it reads; null where the filter does not expose its storage or tracing is unavailable (non-x86-64, AddressSanitizer)", "filters, cache_lines", kMachine},
    {"cache_lines_member_max", "integer|null", "lines", "most lines one of those member lookups touched", "filters, cache_lines", kMachine},
    {"cache_lines_member_lookups", "integer", "lookups", "member lookups traced (0: not measured)", "filters, cache_lines"},
    {"cache_lines_member_one_line", "integer|null", "lookups", "of those member lookups, the ones that touched at most one line", "filters, cache_lines", kMachine},
    {"cache_lines_absent_mean", "number|null", "lines", "as cache_lines_member_mean, over the first T non-member queries", "filters, cache_lines", kMachine},
    {"cache_lines_absent_max", "integer|null", "lines", "most lines one of those non-member lookups touched", "filters, cache_lines", kMachine},
    {"cache_lines_absent_lookups", "integer", "lookups", "non-member lookups traced (0: not measured)", "filters, cache_lines"},
    {"cache_lines_absent_one_line", "integer|null", "lookups", "of those non-member lookups, the ones that touched at most one line (a quotient filter's fast rejection: an unoccupied quotient answers from one read)", "filters, cache_lines", kMachine},
};

const std::vector<FieldSpec> kContextFields = {
    {"host_name", "string", "", "the machine's host name", "context"},
    {"cpu_model", "string", "", "CPU model from /proc/cpuinfo", "context"},
    {"cores", "integer", "count", "hardware threads", "context"},
    {"caches", "array", "", "cache levels and sizes (sysfs, else glibc's CPUID view)", "context"},
    {"cpu_has_bmi2", "boolean", "", "the CPU offers BMI2 (PDEP)", "context"},
    {"cpu_has_avx2", "boolean", "", "the CPU offers AVX2", "context"},
    {"hardware_counters", "string", "", "the hardware counters records carry (cycles, instructions, cache-misses), or why there are none: perf_event_open's refusal", "context"},
    {"kernel", "string", "", "uname: system and release", "context"},
    {"compiler", "string", "", "compiler and version", "context"},
    {"compiler_flags", "string", "", "flags of the build", "context"},
    {"build_type", "string", "", "CMake build type", "context"},
    {"march_native", "boolean", "", "true for a -DAMQ_MARCH_NATIVE=ON build", "context"},
    {"git_commit", "string", "", "the source commit, or unknown", "context"},
    {"git_dirty", "boolean", "", "tracked files other than the outputs (results/, REPORT.md) had uncommitted changes", "context"},
    {"command_line", "string", "", "the amqbench command line", "context"},
    {"time_utc", "string", "", "when the file was started", "context"},
    {"seed", "integer", "", "the run's base seed", "context"},
    {"scheduler", "string|null", "", "the batch scheduler that started the run: slurm (SLURM_JOB_ID set) or kubernetes (in a pod); null outside one (harness/run/scheduler.h)", "context"},
    {"scheduler_job_id", "string|null", "", "the scheduler's job: Slurm's SLURM_ARRAY_JOB_ID (shared by an array's tasks), else SLURM_JOB_ID; Kubernetes' AMQ_JOB_ID (scripts/k8s_indexed_job.yaml sets it to the job's name); null where not known", "context"},
    {"scheduler_task_id", "string|null", "", "the task within the job: SLURM_ARRAY_TASK_ID, or an Indexed Job's JOB_COMPLETION_INDEX; null outside an array or Indexed Job", "context"},
    {"node", "string", "", "the machine the run ran on: the scheduler's node name (SLURMD_NODENAME, Kubernetes' AMQ_NODE_NAME), else host_name; amqbench merge tells hosts apart by it", "context"},
    {"merged_from", "array", "", "in a file amqbench merge wrote: per shard, its shard (K/N), node, host_name, scheduler, scheduler_job_id, scheduler_task_id and the cell_ids it ran (the rest of this context is the first shard's); absent otherwise", "context"},
    {"machine", "object", "", "with --machine (run, suite): this host briefly measured (amqbench machine --quick): levels (the latency curve's plateaus), random_lines_per_second and sequential_bytes_per_second at the largest size, huge_pages; absent otherwise", "context"},
};

// The declared statistics of every registered filter, with the filters that report each.
std::vector<FieldSpec> StatFields() {
  std::vector<FieldSpec> stats;
  std::map<std::string, std::size_t> index;
  for (const FilterEntry& f : Registry()) {
    for (const StatSpec& s : f.stats) {
      const std::string name(s.name);
      auto it = index.find(name);
      if (it == index.end()) {
        index[name] = stats.size();
        stats.push_back({name, std::string(s.type), std::string(s.unit), std::string(s.meaning),
                         "stat of " + std::string(f.name), kDeterministic, s.over_trials});
      } else {
        stats[it->second].carried_by += ", " + std::string(f.name);
      }
    }
  }
  return stats;
}

bool JsonHasType(const Json& value, const std::string& declared) {
  std::stringstream alternatives(declared);
  for (std::string type; std::getline(alternatives, type, '|');) {
    if ((type == "null" && value.is_null()) || (type == "integer" && value.is_number_integer()) ||
        (type == "number" && value.is_number()) || (type == "string" && value.is_string()) ||
        (type == "boolean" && value.is_boolean()) || (type == "object" && value.is_object()) ||
        (type == "array" && value.is_array())) {
      return true;
    }
  }
  return false;
}

Json JsonTypeOf(const std::string& declared) {
  Json types = Json::array();
  std::stringstream alternatives(declared);
  for (std::string type; std::getline(alternatives, type, '|');) types.push_back(type);
  return types.size() == 1 ? types[0] : types;
}

std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

}  // namespace

const std::vector<FieldSpec>& RecordSchema() {
  static const std::vector<FieldSpec> table = [] {
    std::vector<FieldSpec> all = kRecordFields;
    for (const KindSpec* kind : Kinds()) all.insert(all.end(), kind->fields.begin(), kind->fields.end());
    for (FieldSpec& s : StatFields()) all.push_back(std::move(s));
    return all;
  }();
  return table;
}

const std::vector<FieldSpec>& ContextSchema() { return kContextFields; }

const FieldSpec* FindRecordField(std::string_view name) {
  static const std::map<std::string, const FieldSpec*, std::less<>> by_name = [] {
    std::map<std::string, const FieldSpec*, std::less<>> m;
    for (const FieldSpec& f : RecordSchema()) m.emplace(f.name, &f);
    return m;
  }();
  const auto it = by_name.find(name);
  return it == by_name.end() ? nullptr : it->second;
}

std::vector<std::string> SchemaProblems() { return SchemaProblems(Registry()); }

std::vector<std::string> SchemaProblems(std::span<const FilterEntry> filters) {
  std::vector<std::string> problems;
  std::map<std::string, std::string> record_fields;
  std::vector<FieldSpec> declared = kRecordFields;
  for (const KindSpec* kind : Kinds()) declared.insert(declared.end(), kind->fields.begin(), kind->fields.end());
  for (const FieldSpec& f : declared) {
    if (!record_fields.emplace(f.name, f.meaning).second) {
      problems.push_back("record field '" + f.name + "' is declared twice (in harness/run/schema.cc or a kind's fields)");
    }
  }
  // A statistic is declared once (core/stat_catalog.h when shared); the same name with other
  // words in two filters is two meanings for one word.
  std::map<std::string, std::pair<StatSpec, std::string>> stats;
  for (const FilterEntry& f : filters) {
    std::map<std::string_view, int> own;
    for (const StatSpec& s : f.stats) {
      const std::string name(s.name);
      if (++own[s.name] > 1) problems.push_back(std::string(f.name) + " declares '" + name + "' twice");
      if (record_fields.count(name)) {
        problems.push_back(std::string(f.name) + "'s statistic '" + name +
                           "' collides with the record field of that name");
      }
      const auto [it, fresh] = stats.emplace(name, std::pair{s, std::string(f.name)});
      const StatSpec& first = it->second.first;
      if (!fresh && (first.type != s.type || first.unit != s.unit || first.meaning != s.meaning ||
                     first.over_trials != s.over_trials)) {
        problems.push_back("'" + name + "' is declared by " + it->second.second + " and by " +
                           std::string(f.name) + " with different words (declare it once, in "
                           "core/stat_catalog.h)");
      }
    }
  }
  return problems;
}

void CheckRecordAgainstSchema(const Json& record) {
  for (const auto& [name, value] : record.items()) {
    const FieldSpec* spec = FindRecordField(name);
    if (!spec) throw std::logic_error("record field '" + name + "' is not in the schema (harness/run/schema.cc)");
    if (!JsonHasType(value, spec->type)) {
      throw std::logic_error("record field '" + name + "' holds " + value.dump() +
                             ", not the declared " + spec->type);
    }
  }
}

std::string LegendText() {
  std::ostringstream out;
  out << "Fields of each record in amqbench's result files (schema version " << kResultSchemaVersion
      << "; results/README.md has the whole format):\n";
  for (const FieldSpec& f : RecordSchema()) {
    char line[64];
    std::snprintf(line, sizeof line, "  %-28s ", f.name.c_str());
    out << line << f.meaning << (f.unit.empty() ? "" : " [" + f.unit + "]") << " (" << f.type
        << "; " << f.carried_by << ")\n";
  }
  return out.str();
}

std::string LegendMarkdown() {
  std::ostringstream out;
  out << "### Record fields\n\n| field | type | unit | meaning | carried by |\n|---|---|---|---|---|\n";
  for (const FieldSpec& f : RecordSchema()) {
    out << "| `" << f.name << "` | " << Escape(f.type) << " | " << f.unit << " | " << Escape(f.meaning)
        << " | " << f.carried_by << " |\n";
  }
  out << "\n### Context fields (the header line's `context`)\n\n| field | type | meaning |\n|---|---|---|\n";
  for (const FieldSpec& f : ContextSchema()) {
    out << "| `" << f.name << "` | " << f.type << " | " << Escape(f.meaning) << " |\n";
  }
  return out.str();
}

Json ResultJsonSchema() {
  Json record_properties = Json::object();
  for (const FieldSpec& f : RecordSchema()) {
    Json p = {{"type", JsonTypeOf(f.type)}, {"description", f.meaning}};
    if (!f.unit.empty()) p["x-unit"] = f.unit;
    p["x-carried-by"] = f.carried_by;
    if (!f.reproducibility.empty()) p["x-reproducibility"] = f.reproducibility;
    record_properties[f.name] = p;
  }
  Json context_properties = Json::object();
  for (const FieldSpec& f : ContextSchema()) {
    context_properties[f.name] = {{"type", JsonTypeOf(f.type)}, {"description", f.meaning}};
  }
  Json schema;
  schema["$schema"] = "https://json-schema.org/draft/2020-12/schema";
  schema["title"] = "amqbench result file line (schema version 2, JSON Lines)";
  schema["description"] =
      "Each line of a result file is one of: a header (first line), a data record (cell, trial, "
      "window or step; machine in amqbench machine's files), an end line (last line of a finished run). Generated by amqbench legend "
      "--json-schema from harness/run/schema.cc and the filters' declared statistics. A record "
      "field's x-reproducibility says what its value depends on: identity (names the record), "
      "setting (a run setting outside the cell's identity), timing (varies run to run), machine "
      "(a measurement of the machine); without it the value is deterministic: the same at the "
      "same seed and parameters on any host.";
  schema["$defs"]["context"] = {{"type", "object"},
                                {"properties", context_properties},
                                {"required", {"host_name", "cpu_model", "git_commit", "command_line"}}};
  schema["$defs"]["header"] = {
      {"type", "object"},
      {"properties",
       {{"record", {{"const", "header"}}},
        {"schema_version", {{"const", kResultSchemaVersion}}},
        {"experiment", {{"type", "object"}, {"required", {"id", "kind"}}}},
        {"suite", {{"type", {"object", "null"}}}},
        {"context", {{"$ref", "#/$defs/context"}}},
        {"cells", {{"type", "array"}, {"items", {{"type", "string"}}}}}}},
      {"required", {"record", "schema_version", "experiment", "context", "cells"}},
      {"additionalProperties", false}};
  schema["$defs"]["data"] = {
      {"type", "object"},
      {"properties", record_properties},
      {"required", {"record", "cell_id", "experiment", "kind", "seed", "filter"}},
      {"additionalProperties", false}};
  // Machine lines (amqbench machine) measure the host, not a filter: the data definition's
  // required filter does not fit them, so they have their own, with the identity every data
  // line carries and the fields whose carried_by names machine.
  Json machine_properties = Json::object();
  for (const FieldSpec& f : RecordSchema()) {
    if (f.carried_by.find(kMachineLines) != std::string::npos) machine_properties[f.name] = record_properties[f.name];
  }
  schema["$defs"]["machine"] = {
      {"type", "object"},
      {"properties", machine_properties},
      {"required", {"record", "cell_id", "experiment", "kind", "seed", "test"}},
      {"additionalProperties", false}};
  schema["$defs"]["end"] = {{"type", "object"},
                            {"properties",
                             {{"record", {{"const", "end"}}},
                              {"complete", {{"type", "boolean"}}},
                              {"cells", {{"type", "integer"}}}}},
                            {"required", {"record", "complete", "cells"}},
                            {"additionalProperties", false}};
  schema["oneOf"] = {{{"$ref", "#/$defs/header"}},
                     {{"allOf", {{{"$ref", "#/$defs/data"}},
                                 {{"properties", {{"record", {{"enum", {"cell", "trial", "window", "step"}}}}}}}}}},
                     {{"allOf", {{{"$ref", "#/$defs/machine"}},
                                 {{"properties", {{"record", {{"const", "machine"}}}}}}}}},
                     {{"$ref", "#/$defs/end"}}};
  return schema;
}

}  // namespace amq
