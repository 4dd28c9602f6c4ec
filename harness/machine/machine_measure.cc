// harness/machine/machine_measure.cc - the machine's own latency, random-line throughput and bandwidth
// (see the header).
#include "harness/machine/machine_measure.h"

#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/errors.h"
#include "core/hashing.h"
#include "harness/machine/thread_team.h"

namespace amq {
namespace {

constexpr std::size_t kSmallPageBytes = 4096;

std::size_t RoundUp(std::size_t value, std::size_t unit) { return (value + unit - 1) / unit * unit; }

// What the optimiser must assume is read: every kernel's result goes here.
volatile std::uint64_t g_sink;

// AnonHugePages of the mapping holding `address`, in bytes, from /proc/self/smaps.
std::size_t AnonHugeBytesAt(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto where = reinterpret_cast<std::uintptr_t>(address);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long start = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    // A mapping's first line is "start-end perms ..."; field lines are "Name:   N kB".
    if (line.find(':') > line.find(' ') && (head >> std::hex >> start >> dash >> end) && dash == '-') {
      inside = start <= where && where < end;
      continue;
    }
    if (inside && line.rfind("AnonHugePages:", 0) == 0) {
      return std::stoull(line.substr(std::strlen("AnonHugePages:"))) * 1024;
    }
  }
  return 0;
}

// Times `run(ops)` (which performs `ops` operations, a multiple of `granularity`): first grows
// ops until one run lasts min_seconds (this pass also warms caches and TLBs), then runs R
// timed repeats at that count. Returns seconds per operation of each repeat.
//
// Time is the thread's CPU time, not the wall clock: on a shared, loaded machine the thread is
// descheduled for whole time slices, and wall time would count other processes' work as ours
// (what the other processes do to the caches meanwhile is still paid, and shows as spread).
double ThreadSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

template <class Run>
std::vector<double> SecondsPerOperation(Run&& run, std::uint64_t granularity, const MachineTiming& timing) {
  const auto time = [&](std::uint64_t ops) {
    const double start = ThreadSeconds();
    run(ops);
    return ThreadSeconds() - start;
  };
  std::uint64_t ops = RoundUp(std::max<std::uint64_t>(timing.min_operations, 1), granularity);
  for (double seconds = time(ops); seconds < timing.min_seconds;) {
    // Aim 20% past the target; never grow more than 100x on one (possibly too short) timing.
    const double grow = std::clamp(timing.min_seconds * 1.2 / std::max(seconds, 1e-9), 1.5, 100.0);
    ops = RoundUp(static_cast<std::uint64_t>(static_cast<double>(ops) * grow), granularity);
    // A kernel whose time does not grow with its work was optimised away: a harness bug.
    if (ops > (std::uint64_t{1} << 52)) throw std::logic_error("a machine kernel takes no time");
    seconds = time(ops);
  }
  std::vector<double> per_op;
  for (int r = 0; r < timing.repeats; ++r) per_op.push_back(time(ops) / static_cast<double>(ops));
  return per_op;
}

// Nanoseconds per operation from seconds per operation.
Spread NanosecondsOf(const std::vector<double>& seconds_per_op) {
  std::vector<double> ns;
  for (double s : seconds_per_op) ns.push_back(s * 1e9);
  return Summarize(ns);
}

// Rates from seconds per operation: the fastest repeat is the highest rate.
Spread RateOf(const std::vector<double>& seconds_per_op, double units_per_op) {
  std::vector<double> rates;
  for (double s : seconds_per_op) rates.push_back(units_per_op / s);
  return Summarize(rates);
}

// Links the first `lines` cache lines of `base` into one random cycle: Sattolo's algorithm
// gives a uniformly random cyclic permutation (every line is visited before the first comes
// back), and each line's first word points to its successor.
void LinkRandomCycle(std::byte* base, std::size_t lines, std::uint64_t seed) {
  std::vector<std::uint32_t> next(lines);
  std::iota(next.begin(), next.end(), 0u);
  XorShift64Star rng(seed ^ (lines * 0x9e3779b97f4a7c15ull));
  for (std::size_t i = lines - 1; i > 0; --i) {
    std::swap(next[i], next[ReduceRange(rng.Next(), i)]);  // j in [0, i): never i itself
  }
  for (std::size_t i = 0; i < lines; ++i) {
    void* successor = base + std::size_t{next[i]} * kCacheLineBytes;
    std::memcpy(base + i * kCacheLineBytes, &successor, sizeof successor);
  }
}

// `loads` dependent loads (a multiple of 8) from `p`; returns where the chase stopped.
__attribute__((noinline)) void* const* Chase(void* const* p, std::uint64_t loads) {
  for (std::uint64_t i = 0; i < loads; i += 8) {
    p = static_cast<void* const*>(*p);
    p = static_cast<void* const*>(*p);
    p = static_cast<void* const*>(*p);
    p = static_cast<void* const*>(*p);
    p = static_cast<void* const*>(*p);
    p = static_cast<void* const*>(*p);
    p = static_cast<void* const*>(*p);
    p = static_cast<void* const*>(*p);
  }
  return p;
}

// The random-line kernels (RandomLines, RandomLinesPrefetched) are core/random_lines.h's, which
// the micro-benchmarks also run on a filter's own table (the ceiling of its lookups in the same
// process).

// The sum of `words` 64-bit words in order; four sums, so adding never limits the rate.
__attribute__((noinline)) std::uint64_t SumWords(const std::byte* base, std::size_t words) {
  const auto* w = reinterpret_cast<const std::uint64_t*>(base);
  std::uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (std::size_t i = 0; i + 4 <= words; i += 4) {
    s0 += w[i];
    s1 += w[i + 1];
    s2 += w[i + 2];
    s3 += w[i + 3];
  }
  return s0 + s1 + s2 + s3;
}

std::string ReadLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// "48K", "1024K", "32M" (sysfs cache sizes) in bytes; 0 if unreadable.
std::uint64_t ParseSysfsSize(const std::string& text) {
  std::size_t used = 0;
  unsigned long long value = 0;
  try {
    value = std::stoull(text, &used);
  } catch (const std::exception&) {
    return 0;
  }
  const char unit = used < text.size() ? text[used] : 0;
  if (unit == 'K') return value << 10;
  if (unit == 'M') return value << 20;
  if (unit == 'G') return value << 30;
  return value;
}

}  // namespace

