// harness/cell/perf_counters.h - hardware counters around a timed loop: cycles, instructions and
// cache misses per key, read with perf_event_open(2) where the kernel offers them.
//
// Virtual machines without a virtual PMU (these CI machines) refuse the events, and a kernel
// with perf_event_paranoid > 2 refuses unprivileged ones: then Available() is false, Reason()
// says why, records leave the counter fields out (absent, not zero or null), and the first
// timed cell prints the reason once on stderr. The counters are opened once per process, as
// one group (read together, scheduled together), counting this thread in user space only.
// Start and Stop are two ioctls and a read, outside the loop they bracket.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace amq {

struct CounterReading {
  std::uint64_t cycles = 0;
  std::uint64_t instructions = 0;
  std::uint64_t cache_misses = 0;  // PERF_COUNT_HW_CACHE_MISSES: last-level misses
};

class HardwareCounters {
 public:
  static HardwareCounters& Shared();  // opened on first use

  bool Available() const { return leader_fd_ >= 0; }
  // "cycles, instructions, cache-misses (perf_event_open, user space)" or why not.
  const std::string& Reason() const { return reason_; }

  void Start();
  // What was counted since Start(); nullopt when unavailable or when the group was not
  // scheduled for the whole time (multiplexed with other users' events: not comparable).
  std::optional<CounterReading> Stop();

  // Prints "amqbench: hardware counters unavailable: <reason>; ..." once per process, when
  // unavailable; does nothing otherwise.
  void SayOnceIfUnavailable();

  HardwareCounters(const HardwareCounters&) = delete;
  HardwareCounters& operator=(const HardwareCounters&) = delete;

 private:
  HardwareCounters();
  ~HardwareCounters();

  int leader_fd_ = -1;
  int instructions_fd_ = -1;
  int misses_fd_ = -1;
  std::string reason_;
  bool said_ = false;
};

}  // namespace amq
