// harness/kinds/instructions_kind.cc - the instructions kind (see the header).
#include "harness/kinds/instructions_kind.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/errors.h"
#include "harness/run/cell_id.h"
#include "harness/run/child_process.h"

namespace amq {

double CallgrindDump::Event(const std::string& name) const {
  for (const auto& [event, value] : events) {
    if (event == name) return value;
  }
  return 0;
}

CallgrindDump ParseCallgrindDump(const std::string& text) {
  CallgrindDump dump;
  std::vector<std::string> names;
  std::vector<double> totals;
  bool has_totals = false;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto words_after = [&](std::string_view prefix) {
      std::vector<std::string> words;
      std::istringstream in(line.substr(prefix.size()));
      for (std::string w; in >> w;) words.push_back(w);
      return words;
    };
    if (line.rfind("desc: Trigger: Client Request: ", 0) == 0) {
      dump.trigger = line.substr(std::string_view("desc: Trigger: Client Request: ").size());
    } else if (line.rfind("events:", 0) == 0) {
      names = words_after("events:");
    } else if (line.rfind("totals:", 0) == 0) {
      // totals, not summary: with --instr-atstart=no callgrind's summary line stays 0.
      has_totals = true;
      for (const std::string& w : words_after("totals:")) totals.push_back(std::stod(w));
    }
  }
  if (names.empty() || !has_totals || totals.size() > names.size()) {
    throw std::runtime_error("a callgrind dump without an events and a totals line");
  }
  // Callgrind leaves trailing zero counts off the line.
  for (std::size_t i = 0; i < names.size(); ++i) dump.events.emplace_back(names[i], i < totals.size() ? totals[i] : 0.0);
  return dump;
}

