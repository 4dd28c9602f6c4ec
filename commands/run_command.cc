// commands/run_command.cc - the list, legend and run commands.
#include <boost/program_options.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "commands/commands.h"
#include "commands/option_lists.h"
#include "commands/run_plan.h"
#include "core/errors.h"
#include "core/file_util.h"
#include "harness/filters_experiment.h"
#include "harness/registry.h"
#include "harness/schema.h"
#include "traces/flow.h"
#include "workloads/keys.h"
#include "workloads/queries.h"

namespace amq {
namespace po = boost::program_options;

int ListCommand(const Args& args) {
  if (!args.empty()) throw InputError("list takes no options");
  for (const FilterEntry& e : Registry()) {
    std::cout << e.name << "\n  family: " << e.family
              << "\n  build: " << (e.dynamic ? "dynamic (insert key by key)" : "static (from the whole key set)")
              << "\n  erase: " << (e.erasable ? "yes" : "no")
              << "\n  width: " << (e.fixed_width ? "fixed by the type" : "from --fpr or --bits-per-key")
              << "\n  adaptive experiments: " << (e.adaptive ? "yes" : "no");
    if (!e.library.empty()) std::cout << "\n  library: " << e.library;
    std::cout << "\n  parameters: " << e.parameters << "\n";
  }
  return 0;
}

int LegendCommand(const Args& args) {
  if (args.size() > 1 || (args.size() == 1 && args[0] != "--markdown" && args[0] != "--json-schema")) {
    throw InputError("legend takes --markdown (results/README.md's field tables) or --json-schema "
                     "(results/schema.json), or nothing");
  }
  if (const auto problems = SchemaProblems(); !problems.empty()) {
    throw std::logic_error("the schema declares a field twice: " + problems.front());
  }
  if (args.empty()) {
    std::cout << LegendText();
  } else if (args[0] == "--markdown") {
    std::cout << LegendMarkdown();
  } else {
    std::cout << ResultJsonSchema().dump(2) << "\n";
  }
  return 0;
}

int RunCommand(const Args& args) {
  std::string filters_text, keys_text, fpr_text, bits_text, load_text, out_path;
  std::string fraction_text, keys_from_text, query_dist_text, trace_path, trace_key;
  double trace_members = 0.5;
  long long churn_rounds = 0, churn_queries = 4, repeated_negatives = 0;
  long long queries = 0, capacity = 0;  // signed, so "-1" is caught rather than wrapped
  long long seed = 1;  // signed, so "-1" is caught rather than wrapped to 2^64 - 1
  int repeats = 0, max_kicks = 500;
  bool quick = false, force = false, allow_oversubscribe = false, machine = false;
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
      ("keys-from", po::value(&keys_from_text)->default_value("uniform"),
       (std::string("key distributions, comma list: ") + kKeyKindsHelp).c_str())
      ("positive-fraction", po::value(&fraction_text)->default_value("0.5"),
       "share of members in the query stream, in [0, 1], comma list")
      ("query-dist", po::value(&query_dist_text)->default_value("uniform"),
       "popularity of the stream's queries: uniform or zipf:ALPHA, comma list")
      ("repeated-negatives", po::value(&repeated_negatives),
       "the stream's non-member queries come from only this many distinct keys, asked again and again")
      ("churn", po::value(&churn_rounds),
       "erasable filters: after the build, this many rounds of erase one key, insert one, query "
       "--churn-queries keys, timed and checked at every query (churn_* fields)")
      ("churn-queries", po::value(&churn_queries)->default_value(4), "queries per churn round")
      ("trace", po::value(&trace_path),
       "replay a trace (pcap, pcapng, or amqbench's binary/text): the filter holds a share of "
       "its distinct flows and every packet is a query; replaces --keys and --keys-from")
      ("trace-members", po::value(&trace_members)->default_value(0.5),
       "with --trace: share of the distinct flows the filter holds (the first ones seen)")
      ("trace-key", po::value(&trace_key)->default_value("5tuple"),
       "with --trace: what a packet's key is: 5tuple, pair (address pair) or src")
      ("seed", po::value(&seed)->default_value(1), "seed for keys, queries and hash functions")
      ("repeat", po::value(&repeats), "timed repeats per cell, median reported (default 3; --quick 1)")
      ("max-kicks", po::value(&max_kicks)->default_value(500), "cuckoo: evictions before an insert fails")
      ("quick", po::bool_switch(&quick), "small defaults for a fast smoke run")
      ("out", po::value(&out_path), "output JSON Lines file (one line appended per finished cell)")
      ("force", po::bool_switch(&force), "replace --out even if it holds a finished run")
      ("allow-oversubscribe", po::bool_switch(&allow_oversubscribe),
       "run cells whose estimated peak memory exceeds what the machine has available (refused without it)")
      ("machine", po::bool_switch(&machine),
       "measure this machine briefly first (amqbench machine --quick, a few seconds) and record its "
       "latency per level, random-line ceiling and bandwidth in the context");
  const po::variables_map vm = ParseOptions("run", args, options);
  if (vm.count("help")) {
    std::cout << options << "\nFields of the output: amqbench legend\n";
    return 0;
  }

  FiltersParams grid;
  if (filters_text == "all") {
    for (const FilterEntry& e : Registry()) grid.filters.push_back(&e);
  } else {
    for (const std::string& name : SplitCommas(filters_text)) {
      const FilterEntry* entry = FindFilter(name);
      if (!entry) throw InputError("unknown filter '" + name + "' (amqbench list shows them)");
      grid.filters.push_back(entry);
    }
    if (grid.filters.empty()) throw InputError("--filter needs at least one filter name");
  }
  const std::string default_keys = quick ? "20000" : "1000000";
  grid.keys.clear();
  grid.sizings.clear();
  grid.max_loads.clear();
  grid.positive_fractions.clear();
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
  std::vector<KeySource>& key_sources = grid.key_sources;
  key_sources.clear();
  for (const std::string& kind : SplitCommas(keys_from_text)) key_sources.push_back(KeySource::Parse(kind));
  if (key_sources.empty()) throw InputError("--keys-from needs at least one key distribution");
  std::vector<Popularity>& query_dists = grid.query_dists;
  query_dists.clear();
  for (const std::string& dist : SplitCommas(query_dist_text)) query_dists.push_back(Popularity::Parse(dist, "query-dist"));
  if (query_dists.empty()) throw InputError("--query-dist needs at least one distribution");
  const bool replay = vm.count("trace") > 0;
  if (replay) {
    if (vm.count("keys") || !vm["keys-from"].defaulted() || !vm["query-dist"].defaulted() ||
        !vm["positive-fraction"].defaulted()) {
      throw InputError("--trace sets the keys and the queries: drop --keys, --keys-from, "
                       "--query-dist and --positive-fraction");
    }
    if (!(trace_members > 0 && trace_members <= 1)) {
      throw InputError("--trace-members must be in (0, 1]");
    }
  }
  if (!vm.count("queries")) queries = quick ? 20000 : 1000000;
  if (churn_rounds < 0) throw InputError("--churn must be at least 0");
  if (churn_queries < 0) throw InputError("--churn-queries must be at least 0");
  if (repeated_negatives < 0) throw InputError("--repeated-negatives must be at least 1");
  if (vm.count("repeated-negatives") && repeated_negatives < 1) {
    throw InputError("--repeated-negatives must be at least 1");
  }
  if (!vm.count("repeat")) repeats = quick ? 1 : 3;
  if (queries < 1) throw InputError("--queries must be at least 1");
  if (vm.count("capacity") && capacity < 1) throw InputError("--capacity must be at least 1");
  if (repeats < 1 || repeats > 1000) throw InputError("--repeat must be in 1 .. 1000");
  if (max_kicks < 1 || max_kicks > 1000000) throw InputError("--max-kicks must be in 1 .. 1000000");
  if (seed < 0) throw InputError("--seed must be at least 0, got " + std::to_string(seed));
  if (!vm.count("out")) throw InputError("run needs --out FILE.json");
  CheckWritable(out_path);
  if (replay) {
    TraceSource trace;
    trace.path = trace_path;
    trace.key = ParseKeyMode(trace_key);
    grid.trace = trace;
    grid.trace_members = trace_members;
    // Read the trace's bytes now: a missing or empty file is bad input before any progress.
    CheckReadableFile(trace_path, "trace");
    CheckNotAnInput(out_path, trace_path, "the trace");
  }
  for (const KeySource& source : grid.key_sources) {
    if (source.kind == KeySource::Kind::kFile) CheckNotAnInput(out_path, source.argument, "a key file");
  }
  if (vm.count("capacity")) grid.capacity = static_cast<std::size_t>(capacity);
  grid.repeated_negatives = static_cast<std::size_t>(repeated_negatives);
  grid.churn_rounds = static_cast<std::size_t>(churn_rounds);
  grid.churn_queries = static_cast<std::size_t>(churn_queries);
  grid.queries = static_cast<std::size_t>(queries);
  grid.repeats = repeats;
  grid.max_kicks = max_kicks;
  grid.seed = seed;
  ValidateFiltersParams(grid);
  InstallInterruptHandlers();
  std::unique_ptr<ExperimentPlan> plan;
  {
    // Planning reads the inputs (a trace's content hash); a signal now ends the run at once.
    const AbandonableWork reading("amqbench: interrupted while reading the inputs; nothing was run");
    plan = MakeFiltersPlan(grid);
  }
  return RunOnePlan(*plan, {{"id", "run"}, {"kind", "filters"}}, CommandLine("run", args), seed,
                    out_path, force, allow_oversubscribe, machine);
}

}  // namespace amq
