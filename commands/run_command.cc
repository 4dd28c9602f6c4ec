// commands/run_command.cc - the list, legend and run commands.
#include <atomic>
#include <boost/program_options.hpp>
#include <chrono>
#include <csignal>
#include <functional>
#include <memory>
#include <cstdio>
#include <iostream>
#include <malloc.h>
#include <sstream>

#include "commands/commands.h"
#include "core/errors.h"
#include "commands/option_lists.h"
#include "harness/registry.h"
#include "harness/result_file.h"
#include "traces/flow.h"
#include "traces/trace_stats.h"
#include "workloads/keys.h"
#include "workloads/queries.h"

namespace amq {
namespace po = boost::program_options;

namespace {

// Every field of a run record, in the order records carry them. `amqbench legend` prints
// this table, results/README.md documents the same, and a test checks that every field a
// record has is listed here.
constexpr std::pair<const char*, const char*> kLegend[] = {
    {"filter", "registered filter name (amqbench list)"},
    {"family", "filter family; theory curves are drawn per family"},
    {"workload", "what the keys and queries were: {kind, seed, queries: {count, positive_fraction, dist}, ...}; a trace adds its file, hash and statistics"},
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
    {"query_ns_mixed", "ns per lookup of the query stream: Q queries at positive_fraction with --query-dist popularity, or every packet of --trace (median of R)"},
    {"query_ns_mixed_min", "fastest pass"},
    {"query_ns_mixed_max", "slowest pass"},
    {"false_negatives", "inserted keys (and stream queries about them) the filter did not find: must be 0, checked every run"},
    {"stream_queries", "queries in the stream (query_ns_mixed's loop)"},
    {"churn_ns", "--churn: ns per churn step (erase, insert or query), median of R passes"},
    {"churn_ns_min", "fastest churn pass"},
    {"churn_ns_max", "slowest churn pass"},
    {"churn_rounds", "--churn rounds run"},
    {"churn_resident", "keys held during churn: 90% of n, so the other 10% circulate"},
    {"churn_ops", "churn steps timed (each round: one erase, one insert, --churn-queries queries)"},
    {"churn_false_negatives", "churn queries about held keys answered absent (also in false_negatives)"},
    {"churn_insert_failures", "churn inserts the filter refused"},
    {"churn_fpr", "churn queries about non-members answered present / those queries"},
    {"stream_negative_queries", "stream queries about non-members (repeats count each time)"},
    {"stream_false_positives", "stream queries about non-members answered present"},
    {"stream_fpr", "stream_false_positives / stream_negative_queries: the FPR the stream's users see"},
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
    // Static families (filters/xor.h, binary_fuse.h, ribbon.h).
    {"build_attempts", "static filters: construction tries, each with a new seed derived from --seed"},
    {"duplicates_removed", "XOR and binary fuse: repeated keys dropped from the input"},
    {"slots", "table and static families: slots (fingerprints) in the filter"},
    {"segment_length", "binary fuse: slots per segment"},
    {"segment_count", "binary fuse: segments"},
    {"size_factor", "binary fuse: slots / n as built"},
    {"size_factor_formula", "binary fuse: the paper's size factor at this n"},
    {"overhead", "Ribbon: slots / n - 1"},
    {"ribbon_width", "Ribbon: coefficient row width w in bits (64 or 128)"},
    {"redundant_rows", "Ribbon: repeated keys that banding found redundant"},
    // Quotient family (filters/quotient.h, rsqf.h, cqf.h).
    {"quotient_bits", "quotient family: q (2^q canonical slots)"},
    {"remainder_bits", "quotient family: r, bits stored per fingerprint"},
    {"metadata_bits_per_slot", "quotient family: 3 (classic QF) or 2.125 (RSQF, CQF)"},
    {"overflow_slots", "RSQF, CQF: slots past the 2^q canonical ones that runs may spill into"},
    {"clusters", "quotient family: maximal runs of occupied slots that start at a home slot"},
    {"cluster_length_mean", "quotient family: stored fingerprints / clusters"},
    {"cluster_length_max", "quotient family: longest cluster, slots"},
    {"runs", "quotient family: runs (fingerprints sharing a quotient)"},
    {"run_length_mean", "quotient family: fingerprints per run"},
    {"run_length_max", "quotient family: longest run"},
    {"stretch_length_mean", "quotient family: mean length of maximal occupied stretches"},
    {"stretch_length_max", "quotient family: longest occupied stretch"},
    {"displacement_mean", "quotient family: mean distance from a fingerprint's home slot to its slot"},
    {"displacement_mean_knuth", "linear-probing theory for displacement_mean: alpha / (2 (1 - alpha))"},
    {"probes_to_empty_mean", "quotient family: mean slots from a random slot to the next empty one"},
    {"probes_to_empty_mean_knuth", "linear-probing theory for probes_to_empty_mean"},
    {"slots_scanned_per_lookup", "classic QF: mean slots a lookup of a stored key scans"},
    {"bits_per_key_seed002_formula", "seed 002's (r + metadata bits) / alpha"},
    {"bits_per_key_seed000_formula", "seed 000's (log2(n/load) + r + 3) / load, with log2(n/load) = q"},
    {"select", "RSQF: select implementation, pdep (BMI2) or portable"},
    {"offset_max", "RSQF, CQF: largest block offset"},
    {"saturated_offsets", "RSQF: blocks whose offset did not fit its field"},
    {"distinct_fingerprints", "CQF: distinct fingerprints stored"},
    {"total_count", "CQF: sum of all counts"},
    {"counter_slots", "CQF: slots spent on counters"},
    // Production filters (filters/leveldb_bloom.h, rocksdb_filters.h).
    {"bits_per_key_policy", "LevelDB: bits_per_key given to NewBloomFilterPolicy"},
    {"classic_fpr", "LevelDB: the textbook (1 - e^(-kn/m))^k, for comparison with fpr_theory"},
    {"fpr_model", "production filters: how fpr_theory is computed"},
    {"rocksdb_version", "RocksDB: library version"},
    {"filter_policy", "RocksDB: the policy call"},
    {"filter_policy_name", "RocksDB: the policy's own name"},
    {"bits_per_key_equivalent", "RocksDB: bits/key given to the policy"},
    {"built_as", "RocksDB: what it built (Ribbon falls back to Bloom for tiny sets)"},
    {"filter_entries", "RocksDB: keys in the filter, n plus two range sentinels"},
    {"blocks_512bit", "RocksDB FastLocalBloom: 64-byte blocks"},
    {"ribbon_blocks", "RocksDB Ribbon: 128-slot blocks"},
    {"ribbon_columns", "RocksDB Ribbon: result bits of the wider blocks"},
    {"ribbon_blocks_with_one_column_less", "RocksDB Ribbon: blocks with one result bit fewer"},
    {"ribbon_seed", "RocksDB Ribbon: the seed RocksDB's builder settled on"},
    {"speed_note", "why a filter's timings do not mean what they say"},
    // Adaptive cuckoo filters (filters/acf.h), when run by `run` rather than `adapt`.
    {"bits_per_slot", "ACF: bits per slot, selector bits included"},
    {"selector_bits", "Cyclic ACF: hash-selector bits per slot (0 elsewhere)"},
    {"tables", "ACF: hash tables d"},
    {"remote_bytes", "ACF: the exact key store's memory, apart from size_bytes"},
    {"fpr_theory_static", "ACF: the FPR before any adaptation, 1 - (1 - 2^-f)^(d b alpha)"},
    {"rebuilds", "Cuckooing ACF: rebuilds after a fix moved too far"},
};

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
};

std::string Describe(const CellSpec& spec, std::string_view filter) {
  std::ostringstream out;
  out << filter << " n=" << spec.keys;
  if (spec.keys != spec.params.capacity) out << " capacity=" << spec.params.capacity;
  if (spec.params.target_fpr > 0) out << " fpr=" << spec.params.target_fpr;
  if (spec.params.bits_per_key > 0) out << " bits/key=" << spec.params.bits_per_key;
  if (spec.params.max_load > 0) out << " max-load=" << spec.params.max_load;
  out << " positive-fraction=" << spec.positive_fraction;
  const Json& stream = spec.workload->parameters;
  if (stream.contains("queries") && stream["queries"].contains("dist")) {
    out << " query-dist=" << stream["queries"]["dist"].get<std::string>();
  }
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
  std::string fraction_text, keys_from_text, query_dist_text, trace_path, trace_key;
  double trace_members = 0.5;
  long long churn_rounds = 0, churn_queries = 4, repeated_negatives = 0;
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
    if (grid.filters.empty()) throw InputError("--filter needs at least one filter name");
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
  std::vector<KeySource> key_sources;
  for (const std::string& kind : SplitCommas(keys_from_text)) key_sources.push_back(KeySource::Parse(kind));
  if (key_sources.empty()) throw InputError("--keys-from needs at least one key distribution");
  std::vector<Popularity> query_dists;
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
  if (!vm.count("out")) throw InputError("run needs --out FILE.json");
  CheckWritable(out_path);

  // Keep freed memory mapped and reuse it, so repeated builds measure warm memory rather
  // than the kernel's page-fault cost (see harness/experiment.h).
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, -1);