namespace {

// The first executable `valgrind` on PATH (AMQ_VALGRIND overrides: the tests point it at a
// missing one), or "".
std::string FindValgrind() {
  if (const char* forced = std::getenv("AMQ_VALGRIND"); forced && *forced) {
    return access(forced, X_OK) == 0 ? forced : "";
  }
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/valgrind";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

std::string SelfExecutable() {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? "" : path.string();
}

std::string ReadWhole(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// "valgrind-3.19.0", from `valgrind --version`.
std::string ValgrindVersion(const std::string& valgrind, const std::filesystem::path& dir) {
  const std::string out = (dir / "version.txt").string();
  const ChildOutcome child = RunChild({valgrind, "--version"}, out);
  std::string version = child.Succeeded() ? ReadWhole(out) : "";
  while (!version.empty() && (version.back() == '\n' || version.back() == ' ')) version.pop_back();
  return version;
}

class InstructionsPlan : public ExperimentPlan {
 public:
  explicit InstructionsPlan(const InstructionsParams& p) : p_(p) {
    for (const FilterEntry* f : p_.filters) {
      CellPlan c;
      c.identity = {{"kind", "instructions"}, {"filter", std::string(f->name)}, {"keys", p_.keys},
                    {"queries", p_.queries}, {"cache_model", kCacheModel}};
      c.cell_id = CellId(c.identity);
      c.seed = p_.seed;
      // In the suite's unit (key operations at ~10^7 a second): valgrind's start and the key
      // generation under it, about 1.5 s a cell here, and the kernels at about 100x their native
      // cost under callgrind's cache simulator.
      c.cost = 1.5e7 + 100.0 * double(p_.keys + 2 * p_.queries);
      c.label = std::string(f->name) + " n=" + std::to_string(p_.keys);
      plans_.push_back(std::move(c));
    }
  }

  const std::vector<CellPlan>& cells() const override { return plans_; }

  std::string SkipReason() const override {
    if (FindValgrind().empty()) return "valgrind is not installed (Debian's valgrind package)";
    if (kBuiltWithAddressSanitizer) return "this amqbench is built with AddressSanitizer, which valgrind cannot run";
    if (!p_.binary.empty() && access(p_.binary.c_str(), X_OK) != 0) return "binary " + p_.binary + " is not here";
    if (!UnderValgrindSupported()) return "this amqbench was built without valgrind's headers (valgrind/callgrind.h)";
    return "";
  }

  std::vector<Json> Run(std::size_t i) override {
    const FilterEntry& filter = *p_.filters[i];
    const std::string valgrind = FindValgrind(), self = p_.binary.empty() ? SelfExecutable() : p_.binary;
    if (valgrind.empty() || self.empty()) throw std::runtime_error("valgrind or /proc/self/exe not found");
    // The counted process sees the same stack wherever this checkout lives: /tmp, not $TMPDIR,
    // a symlink of a fixed-length path as its argv[0], and a fixed environment. Its stack's
    // contents (argv, environment, auxiliary vector) decide where its stack frames fall in the
    // simulated caches: with the binary at another path or another environment the instruction
    // counts stayed the same and the D1 misses moved by up to 2% (cuckoo_2x4, vqf8).
    std::string dir_template = "/tmp/amqbench-callgrind-XXXXXX";
    if (!mkdtemp(dir_template.data())) throw std::runtime_error("cannot make a temporary directory");
    const std::filesystem::path dir = dir_template;
    struct Cleanup {
      std::filesystem::path dir;
      ~Cleanup() {
        std::error_code ignored;
        std::filesystem::remove_all(dir, ignored);
      }
    } cleanup{dir};
    std::vector<std::string> args = {valgrind, "--tool=callgrind", "--instr-atstart=no", "--cache-sim=yes",
                                     "--dump-line=no", "--log-file=" + (dir / "valgrind.log").string(),
                                     "--callgrind-out-file=" + (dir / "callgrind.%p").string()};
    std::istringstream model(kCacheModel);
    for (std::string word; model >> word;) args.push_back(word);
    const std::filesystem::path counted = dir / "amqbench";
    std::filesystem::create_symlink(self, counted);
    args.insert(args.end(), {counted.string(), "count-instructions", std::string(filter.name), std::to_string(p_.keys),
                             std::to_string(p_.queries), std::to_string(p_.seed)});
    const std::string stdout_path = (dir / "kernels.json").string();
    const std::vector<std::string> environment = {"PATH=/usr/bin:/bin", "LC_ALL=C"};
    const ChildOutcome child = RunChild(args, stdout_path, &environment);
    if (child.interrupted) throw std::runtime_error("interrupted");
    if (!child.Succeeded()) {
      throw std::runtime_error("valgrind --tool=callgrind on amqbench count-instructions " + std::string(filter.name) +
                               " failed (status " + std::to_string(child.status) + "): " +
                               ReadWhole(dir / "valgrind.log"));
    }
    const Json kernels = Json::parse(ReadWhole(stdout_path));
    // One dump per kernel, named after its operation by the client request that wrote it.
    std::vector<CallgrindDump> dumps;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("callgrind.", 0) == 0) {
        CallgrindDump dump = ParseCallgrindDump(ReadWhole(entry.path()));
        if (!dump.trigger.empty()) dumps.push_back(std::move(dump));
      }
    }
    Json instructions = Json::object(), d1_misses = Json::object(), ll_misses = Json::object();
    for (const Json& k : kernels["kernels"]) {
      const std::string op = k["operation"].get<std::string>();
      const double count = k["operations"].get<double>();
      const auto it = std::find_if(dumps.begin(), dumps.end(), [&](const CallgrindDump& d) { return d.trigger == op; });
      if (it == dumps.end()) throw std::runtime_error("no callgrind dump for " + op);
      if (count <= 0) continue;
      instructions[op] = it->Event("Ir") / count;
      d1_misses[op] = (it->Event("D1mr") + it->Event("D1mw")) / count;
      ll_misses[op] = (it->Event("DLmr") + it->Event("DLmw")) / count;
    }
    Json cell;
    cell["filter"] = std::string(filter.name);
    cell["family"] = std::string(filter.family);
    cell["keys"] = p_.keys;
    cell["queries"] = p_.queries;
    cell["instructions_per_op"] = instructions;
    cell["d1_misses_per_op"] = d1_misses;
    cell["ll_misses_per_op"] = ll_misses;
    cell["cache_model"] = kCacheModel;
    cell["valgrind_version"] = ValgrindVersion(valgrind, dir);
    if (!p_.binary.empty()) cell["counted_binary"] = p_.binary;
    cell["false_negatives"] = kernels["false_negatives"];
    cell["insert_failures"] = kernels["refused_inserts"];
    return {cell};
  }

  std::string Describe(const Json& r) const override {
    std::string text;
    for (const auto& [op, value] : r["instructions_per_op"].items()) {
      char part[96];
      std::snprintf(part, sizeof part, "%s%s %.1f", text.empty() ? "" : ", ", op.c_str(), value.get<double>());
      text += part;
    }
    return text + " instructions/op";
  }

 private:
  static bool UnderValgrindSupported() {
#ifdef AMQ_HAVE_VALGRIND
    return true;
#else
    return false;
#endif
  }

  InstructionsParams p_;
  std::vector<CellPlan> plans_;
};

const ParamSpec kInstructionsParams[] = {
    {"filters", ParamType::kFilters, {}, "the filters whose kernels are counted"},
    {"keys", ParamType::kInt, Between(1000, 1e7), "members inserted (or built from), as amqbench_micro sizes the filter (default 20,000)"},
    {"queries", ParamType::kInt, Between(1000, 1e7), "member and non-member lookups counted (default 20,000; members: the first of the keys)"},
    {"seed", ParamType::kInt, AtLeast(0), "keys and hash seed (default: the suite's)"},
    {"binary", ParamType::kStr, {}, "another amqbench build whose kernels are counted, e.g. a base commit's (default: this one; its build context is not recorded)"},
};

std::unique_ptr<ExperimentPlan> InstructionsPlanFrom(const PlanInput& in) {
  InstructionsParams p;
  p.filters = in.filters;
  p.keys = in.Get<std::size_t>("keys", p.keys);
  p.queries = in.Get<std::size_t>("queries", p.queries);
  if (p.queries > p.keys) throw InputError(in.Name("queries") + " must be at most " + in.Name("keys") + " (member lookups ask for inserted keys)");
  p.seed = in.Get<std::uint64_t>("seed", 1);
  if (in.Has("binary")) {
    std::error_code error;
    p.binary = std::filesystem::absolute(in.Get<std::string>("binary", ""), error).string();
  }
  return MakeInstructionsPlan(p);
}

}  // namespace

