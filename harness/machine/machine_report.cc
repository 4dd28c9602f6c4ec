// harness/machine/machine_report.cc - machine measurements as records, summary and table (see the
// header).
#include "harness/machine/machine_report.h"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <utility>

#include "harness/machine/thread_team.h"
#include "harness/run/cell_id.h"

namespace amq {
namespace {

std::string Format(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string Padded(const std::string& text, std::size_t width) {
  return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
}

const Json* FindRecord(const std::vector<Json>& records, const std::string& test) {
  for (const Json& r : records) {
    if (r.value("test", "") == test) return &r;
  }
  return nullptr;
}

// The record of `test` at the largest working set measured.
const Json* Largest(const std::vector<Json>& records, const std::string& test) {
  const Json* best = nullptr;
  for (const Json& r : records) {
    if (r.value("test", "") != test) continue;
    if (!best || r.value("working_set_bytes", 0ull) > best->value("working_set_bytes", 0ull)) best = &r;
  }
  return best;
}

Json ReportedJson(const ReportedCache& c) {
  return {{"level", c.level}, {"type", c.type}, {"bytes", c.bytes}, {"source", c.source}};
}

std::string CacheName(const Json& c) {
  // Appended piece by piece: gcc 12 warns (-Wrestrict, falsely) on a chain of operator+ here.
  std::string name = "L";
  name += std::to_string(c.value("level", 0));
  if (c.value("type", "") == "Data") name += 'd';
  name += ' ';
  name += FormatCacheSize(c.value("bytes", 0ull));
  return name;
}

// Where a threaded point's threads ran (harness/machine/thread_team.h).
void PutPlacement(Json& line, const ThreadedSpread& s) {
  line["thread_cpus"] = s.cpus;
  line["thread_cpus_seen"] = s.cpus_seen;
  line["pinned"] = s.pinned;
  line["cpu_share"] = s.cpu_share;
}

// "CPUs 0, 1: 412 ns/handoff [380, 520]", or why there is no figure.
std::string HandoffText(const Json& r) {
  std::string cpus;
  for (const Json& cpu : r.value("handoff_cpus", Json::array())) {
    cpus += (cpus.empty() ? "" : ", ") + std::to_string(cpu.get<int>());
  }
  const std::string text = "CPUs " + cpus + ": ";
  if (!r.contains("ns_per_handoff") || r["ns_per_handoff"].is_null())
    return text + "not measured (pinning refused)";
  return text + Format("%.0f ns/handoff", r["ns_per_handoff"]) +
         Format(" [%.0f, ", r["ns_per_handoff_min"]) + Format("%.0f]", r["ns_per_handoff_max"]);
}

}  // namespace

std::vector<int> DefaultMachineThreads() {
  std::vector<int> counts;
  for (int t : DefaultThreadCounts(static_cast<int>(PlacementCpus().size()))) {
    if (t > 1) counts.push_back(t);
  }
  return counts;
}

MachineRunOptions QuickMachineOptions() {
  MachineRunOptions quick;
  quick.threads.clear();  // the context's summary: one thread, as before
  quick.default_pages_lines = false;  // and one buffer (QuickMachineSummary maps only that)
  quick.max_bytes = std::size_t{64} << 20;
  quick.timing.repeats = 3;
  quick.timing.min_seconds = 0.002;
  quick.timing.min_operations = 1u << 14;
  return quick;
}

std::vector<MachinePoint> PlanMachine(const MachineRunOptions& options) {
  std::vector<MachinePoint> points;
  const auto add = [&](const std::string& test, std::size_t bytes, std::vector<int> cpus = {}) {
    Json identity = {{"kind", "machine"}, {"test", test}};
    if (bytes) identity["working_set_bytes"] = bytes;
    points.push_back({test, bytes, identity, CellId(identity), 1, std::move(cpus)});
  };
  for (std::size_t bytes : LatencySizes(options.max_bytes)) add("latency", bytes);
  for (std::size_t bytes : ThroughputSizes(options.max_bytes)) add("random_lines", bytes);
  if (PlansDefaultPagesLines(options)) {
    for (std::size_t bytes : ThroughputSizes(options.max_bytes)) add("random_lines_default_pages", bytes);
  }
  for (std::size_t bytes : ThroughputSizes(options.max_bytes)) add("sequential", bytes);
  // The threaded points: their identity adds threads, so the single-thread points keep theirs.
  for (int threads : options.threads) {
    for (const char* test : {"random_lines_threads", "sequential_threads"}) {
      for (std::size_t bytes : ThroughputSizes(options.max_bytes)) {
        Json identity = {{"kind", "machine"}, {"test", test}, {"working_set_bytes", bytes}, {"threads", threads}};
        points.push_back({test, bytes, identity, CellId(identity), threads, {}});
      }
    }
  }
  // Two threads writing one line in turn: the price two inserting threads pay per shared word.
  // Only where the threaded points run (not the context's summary) and two CPUs are ours: on
  // one CPU the turns would be time slices, not cache traffic.
  if (const std::vector<int> placement = PlacementCpus();
      !options.threads.empty() && placement.size() >= 2) {
    add("line_handoff", 0, {placement[0], placement[1]});
  }
  add("cache_levels", 0);
  return points;
}

bool PlansDefaultPagesLines(const MachineRunOptions& options) {
  return options.default_pages_lines && options.huge_pages != HugePages::kDefault;
}

std::size_t MachineMemoryNeeded(std::size_t max_bytes, bool default_pages_buffer) {
  // The buffer in whole huge pages (twice with the default pages' one), and the 4-byte successor
  // of each of its lines.
  const std::size_t buffer = (max_bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  return buffer * (default_pages_buffer ? 2 : 1) + max_bytes / kCacheLineBytes * sizeof(std::uint32_t);
}

Json MeasureMachinePoint(const MachineRunOptions& options, const MachineBuffer& buffer,
                         const MachinePoint& point, std::vector<LatencyPoint>& curve) {
  Json line = {{"record", "machine"}, {"cell_id", point.cell_id}, {"experiment", options.experiment},
               {"kind", "machine"},   {"seed", options.timing.seed}, {"test", point.test}};
  if (point.test == "cache_levels") {
    const Json fields = CacheLevelsFields(curve, ReportedCaches(), options.max_bytes);
    for (const auto& [key, value] : fields.items()) line[key] = value;
    line["huge_pages"] = buffer.huge_pages();
    return line;
  }
  if (point.test == "line_handoff") {
    const ThreadedSpread s = MeasureLineHandoff(point.cpus.at(0), point.cpus.at(1), options.timing);
    line["handoff_cpus"] = point.cpus;
    // Unpinned, both threads may have shared a CPU: the time would be the scheduler's.
    line["ns_per_handoff"] = s.pinned ? Json(s.spread.median) : Json(nullptr);
    line["ns_per_handoff_min"] = s.pinned ? Json(s.spread.min) : Json(nullptr);
    line["ns_per_handoff_max"] = s.pinned ? Json(s.spread.max) : Json(nullptr);
    line["thread_cpus_seen"] = s.cpus_seen;
    line["pinned"] = s.pinned;
    line["cpu_share"] = s.cpu_share;
    line["repeats"] = options.timing.repeats;
    return line;
  }
  const std::size_t bytes = point.working_set_bytes;
  line["working_set_bytes"] = bytes;
  if (point.test == "latency") {
    const Spread s = MeasureLatency(buffer, bytes, options.timing);
    line["ns_per_load"] = s.median;
    line["ns_per_load_min"] = s.min;
    line["ns_per_load_max"] = s.max;
    curve.push_back({bytes, s.median});
  } else if (point.test == "random_lines" || point.test == "random_lines_default_pages") {
    // Both ways of keeping lines in flight; the record's rate is the faster one's.
    const Spread loads = MeasureRandomLines(buffer, bytes, options.timing, RandomLinesMethod::kLoads);
    const Spread prefetched = MeasureRandomLines(buffer, bytes, options.timing, RandomLinesMethod::kPrefetch);
    const bool prefetch_wins = prefetched.median > loads.median;
    const Spread& s = prefetch_wins ? prefetched : loads;
    line["lines_per_second"] = s.median;
    line["lines_per_second_min"] = s.min;
    line["lines_per_second_max"] = s.max;
    line["lines_method"] =
        RandomLinesMethodName(prefetch_wins ? RandomLinesMethod::kPrefetch : RandomLinesMethod::kLoads);
    line["loads_lines_per_second"] = loads.median;
    line["prefetch_lines_per_second"] = prefetched.median;
  } else if (point.test == "random_lines_threads") {
    const ThreadedSpread loads =
        MeasureRandomLinesThreads(buffer, bytes, options.timing, RandomLinesMethod::kLoads, point.threads);
    const ThreadedSpread prefetched =
        MeasureRandomLinesThreads(buffer, bytes, options.timing, RandomLinesMethod::kPrefetch, point.threads);
    const bool prefetch_wins = prefetched.spread.median > loads.spread.median;
    const ThreadedSpread& s = prefetch_wins ? prefetched : loads;
    line["threads"] = point.threads;
    line["lines_per_second"] = s.spread.median;
    line["lines_per_second_min"] = s.spread.min;
    line["lines_per_second_max"] = s.spread.max;
    line["lines_method"] =
        RandomLinesMethodName(prefetch_wins ? RandomLinesMethod::kPrefetch : RandomLinesMethod::kLoads);
    line["loads_lines_per_second"] = loads.spread.median;
    line["prefetch_lines_per_second"] = prefetched.spread.median;
    PutPlacement(line, s);
  } else if (point.test == "sequential_threads") {
    const ThreadedSpread s = MeasureSequentialThreads(buffer, bytes, options.timing, point.threads);
    line["threads"] = point.threads;
    line["bytes_per_second"] = s.spread.median;
    line["bytes_per_second_min"] = s.spread.min;
    line["bytes_per_second_max"] = s.spread.max;
    PutPlacement(line, s);
  } else {
    const Spread s = MeasureSequential(buffer, bytes, options.timing);
    line["bytes_per_second"] = s.median;
    line["bytes_per_second_min"] = s.min;
    line["bytes_per_second_max"] = s.max;
  }
  line["repeats"] = options.timing.repeats;
  line["huge_pages"] = buffer.huge_pages();
  line["huge_page_fraction"] = buffer.huge_page_fraction();
  return line;
}

std::string DescribeMachineRecord(const Json& r) {
  const std::string test = r.value("test", "");
  if (test == "cache_levels") return "cache levels: " + std::to_string(r.value("steps", 0)) + " steps";
  if (test == "line_handoff") return test + " " + HandoffText(r);
  std::string where = test + " " + FormatCacheSize(r.value("working_set_bytes", 0ull));
  if (r.contains("threads")) where += " T=" + std::to_string(r["threads"].get<int>());
  where += ": ";
  if (test == "latency") return where + Format("%.2f ns/load", r["ns_per_load"]);
  if (test == "random_lines" || test == "random_lines_default_pages" || test == "random_lines_threads") return where + Format("%.3g lines/s", r["lines_per_second"]);
  return where + Format("%.2f GB/s", r["bytes_per_second"].get<double>() / 1e9);
}

Json CacheLevelsFields(const std::vector<LatencyPoint>& curve, const std::vector<ReportedCache>& reported,
                       std::size_t largest_bytes) {
  const std::vector<CacheLevel> levels = DetectCacheLevels(curve);
  Json out_levels = Json::array();
  for (std::size_t k = 0; k < levels.size(); ++k) {
    Json level = {{"level", k + 1}, {"ns_per_load", levels[k].ns_per_load}, {"capacity_bytes", nullptr}, {"reported", nullptr}};
    if (levels[k].capacity_bytes) {
      const double capacity = static_cast<double>(*levels[k].capacity_bytes);
      level["capacity_bytes"] = *levels[k].capacity_bytes;
      // The reported cache nearest the capacity the curve shows, if within a factor of 2.
      double best = 1.0 + 1e-9;
      for (const ReportedCache& c : reported) {
        const double distance = std::fabs(std::log2(capacity / static_cast<double>(c.bytes)));
        if (c.bytes > 0 && distance <= best) {
          best = distance;
          level["reported"] = ReportedJson(c);
        }
      }
    }
    out_levels.push_back(level);
  }
  Json reported_json = Json::array();
  std::uint64_t largest_cache = 0;
  for (const ReportedCache& c : reported) {
    reported_json.push_back(ReportedJson(c));
    largest_cache = std::max(largest_cache, c.bytes);
  }
  // The last plateau is memory only if the sizes went well past every cache reported.
  out_levels.back()["memory"] = largest_cache > 0 && largest_bytes >= 2 * largest_cache;
  return {{"levels", out_levels},
          {"steps", static_cast<int>(levels.size()) - 1},
          {"reported_caches", reported_json}};
}

Json MachineSummary(const std::vector<Json>& records) {
  Json summary = Json::object();
  if (const Json* levels = FindRecord(records, "cache_levels")) {
    summary["levels"] = (*levels)["levels"];
    summary["huge_pages"] = (*levels)["huge_pages"];
  }
  if (const Json* r = Largest(records, "latency")) summary["max_bytes"] = (*r)["working_set_bytes"];
  if (const Json* r = Largest(records, "random_lines")) {
    summary["random_lines_per_second"] = (*r)["lines_per_second"];
    summary["random_lines_working_set_bytes"] = (*r)["working_set_bytes"];
  }
  if (const Json* r = Largest(records, "sequential")) {
    summary["sequential_bytes_per_second"] = (*r)["bytes_per_second"];
    summary["sequential_working_set_bytes"] = (*r)["working_set_bytes"];
  }
  return summary;
}

Json QuickMachineSummary() {
  const MachineRunOptions quick = QuickMachineOptions();
  const MachineBuffer buffer(quick.max_bytes, quick.huge_pages);
  std::vector<Json> records;
  std::vector<LatencyPoint> curve;
  for (const MachinePoint& point : PlanMachine(quick)) {
    records.push_back(MeasureMachinePoint(quick, buffer, point, curve));
  }
  Json summary = MachineSummary(records);
  summary["quick"] = true;
  return summary;
}

std::string MachineTable(const std::vector<Json>& records) {
  std::ostringstream out;
  const Json* levels = FindRecord(records, "cache_levels");
  bool huge = false;
  for (const Json& r : records) huge = huge || r.value("huge_pages", false);
  out << "dependent-load latency (pointer chase over a random cycle; " << (huge ? "2 MiB huge pages" : "4 KiB pages: "
      "large sizes include page walks") << ")\n  " << Padded("working set", 14) << Padded("ns/load", 10) << "[min, max]\n";
  for (const Json& r : records) {
    if (r.value("test", "") != "latency") continue;
    out << "  " << Padded(FormatCacheSize(r["working_set_bytes"]), 14) << Padded(Format("%.2f", r["ns_per_load"]), 10)
        << "[" << Format("%.2f", r["ns_per_load_min"]) << ", " << Format("%.2f", r["ns_per_load_max"]) << "]\n";
  }
  if (levels) {
    out << "levels read off the curve (a step: latency x1.5 over a doubling)\n  " << Padded("level", 7)
        << Padded("capacity", 12) << Padded("ns/load", 10) << "reported cache\n";
    for (const Json& l : (*levels)["levels"]) {
      std::string capacity = l["capacity_bytes"].is_null() ? "-" : FormatCacheSize(l["capacity_bytes"]);
      std::string reported = !l["reported"].is_null() ? CacheName(l["reported"])
                             : l["capacity_bytes"].is_null()
                                 ? (l.value("memory", false) ? "memory (past every cache reported)"
                                                             : "largest level reached (not past every cache reported)")
                                 : "none within 2x";
      out << "  " << Padded(std::to_string(l["level"].get<int>()), 7) << Padded(capacity, 12)
          << Padded(Format("%.2f", l["ns_per_load"]), 10) << reported << "\n";
    }
    out << "  reported:";
    for (const Json& c : (*levels)["reported_caches"]) out << " " << CacheName(c) << " (" << c.value("source", "") << ");";
    out << "\n";
  }
  // The random-line table, once per buffer: the measurement's own, and the default pages' one.
  const auto random_lines_table = [&](const std::string& test, const std::string& title) {
    const Json* first = FindRecord(records, test);
    if (!first) return;
    out << title << (first->value("huge_pages", false) ? " (huge pages)" : " (4 KiB pages)") << "\n  "
        << Padded("working set", 14) << Padded("lines/s", 12) << Padded("ns/line", 10) << Padded("faster", 10)
        << Padded("[min, max lines/s]", 24) << "loads alone, prefetched\n";
    for (const Json& r : records) {
      if (r.value("test", "") != test) continue;
      const double rate = r["lines_per_second"];
      out << "  " << Padded(FormatCacheSize(r["working_set_bytes"]), 14) << Padded(Format("%.3g", rate), 12)
          << Padded(Format("%.2f", 1e9 / rate), 10) << Padded(r.value("lines_method", "-"), 10)
          << Padded(Format("[%.3g, ", r["lines_per_second_min"]).append(Format("%.3g]", r["lines_per_second_max"])), 24);
      if (r.contains("loads_lines_per_second")) {
        out << Format("%.3g", r["loads_lines_per_second"]) << ", " << Format("%.3g", r["prefetch_lines_per_second"]);
      }
      out << "\n";
    }
  };
  random_lines_table("random_lines",
                     "random cache lines, 16 independent streams: the faster of loads alone and loads prefetched 64 lines ahead");
  random_lines_table("random_lines_default_pages",
                     "the same on the kernel's default pages (no madvise), as a filter's table gets them: the filters' ceiling");
  out << "sequential reads\n  " << Padded("working set", 14) << Padded("GB/s", 10) << "[min, max]\n";
  for (const Json& r : records) {
    if (r.value("test", "") != "sequential") continue;
    out << "  " << Padded(FormatCacheSize(r["working_set_bytes"]), 14)
        << Padded(Format("%.2f", r["bytes_per_second"].get<double>() / 1e9), 10) << "["
        << Format("%.2f", r["bytes_per_second_min"].get<double>() / 1e9) << ", "
        << Format("%.2f", r["bytes_per_second_max"].get<double>() / 1e9) << "]\n";
  }
  bool threaded = false;
  for (const Json& r : records) threaded = threaded || r.value("test", "") == "random_lines_threads";
  if (threaded) {
    out << "on T threads at once (pinned; rate over the wall time of all of them): random lines, sequential reads\n  "
        << Padded("working set", 14) << Padded("T", 5) << Padded("lines/s", 12) << Padded("faster", 10)
        << Padded("GB/s", 10) << "CPUs\n";
    for (const Json& r : records) {
      if (r.value("test", "") != "random_lines_threads") continue;
      const Json* sequential = nullptr;
      for (const Json& q : records) {
        if (q.value("test", "") == "sequential_threads" && q["working_set_bytes"] == r["working_set_bytes"] &&
            q["threads"] == r["threads"]) {
          sequential = &q;
        }
      }
      out << "  " << Padded(FormatCacheSize(r["working_set_bytes"]), 14) << Padded(std::to_string(r["threads"].get<int>()), 5)
          << Padded(Format("%.3g", r["lines_per_second"]), 12) << Padded(r.value("lines_method", "-"), 10)
          << Padded(sequential ? Format("%.2f", (*sequential)["bytes_per_second"].get<double>() / 1e9) : "-", 10)
          << r["thread_cpus"].dump() << "\n";
    }
  }
  if (const Json* r = FindRecord(records, "line_handoff")) {
    out << "a cache line handed between two CPUs (one-way, median [min, max]; wall time): "
        << HandoffText(*r) << "\n";
  }
  return out.str();
}

}  // namespace amq
