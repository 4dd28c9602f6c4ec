// commands/ab_command.cc - `amqbench ab BINARY_A BINARY_B`: two builds' Google Benchmark
// binaries (two commits' amqbench_micro) timed in alternating rounds of one job, each round's
// A and B paired, and judged pair by pair (issue 27: timings of two separate runs cannot be).
//
// This command runs the binaries; plots/ab.py, run by Debian's /usr/bin/python3 as
// `amqbench compare` runs plots/compare.py, is the one place of the statistics (its header has
// every rule). The steps: each binary lists its benchmarks under --filter (a filter that
// selects nothing, or a binary that does not take the arguments, is bad input before the first
// round); ab.py check refuses settings that cannot give a verdict for that many benchmarks;
// then R rounds, A then B in odd
// rounds and B then A in even ones, each run one repetition of every selected benchmark with
// the same arguments, its JSON kept in a scratch directory; then ab.py judge reads them and
// prints the table. Exit status: 0 nothing slower, 1 a benchmark slower, 2 bad input (one line
// on stderr), 128 + the signal when interrupted. AMQ_PYTHON overrides the interpreter.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "commands/commands.h"
#include "commands/option_lists.h"
#include "core/errors.h"
#include "harness/run/child_process.h"
#include "harness/run/runner.h"

namespace amq {
namespace {

namespace fs = std::filesystem;
namespace po = boost::program_options;

struct AbSettings {
  std::string binary_a, binary_b;
  int rounds = 10;
  std::string filter;
  std::string keys;
  double min_time = 0.1;
  double min_effect = 0.05;
  double alpha = 0.05;
  std::string out;
};

// A scratch directory for the rounds' JSON, removed on every way out.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string pattern = (fs::temp_directory_path() / "amqbench_ab.XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw InputError("ab: cannot create a scratch directory in " + fs::temp_directory_path().string() +
                       ": " + std::strerror(errno));
    }
    path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string Exact(double value) {
  std::ostringstream text;
  text.precision(17);
  text << value;
  return text.str();
}

std::string StatusText(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("killed by ") + strsignal(WTERMSIG(status));
  return "status " + std::to_string(status);
}

void CheckBinary(const std::string& side, const std::string& path) {
  std::error_code error;
  if (!fs::is_regular_file(path, error)) {
    throw InputError("ab: " + side + " " + path + " is not a file");
  }
  if (access(path.c_str(), X_OK) != 0) {
    throw InputError("ab: " + side + " " + path + " is not executable: " + std::strerror(errno));
  }
}

// Runs plots/ab.py with the settings and `extra`; its stdout goes to `stdout_path`.
int RunJudgeScript(const AbSettings& s, const std::string& step, const std::vector<std::string>& extra,
                   const std::string& stdout_path) {
  const char* override_python = std::getenv("AMQ_PYTHON");
  const std::string python = override_python && *override_python ? override_python : "/usr/bin/python3";
  const std::string script = std::string(AMQ_SOURCE_DIR) + "/plots/ab.py";
  if (access(python.c_str(), X_OK) != 0) {
    throw InputError("ab needs " + python + " (Debian's python3 with python3-scipy): " + std::strerror(errno));
  }
  if (access(script.c_str(), R_OK) != 0) {
    throw InputError("ab needs " + script + " (the source tree this binary was built from): " +
                     std::strerror(errno));
  }
  std::vector<std::string> words = {python, script, step, "--a", s.binary_a, "--b", s.binary_b,
                                    "--rounds", std::to_string(s.rounds), "--alpha", Exact(s.alpha),
                                    "--min-effect", Exact(s.min_effect)};
  if (!s.out.empty()) words.insert(words.end(), {"--out", s.out});
  words.insert(words.end(), extra.begin(), extra.end());
  const ChildOutcome child = RunChild(words, stdout_path);
  if (child.interrupted) return InterruptExitStatus();
  if (!WIFEXITED(child.status)) throw std::runtime_error("plots/ab.py: " + StatusText(child.status));
  return WEXITSTATUS(child.status);
}

// The arguments every run of either binary gets, after the binary's path.
std::vector<std::string> BenchmarkArguments(const AbSettings& s) {
  std::vector<std::string> args;
  if (!s.keys.empty()) args.push_back("--keys=" + s.keys);  // amqbench_micro's own flag, first
  if (!s.filter.empty()) args.push_back("--benchmark_filter=" + s.filter);
  return args;
}

// How many benchmarks the binary lists under --filter: refuses a binary that fails with these
// arguments or lists nothing.
std::size_t CountSelectedBenchmarks(const AbSettings& s, const std::string& side, const std::string& binary,
                                    const fs::path& scratch) {
  std::vector<std::string> args = {binary};
  const std::vector<std::string> common = BenchmarkArguments(s);
  args.insert(args.end(), common.begin(), common.end());
  args.push_back("--benchmark_list_tests=true");
  const fs::path listing = scratch / ("list_" + side + ".txt");
  const ChildOutcome child = RunChild(args, listing.string());
  if (child.interrupted) return 0;
  if (!child.Succeeded()) {
    throw InputError("ab: " + side + " " + binary + " failed listing its benchmarks with these arguments (" +
                     StatusText(child.status) + ")");
  }
  std::ifstream in(listing);
  std::size_t count = 0;
  for (std::string line; std::getline(in, line);) count += !line.empty();
  if (count > 0) return count;
  throw InputError("ab: " + side + " " + binary + " has no benchmark that --filter '" + s.filter + "' selects");
}

