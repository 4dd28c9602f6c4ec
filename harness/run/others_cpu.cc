// harness/run/others_cpu.cc - see others_cpu.h.
#include "harness/run/others_cpu.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <string>

namespace amq {

std::optional<double> BusySecondsFromProcStat(std::string_view text, long ticks_per_second) {
  if (ticks_per_second <= 0 || text.substr(0, 4) != "cpu ") return std::nullopt;
  text = text.substr(0, text.find('\n'));
  text.remove_prefix(4);
  // user nice system idle iowait irq softirq steal [guest guest_nice]
  unsigned long long field[8] = {};
  for (unsigned long long& f : field) {
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), f);
    if (error != std::errc() || end == text.data()) return std::nullopt;
    text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  }
  const unsigned long long busy = field[0] + field[1] + field[2] + field[5] + field[6] + field[7];
  return static_cast<double>(busy) / static_cast<double>(ticks_per_second);
}

namespace {

double Seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; }

double OwnSeconds(int who) {
  rusage usage{};
  if (getrusage(who, &usage) != 0) return 0;
  return Seconds(usage.ru_utime) + Seconds(usage.ru_stime);
}

}  // namespace

CpuSample SampleCpu() {
  CpuSample sample;
  sample.at = std::chrono::steady_clock::now();
  sample.own_seconds = OwnSeconds(RUSAGE_SELF) + OwnSeconds(RUSAGE_CHILDREN);
  std::ifstream in("/proc/stat");
  std::string line;
  if (in && std::getline(in, line)) sample.machine_busy_seconds = BusySecondsFromProcStat(line, sysconf(_SC_CLK_TCK));
  return sample;
}

std::optional<double> OthersCores(const CpuSample& before, const CpuSample& after) {
  if (!before.machine_busy_seconds || !after.machine_busy_seconds) return std::nullopt;
  const double wall = std::chrono::duration<double>(after.at - before.at).count();
  if (wall <= 0) return std::nullopt;
  const double others = (*after.machine_busy_seconds - *before.machine_busy_seconds) -
                        (after.own_seconds - before.own_seconds);
  return std::max(0.0, others) / wall;
}

}  // namespace amq
