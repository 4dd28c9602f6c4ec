// commands/run_command.cc - the list, legend and run commands.
#include <boost/program_options.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "commands/commands.h"
#include "commands/kind_options.h"
#include "commands/option_lists.h"
#include "commands/run_plan.h"
#include "core/errors.h"
#include "core/file_util.h"
#include "harness/kinds/filters_kind.h"
#include "harness/cell/registry.h"
#include "harness/run/schema.h"
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
              << "\n  concurrent inserts: " << (e.concurrent_inserts ? "yes (core/concurrent_insert.h)" : "no")
              << "\n  width: " << (e.fixed_width ? "fixed by the type" : "from --fpr or --bits-per-key")
              << "\n  adaptive experiments: " << (e.adaptive ? e.adaptive->adapts ? "yes" : "yes (a static control: adaptation off)" : "no");
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
  std::string filters_text = "all", out_path, trace_key = "5tuple";
  bool quick = false, force = false, allow_oversubscribe = false, machine = false;
  po::options_description options(
      "amqbench run: build each filter over N distinct keys for every combination of the list\n"
      "options, measure it, check it, and write one JSON file (the filters kind: every option\n"
      "but --filter, --repeat, --trace-key and the last five is one of its declared parameters).\nOptions");
  options.add_options()
      ("help,h", "this text")
      ("filter", po::value(&filters_text)->default_value("all"),
       "filter names, comma separated, or 'all' (amqbench list)");
  const KindOptions kind_options({&kFiltersKind}, options);
  std::string repeat_text;
  options.add_options()
      ("repeat", po::value(&repeat_text), "the former spelling of --repeats")
      ("trace-key", po::value(&trace_key)->default_value("5tuple"),
       "with --trace: what a packet's key is: 5tuple, pair (address pair) or src")
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

  PlanInput in = CommandLineInput(kFiltersKind, kind_options.Params(vm, kFiltersKind, quick), "run");
  if (vm.count("repeat")) {
    // One spelling for timed repeats everywhere (run, machine, the suite key); the old one works.
    if (vm.count("repeats")) throw InputError("give --repeats, not --repeat as well");
    const ParamSpec& spec = *kFiltersKind.Find("repeats");
    const Json value = ParseOptionValue(spec, repeat_text);
    CheckParam(spec, value, "--repeat");
    in.params["repeats"] = value;
  }
  if (filters_text == "all") {
    for (const FilterEntry& e : Registry()) in.filters.push_back(&e);
  } else {
    for (const std::string& name : SplitCommas(filters_text)) {
      const FilterEntry* entry = FindFilter(name);
      if (!entry) throw InputError("unknown filter '" + name + "' (amqbench list shows them)");
      in.filters.push_back(entry);
    }
    if (in.filters.empty()) throw InputError("--filter needs at least one filter name");
  }
  if (in.Has("trace")) in.params["trace"]["key"] = trace_key;
  if (!vm.count("out")) throw InputError("run needs --out FILE.json");
  CheckWritable(out_path);
  InstallInterruptHandlers();
  std::unique_ptr<ExperimentPlan> plan;
  {
    // Planning reads the inputs (a trace, key files); a signal now ends the run at once.
    const AbandonableWork reading("amqbench: interrupted while reading the inputs; nothing was run");
    plan = kFiltersKind.plan(in);
  }
  // --out must never name an input: results written over a capture or a key list destroy it.
  if (in.Has("trace")) CheckNotAnInput(out_path, in.params["trace"]["path"].get<std::string>(), "the trace");
  for (const Json& source : in.params.value("keys_from", Json::array())) {
    const KeySource key_source = KeySource::Parse(source.get<std::string>());
    if (key_source.kind == KeySource::Kind::kFile) CheckNotAnInput(out_path, key_source.argument, "a key file");
  }
  CommandRun run("run", kFiltersKind, args, in, out_path, force);
  run.allow_oversubscribe = allow_oversubscribe;
  run.measure_machine = machine;
  return RunOnePlan(*plan, run);
}

}  // namespace amq
