// harness/run/context.cc - what a result file says about where and how it was made, so numbers
// from two machines or two builds are never compared blind.
#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "harness/cell/perf_counters.h"
#include "harness/cell/cache_sizes.h"
#include "harness/run/result_file.h"
#include "harness/run/scheduler.h"

namespace amq {
namespace {

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  std::size_t start = 0;
  while (start < s.size() && (s[start] == ' ' || s[start] == '\t')) ++start;
  return s.substr(start);
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) return Trim(line.substr(line.find(':') + 1));
  }
  return "unknown";
}

bool CpuHasFlag(const std::string& flag) {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("flags", 0) == 0) return (line + " ").find(" " + flag + " ") != std::string::npos;
  }
  return false;
}

// Cache sizes as the kernel reports them for CPU 0 (level, type, size string such as "32K"),
// or, where a VM exposes no cache directory in sysfs, glibc's (level name and bytes).
Json Caches() {
  Json caches = Json::array();
  for (const CacheSize& c : CacheSizes()) {
    if (c.from_sysfs) {
      caches.push_back({{"level", c.level}, {"type", c.type}, {"size", c.size_text}});
    } else {
      caches.push_back({{"level", c.name}, {"bytes", c.bytes}});
    }
  }
  return caches;
}

std::string CommandOutput(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return "";
  std::array<char, 256> buffer{};
  std::string out;
  while (fgets(buffer.data(), buffer.size(), pipe.get())) out += buffer.data();
  return Trim(out);
}

std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace

Json RunContext(const std::string& command_line, std::uint64_t seed) {
  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
  utsname uts{};
  uname(&uts);
  const std::string git = "git -C '" AMQ_SOURCE_DIR "' ";
  const std::string commit = CommandOutput(git + "rev-parse HEAD 2>/dev/null");
  // Dirty means the code differs from the commit: results/ and REPORT.md are this program's
  // output, and a run that refreshes some results (or a baseline) is still the commit's code.
  const std::string dirty = CommandOutput(
      git + "status --porcelain --untracked-files=no -- . ':!results' ':!REPORT.md' 2>/dev/null");
  Json context;
  context["host_name"] = host;
  context["cpu_model"] = CpuModel();
  context["cores"] = std::thread::hardware_concurrency();
  context["caches"] = Caches();
  context["cpu_has_bmi2"] = CpuHasFlag("bmi2");
  context["cpu_has_avx2"] = CpuHasFlag("avx2");
  context["hardware_counters"] = HardwareCounters::Shared().Available()
                                     ? HardwareCounters::Shared().Reason()
                                     : "unavailable: " + HardwareCounters::Shared().Reason();
  context["kernel"] = std::string(uts.sysname) + " " + uts.release;
  context["compiler"] = "g++ " __VERSION__;
  context["compiler_flags"] = AMQ_BUILD_FLAGS;
  context["build_type"] = AMQ_BUILD_TYPE;
  context["march_native"] = static_cast<bool>(AMQ_MARCH_NATIVE);
  context["git_commit"] = commit.size() == 40 ? commit : "unknown";
  context["git_dirty"] = !dirty.empty();
  context["command_line"] = command_line;
  context["time_utc"] = UtcNow();
  context["seed"] = seed;
  AddSchedulerContext(context, host);
  return context;
}

std::string CommandLine(const std::string& command, const std::vector<std::string>& args) {
  std::ostringstream line;
  line << "amqbench " << command;
  for (const std::string& arg : args) line << ' ' << arg;
  return line.str();
}

}  // namespace amq
