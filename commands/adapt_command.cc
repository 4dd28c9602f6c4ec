// commands/adapt_command.cc - `amqbench adapt`: the adaptive cuckoo filter experiments
// (harness/adapt_experiment.h) over a grid of geometries and workloads, run by the one runner
// into one result file, as `amqbench run` is.
#include <boost/program_options.hpp>
#include <iostream>

#include "commands/commands.h"
#include "commands/option_lists.h"
#include "commands/run_plan.h"
#include "core/errors.h"
#include "core/file_util.h"
#include "harness/adapt_experiment.h"
#include "harness/registry.h"
#include "traces/flow.h"

namespace amq {
namespace po = boost::program_options;

namespace {

// `all`: every registered filter that can take part (harness/adapt_experiment.h's capability),
// the adaptive ones first and their static controls after them, as results have always listed.
std::string AllAdaptiveFilters() {
  std::string adaptive, controls;
  for (const FilterEntry& e : Registry()) {
    if (!e.adaptive) continue;
    std::string& list = FindAdaptFilter(e.name)->adaptive ? adaptive : controls;
    if (!list.empty()) list += ',';
    list += e.name;
  }
  if (!adaptive.empty() && !controls.empty()) adaptive += ',';
  return adaptive + controls;
}

}  // namespace

int AdaptCommand(const Args& args) {
  std::string filters_text = "all", experiment = "synthetic", bits_text = "8,12";
  std::string ratio_text = "1,10", qpf_text = "10", popularity_text = "uniform";
  std::string out_path, trace_path, key_mode_text = "5tuple", set_text = "1,10,100";
  std::string attack_text = "known_fps,random_set";
  std::size_t slots = std::size_t{1} << 16, repeats = 100000;
  int selector_bits = 2, tables = 4, trials = 3, max_kicks = 500, max_moves = 500, windows = 10;
  double max_load = 0.95;
  bool force = false;
  long long seed = 1;  // signed, so "-1" is caught rather than wrapped to 2^64 - 1
  po::options_description options(
      "amqbench adapt: adaptive cuckoo filters (filters/acf.h) against their static controls,\n"
      "all at the same slots and bits per slot. Every query goes through query_and_adapt: a\n"
      "positive answer is checked in the remote store (a full-key table mirroring the filter\n"
      "slot for slot) and a false positive is fixed. The FPR is measured at the filter.\n"
      "Experiments:\n"
      "  synthetic    S fills --max-load of --slots; A = --as-ratio x |S| non-member flows;\n"
      "               --queries-per-flow x |A| queries drawn from A by --popularity; --trials\n"
      "               fresh seeds; one record per trial and a *_summary record (mean, min, max)\n"
      "  trace        --trace FILE replayed in order: distinct keys inserted until --max-load,\n"
      "               then every packet queried; FPR overall and in --windows windows\n"
      "  adversarial  a set of --fp-set non-members asked --repeats times: known false\n"
      "               positives (--attack known_fps) or random non-members (random_set)\n"
      "Options");
  // One option per line reads better than the formatter's chained layout.
  // clang-format off
  options.add_options()
      ("help,h", "this text")
      ("filter", po::value(&filters_text)->default_value("all"),
       "filters, comma separated, or 'all': acf_cyclic, acf_cyclic_ranges, acf_swapping, "
       "acf_cuckooing, acf_cuckooing_ff, acf_cuckooing_2x4, and the controls cuckoo_4x1, "
       "cuckoo_2x4 (adaptation off)")
      ("experiment", po::value(&experiment)->default_value("synthetic"),
       "synthetic | trace | adversarial (--trace implies trace)")
      ("slots", po::value(&slots)->default_value(slots),
       "slots per filter, the same for every filter (rounded up to a multiple of d*b)")
      ("bits-per-slot", po::value(&bits_text)->default_value(bits_text),
       "bits per slot, comma list, each in 4 .. 32 (the Cyclic ACF's selector bits come out of these)")
      ("selector-bits", po::value(&selector_bits)->default_value(2),
       "Cyclic ACFs: hash-selector bits s, 1 .. 4, leaving at least 2 fingerprint bits")
      ("tables", po::value(&tables)->default_value(4), "1-slot Cuckooing ACFs: tables k, 2 .. 8")
      ("max-load", po::value(&max_load)->default_value(0.95), "share of the slots S fills, in (0, 1)")
      ("as-ratio", po::value(&ratio_text)->default_value(ratio_text),
       "synthetic: |A| / |S|, comma list, each > 0")
      ("queries-per-flow", po::value(&qpf_text)->default_value(qpf_text),
       "synthetic: mean queries per flow of A, comma list, each > 0")
      ("popularity", po::value(&popularity_text)->default_value("uniform"),
       "synthetic: uniform | zipf:A (flow of rank r asked with probability ~ r^-A)")
      ("trials", po::value(&trials)->default_value(3), "synthetic, adversarial: trials, fresh seeds each")
      ("seed", po::value(&seed)->default_value(1), "base seed; trial t uses seed + t")
      ("max-kicks", po::value(&max_kicks)->default_value(500), "insert: evictions before a key is refused")
      ("max-moves", po::value(&max_moves)->default_value(500),
       "Cuckooing ACF: moves of one fix before the table is rebuilt with a new seed")
      ("trace", po::value(&trace_path), "trace: pcap, pcapng, amqtrace or text trace (see amqbench trace)")
      ("key-mode", po::value(&key_mode_text)->default_value("5tuple"), "trace: 5tuple | pair | src")
      ("windows", po::value(&windows)->default_value(10), "trace: windows over the replay, 1 .. 10000")
      ("fp-set", po::value(&set_text)->default_value(set_text), "adversarial: query set sizes, comma list")
      ("attack", po::value(&attack_text)->default_value(attack_text),
       "adversarial: known_fps and/or random_set, comma list")
      ("repeats", po::value(&repeats)->default_value(repeats), "adversarial: queries per set")
      ("out", po::value(&out_path), "output JSON Lines file (one line appended per finished cell)")
      ("force", po::bool_switch(&force), "replace --out even if it holds a finished run");
  // clang-format on
  const po::variables_map vm = ParseOptions("adapt", args, options);
  if (vm.count("help")) {
    std::cout << options
              << "\nRecords carry filter, experiment, trial, seed, slots, bits_per_slot,\n"
                 "fingerprint_bits, selector_bits, load_factor, fpr, false_positives, negative_queries,\n"
                 "adaptations, remote_lookups, rebuilds, insert_failures, size_bytes,\n"
                 "remote_bytes, fpr_theory_static (the same filter without adaptation) and the\n"
                 "experiment's own parameters (as_ratio, queries_per_flow, popularity, ...).\n";
    return 0;
  }

  // ---- validate everything before any work ----
  if (vm.count("trace")) {
    if (!vm["experiment"].defaulted() && experiment != "trace") {
      throw InputError("--trace goes with --experiment trace, not " + experiment);
    }
    experiment = "trace";
  }
  if (experiment != "synthetic" && experiment != "trace" && experiment != "adversarial") {
    throw InputError("--experiment must be synthetic, trace or adversarial, got '" + experiment +
                     "'");
  }
  if (experiment == "trace" && trace_path.empty())
    throw InputError("--experiment trace needs --trace FILE");
  std::vector<const AdaptEntry*> filters;
  for (const std::string& name : SplitCommas(filters_text == "all" ? AllAdaptiveFilters() : filters_text)) {
    const AdaptEntry* entry = FindAdaptFilter(name);
    if (!entry) {
      throw InputError("unknown adaptive filter '" + name + "' (known: " + AllAdaptiveFilters() + ")");
    }
    filters.push_back(entry);
  }
  if (filters.empty()) throw InputError("--filter names no filter");
  if (slots < 16 || slots > (std::size_t{1} << 32))
    throw InputError("--slots must be in 16 .. 2^32");
  if (!(max_load > 0 && max_load < 1)) throw InputError("--max-load must be in (0, 1)");
  if (trials < 1 || trials > 1000) throw InputError("--trials must be in 1 .. 1000");
  if (max_kicks < 1 || max_kicks > 1000000) throw InputError("--max-kicks must be in 1 .. 1000000");
  if (max_moves < 1 || max_moves > 1000000) throw InputError("--max-moves must be in 1 .. 1000000");
  const std::vector<int> bit_widths = ParseList<int>("bits-per-slot", bits_text);
  for (int bits : bit_widths) {
    if (bits < 4 || bits > 32) {
      throw InputError("--bits-per-slot must be in 4 .. 32, got " + std::to_string(bits));
    }
  }
  const std::vector<double> ratios = ParseList<double>("as-ratio", ratio_text);
  for (double r : ratios) {
    if (!(r > 0 && r <= 10000))
      throw InputError("--as-ratio must be in (0, 10000], got " + std::to_string(r));
  }
  const std::vector<double> per_flow = ParseList<double>("queries-per-flow", qpf_text);
  for (double q : per_flow) {
    if (!(q > 0 && q <= 1e6))
      throw InputError("--queries-per-flow must be in (0, 10^6], got " + std::to_string(q));
  }
  const Popularity popularity = Popularity::Parse(popularity_text);
  if (windows < 1 || windows > 10000) throw InputError("--windows must be in 1 .. 10000");
  const KeyMode key_mode = ParseKeyMode(key_mode_text);
  const std::vector<long long> set_sizes = ParseList<long long>("fp-set", set_text);
  for (long long s : set_sizes) {
    if (s < 1 || s > 10000000) throw InputError("--fp-set sizes must be in 1 .. 10^7");
  }
  std::vector<AttackKind> attacks;
  for (const std::string& a : SplitCommas(attack_text)) {
    if (a == "known_fps") {
      attacks.push_back(AttackKind::kKnownFalsePositives);
    } else if (a == "random_set") {
      attacks.push_back(AttackKind::kRandomSet);
    } else {
      throw InputError("--attack must be known_fps or random_set, got '" + a + "'");
    }
  }
  if (attacks.empty()) throw InputError("--attack needs at least one value");
  if (repeats < 1 || repeats > 1000000000) throw InputError("--repeats must be in 1 .. 10^9");
  if (seed < 0) throw InputError("--seed must be at least 0, got " + std::to_string(seed));
  if (!vm.count("out")) throw InputError("adapt needs --out FILE.json");
  if (!trace_path.empty()) CheckNotAnInput(out_path, trace_path, "the trace");
  CheckWritable(out_path);
  AdaptParams params;
  params.kind = experiment == "synthetic" ? AdaptKind::kSynthetic
                : experiment == "trace"   ? AdaptKind::kTrace
                                          : AdaptKind::kAdversarial;
  params.filters = filters;
  params.geometry.slots = slots;
  params.geometry.selector_bits = selector_bits;
  params.geometry.tables = tables;
  params.geometry.max_load = max_load;
  params.geometry.max_kicks = max_kicks;
  params.geometry.max_moves = max_moves;
  params.bits_per_slot = bit_widths;
  params.as_ratios = ratios;
  params.queries_per_flow = per_flow;
  params.popularity = popularity;
  params.trials = trials;
  if (params.kind == AdaptKind::kTrace) {
    TraceSource trace;
    trace.path = trace_path;
    trace.key = key_mode;
    params.trace = trace;
  }
  params.windows = windows;
  params.set_sizes.assign(set_sizes.begin(), set_sizes.end());
  params.attacks = attacks;
  params.queries_per_set = {repeats};
  params.seed = seed;
  ValidateAdaptParams(params);
  InstallInterruptHandlers();
  std::unique_ptr<ExperimentPlan> plan;
  {
    // Planning reads the inputs (a trace's content hash); a signal now ends the run at once.
    const AbandonableWork reading("amqbench: interrupted while reading the inputs; nothing was run");
    plan = MakeAdaptPlan(params);
  }
  return RunOnePlan(*plan, {{"id", "adapt"}, {"kind", AdaptKindName(params.kind)}},
                    CommandLine("adapt", args), seed, out_path, force);
}

}  // namespace amq