std::unique_ptr<ExperimentPlan> MakeInstructionsPlan(const InstructionsParams& params) {
  return std::make_unique<InstructionsPlan>(params);
}

const KindSpec kInstructionsKind{
    "instructions", "instructions and simulated cache misses per insert, build and lookup, counted by callgrind",
    {std::begin(kInstructionsParams), std::end(kInstructionsParams)}, true, false, &InstructionsPlanFrom,
    {
        {"instructions_per_op", "object", "instructions", "per operation (build and insert: per key), by micro-benchmark operation: callgrind's Ir over the kernel run once, instrumented alone", "instructions", kBuild},
        {"d1_misses_per_op", "object", "misses", "simulated first-level data cache misses (reads and writes) per operation, by operation, in the cache_model geometry; compare shows them, does not judge them (they move with the binary's memory layout)", "instructions", kBuild},
        {"ll_misses_per_op", "object", "misses", "simulated last-level data cache misses (reads and writes) per operation, by operation; shown, not judged, as d1_misses_per_op", "instructions", kBuild},
        {"cache_model", "string", "", "callgrind's simulated caches (--I1, --D1, --LL: bytes, ways, line bytes), fixed so counts do not depend on the host", "instructions", kIdentity},
        {"counted_binary", "string", "", "the other amqbench build whose kernels were counted (the binary parameter); absent when the run's own", "instructions", kSetting},
        {"valgrind_version", "string", "", "the valgrind that counted (`valgrind --version`): part of the build the counts depend on, so compared as its identity, not as a count", "instructions", kBuild},
    }};

}  // namespace amq