AbSettings ParseAbOptions(const Args& args, bool& help) {
  AbSettings s;
  po::options_description options(
      "amqbench ab BINARY_A BINARY_B: two Google Benchmark binaries (two commits' amqbench_micro)\n"
      "timed in alternating rounds of one job (A then B, then B then A, ...), each round's pair\n"
      "compared: a benchmark is slower (exit 1) when the Wilcoxon signed-rank test of the rounds'\n"
      "log(B/A), Holm-adjusted for the job's benchmarks, gives p < --alpha and their median\n"
      "ratio is beyond --min-effect; faster likewise\n"
      "(reported, not failed). plots/ab.py's header has every rule.\nOptions");
  options.add_options()
      ("help,h", "this text")
      ("rounds", po::value(&s.rounds)->default_value(10), "rounds, each one run of A and one of B (at least 5)")
      ("filter", po::value(&s.filter), "--benchmark_filter of both binaries (a regular expression)")
      ("keys", po::value(&s.keys), "--keys of both binaries (amqbench_micro's n list; default: theirs)")
      ("min-time", po::value(&s.min_time)->default_value(0.1), "--benchmark_min_time of every run, in seconds")
      ("min-effect", po::value(&s.min_effect)->default_value(0.05), "median ratio beyond 1 + this to count (0.05: 5%)")
      ("alpha", po::value(&s.alpha)->default_value(0.05), "the paired test's p must be below this")
      ("out", po::value(&s.out), "also write every round's pair as JSON Lines to this file");
  po::options_description hidden;
  hidden.add_options()("binaries", po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("binaries", -1);
  const po::variables_map vm = ParseOptions("ab", args, all, positional);
  help = vm.count("help") > 0;
  if (help) {
    std::cout << options << "\nExample: amqbench ab base/amqbench_micro head/amqbench_micro"
                            " --filter '^(xor8|bloom)/query' --keys 1000000\n";
    return s;
  }
  const auto binaries = vm.count("binaries") ? vm["binaries"].as<std::vector<std::string>>()
                                             : std::vector<std::string>{};
  if (binaries.size() != 2) throw InputError("ab: give BINARY_A and BINARY_B (amqbench ab --help)");
  s.binary_a = binaries[0];
  s.binary_b = binaries[1];
  if (!(s.min_time > 0)) throw InputError("ab: --min-time must be above 0 seconds");
  return s;
}

}  // namespace

int AbCommand(const Args& args) {
  InstallInterruptHandlers();
  bool help = false;
  const AbSettings s = ParseAbOptions(args, help);
  if (help) return 0;
  CheckBinary("BINARY_A", s.binary_a);
  CheckBinary("BINARY_B", s.binary_b);
  const ScratchDirectory scratch;
  // The settings are checked for the number of benchmarks the job will judge (Holm's K).
  const std::size_t benchmarks = std::max(CountSelectedBenchmarks(s, "BINARY_A", s.binary_a, scratch.path()),
                                          CountSelectedBenchmarks(s, "BINARY_B", s.binary_b, scratch.path()));
  if (Interrupted()) return InterruptExitStatus();
  if (const int status = RunJudgeScript(s, "check", {"--benchmarks", std::to_string(benchmarks)}, "/dev/null");
      status != 0) {
    return status;
  }

  std::vector<std::string> common = BenchmarkArguments(s);
  common.insert(common.end(), {"--benchmark_repetitions=1", "--benchmark_format=json",
                               "--benchmark_min_time=" + Exact(s.min_time)});
  const auto started = std::chrono::steady_clock::now();
  for (int round = 1; round <= s.rounds; ++round) {
    const bool a_first = round % 2 == 1;  // plots/ab.py's first_of says the same
    std::fprintf(stderr, "amqbench ab: round %d of %d, %s\n", round, s.rounds, a_first ? "A then B" : "B then A");
    for (const char side : a_first ? std::string("AB") : std::string("BA")) {
      const std::string& binary = side == 'A' ? s.binary_a : s.binary_b;
      std::vector<std::string> run = {binary};
      run.insert(run.end(), common.begin(), common.end());
      const fs::path json = scratch.path() / ("round_" + std::to_string(round) + "_" + side + ".json");
      const ChildOutcome child = RunChild(run, json.string());
      if (child.interrupted || Interrupted()) return InterruptExitStatus();
      if (!child.Succeeded()) {
        throw InputError(std::string("ab: BINARY_") + side + " " + binary + " failed in round " +
                         std::to_string(round) + " (" + StatusText(child.status) + ")");
      }
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::fprintf(stderr, "amqbench ab: %d rounds in %.1f s\n", s.rounds, seconds);
  const fs::path table = scratch.path() / "table.md";
  const int status = RunJudgeScript(s, "judge", {"--dir", scratch.path().string()}, table.string());
  std::ifstream in(table);
  if (in.peek() != std::ifstream::traits_type::eof()) std::cout << in.rdbuf();
  return status;
}

}  // namespace amq
