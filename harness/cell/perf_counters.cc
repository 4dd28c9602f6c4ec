// harness/cell/perf_counters.cc - see the header.
#include "harness/cell/perf_counters.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace amq {
namespace {

int OpenCounter(std::uint64_t config, int group_fd) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = config;
  attr.disabled = group_fd < 0 ? 1 : 0;  // the leader starts the group
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC));
}

std::string ParanoidLevel() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  std::string level;
  return in >> level ? level : "unknown";
}

// Why an event could not be opened, in the terms a user can act on.
std::string Refusal(const char* event, int error) {
  std::string why = std::string("perf_event_open(") + event + "): " + std::strerror(error);
  if (error == ENOENT || error == EOPNOTSUPP || error == ENODEV) {
    why += " (no hardware counters here: a virtual machine without a virtual PMU, or a CPU the"
           " kernel has no events for)";
  } else if (error == EACCES || error == EPERM) {
    why += " (kernel.perf_event_paranoid = " + ParanoidLevel() + "; 2 or less lets a user count its own threads)";
  }
  return why;
}

}  // namespace

HardwareCounters& HardwareCounters::Shared() {
  static HardwareCounters counters;
  return counters;
}

HardwareCounters::HardwareCounters() {
  leader_fd_ = OpenCounter(PERF_COUNT_HW_CPU_CYCLES, -1);
  if (leader_fd_ < 0) {
    reason_ = Refusal("cycles", errno);
    return;
  }
  instructions_fd_ = OpenCounter(PERF_COUNT_HW_INSTRUCTIONS, leader_fd_);
  const int instructions_error = errno;
  misses_fd_ = instructions_fd_ < 0 ? -1 : OpenCounter(PERF_COUNT_HW_CACHE_MISSES, leader_fd_);
  if (instructions_fd_ < 0 || misses_fd_ < 0) {
    reason_ = instructions_fd_ < 0 ? Refusal("instructions", instructions_error)
                                   : Refusal("cache-misses", errno);
    for (int* fd : {&misses_fd_, &instructions_fd_, &leader_fd_}) {
      if (*fd >= 0) close(*fd);
      *fd = -1;
    }
    return;
  }
  reason_ = "cycles, instructions, cache-misses (perf_event_open, this thread, user space)";
}

HardwareCounters::~HardwareCounters() {
  for (int fd : {misses_fd_, instructions_fd_, leader_fd_}) {
    if (fd >= 0) close(fd);
  }
}

void HardwareCounters::Start() {
  if (!Available()) return;
  ioctl(leader_fd_, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
  ioctl(leader_fd_, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
}

std::optional<CounterReading> HardwareCounters::Stop() {
  if (!Available()) return std::nullopt;
  ioctl(leader_fd_, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
  // PERF_FORMAT_GROUP with both times: nr, time_enabled, time_running, then one value each.
  std::uint64_t values[3 + 3] = {};
  if (read(leader_fd_, values, sizeof values) != static_cast<ssize_t>(sizeof values)) return std::nullopt;
  if (values[0] != 3 || values[2] < values[1]) return std::nullopt;  // multiplexed: not whole
  return CounterReading{values[3], values[4], values[5]};
}

void HardwareCounters::SayOnceIfUnavailable() {
  if (Available() || said_) return;
  said_ = true;
  std::fprintf(stderr, "amqbench: hardware counters unavailable: %s; records leave out the query_cycles, "
                       "query_instructions and query_cache_misses fields\n", reason_.c_str());
}

}  // namespace amq
