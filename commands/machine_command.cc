// commands/machine_command.cc - `amqbench machine`: this host's dependent-load latency from
// 4 KiB to a GiB, its random-cache-line ceiling and its sequential bandwidth
// (harness/machine_measure.h), printed as a table and, with --out, written as a result file:
// the usual header and context, then one "machine" line per point, appended and synced as each
// is measured, so an interrupted run keeps the points it finished.
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "commands/commands.h"
#include "commands/option_lists.h"
#include "core/errors.h"
#include "harness/machine_report.h"
#include "harness/process_memory.h"
#include "harness/result_writer.h"
#include "harness/runner.h"
#include "harness/schema.h"

namespace amq {
namespace po = boost::program_options;
namespace {

constexpr std::size_t kMaxMaxBytes = std::size_t{1} << 37;  // the permutation's 32-bit line numbers

// "1073741824", "1G", "1GiB", "512M", "64MiB", "4096K": bytes, the suffixes binary.
std::size_t ParseBytes(const std::string& option, const std::string& text) {
  std::size_t used = 0;
  unsigned long long value = 0;
  const auto bad = [&] {
    return InputError("--" + option + ": '" + text + "' is not a size (bytes, or a number with K, M or G)");
  };
  if (text.empty() || text[0] < '0' || text[0] > '9') throw bad();
  try {
    value = std::stoull(text, &used);
  } catch (const std::exception&) {
    throw bad();
  }
  std::string unit = text.substr(used);
  if (unit.size() == 3 && unit.substr(1) == "iB") unit.resize(1);
  int shift = 0;
  if (unit == "K") shift = 10;
  else if (unit == "M") shift = 20;
  else if (unit == "G") shift = 30;
  else if (!unit.empty()) throw bad();
  if (value > (kMaxMaxBytes >> shift)) {
    throw InputError("--" + option + " must be at most " + FormatCacheSize(kMaxMaxBytes) + ", got " + text);
  }
  return static_cast<std::size_t>(value) << shift;
}

}  // namespace

int MachineCommand(const Args& args) {
  std::string out_path, max_bytes_text, huge_text;
  int repeats = 0;
  bool quick = false, force = false;
  po::options_description options(
      "amqbench machine: this host's memory, measured - dependent-load latency from 4 KiB to\n"
      "--max-bytes (one step per cache level, then DRAM), the rate of independent random\n"
      "cache-line reads (the ceiling of a filter lookup that touches one random line) and\n"
      "sequential read bandwidth. Prints a table; --out also writes a result file.\nOptions");
  options.add_options()
      ("help,h", "this text")
      ("out", po::value(&out_path), "output JSON Lines file: the header and context, one line per point")
      ("max-bytes", po::value(&max_bytes_text),
       "largest working set, bytes or with K, M, G (default 1G; --quick 64M; at least 4M)")
      ("repeats", po::value(&repeats), "timed repeats per point; the median is reported with min and max (default 5; --quick 3)")
      ("huge-pages", po::value(&huge_text)->default_value("auto"),
       "auto (transparent huge pages where the kernel offers them), on (insist), off (4 KiB pages: "
       "large sizes then include TLB misses)")
      ("quick", po::bool_switch(&quick), "64 MiB and short runs (a few seconds): for tests and a quick look")
      ("force", po::bool_switch(&force), "replace --out even if it holds a finished run");
  const po::variables_map vm = ParseOptions("machine", args, options);
  if (vm.count("help")) {
    std::cout << options << "\nFields of the output: amqbench legend\n";
    return 0;
  }
  MachineRunOptions run = quick ? QuickMachineOptions() : MachineRunOptions{};
  if (vm.count("max-bytes")) run.max_bytes = ParseBytes("max-bytes", max_bytes_text);
  if (run.max_bytes < kMachineMinBytes) {
    throw InputError("--max-bytes must be at least 4M (" + std::to_string(kMachineMinBytes) + " bytes), got " + max_bytes_text);
  }
  if (vm.count("repeats")) {
    if (repeats < 1 || repeats > 1000) throw InputError("--repeats must be in 1 .. 1000, got " + std::to_string(repeats));
    run.timing.repeats = repeats;
  }
  run.huge_pages = ParseHugePages(huge_text);
  if (vm.count("out")) {
    CheckWritable(out_path);
    CheckReplaceable(out_path, force);
  }
  if (const auto available = AvailableMemoryBytes();
      available && MachineMemoryNeeded(run.max_bytes) > available->bytes) {
    throw InputError("--max-bytes " + FormatCacheSize(run.max_bytes) + " needs " +
                     FormatCacheSize(MachineMemoryNeeded(run.max_bytes)) + " and " + available->source +
                     " is " + FormatCacheSize(available->bytes) + "; give a smaller --max-bytes");
  }

  InstallInterruptHandlers();
  const auto started = std::chrono::steady_clock::now();
  std::unique_ptr<MachineBuffer> buffer;
  {
    // Mapping and pre-faulting a GiB takes a moment; a signal now ends the run at once.
    const AbandonableWork preparing("amqbench: interrupted while preparing the buffer; nothing was measured");
    buffer = std::make_unique<MachineBuffer>(run.max_bytes, run.huge_pages);
  }
  const std::string thp = TransparentHugePageMode();
  std::fprintf(stderr, "amqbench machine: %s buffer, pre-faulted; huge pages %s (asked: %s; kernel THP: %s): "
               "%.0f%% of the buffer\n", FormatCacheSize(buffer->size()).c_str(),
               buffer->huge_pages() ? "used" : "not used", HugePagesName(run.huge_pages),
               thp.empty() ? "absent" : thp.c_str(), 100 * buffer->huge_page_fraction());
  if (run.huge_pages == HugePages::kOn && !buffer->huge_pages()) {
    std::fprintf(stderr, "amqbench machine: warning: huge pages were asked for, but the kernel backed "
                 "only %.0f%% of the buffer with them; the records say so\n", 100 * buffer->huge_page_fraction());
  }

  const std::vector<MachinePoint> points = PlanMachine(run);
  std::optional<ResultWriter> writer;
  if (vm.count("out")) {
    Json cells = Json::array();
    for (const MachinePoint& p : points) cells.push_back(p.cell_id);
    const Json header = {{"record", "header"},
                         {"schema_version", kResultSchemaVersion},
                         {"experiment", {{"id", run.experiment}, {"kind", "machine"}}},
                         {"suite", nullptr},
                         {"context", RunContext(CommandLine("machine", args), run.timing.seed)},
                         {"cells", cells}};
    writer.emplace(ResultWriter::Create(out_path, header));
  }
  std::vector<Json> records;
  std::vector<LatencyPoint> curve;
  for (std::size_t i = 0; i < points.size() && !Interrupted(); ++i) {
    Json line;
    {
      const AbandonableWork measuring("amqbench: interrupted; " + std::to_string(records.size()) + " of " +
                                      std::to_string(points.size()) + " points were kept" +
                                      (writer ? " in " + out_path : std::string()));
      line = MeasureMachinePoint(run, *buffer, points[i], curve);
    }
    if (writer) writer->AppendCell({line});
    records.push_back(line);
    std::fprintf(stderr, "[%zu/%zu %s] %s\n", i + 1, points.size(), FormatSeconds(SecondsSince(started)).c_str(),
                 DescribeMachineRecord(line).c_str());
  }
  if (records.size() < points.size()) {
    std::fprintf(stderr, "amqbench: interrupted; %zu of %zu points kept%s\n", records.size(), points.size(),
                 writer ? (" in " + out_path).c_str() : "");
    return InterruptExitStatus();
  }
  if (writer) writer->Finish(records.size());
  std::cout << MachineTable(records);
  std::fprintf(stderr, "amqbench machine: %zu points in %s%s\n", records.size(),
               FormatSeconds(SecondsSince(started)).c_str(), writer ? (", written to " + out_path).c_str() : "");
  return 0;
}

}  // namespace amq
