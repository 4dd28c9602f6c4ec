// commands/adapt_command.cc - `amqbench adapt`: the adaptive cuckoo filter experiments
// (harness/kinds/adapt_kind.h) over a grid of geometries and workloads, run by the one runner
// into one result file, as `amqbench run` is.
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "commands/commands.h"
#include "commands/kind_options.h"
#include "commands/option_lists.h"
#include "commands/run_plan.h"
#include "core/errors.h"
#include "core/file_util.h"
#include "harness/kinds/adapt_kind.h"
#include "harness/cell/registry.h"
#include "traces/flow.h"

namespace amq {
namespace po = boost::program_options;

namespace {

// `all`: every registered filter that can take part (harness/kinds/adapt_kind.h's capability),
// the adaptive ones first and their static controls after them, as results have always listed.
std::string AllAdaptiveFilters() {
  std::string adaptive, controls;
  for (const FilterEntry& e : Registry()) {
    if (!e.adaptive) continue;
    std::string& list = e.adaptive->adapts ? adaptive : controls;
    if (!list.empty()) list += ',';
    list += e.name;
  }
  if (!adaptive.empty() && !controls.empty()) adaptive += ',';
  return adaptive + controls;
}

}  // namespace

int AdaptCommand(const Args& args) {
  std::string filters_text = "all", experiment = "synthetic", out_path, key_mode_text = "5tuple";
  bool force = false;
  po::options_description options(
      "amqbench adapt: adaptive cuckoo filters (filters/acf.h) against their static controls,\n"
      "all at the same slots and bits per slot. Every query goes through query_and_adapt: a\n"
      "positive answer is checked in the remote store (a full-key table mirroring the filter\n"
      "slot for slot) and a false positive is fixed. The FPR is measured at the filter.\n"
      "Experiments (the kinds adapt_synthetic, adapt_trace, adapt_adversarial; their declared\n"
      "parameters are the options below):\n"
      "  synthetic    S fills --max-load of --slots; A = --as-ratio x |S| non-member flows;\n"
      "               --queries-per-flow x |A| queries drawn from A by --popularity; --trials\n"
      "               fresh seeds; one record per trial and a summary record (mean, min, max)\n"
      "  trace        --trace FILE replayed in order: distinct keys inserted until --max-load,\n"
      "               then every packet queried; FPR overall and in --windows windows\n"
      "  adversarial  a set of --fp-set non-members asked --queries-per-set times: known false\n"
      "               positives (--attack known_fps) or random non-members (random_set);\n"
      "               or an adversary that reads the filter's state (state_reading,\n"
      "               state_reading_follow) with --query-budget distinct queries\n"
      "Options");
  options.add_options()
      ("help,h", "this text")
      ("filter", po::value(&filters_text)->default_value("all"),
       ("filters, comma separated, or 'all': " + AllAdaptiveFilters()).c_str())
      ("experiment", po::value(&experiment)->default_value("synthetic"),
       "synthetic | trace | adversarial (--trace implies trace)");
  const KindOptions kind_options({&kAdaptSyntheticKind, &kAdaptTraceKind, &kAdaptAdversarialKind}, options);
  std::string repeats_text;
  options.add_options()
      ("key-mode", po::value(&key_mode_text)->default_value("5tuple"), "trace: 5tuple | pair | src")
      ("repeats", po::value(&repeats_text), "the former name of --queries-per-set (\"repeats\" now means timed repeats only)")
      ("out", po::value(&out_path), "output JSON Lines file (one line appended per finished cell)")
      ("force", po::bool_switch(&force), "replace --out even if it holds a finished run");
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
  const KindSpec* kind = experiment == "synthetic"     ? &kAdaptSyntheticKind
                         : experiment == "trace"       ? &kAdaptTraceKind
                         : experiment == "adversarial" ? &kAdaptAdversarialKind
                                                       : nullptr;
  if (!kind) throw InputError("--experiment must be synthetic, trace or adversarial, got '" + experiment + "'");
  if (kind == &kAdaptTraceKind && !vm.count("trace")) throw InputError("--experiment trace needs --trace FILE");
  PlanInput in = CommandLineInput(*kind, kind_options.Params(vm, *kind, false), "adapt");
  if (vm.count("repeats")) {
    if (vm.count("queries-per-set")) throw InputError("give --queries-per-set, not --repeats as well");
    std::fprintf(stderr, "amqbench adapt: --repeats is now --queries-per-set\n");
    const ParamSpec& spec = *kAdaptAdversarialKind.Find("queries_per_set");
    const Json value = ParseOptionValue(spec, repeats_text);
    CheckParam(spec, value, "--repeats");
    if (kind == &kAdaptAdversarialKind) in.params["queries_per_set"] = value;
  }
  for (const std::string& name : SplitCommas(filters_text == "all" ? AllAdaptiveFilters() : filters_text)) {
    const FilterEntry* entry = FindFilter(name);
    if (!entry || !entry->adaptive) {
      throw InputError("unknown adaptive filter '" + name + "' (known: " + AllAdaptiveFilters() + ")");
    }
    in.filters.push_back(entry);
  }
  if (in.filters.empty()) throw InputError("--filter names no filter");
  if (in.Has("trace")) in.params["trace"]["key"] = KeyModeName(ParseKeyMode(key_mode_text));
  if (!vm.count("out")) throw InputError("adapt needs --out FILE.json");
  if (in.Has("trace")) CheckNotAnInput(out_path, in.params["trace"]["path"].get<std::string>(), "the trace");
  CheckWritable(out_path);
  InstallInterruptHandlers();
  std::unique_ptr<ExperimentPlan> plan;
  {
    // Planning reads the inputs (a trace's content hash); a signal now ends the run at once.
    const AbandonableWork reading("amqbench: interrupted while reading the inputs; nothing was run");
    plan = kind->plan(in);
  }
  return RunOnePlan(*plan, CommandRun("adapt", *kind, args, in, out_path, force));
}

}  // namespace amq
