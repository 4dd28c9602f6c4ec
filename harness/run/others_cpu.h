// harness/run/others_cpu.h - how much of the machine other processes took while an experiment
// ran: the machine's busy CPU time (/proc/stat) less amqbench's own (its threads and the children
// it waited for, getrusage), per second of wall time, in cores.
//
// Why: a timed experiment that shares a 2-core VM with a build or a test run reads up to twice
// its quiet time (a whole default run at 2256073 did: its micro experiments 1.2-2.6x slower than
// the same binary alone), and nothing in its numbers says so. The suite records this figure for
// every experiment it runs alone, warns when a timed one ran beside something, and the report's
// provenance section shows it. A hypervisor's other guests stay invisible here (this VM reports
// no steal time): the figure catches this machine's own processes only.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace amq {

struct CpuSample {
  std::optional<double> machine_busy_seconds;  // all CPUs, since boot; absent without /proc/stat
  double own_seconds = 0;                      // this process and its waited-for children
  std::chrono::steady_clock::time_point at;
};

// Busy seconds from /proc/stat's first ("cpu ") line: user, nice, system, irq, softirq and
// steal ticks over ticks_per_second (guest time is inside user already; idle and iowait are not
// busy). nullopt when the line is missing or malformed.
std::optional<double> BusySecondsFromProcStat(std::string_view text, long ticks_per_second);

CpuSample SampleCpu();

// Cores' worth of CPU others used between the two samples (0 when amqbench used it all or more:
// the tick counters are coarser than getrusage's); nullopt when either lacks /proc/stat or no
// time passed.
std::optional<double> OthersCores(const CpuSample& before, const CpuSample& after);

// The suite warns about a timed experiment above this: a quarter of a core for the whole
// experiment, far above what an idle VM shows (0.00-0.02 here), below a build's or test run's.
inline constexpr double kQuietMachineMaxOthersCores = 0.25;

}  // namespace amq