HugePages ParseHugePages(const std::string& text) {
  if (text == "auto") return HugePages::kAuto;
  if (text == "on") return HugePages::kOn;
  if (text == "off") return HugePages::kOff;
  if (text == "default") return HugePages::kDefault;
  throw InputError("--huge-pages must be auto, on, off or default, got '" + text + "'");
}

const char* HugePagesName(HugePages mode) {
  switch (mode) {
    case HugePages::kOn: return "on";
    case HugePages::kOff: return "off";
    case HugePages::kDefault: return "default";
    case HugePages::kAuto: break;
  }
  return "auto";
}

std::string TransparentHugePageMode() {
  const std::string line = ReadLine("/sys/kernel/mm/transparent_hugepage/enabled");
  const std::size_t open = line.find('['), close = line.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  return line.substr(open + 1, close - open - 1);
}

MachineBuffer::MachineBuffer(std::size_t bytes, HugePages mode) {
  const std::string thp = TransparentHugePageMode();
  const bool offered = thp == "always" || thp == "madvise";
  if (mode == HugePages::kOn && !offered) {
    throw InputError("--huge-pages on: this kernel offers no transparent huge pages "
                     "(/sys/kernel/mm/transparent_hugepage/enabled: " + (thp.empty() ? "absent" : thp) + ")");
  }
  // kDefault requests nothing: under THP "always" the kernel may still back it with huge pages,
  // as it would a filter's table (huge_page_fraction says what it did).
  huge_requested_ = offered && (mode == HugePages::kAuto || mode == HugePages::kOn);
  // Whole, aligned huge pages even for a 4 KiB working set: every size then sees the same
  // kind of page, and the kernel only backs aligned 2 MiB ranges with a huge page.
  size_ = RoundUp(std::max<std::size_t>(bytes, kCacheLineBytes), kHugePageBytes);
  mapped_ = size_ + kHugePageBytes;
  void* raw = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw InputError("cannot map " + std::to_string(bytes) + " bytes for the machine measurement");
  auto* start = static_cast<std::byte*>(raw);
  data_ = reinterpret_cast<std::byte*>(RoundUp(reinterpret_cast<std::uintptr_t>(start), kHugePageBytes));
  // Give back the unaligned head and tail, so the mapping is exactly [data_, data_ + size_).
  if (data_ > start) munmap(start, static_cast<std::size_t>(data_ - start));
  std::byte* tail = data_ + size_;
  if (start + mapped_ > tail) munmap(tail, static_cast<std::size_t>(start + mapped_ - tail));
  mapped_ = size_;
  if (mode != HugePages::kDefault) madvise(data_, size_, huge_requested_ ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  // Pre-fault: every page is touched now, so no measurement pays for a page fault.
  for (std::size_t offset = 0; offset < size_; offset += kSmallPageBytes) data_[offset] = std::byte{1};
  huge_fraction_ = std::min(1.0, static_cast<double>(AnonHugeBytesAt(data_)) / static_cast<double>(size_));
}

MachineBuffer::~MachineBuffer() {
  if (data_) munmap(data_, mapped_);
}

Spread MeasureLatency(const MachineBuffer& buffer, std::size_t working_set, const MachineTiming& timing) {
  const std::size_t lines = std::max<std::size_t>(working_set / kCacheLineBytes, 2);
  LinkRandomCycle(buffer.data(), lines, timing.seed);
  void* const* p = reinterpret_cast<void* const*>(buffer.data());
  // Once round the cycle first (up to 2^18 loads: a GiB's would take seconds, and lines that
  // large a set misses anyway), so short runs do not time lines still on their way in.
  p = Chase(p, RoundUp(std::min<std::size_t>(lines, std::size_t{1} << 18), 8));
  const auto per_load = SecondsPerOperation([&](std::uint64_t loads) { p = Chase(p, loads); }, 8, timing);
  g_sink = reinterpret_cast<std::uintptr_t>(p);
  return NanosecondsOf(per_load);
}

const char* RandomLinesMethodName(RandomLinesMethod method) {
  return method == RandomLinesMethod::kPrefetch ? "prefetch" : "loads";
}

Spread MeasureRandomLines(const MachineBuffer& buffer, std::size_t working_set, const MachineTiming& timing,
                          RandomLinesMethod method) {
  const std::uint64_t lines = std::max<std::size_t>(working_set / kCacheLineBytes, 1);
  std::uint64_t state[kRandomLineStreams];
  for (int s = 0; s < kRandomLineStreams; ++s) {
    state[s] = SpreadSeed(timing.seed * kRandomLineStreams + static_cast<std::uint64_t>(s));
  }
  std::uint64_t sum = 0;
  // Chosen once; each timed call runs many rounds inside its (out-of-line) kernel.
  const auto kernel = method == RandomLinesMethod::kPrefetch ? &RandomLinesPrefetched<> : &RandomLines<>;
  const auto per_line = SecondsPerOperation(
      [&](std::uint64_t loads) { sum += kernel(buffer.data(), lines, loads / kRandomLineStreams, state); },
      kRandomLineStreams, timing);
  g_sink = sum;
  return RateOf(per_line, 1.0);
}

Spread MeasureSequential(const MachineBuffer& buffer, std::size_t working_set, const MachineTiming& timing) {
  const std::size_t lines = std::max<std::size_t>(working_set / kCacheLineBytes, 1);
  std::uint64_t sum = 0;
  // Operations are cache lines read, whole passes over the working set at a time.
  const auto per_line = SecondsPerOperation(
      [&](std::uint64_t ops) {
        for (std::uint64_t pass = 0; pass < ops / lines; ++pass) {
          // SumWords reads memory and writes none, so the compiler may call it once for all
          // passes; saying memory may have changed makes every pass read it again.
          asm volatile("" ::: "memory");
          sum += SumWords(buffer.data(), lines * kCacheLineBytes / sizeof(std::uint64_t));
        }
      },
      lines, timing);
  g_sink = sum;
  return RateOf(per_line, static_cast<double>(kCacheLineBytes));
}

namespace {

// SecondsPerOperation for a team, thread t pinned to cpus[t]: `run(t, ops)` performs `ops`
// operations on thread t (ops a multiple of `granularity`). Grows ops per thread from `first_ops`
// until one team run lasts min_seconds of wall time (these runs, untimed, are the warm-up), then
// times R repeats at that count. `summarize` turns the repeats' wall seconds per operation (all
// threads' operations together) into the spread reported.
template <class Run, class ToSpread>
ThreadedSpread TimeTeam(Run&& run, const std::vector<int>& cpus, std::uint64_t first_ops,
                        std::uint64_t granularity, const MachineTiming& timing,
                        ToSpread&& summarize) {
  const auto time = [&](std::uint64_t ops) {
    return RunTeamOn(cpus, [](int) {}, [&](int t) { run(t, ops); });
  };
  std::uint64_t ops = RoundUp(std::max<std::uint64_t>(first_ops, 1), granularity);
  for (double seconds = time(ops).wall_ns * 1e-9; seconds < timing.min_seconds;) {
    const double grow = std::clamp(timing.min_seconds * 1.2 / std::max(seconds, 1e-9), 1.5, 100.0);
    ops = RoundUp(static_cast<std::uint64_t>(static_cast<double>(ops) * grow), granularity);
    if (ops > (std::uint64_t{1} << 52)) throw std::logic_error("a machine kernel takes no time");
    seconds = time(ops).wall_ns * 1e-9;
  }
  ThreadedSpread out;
  std::vector<double> per_op, shares;
  for (int r = 0; r < timing.repeats; ++r) {
    const TeamRun team = time(ops);
    per_op.push_back(team.wall_ns * 1e-9 /
                     (static_cast<double>(ops) * static_cast<double>(cpus.size())));
    shares.push_back(team.cpu_share);
    out.cpus = team.cpus;
    out.cpus_seen = team.cpus_seen;
    out.pinned = team.pinned;
  }
  out.spread = summarize(per_op);
  out.cpu_share = Summarize(shares).median;
  return out;
}

// A rate measured on `threads` threads of the placement.
template <class Run>
ThreadedSpread TeamRate(Run&& run, int threads, std::uint64_t granularity,
                        const MachineTiming& timing, double units_per_op) {
  return TimeTeam(run, TeamCpus(threads), timing.min_operations, granularity, timing,
                  [&](const std::vector<double>& per_op) { return RateOf(per_op, units_per_op); });
}

// One step of a spin-wait: x86's pause (aarch64's yield) tells the core it is spinning, so it
// neither floods the line with loads nor starves an SMT sibling, and leaves the loop without a
// memory-order mis-speculation when the value changes. Elsewhere, a plain spin.
inline void SpinPause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Pauses before a spinning thread gives its CPU up (sched_yield) and spins again: 0.1 ms or so
// (a pause is tens of ns), hundreds of handoffs' worth, so a running partner is never waited for
// through the scheduler, while a descheduled one (or a partner on the same CPU, where pinning
// was refused) is not spun for a whole time slice.
constexpr int kSpinsBeforeYield = 1 << 12;

// A handoff takes hundreds of ns where a cached load takes one: the handoff loop's sizing starts
// from min_operations / 64 round trips, so its first (untimed) run is not seconds long.
constexpr std::uint64_t kLoadsPerHandoff = 64;

// The ping-pong's shared line: the counter alone on its 64 bytes, so no other write moves it.
struct alignas(kCacheLineBytes) HandoffLine {
  std::atomic<std::uint64_t> turn{0};
};

// `handoffs` turns of thread `side` (0 or 1): wait until the counter's parity is this side's,
// then write the next value. Only the side whose parity it is writes, so the two strictly
// alternate, and each write moves the line to the other CPU. Acquire/release: what a lock
// handoff between two inserting threads pays, with no read-modify-write.
void TakeTurns(HandoffLine& line, int side, std::uint64_t handoffs) {
  for (std::uint64_t i = 0; i < handoffs; ++i) {
    std::uint64_t value = line.turn.load(std::memory_order_acquire);
    for (int spins = 0; (value & 1) != static_cast<std::uint64_t>(side);
         value = line.turn.load(std::memory_order_acquire)) {
      if (++spins < kSpinsBeforeYield) {
        SpinPause();
      } else {
        std::this_thread::yield();
        spins = 0;
      }
    }
    line.turn.store(value + 1, std::memory_order_release);
  }
}

}  // namespace

ThreadedSpread MeasureRandomLinesThreads(const MachineBuffer& buffer, std::size_t working_set, const MachineTiming& timing,
                                         RandomLinesMethod method, int threads) {
  const std::uint64_t lines = std::max<std::size_t>(working_set / kCacheLineBytes, 1);
  // Each thread its own streams (thread 0's are the single-thread point's) and its own sum.
  std::vector<std::array<std::uint64_t, kRandomLineStreams>> states(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    for (int s = 0; s < kRandomLineStreams; ++s) {
      states[t][s] = SpreadSeed((timing.seed + 0x10000ull * t) * kRandomLineStreams + static_cast<std::uint64_t>(s));
    }
  }
  std::vector<std::uint64_t> sums(static_cast<std::size_t>(threads) * 8);  // a line apart
  const auto kernel = method == RandomLinesMethod::kPrefetch ? &RandomLinesPrefetched<> : &RandomLines<>;
  ThreadedSpread out = TeamRate(
      [&](int t, std::uint64_t loads) {
        sums[t * 8] += kernel(buffer.data(), lines, loads / kRandomLineStreams, states[t].data());
      },
      threads, kRandomLineStreams, timing, 1.0);
  std::uint64_t sum = 0;
  for (std::uint64_t s : sums) sum += s;
  g_sink = sum;
  return out;
}

ThreadedSpread MeasureSequentialThreads(const MachineBuffer& buffer, std::size_t working_set, const MachineTiming& timing,
                                        int threads) {
  // Thread t's slice: lines [t * slice, (t + 1) * slice) of the working set.
  const std::size_t slice = std::max<std::size_t>(working_set / kCacheLineBytes / static_cast<std::size_t>(threads), 1);
  std::vector<std::uint64_t> sums(static_cast<std::size_t>(threads) * 8);
  ThreadedSpread out = TeamRate(
      [&](int t, std::uint64_t ops) {
        const std::byte* base = buffer.data() + static_cast<std::size_t>(t) * slice * kCacheLineBytes;
        for (std::uint64_t pass = 0; pass < ops / slice; ++pass) {
          asm volatile("" ::: "memory");
          sums[t * 8] += SumWords(base, slice * kCacheLineBytes / sizeof(std::uint64_t));
        }
      },
      threads, slice, timing, static_cast<double>(kCacheLineBytes));
  std::uint64_t sum = 0;
  for (std::uint64_t s : sums) sum += s;
  g_sink = sum;
  return out;
}

ThreadedSpread MeasureLineHandoff(int cpu_a, int cpu_b, const MachineTiming& timing) {
  HandoffLine line;
  // Each team run leaves the counter even (both sides take as many turns), so side 0 always
  // moves first and no run waits on the one before.
  return TimeTeam([&](int side, std::uint64_t handoffs) { TakeTurns(line, side, handoffs); },
                  {cpu_a, cpu_b}, timing.min_operations / kLoadsPerHandoff, 1, timing,
                  NanosecondsOf);
}

std::vector<std::size_t> LatencySizes(std::size_t max_bytes) {
  std::vector<std::size_t> sizes;
  for (std::size_t power = 4096; power <= max_bytes; power *= 2) {
    sizes.push_back(power);
    if (power + power / 2 <= max_bytes) sizes.push_back(power + power / 2);
  }
  if (sizes.empty() || sizes.back() != max_bytes) sizes.push_back(max_bytes);
  return sizes;
}

std::vector<std::size_t> ThroughputSizes(std::size_t max_bytes) {
  std::vector<std::size_t> sizes;
  for (std::size_t power = 16384; power <= max_bytes; power *= 4) sizes.push_back(power);
  if (sizes.empty() || sizes.back() != max_bytes) sizes.push_back(max_bytes);
  return sizes;
}

std::vector<ReportedCache> ReportedCaches() {
  std::vector<ReportedCache> caches;
  for (int index = 0; index < 16; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    const std::string level = ReadLine(dir + "level"), type = ReadLine(dir + "type");
    if (level.empty() || type.empty()) break;
    if (type == "Instruction") continue;
    caches.push_back({std::atoi(level.c_str()), type, ParseSysfsSize(ReadLine(dir + "size")), "sysfs"});
  }
  if (caches.empty()) {
    // Some VMs expose no cache directory in sysfs; glibc still knows the sizes from CPUID.
    const std::pair<int, int> levels[] = {
        {1, _SC_LEVEL1_DCACHE_SIZE}, {2, _SC_LEVEL2_CACHE_SIZE}, {3, _SC_LEVEL3_CACHE_SIZE}, {4, _SC_LEVEL4_CACHE_SIZE}};
    for (const auto& [level, key] : levels) {
      const long bytes = sysconf(key);
      if (bytes > 0) caches.push_back({level, level == 1 ? "Data" : "Unified", static_cast<std::uint64_t>(bytes), "sysconf"});
    }
  }
  std::stable_sort(caches.begin(), caches.end(), [](const auto& a, const auto& b) { return a.level < b.level; });
  return caches;
}

std::string FormatCacheSize(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  double value = static_cast<double>(bytes);
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, value == std::floor(value) ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return text;
}

std::vector<CacheLevel> DetectCacheLevels(const std::vector<LatencyPoint>& raw, double step_ratio) {
  std::vector<LatencyPoint> curve = raw;
  std::sort(curve.begin(), curve.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
  const std::size_t n = curve.size();
  if (n == 0) return {};
  // The lower envelope: noise only ever adds time, and latency never falls with size.
  std::vector<double> m(n);
  for (std::size_t i = n; i-- > 0;) m[i] = i + 1 < n ? std::min(curve[i].ns, m[i + 1]) : curve[i].ns;
  // partner[i]: the first point at twice point i's size or more (n when there is none).
  std::vector<std::size_t> partner(n, n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      if (curve[j].bytes >= 2 * curve[i].bytes) {
        partner[i] = j;
        break;
      }
    }
  }
  // Steps: runs of rising points. A run whose start falls inside the previous run's rise
  // (at or before the partner of its last point) belongs to the same step.
  struct Step {
    std::size_t first, last;  // the rising points
  };
  std::vector<Step> steps;
  for (std::size_t i = 0; i < n; ++i) {
    if (partner[i] == n || !(m[partner[i]] > step_ratio * m[i])) continue;
    if (!steps.empty() && i <= partner[steps.back().last]) {
      steps.back().last = i;
    } else {
      steps.push_back({i, i});
    }
  }
  const auto median_of = [&](std::size_t from, std::size_t to) {  // envelope over [from, to]
    std::vector<double> values(m.begin() + static_cast<std::ptrdiff_t>(from), m.begin() + static_cast<std::ptrdiff_t>(to) + 1);
    return Summarize(values).median;
  };
  std::vector<CacheLevel> levels;
  std::size_t plateau_start = 0;
  for (const Step& step : steps) {
    // The level's capacity: the largest size still within 25% of where the rise began.
    std::size_t edge = step.first;
    while (edge + 1 < n && m[edge + 1] <= 1.25 * m[step.first]) ++edge;
    const std::size_t from = std::min(plateau_start, edge);
    levels.push_back({median_of(from, edge), curve[edge].bytes});
    plateau_start = partner[step.last];  // past the rise: the next plateau
  }
  levels.push_back({median_of(std::min(plateau_start, n - 1), n - 1), std::nullopt});
  return levels;
}

}  // namespace amq
