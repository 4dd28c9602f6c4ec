// commands/adapt_command.cc - `amqbench adapt`: the adaptive cuckoo filter experiments
// (harness/adapt_experiment.h) over a grid of geometries and workloads, written as one JSON
// file shaped like `amqbench run`'s: {"schema_version", "context", "complete", "records"}.
#include <atomic>
#include <boost/program_options.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "harness/adapt_experiment.h"
#include "commands/commands.h"
#include "core/errors.h"
#include "commands/option_lists.h"
#include "harness/result_file.h"
#include "core/file_util.h"
#include "traces/flow.h"
#include "traces/trace_io.h"

namespace amq {
namespace po = boost::program_options;

namespace {

constexpr const char* kAllFilters =
    "acf_cyclic,acf_cyclic_ranges,acf_swapping,acf_cuckooing,acf_cuckooing_ff,cuckoo_4x1,"
    "cuckoo_2x4";

std::atomic<bool> g_interrupted{false};
extern "C" void OnAdaptInterrupt(int) { g_interrupted = true; }

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Every packet's key in trace order, through the trace readers of traces/.
std::vector<std::uint64_t> ReadPacketKeys(const std::string& path, KeyMode mode, Json& about) {
  std::vector<std::uint64_t> keys;
  const ReadSummary summary =
      ReadTrace(path, [&](const TraceRecord& r) { keys.push_back(FlowHash(r.flow, mode)); });
  if (keys.empty()) throw InputError("trace " + path + " has no IP packets");
  about = {{"path", path},
           {"name", BaseName(path)},
           {"format", summary.format},
           {"content_hash", FileContentHash(path)},
           {"packets", keys.size()},
           {"key_mode", KeyModeName(mode)}};
  return keys;
}

}  // namespace

int AdaptCommand(const Args& args) {
  std::string filters_text = kAllFilters, experiment = "synthetic", bits_text = "8,12";
  std::string ratio_text = "1,10", qpf_text = "10", popularity_text = "uniform";
  std::string out_path, trace_path, key_mode_text = "5tuple", set_text = "1,10,100";
  std::string attack_text = "known_fps,random_set";
  std::size_t slots = std::size_t{1} << 16, repeats = 100000;
  int selector_bits = 2, tables = 4, trials = 3, max_kicks = 500, max_moves = 500, windows = 10;
  double max_load = 0.95;
  std::uint64_t seed = 1;
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
      ("filter", po::value(&filters_text)->default_value(kAllFilters),
       "filters, comma separated, or 'all': acf_cyclic, acf_cyclic_ranges, acf_swapping, "
       "acf_cuckooing, acf_cuckooing_ff, and the controls cuckoo_4x1, cuckoo_2x4 (adaptation off)")
      ("experiment", po::value(&experiment)->default_value("synthetic"),
       "synthetic | trace | adversarial (--trace implies trace)")
      ("slots", po::value(&slots)->default_value(slots),
       "slots per filter, the same for every filter (rounded up to a multiple of d*b)")
      ("bits-per-slot", po::value(&bits_text)->default_value(bits_text),
       "bits per slot, comma list, each in 4 .. 32 (the Cyclic ACF's selector bits come out of these)")
      ("selector-bits", po::value(&selector_bits)->default_value(2),
       "Cyclic ACFs: hash-selector bits s, 1 .. 4, leaving at least 2 fingerprint bits")
      ("tables", po::value(&tables)->default_value(4), "Cuckooing ACF: tables k, 2 .. 8")
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
      ("out", po::value(&out_path), "output JSON file (written atomically)");
  // clang-format on
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(options).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError(std::string("adapt: ") + e.what());
  }
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
  for (const std::string& name : SplitCommas(filters_text == "all" ? kAllFilters : filters_text)) {
    const AdaptEntry* entry = FindAdaptFilter(name);
    if (!entry) {
      throw InputError("unknown adaptive filter '" + name + "' (known: " + kAllFilters + ")");
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
  for (const AdaptEntry* f : filters) {
    for (int bits : bit_widths) {
      AdaptGeometry g;
      g.bits_per_slot = bits;
      g.selector_bits = selector_bits;
      g.tables = tables;
      if (const std::string why = f->invalid(g); !why.empty()) {
        throw InputError(std::string(f->name) + ": " + why +
                         (f->cyclic ? " (--selector-bits, --bits-per-slot)" : ""));
      }
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
  if (!vm.count("out")) throw InputError("adapt needs --out FILE.json");
  CheckWritable(out_path);

  std::vector<std::uint64_t> packets;
  Json trace_about;
  if (experiment == "trace") {
    CheckReadableFile(trace_path, "trace");
    packets = ReadPacketKeys(trace_path, key_mode, trace_about);
  }

  Json doc;
  doc["schema_version"] = kSchemaVersion;
  doc["context"] = RunContext(CommandLine("adapt", args), seed);
  doc["experiment"] = experiment;
  if (experiment == "trace") doc["trace"] = trace_about;
  doc["complete"] = false;
  doc["records"] = Json::array();

  std::signal(SIGINT, OnAdaptInterrupt);
  std::signal(SIGTERM, OnAdaptInterrupt);
  const auto started = std::chrono::steady_clock::now();
  std::size_t cells = 0, broken = 0;
  auto keep = [&](const Json& record) {
    if (record.value("false_negatives", 0) != 0 || !record.value("consistent", true)) {
      ++broken;
      std::fprintf(stderr, "amqbench: %s LOST KEYS OR DISAGREES WITH ITS REMOTE STORE\n",
                   record["filter"].get<std::string>().c_str());
    }
    doc["records"].push_back(record);
  };
  auto geometry_for = [&](int bits) {
    AdaptGeometry g;
    g.slots = slots;
    g.bits_per_slot = bits;
    g.selector_bits = selector_bits;
    g.tables = tables;
    g.max_load = max_load;
    g.max_kicks = max_kicks;
    g.max_moves = max_moves;
    return g;
  };

  if (experiment == "synthetic") {
    const std::size_t total = bit_widths.size() * ratios.size() * per_flow.size() * filters.size();
    for (int bits : bit_widths) {
      for (double ratio : ratios) {
        for (double qpf : per_flow) {
          for (const AdaptEntry* f : filters) {
            if (g_interrupted) break;
            std::vector<Json> trial_records;
            for (int t = 0; t < trials && !g_interrupted; ++t) {
              SyntheticSpec spec;
              spec.geometry = geometry_for(bits);
              spec.as_ratio = ratio;
              spec.queries_per_flow = qpf;
              spec.popularity = popularity;
              spec.trial = t;
              spec.seed = seed + t;
              trial_records.push_back(f->synthetic(spec));
              keep(trial_records.back());
            }
            if (trial_records.empty()) break;
            const Json summary = SummarizeTrials(trial_records);
            keep(summary);
            WriteJsonAtomically(out_path, doc);
            ++cells;
            std::fprintf(stderr,
                         "[%zu/%zu %.1fs] %-17s bits=%d A/S=%g q/flow=%g: fpr %.6f (min %.6f max "
                         "%.6f) static theory %.6f, %s adaptations, %s rebuilds\n",
                         cells, total, Seconds(started), std::string(f->name).c_str(), bits, ratio,
                         qpf, summary["fpr"].get<double>(), summary["fpr_min"].get<double>(),
                         summary["fpr_max"].get<double>(),
                         summary["fpr_theory_static"].get<double>(),
                         summary["adaptations"].dump().c_str(), summary["rebuilds"].dump().c_str());
          }
        }
      }
    }
  } else if (experiment == "trace") {
    const std::size_t total = bit_widths.size() * filters.size();
    for (int bits : bit_widths) {
      for (const AdaptEntry* f : filters) {
        if (g_interrupted) break;
        TraceSpec spec;
        spec.geometry = geometry_for(bits);
        spec.packets = &packets;
        spec.trace = trace_about["name"];
        spec.windows = windows;
        spec.seed = seed;
        const Json result = f->trace(spec);
        const Json& whole = result["whole"];
        keep(whole);
        for (const Json& w : result["windows"]) doc["records"].push_back(w);
        WriteJsonAtomically(out_path, doc);
        ++cells;
        std::ostringstream series;
        for (const Json& w : result["windows"]) series << ' ' << w["fpr"].get<double>();
        std::fprintf(stderr,
                     "[%zu/%zu %.1fs] %-17s bits=%d load %.3f A/S=%.2f: fpr %.6f (static theory "
                     "%.6f); by window:%s\n",
                     cells, total, Seconds(started), std::string(f->name).c_str(), bits,
                     whole["load_factor"].get<double>(), whole["as_ratio"].get<double>(),
                     whole["fpr"].get<double>(), whole["fpr_theory_static"].get<double>(),
                     series.str().c_str());
        if (whole["load_factor"].get<double>() < max_load - 0.01) {
          std::fprintf(stderr,
                       "amqbench: the trace has too few distinct keys to fill %zu slots to %.2f\n",
                       slots, max_load);
        }
      }
    }
  } else {
    const std::size_t total =
        bit_widths.size() * attacks.size() * set_sizes.size() * filters.size();
    for (int bits : bit_widths) {
      for (AttackKind attack : attacks) {
        for (long long set_size : set_sizes) {
          for (const AdaptEntry* f : filters) {
            if (g_interrupted) break;
            std::vector<Json> trial_records;
            for (int t = 0; t < trials && !g_interrupted; ++t) {
              AdversarialSpec spec;
              spec.geometry = geometry_for(bits);
              spec.attack = attack;
              spec.set_size = static_cast<std::size_t>(set_size);
              spec.repeats = repeats;
              spec.trial = t;
              spec.seed = seed + t;
              trial_records.push_back(f->adversarial(spec));
              keep(trial_records.back());
            }
            if (trial_records.empty()) break;
            const Json summary = SummarizeTrials(trial_records);
            keep(summary);
            WriteJsonAtomically(out_path, doc);
            ++cells;
            std::fprintf(stderr,
                         "[%zu/%zu %.1fs] %-17s bits=%d %s set=%lld: %s false positives in %s "
                         "queries (a static filter: %s)\n",
                         cells, total, Seconds(started), std::string(f->name).c_str(), bits,
                         summary["attack"].get<std::string>().c_str(), set_size,
                         summary["false_positives"].dump().c_str(),
                         summary["negative_queries"].dump().c_str(),
                         summary["false_positives_static"].dump().c_str());
          }
        }
      }
    }
  }

  if (g_interrupted) {
    std::fprintf(stderr, "amqbench: interrupted; %zu cells kept in %s\n", cells, out_path.c_str());
    return 130;
  }
  doc["complete"] = true;
  WriteJsonAtomically(out_path, doc);
  std::fprintf(stderr, "amqbench: %zu cells written to %s\n", cells, out_path.c_str());
  return broken ? 1 : 0;
}

}  // namespace amq
