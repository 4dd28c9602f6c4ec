// commands/trace_command.cc - `amqbench trace`: look at, make and convert traces.
//
//   amqbench trace stats FILE [--json] [--top K]
//   amqbench trace synth --out FILE [--format pcap|bin|text] [--packets N] [--flows F]
//                        [--alpha A] [--seed S] [--ipv6-fraction X]
//   amqbench trace convert IN OUT [--format bin|text|pcap] [--no-timestamps]
//
// Every file is written whole or not at all (temporary file, then rename). Bad options and bad
// files throw InputError; boost's parse errors are turned into one.
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "commands/commands.h"
#include "core/errors.h"
#include "traces/pcap_writer.h"
#include "traces/synth.h"
#include "traces/trace_io.h"
#include "traces/trace_stats.h"

namespace amq {
namespace {

namespace po = boost::program_options;

constexpr const char* kUsage =
    "usage: amqbench trace <subcommand> [options]\n"
    "\n"
    "subcommands:\n"
    "  stats FILE [--json] [--top K]\n"
    "      Packets, IPv4/IPv6, skipped packets by reason, distinct 5-tuples, the flow-size\n"
    "      distribution and the K heaviest flows of a pcap, pcapng, binary or text trace.\n"
    "  synth --out FILE [--format pcap|bin|text] [--packets N] [--flows F] [--alpha A]\n"
    "        [--seed S] [--ipv6-fraction X]\n"
    "      A CAIDA-like synthetic trace: F flows with Zipf(A) popularity, N packets.\n"
    "  convert IN OUT [--format bin|text|pcap] [--no-timestamps]\n"
    "      Rewrites any readable trace's packets as a binary (AMQTRACE), text or pcap trace.\n"
    "\n"
    "Run 'amqbench trace <subcommand> --help' for the options of one.\n";

std::uint64_t ParseCount(const std::string& name, const std::string& text) {
  std::uint64_t v = 0;
  if (text.empty() || text.size() > 19) {
    throw InputError("--" + name + " expects a non-negative integer, got '" + text + "'");
  }
  for (char c : text) {
    if (c < '0' || c > '9') {
      throw InputError("--" + name + " expects a non-negative integer, got '" + text + "'");
    }
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}

double ParseReal(const std::string& name, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v)) {
    throw InputError("--" + name + " expects a number, got '" + text + "'");
  }
  return v;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// An explicit --format wins; otherwise the output's extension decides.
std::string OutputFormat(const std::string& given, const std::string& path,
                         const std::string& fallback) {
  std::string format = given;
  if (format.empty()) {
    if (EndsWith(path, ".pcap")) {
      format = "pcap";
    } else if (EndsWith(path, ".txt")) {
      format = "text";
    } else if (EndsWith(path, ".bin") || EndsWith(path, ".amqtrace")) {
      format = "bin";
    } else {
      format = fallback;
    }
  }
  if (format != "pcap" && format != "bin" && format != "text") {
    throw InputError("--format must be pcap, bin or text, got '" + format + "'");
  }
  return format;
}

void WriteAs(const std::string& format, const std::string& path,
             const std::vector<TraceRecord>& records, bool timestamps) {
  if (format == "pcap") {
    WritePcap(path, records);
  } else if (format == "bin") {
    WriteBinaryTrace(path, records, timestamps);
  } else {
    WriteTextTrace(path, records, timestamps);
  }
}

// Parses `args` (the subcommand's own, after its name); returns false after printing help.
bool Parse(const std::vector<std::string>& args, const po::options_description& options,
           const po::positional_options_description& positional, po::variables_map& vm,
           const std::string& usage) {
  po::options_description all;
  all.add(options);
  all.add_options()("help,h", "show this help");
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  if (vm.count("help")) {
    std::cout << usage << "\n" << all;
    return false;
  }
  po::notify(vm);
  return true;
}

int StatsCommand(const std::vector<std::string>& args) {
  po::options_description options("options");
  std::string file, top = "10";
  bool json = false;
  options.add_options()("file", po::value(&file), "the trace")("json", po::bool_switch(&json),
                                                               "print JSON instead of text")(
      "top", po::value(&top), "how many of the heaviest flows to list (default 10)");
  po::positional_options_description positional;
  positional.add("file", 1);
  po::variables_map vm;
  if (!Parse(args, options, positional, vm,
             "usage: amqbench trace stats FILE [--json] [--top K]")) {
    return 0;
  }
  if (file.empty()) throw InputError("trace stats: no FILE given");
  const TraceStats stats = ComputeTraceStats(file, ParseCount("top", top));
  if (json) {
    std::cout << stats.ToJson().dump(2) << "\n";
  } else {
    std::cout << stats.ToText();
  }
  return 0;
}

int Synth(const std::vector<std::string>& args) {
  po::options_description options("options");
  std::string out, format, packets, flows, alpha, seed, ipv6;
  const SynthOptions defaults;
  options.add_options()("out,o", po::value(&out), "output file (required)")(
      "format", po::value(&format), "pcap, bin or text (default: by extension, else pcap)")(
      "packets", po::value(&packets),
      ("packets in the trace (default " + std::to_string(defaults.packets) + ")").c_str())(
      "flows", po::value(&flows),
      ("distinct 5-tuples (default " + std::to_string(defaults.flows) + ")").c_str())(
      "alpha", po::value(&alpha), "Zipf exponent of flow popularity (default 1.2)")(
      "seed", po::value(&seed), "random seed (default 1)")("ipv6-fraction", po::value(&ipv6),
                                                           "share of IPv6 flows (default 0.05)");
  po::positional_options_description positional;
  po::variables_map vm;
  if (!Parse(args, options, positional, vm,
             "usage: amqbench trace synth --out FILE [--format pcap|bin|text] [--packets N]\n"
             "       [--flows F] [--alpha A] [--seed S] [--ipv6-fraction X]")) {
    return 0;
  }
  if (out.empty()) throw InputError("trace synth: --out FILE is required");
  SynthOptions o;
  if (!packets.empty()) o.packets = ParseCount("packets", packets);
  if (!flows.empty()) o.flows = ParseCount("flows", flows);
  if (!alpha.empty()) o.alpha = ParseReal("alpha", alpha);
  if (!seed.empty()) o.seed = ParseCount("seed", seed);
  if (!ipv6.empty()) o.ipv6_fraction = ParseReal("ipv6-fraction", ipv6);
  ValidateSynthOptions(o);
  const std::string chosen = OutputFormat(format, out, "pcap");
  const SynthTrace trace = SynthesizeTrace(o);
  WriteAs(chosen, out, trace.records, /*timestamps=*/true);
  std::cout << "wrote " << out << " (" << chosen << "): " << trace.records.size() << " packets, "
            << trace.flows.size() << " flows\n";
  return 0;
}

int Convert(const std::vector<std::string>& args) {
  po::options_description options("options");
  std::string in, out, format;
  bool no_timestamps = false;
  options.add_options()("in", po::value(&in), "input trace (pcap, pcapng, bin or text)")(
      "out", po::value(&out), "output file")("format", po::value(&format),
                                             "bin, text or pcap (default: by extension, else bin)")(
      "no-timestamps", po::bool_switch(&no_timestamps), "leave timestamps out");
  po::positional_options_description positional;
  positional.add("in", 1).add("out", 1);
  po::variables_map vm;
  if (!Parse(args, options, positional, vm,
             "usage: amqbench trace convert IN OUT [--format bin|text|pcap] [--no-timestamps]")) {
    return 0;
  }
  if (in.empty() || out.empty()) throw InputError("trace convert: IN and OUT are required");
  const std::string chosen = OutputFormat(format, out, "bin");
  const auto [records, summary] = ReadTraceRecords(in);
  WriteAs(chosen, out, records, summary.has_timestamps && !no_timestamps);
  std::cout << "wrote " << out << " (" << chosen << "): " << records.size() << " packets of "
            << summary.records << " read, " << summary.skipped_total() << " skipped\n";
  return 0;
}

}  // namespace

int TraceCommand(const Args& args) {
  if (args.empty()) {
    throw InputError("trace: no subcommand given (stats, synth or convert; see --help)");
  }
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  try {
    if (args[0] == "stats") return StatsCommand(rest);
    if (args[0] == "synth") return Synth(rest);
    if (args[0] == "convert") return Convert(rest);
  } catch (const po::error& e) {
    throw InputError("trace " + args[0] + ": " + e.what());
  }
  throw InputError("trace: unknown subcommand '" + args[0] +
                   "' (expected stats, synth or convert)");
}

}  // namespace amq
