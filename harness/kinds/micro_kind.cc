// harness/kinds/micro_kind.cc - the micro kind (see the header).
#include "harness/kinds/micro_kind.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.h"
#include "harness/run/cell_id.h"
#include "harness/cell/memory_estimate.h"
#include "harness/cell/micro_size.h"
#include "harness/cell/registry.h"
#include "harness/run/child_process.h"
#include "harness/run/runner.h"

namespace amq {
namespace {

// A Google Benchmark JSON file with at least one benchmark in it (gbench exits 0 even when its
// filter matched nothing).
bool HoldsBenchmarks(const std::string& path) {
  std::ifstream in(path);
  if (!in) return false;
  try {
    const Json doc = Json::parse(in);
    return doc.contains("benchmarks") && !doc["benchmarks"].empty();
  } catch (const Json::exception&) {
    return false;
  }
}

class MicroPlan : public ExperimentPlan {
 public:
  explicit MicroPlan(const MicroParams& p) : p_(p) {
    CellPlan cell;
    cell.identity = {{"kind", "micro"},
                     {"filter", MicroBenchmarkFilter(p_)},
                     {"build", p_.build},
                     {"repetitions", p_.repetitions},
                     {"min_time", p_.min_time}};
    if (!p_.keys.empty()) cell.identity["keys"] = p_.keys;
    cell.cell_id = CellId(cell.identity);
    // Cost units are key operations, about 10^7 a second here: each benchmark repetition runs
    // for about 0.6 s (Google Benchmark's 0.5 s minimum and its setup) plus what its n keys
    // cost once the minimum is passed (an untimed build, then one timed pass or more): 1.5
    // units a key fits micro_n (7 filters x 6 operations x 9 n from 2^10 to 2^26 x 3
    // repetitions in 2,148 s). A filter has four to six benchmarks per n, a family prefix
    // about twenty.
    const double min_time = p_.min_time > 0 ? p_.min_time : 0.5;
    double per_benchmark = 0;
    for (std::size_t n : KeyCounts()) per_benchmark += 1e7 * (min_time + 0.1) + 1.5 * double(n);
    // Per filter: build or insert warm and cold, erase (filters that erase), two queries
    // inlined and two out of line, and (batched filters) two batched.
    const double per_filter = p_.operations.empty() ? 8.0 : double(p_.operations.size());
    const double benchmarks = per_filter * double(p_.filters.size()) + 20.0 * double(p_.benchmarks.size());
    cell.cost = per_benchmark * benchmarks * p_.repetitions;
    cell.label = "amqbench_micro (" + p_.build + ")";
    cells_.push_back(cell);
  }

  const std::vector<CellPlan>& cells() const override { return cells_; }
  std::vector<Json> Run(std::size_t) override { return {}; }
  std::string Describe(const Json&) const override { return ""; }
  bool RunsItself() const override { return true; }

  // At the largest n: the key buffers (members and non-members; the family benchmarks have
  // their own), and twice the largest build among the filters, measured scaled down as the
  // filters kind measures its cells - the query benchmarks hold one filter while a family
  // benchmark may build another. Family benchmarks' filters beyond that are not estimated.
  std::optional<MemoryEstimate> EstimateMemory(std::size_t) override {
    const std::vector<std::size_t> counts = KeyCounts();
    const std::size_t n = *std::max_element(counts.begin(), counts.end());
    MemoryEstimate e;
    e.scale = EstimateScale(n);
    for (const std::string& name : p_.filters) {
      const FilterEntry* filter = FindFilter(name);
      if (!filter) continue;
      const auto bytes = ExtrapolatedBuildBytes(n, [&](std::uint64_t divisor) {
        const FilterParams scaled =
            MicroFilterParams(static_cast<std::size_t>((n + divisor - 1) / divisor), filter->micro);
        return MeasureBuildBytesOnce(filter->name, filter->measure_build_bytes, scaled,
                                     scaled.capacity);
      });
      if (!bytes) return std::nullopt;
      e.filter_bytes = std::max(e.filter_bytes, 2 * *bytes);
    }
    e.buffer_bytes = 2 * 8 * std::uint64_t{n} * (p_.benchmarks.empty() ? 1 : 2);
    return e;
  }

  std::string SkipReason() const override {
    if (access(p_.binary.c_str(), X_OK) != 0) {
      return p_.build + " micro-benchmark binary " + p_.binary + " is not here" +
             (p_.build == "native" ? " (run_all.sh builds it; or pass --micro-native PATH)" : "");
    }
    return "";
  }

