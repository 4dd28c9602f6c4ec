// harness/cli.cc - the list, legend and run commands.
#include <atomic>
#include <boost/program_options.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <malloc.h>
#include <sstream>

#include "harness/commands.h"
#include "harness/errors.h"
#include "harness/registry.h"
#include "harness/result_file.h"
#include "workloads/uniform.h"

namespace amq {
namespace po = boost::program_options;

namespace {

// Every field of a run record, in the order records carry them. `amqbench legend` prints
// this table, results/README.md documents the same, and a test checks that every field a
// record has is listed here.
constexpr std::pair<const char*, const char*> kLegend[] = {
    {"filter", "registered filter name (amqbench list)"},
    {"family", "filter family; theory curves are drawn per family"},
    {"workload", "what the keys were: {kind, seed, ...}"},
    {"keys", "keys inserted (n)"},
    {"capacity", "keys the filter was sized for: --capacity, or n"},
    {"target_fpr", "--fpr given for this cell, or null"},
    {"target_bits_per_key", "--bits-per-key given for this cell, or null"},
    {"max_load", "--max-load given for this cell, or null (the family's default)"},
    {"max_kicks", "cuckoo family: evictions before an insert gives up"},
    {"seed", "seed of keys, queries and every hash function"},
    {"queries", "keys per timed query loop (Q)"},
    {"positive_fraction", "share of members in the mixed query loop"},
    {"repeats", "timed repeats (R); timings are median, _min and _max over them"},
    {"dynamic", "true: built key by key (insert_ns); false: built at once (build_ns)"},
    {"erasable", "true if the filter supports erase"},
    {"insert_ns", "dynamic filters: ns per key to insert all n keys (pre-faulted memory)"},
    {"insert_ns_min", "fastest of the R inserts, ns per key"},
    {"insert_ns_max", "slowest of the R inserts, ns per key"},
    {"build_ns", "static filters: ns per key to build over all n keys (after a warm-up build)"},
    {"build_ns_min", "fastest of the R builds, ns per key"},
    {"build_ns_max", "slowest of the R builds, ns per key"},
    {"build_failed", "true if a static filter could not be built (then `error` says why)"},
    {"error", "why the build failed"},
    {"query_ns_positive", "ns per lookup of Q members sampled with replacement (median of R)"},
    {"query_ns_positive_min", "fastest pass"},
    {"query_ns_positive_max", "slowest pass"},
    {"query_ns_negative", "ns per lookup of Q distinct non-members (median of R)"},
    {"query_ns_negative_min", "fastest pass"},
    {"query_ns_negative_max", "slowest pass"},
    {"query_ns_mixed", "ns per lookup of Q queries mixed at positive_fraction (median of R)"},
    {"query_ns_mixed_min", "fastest pass"},
    {"query_ns_mixed_max", "slowest pass"},
    {"false_negatives", "inserted keys the filter did not find: must be 0, checked every run"},
    {"keys_inserted", "keys the filter holds (n minus refused inserts)"},
    {"insert_failures", "inserts the filter refused (a full cuckoo table)"},
    {"size_bytes", "the filter's storage in bytes"},
    {"bits_per_key", "8 * size_bytes / keys_inserted"},
    {"bits_per_key_theory", "bits per key the family's formula gives (see the filter's header)"},
    {"fpr", "false_positives / negative_queries"},
    {"fpr_ci_low", "lower end of fpr's 95% Wilson interval"},
    {"fpr_ci_high", "upper end of fpr's 95% Wilson interval"},
    {"fpr_theory", "FPR the family's formula predicts for the filter's actual geometry and load"},
    {"false_positives", "non-member lookups answered present"},
    {"negative_queries", "distinct non-members looked up"},
    {"space_overhead_pct", "100 * (bits_per_key / log2(1/fpr_theory) - 1): excess over the lower bound"},
    {"load_factor", "table families: occupied slots / slots"},
    {"hash_probes", "Bloom family: bits tested per lookup (k)"},
    {"bits", "Bloom: bits in the array (m)"},
    {"blocks", "blocked Bloom: 64-byte blocks"},
    {"fingerprint_bits", "cuckoo family: fingerprint width f"},
    {"buckets", "cuckoo family: bucket count m (a power of two)"},
    {"slots_per_bucket", "cuckoo family: b"},
    {"kicks_total", "cuckoo family: evictions over all inserts"},
    {"kicks_max", "cuckoo family: most evictions one insert needed"},
    {"kicks_per_insert", "cuckoo family: kicks_total / successful inserts"},
    {"kicks_histogram", "cuckoo family: inserts by evictions needed (bins 0, 1, 2, 3-4, 5-8, ...)"},
    {"first_failure_load", "cuckoo family: load factor when the first insert failed, or null"},
};

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) parts.push_back(part);
  if (parts.empty()) parts.push_back("");
  return parts;
}

template <class T>
std::vector<T> ParseList(const std::string& option, const std::string& text) {
  std::vector<T> values;
  for (const std::string& part : SplitCommas(text)) {
    std::istringstream in(part);
    T value{};
    if (!(in >> value) || !in.eof()) {
      throw InputError("--" + option + ": '" + part + "' is not a number");
    }
    values.push_back(value);
  }
  return values;
}