  Json doc;
  doc["schema_version"] = kSchemaVersion;
  doc["context"] = RunContext(CommandLine("run", args), seed);
  doc["complete"] = false;
  doc["records"] = Json::array();

  // The workloads, each made once, before any timing: one per key distribution and n, or the
  // trace. Their query streams are set per (distribution, positive fraction) below.
  struct Plan {
    std::function<Workload()> make;
    std::string label;
  };
  std::vector<Plan> plans;
  if (replay) {
    // Read the trace now: a damaged file is bad input, reported before any progress output.
    TraceWorkloadOptions options;
    options.key = ParseKeyMode(trace_key);
    options.member_fraction = trace_members;
    options.seed = seed;
    auto trace = std::make_shared<Workload>(TraceWorkload(trace_path, options));
    plans.push_back({[trace] { return *trace; }, "trace " + trace_path});
  } else {
    // Catch a missing word list or key file now, not after other cells have run.
    for (const KeySource& source : key_sources) {
      if (source.kind == KeySource::Kind::kWords) (void)WordListPath(source.argument);
      if (source.kind == KeySource::Kind::kFile) (void)ReadLines(source.argument, "key file");
    }
    for (const KeySource& source : key_sources) {
      for (std::size_t n : grid.keys) {
        plans.push_back({[=] { return MakeWorkload(source, n, static_cast<std::size_t>(queries), seed); },
                         source.Name() + " n=" + std::to_string(n)});
      }
    }
  }
  const std::size_t streams = replay ? 1 : query_dists.size() * grid.positive_fractions.size();
  const std::size_t total = plans.size() * streams * grid.sizings.size() *
                            grid.max_loads.size() * grid.filters.size();

  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);
  std::size_t done = 0, cells_with_false_negatives = 0;
  const auto started = std::chrono::steady_clock::now();
  for (const Plan& plan : plans) {
    if (g_interrupted) break;
    std::fprintf(stderr, "amqbench: preparing %s\n", plan.label.c_str());
    Workload workload = plan.make();
    for (std::size_t stream = 0; stream < streams && !g_interrupted; ++stream) {
      double fraction = 0;
      if (!replay) {
        QueryMix mix;
        mix.count = static_cast<std::size_t>(queries);
        mix.dist = query_dists[stream / grid.positive_fractions.size()];
        fraction = mix.positive_fraction = grid.positive_fractions[stream % grid.positive_fractions.size()];
        mix.seed = seed;
        mix.repeated_negatives = static_cast<std::size_t>(repeated_negatives);
        AddQueries(workload, mix);
      } else {
        std::size_t members = 0;
        for (std::uint8_t m : workload.query_is_member) members += m;
        fraction = workload.queries.empty() ? 0.0 : static_cast<double>(members) / workload.queries.size();
      }
      for (const Sizing& sizing : grid.sizings) {
        for (double max_load : grid.max_loads) {
          for (const FilterEntry* filter : grid.filters) {
            if (g_interrupted) break;
            CellSpec spec;
            spec.keys = workload.keys.size();
            spec.params.capacity = vm.count("capacity") ? static_cast<std::size_t>(capacity) : spec.keys;
            spec.params.target_fpr = sizing.fpr;
            spec.params.bits_per_key = sizing.bits_per_key;
            spec.params.max_load = max_load;
            spec.params.seed = seed;
            spec.params.max_kicks = max_kicks;
            spec.workload = &workload;
            spec.queries = static_cast<std::size_t>(queries);
            spec.positive_fraction = fraction;
            spec.repeats = repeats;
            spec.churn_rounds = static_cast<std::size_t>(churn_rounds);
            spec.churn_queries_per_round = static_cast<std::size_t>(churn_queries);
            const Json record = filter->run_cell(spec);
            doc["records"].push_back(record);
            WriteJsonAtomically(out_path, doc);  // finished cells survive an interrupt
            ++done;
            const double elapsed =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            std::fprintf(stderr, "[%zu/%zu %.1fs] %s %s: %.2f bits/key, fpr %.5f (theory %.5f), fn %s\n",
                         done, total, elapsed, workload.name.c_str(), Describe(spec, filter->name).c_str(),
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