  int RunWhole(const std::string& out_path, bool resume) override {
    if (resume && HoldsBenchmarks(out_path)) {
      std::fprintf(stderr, "  kept %s (already complete)\n", out_path.c_str());
      return 0;
    }
    const std::string temp = out_path + ".tmp." + std::to_string(getpid());
    std::vector<std::string> args = {p_.binary,
                                     "--benchmark_filter=" + MicroBenchmarkFilter(p_),
                                     "--benchmark_repetitions=" + std::to_string(p_.repetitions),
                                     "--benchmark_out=" + temp, "--benchmark_out_format=json"};
    if (!p_.keys.empty()) args.push_back("--keys=" + MicroKeysText(p_.keys));
    if (p_.min_time > 0) {
      std::ostringstream t;
      t << "--benchmark_min_time=" << p_.min_time;
      args.push_back(t.str());
    }
    // Google Benchmark's console table goes to stderr with the rest of the progress.
    const ChildOutcome child = RunChild(args);
    const int status = child.status;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !HoldsBenchmarks(temp)) {
      std::remove(temp.c_str());
      if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM)) return 130;
      throw std::runtime_error(p_.binary + " failed or ran no benchmark (status " +
                               std::to_string(status) + ")");
    }
    if (std::rename(temp.c_str(), out_path.c_str()) != 0) {
      throw InputError("cannot rename " + temp + " to " + out_path);
    }
    return 0;
  }

 private:
  std::vector<std::size_t> KeyCounts() const {
    return p_.keys.empty() ? std::vector<std::size_t>{kMicroDefaultKeys} : p_.keys;
  }

  MicroParams p_;
  std::vector<CellPlan> cells_;
};

}  // namespace

namespace {
std::string Alternatives(const std::vector<std::string>& names) {
  std::string joined;
  for (const std::string& n : names) joined += (joined.empty() ? "" : "|") + n;
  return joined;
}
}  // namespace

std::string MicroOperationsText() {
  std::string text;
  for (std::string_view op : kMicroOperations) text += (text.empty() ? "" : ", ") + std::string(op);
  return text;
}

std::string MicroBenchmarkFilter(const MicroParams& p) {
  if (p.operations.empty()) {
    std::vector<std::string> names = p.filters;
    names.insert(names.end(), p.benchmarks.begin(), p.benchmarks.end());
    return "^(" + Alternatives(names) + ")/";
  }
  // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on "(" + temporary.
  std::string pattern = "^((";
  pattern += Alternatives(p.filters);
  pattern += ")/(";
  pattern += Alternatives(p.operations);
  pattern += ")/";
  if (!p.benchmarks.empty()) {
    pattern += "|(";
    pattern += Alternatives(p.benchmarks);
    pattern += ")/";
  }
  pattern += ")";
  return pattern;
}

std::unique_ptr<ExperimentPlan> MakeMicroPlan(const MicroParams& params) {
  return std::make_unique<MicroPlan>(params);
}

namespace {

const ParamSpec kMicroParams[] = {
    {"filters", ParamType::kFilters, {}, "the filters whose insert, build and query benchmarks run"},
    {"benchmarks", ParamType::kStrList, {}, "family benchmarks by name prefix (\"static\", \"quotient\")"},
    {"operations", ParamType::kStrList, {}, "of the filters' benchmarks (default every one)"},
    {"keys", ParamType::kIntList, Between(1000, 1e9), "n of every size-taking benchmark, one benchmark per n (default 10^6)"},
    {"build", ParamType::kStr, {}, "portable, or native (the -march=native build's binary; skipped where it is missing)"},
    {"repetitions", ParamType::kInt, Between(1, 100), "Google Benchmark's repetitions (default 5)"},
    {"min_time", ParamType::kNum, Between(0.001, 100), "Google Benchmark's minimum seconds per benchmark (default its own)"},
};

std::unique_ptr<ExperimentPlan> MicroPlanFrom(const PlanInput& in) {
  const Json& p = in.params;
  MicroParams m;
  for (const FilterEntry* f : in.filters) m.filters.emplace_back(f->name);
  if (in.Has("benchmarks")) m.benchmarks = p["benchmarks"].get<std::vector<std::string>>();
  if (in.Has("operations")) {
    m.operations = p["operations"].get<std::vector<std::string>>();
    for (const std::string& op : m.operations) {
      if (std::find(std::begin(kMicroOperations), std::end(kMicroOperations), op) == std::end(kMicroOperations)) {
        throw InputError(in.Name("operations") + ": unknown operation '" + op + "' (" + MicroOperationsText() + ")");
      }
    }
  }
  const std::string build = in.Get<std::string>("build", "portable");
  if (build != "portable" && build != "native") throw InputError(in.Name("build") + " must be portable or native");
  m.build = build;
  m.binary = build == "native" ? in.micro_native : in.micro_portable;
  if (in.Has("keys")) {
    m.keys = p["keys"].get<std::vector<std::size_t>>();
    std::vector<std::size_t> sorted = m.keys;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      throw InputError(in.Name("keys") + ": each n once (one benchmark per filter, operation and n)");
    }
  }
  m.repetitions = in.Get("repetitions", 5);
  m.min_time = in.Get("min_time", 0.0);
  return MakeMicroPlan(m);
}

}  // namespace

const KindSpec kMicroKind{
    "micro", "the Google Benchmark micro-benchmarks (amqbench_micro) of the selected filters, as one cell",
    {std::begin(kMicroParams), std::end(kMicroParams)}, true, true, &MicroPlanFrom};

}  // namespace amq