std::atomic<bool> g_interrupted{false};
extern "C" void OnInterrupt(int) { g_interrupted = true; }

struct Sizing {
  double fpr = 0;
  double bits_per_key = 0;
};

struct Grid {
  std::vector<const FilterEntry*> filters;
  std::vector<std::size_t> keys;
  std::vector<Sizing> sizings;
  std::vector<double> max_loads;
  std::vector<double> positive_fractions;
  std::size_t cells() const {
    return filters.size() * keys.size() * sizings.size() * max_loads.size() *
           positive_fractions.size();
  }
};

std::string Describe(const CellSpec& spec, std::string_view filter) {
  std::ostringstream out;
  out << filter << " n=" << spec.keys;
  if (spec.keys != spec.params.capacity) out << " capacity=" << spec.params.capacity;
  if (spec.params.target_fpr > 0) out << " fpr=" << spec.params.target_fpr;
  if (spec.params.bits_per_key > 0) out << " bits/key=" << spec.params.bits_per_key;
  if (spec.params.max_load > 0) out << " max-load=" << spec.params.max_load;
  out << " positive-fraction=" << spec.positive_fraction;
  return out.str();
}

}  // namespace

int ListCommand(const Args& args) {
  if (!args.empty()) throw InputError("list takes no options");
  for (const FilterEntry& e : Registry()) {
    std::cout << e.name << "\n  family: " << e.family
              << "\n  build: " << (e.dynamic ? "dynamic (insert key by key)" : "static (from the whole key set)")
              << "\n  erase: " << (e.erasable ? "yes" : "no") << "\n  parameters: " << e.parameters
              << "\n";
  }
  return 0;
}

int LegendCommand(const Args& args) {
  if (!args.empty()) throw InputError("legend takes no options");
  std::cout << "Fields of each record in `amqbench run` output (results/README.md has the "
               "whole schema):\n";
  for (const auto& [field, meaning] : kLegend) std::printf("  %-22s %s\n", field, meaning);
  return 0;
}

