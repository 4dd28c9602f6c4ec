// harness/cell/process_memory.cc - see the header.
#include "harness/cell/process_memory.h"

#include <fcntl.h>
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace amq {
namespace {

// A "Name:   1234 kB" line of /proc/self/status (or another file of such lines), in bytes.
std::optional<std::uint64_t> StatusKilobytes(const char* name, const char* path = "/proc/self/status") {
  std::ifstream status(path);
  const std::size_t length = std::strlen(name);
  for (std::string line; std::getline(status, line);) {
    if (line.compare(0, length, name) == 0 && line.size() > length && line[length] == ':') {
      return std::stoull(line.substr(length + 1)) * 1024;
    }
  }
  return std::nullopt;
}

std::optional<std::uint64_t> ReadNumberFile(const char* path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return std::nullopt;
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool WriteAll(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

bool ResetPeakRss() {
  const int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = write(fd, "5", 1) == 1;
  close(fd);
  return ok;
}

std::optional<std::uint64_t> PeakRssBytes() { return StatusKilobytes("VmHWM"); }

std::optional<AvailableMemory> AvailableMemoryBytes() {
  std::optional<AvailableMemory> best;
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    if (line.rfind("MemAvailable:", 0) == 0) {
      best = AvailableMemory{std::stoull(line.substr(13)) * 1024, "MemAvailable"};
    }
  }
  // cgroup v2: the limit this process's group runs under, less what the group already uses.
  const auto limit = ReadNumberFile("/sys/fs/cgroup/memory.max");
  const auto used = ReadNumberFile("/sys/fs/cgroup/memory.current");
  if (limit && used) {
    const std::uint64_t left = *limit > *used ? *limit - *used : 0;
    if (!best || left < best->bytes) best = AvailableMemory{left, "cgroup memory.max"};
  }
  return best;
}

std::optional<std::uint64_t> PeakGrowthInChild(
    const std::function<void(const std::function<void()>& mark)>& work) {
  int channel[2];
  if (pipe2(channel, O_CLOEXEC) != 0) return std::nullopt;
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t pid = fork();
  if (pid < 0) {
    close(channel[0]);
    close(channel[1]);
    return std::nullopt;
  }
  if (pid == 0) {
    close(channel[0]);
    // Blocks of a page or more come fresh from mmap, untouched until used: the resident set
    // then grows by exactly what the work touches, not by reused free-list memory.
    mallopt(M_MMAP_THRESHOLD, 4096);
    // Two readings of the resident set. VmHWM holds the peak, but from the kernel's per-CPU
    // counters (file, anonymous and shared-memory pages, each with up to percpu_counter_batch =
    // max(32, 2 x CPUs) pages per CPU not yet folded in), so a difference of two readings is off
    // by up to 2 x 3 x batch x CPUs pages either way: 1.5 MiB on 2 CPUs, more than a whole Bloom
    // filter at the 2^18 keys an estimate measures. smaps_rollup walks the page tables: exact,
    // but only at the moment it is read. Most builds peak when they are done (a dynamic filter
    // only grows), so the growth is the exact figure at the second mark(), plus whatever of the
    // counted peak lies beyond the counters' error above it: a transient the counters cannot
    // explain (a static build's peeling scratch, freed before the mark). Added, not switched to:
    // taking the whole counted peak once it passed the bound made one point of a pair jump by
    // the error while the other did not (AddressSanitizer's allocator leaves a 208 KiB transient
    // that the counters' error then pushed over), and the line through the pair went flat.
    std::uint64_t base = 0, exact_base = 0, exact_done = 0;
    int marks = 0;
    bool marked = false;
    try {
      work([&] {
        if (++marks == 1) {
          marked = ResetPeakRss();
          base = StatusKilobytes("VmRSS").value_or(0);
          exact_base = StatusKilobytes("Rss", "/proc/self/smaps_rollup").value_or(0);
        } else {
          exact_done = StatusKilobytes("Rss", "/proc/self/smaps_rollup").value_or(0);
        }
      });
    } catch (...) {
      // A build that fails still allocated what it allocated; the peak is reported anyway.
    }
    const auto peak = PeakRssBytes();
    const std::uint64_t counted = peak && *peak > base ? *peak - base : 0;
    const std::uint64_t exact = exact_done > exact_base ? exact_done - exact_base : 0;
    const std::uint64_t cpus = static_cast<std::uint64_t>(std::max(1L, sysconf(_SC_NPROCESSORS_CONF)));
    const std::uint64_t growth =
        marks >= 2 ? GrowthFromReadings(counted, exact, RssCounterError(cpus)) : counted;
    const bool ok = marked && peak && WriteAll(channel[1], &growth, sizeof growth);
    _exit(ok ? 0 : 1);
  }
  close(channel[1]);
  std::uint64_t growth = 0;
  const bool got = read(channel[0], &growth, sizeof growth) == static_cast<ssize_t>(sizeof growth);
  close(channel[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return growth;
}

void KeepFreedMemory() {
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, -1);
}

std::string FormatBytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 || bytes >= 100 ? "%.0f %s" : "%.1f %s", bytes,
                units[unit]);
  return text;
}

}  // namespace amq