int RunCommand(const Args& args) {
  std::string filters_text, keys_text, fpr_text, bits_text, load_text, out_path;
  std::string fraction_text;
  long long queries = 0, capacity = 0;  // signed, so "-1" is caught rather than wrapped
  std::uint64_t seed = 1;
  int repeats = 0, max_kicks = 500;
  bool quick = false;
  po::options_description options(
      "amqbench run: build each filter over N distinct keys for every combination of the list\n"
      "options, measure it, check it, and write one JSON file.\nOptions");
  options.add_options()
      ("help,h", "this text")
      ("filter", po::value(&filters_text)->default_value("all"),
       "filter names, comma separated, or 'all' (amqbench list)")
      ("keys", po::value(&keys_text), "keys to insert, comma list (default 1000000; --quick 20000)")
      ("capacity", po::value(&capacity),
       "size every filter for this many keys instead of --keys (a load sweep: fixed table, n varies)")
      ("fpr", po::value(&fpr_text), "target false-positive rates in (0, 1), comma list")
      ("bits-per-key", po::value(&bits_text), "target bits per key (> 0), comma list; not with --fpr")
      ("max-load", po::value(&load_text), "table fill limits in (0, 1], comma list")
      ("queries", po::value(&queries), "keys per timed query loop (default 1000000; --quick 20000)")
      ("positive-fraction", po::value(&fraction_text)->default_value("0.5"),
       "share of members in the mixed query loop, in [0, 1], comma list")
      ("seed", po::value(&seed)->default_value(1), "seed for keys, queries and hash functions")
      ("repeat", po::value(&repeats), "timed repeats per cell, median reported (default 3; --quick 1)")
      ("max-kicks", po::value(&max_kicks)->default_value(500), "cuckoo: evictions before an insert fails")
      ("quick", po::bool_switch(&quick), "small defaults for a fast smoke run")
      ("out", po::value(&out_path), "output JSON file (written atomically)");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(options).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError(std::string("run: ") + e.what());
  }
  if (vm.count("help")) {
    std::cout << options << "\nFields of the output: amqbench legend\n";
    return 0;
  }

  Grid grid;
  if (filters_text == "all") {
    for (const FilterEntry& e : Registry()) grid.filters.push_back(&e);
  } else {
    for (const std::string& name : SplitCommas(filters_text)) {
      const FilterEntry* entry = FindFilter(name);
      if (!entry) throw InputError("unknown filter '" + name + "' (amqbench list shows them)");
      grid.filters.push_back(entry);
    }
  }
  const std::string default_keys = quick ? "20000" : "1000000";
  for (long long n : ParseList<long long>("keys", vm.count("keys") ? keys_text : default_keys)) {
    if (n < 1) throw InputError("--keys must be at least 1, got " + std::to_string(n));
    grid.keys.push_back(static_cast<std::size_t>(n));
  }
  if (vm.count("fpr") && vm.count("bits-per-key")) {
    throw InputError("give --fpr or --bits-per-key, not both");
  }
  if (vm.count("fpr")) {
    for (double e : ParseList<double>("fpr", fpr_text)) {
      if (!(e > 0 && e < 1)) throw InputError("--fpr must be in (0, 1), got " + std::to_string(e));
      grid.sizings.push_back({e, 0});
    }
  } else if (vm.count("bits-per-key")) {
    for (double b : ParseList<double>("bits-per-key", bits_text)) {
      if (!(b > 0 && b <= 64)) throw InputError("--bits-per-key must be in (0, 64], got " + std::to_string(b));
      grid.sizings.push_back({0, b});
    }
  } else {
    grid.sizings.push_back({});
  }
  if (vm.count("max-load")) {
    for (double l : ParseList<double>("max-load", load_text)) {
      if (!(l > 0 && l <= 1)) throw InputError("--max-load must be in (0, 1], got " + std::to_string(l));
      grid.max_loads.push_back(l);
    }
  } else {
    grid.max_loads.push_back(0);
  }
  for (double p : ParseList<double>("positive-fraction", fraction_text)) {
    if (!(p >= 0 && p <= 1)) throw InputError("--positive-fraction must be in [0, 1], got " + std::to_string(p));
    grid.positive_fractions.push_back(p);
  }
  if (!vm.count("queries")) queries = quick ? 20000 : 1000000;
  if (!vm.count("repeat")) repeats = quick ? 1 : 3;
  if (queries < 1) throw InputError("--queries must be at least 1");
  if (vm.count("capacity") && capacity < 1) throw InputError("--capacity must be at least 1");
  if (repeats < 1 || repeats > 1000) throw InputError("--repeat must be in 1 .. 1000");
  if (max_kicks < 1 || max_kicks > 1000000) throw InputError("--max-kicks must be in 1 .. 1000000");
  if (!vm.count("out")) throw InputError("run needs --out FILE.json");
  CheckWritable(out_path);

  // Keep freed memory mapped and reuse it, so repeated builds measure warm memory rather
  // than the kernel's page-fault cost (see harness/experiment.h).
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, -1);

  // One workload for the largest n; smaller cells take a prefix of the same key stream.
  const std::size_t max_keys = *std::max_element(grid.keys.begin(), grid.keys.end());
  Workload workload;
  workload.name = "uniform";
  workload.seed = seed;
  workload.parameters = {{"kind", "uniform"}, {"seed", seed}};
  workload.keys = UniformKeys(seed, KeyStream::kMembers, max_keys);
  workload.negatives = UniformKeys(seed, KeyStream::kNonMembers, static_cast<std::size_t>(queries));

  Json doc;
  doc["schema_version"] = kSchemaVersion;
  doc["context"] = RunContext(CommandLine("run", args), seed);
  doc["complete"] = false;
  doc["records"] = Json::array();

  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);
  const std::size_t total = grid.cells();
  std::size_t done = 0, cells_with_false_negatives = 0;
  const auto started = std::chrono::steady_clock::now();
  for (std::size_t n : grid.keys) {
    for (const Sizing& sizing : grid.sizings) {
      for (double max_load : grid.max_loads) {
        for (double fraction : grid.positive_fractions) {
          for (const FilterEntry* filter : grid.filters) {
            if (g_interrupted) break;
            CellSpec spec;
            spec.params.capacity = vm.count("capacity") ? static_cast<std::size_t>(capacity) : n;
            spec.keys = n;
            spec.params.target_fpr = sizing.fpr;
            spec.params.bits_per_key = sizing.bits_per_key;
            spec.params.max_load = max_load;
            spec.params.seed = seed;
            spec.params.max_kicks = max_kicks;
            spec.workload = &workload;
            spec.queries = static_cast<std::size_t>(queries);
            spec.positive_fraction = fraction;
            spec.repeats = repeats;
            const Json record = filter->run_cell(spec);
            doc["records"].push_back(record);
            WriteJsonAtomically(out_path, doc);  // finished cells survive an interrupt
            ++done;
            const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            std::fprintf(stderr, "[%zu/%zu %.1fs] %s: %.2f bits/key, fpr %.5f (theory %.5f), fn %s\n",
                         done, total, elapsed, Describe(spec, filter->name).c_str(),
                         record.value("bits_per_key", 0.0), record.value("fpr", 0.0),
                         record.value("fpr_theory", 0.0),
                         record.contains("false_negatives") ? record["false_negatives"].dump().c_str() : "-");
            if (record.value("false_negatives", 0) != 0) {
              ++cells_with_false_negatives;
              std::fprintf(stderr, "amqbench: FALSE NEGATIVES in %s\n", std::string(filter->name).c_str());
            }
          }
        }
      }
    }
  }
  if (g_interrupted) {
    std::fprintf(stderr, "amqbench: interrupted; %zu of %zu cells kept in %s\n", done, total, out_path.c_str());
    return 130;
  }
  doc["complete"] = true;
  WriteJsonAtomically(out_path, doc);
  std::fprintf(stderr, "amqbench: %zu cells written to %s\n", total, out_path.c_str());
  // A filter that loses a key is broken, not slow: the run says so in its exit status.
  return cells_with_false_negatives ? 1 : 0;
}

}  // namespace amq
