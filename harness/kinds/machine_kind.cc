// harness/kinds/machine_kind.cc - the machine kind (see the header): a suite's machine
// experiments and `amqbench machine` both run this plan through the one runner.
#include "harness/kinds/machine_kind.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "core/errors.h"
#include "harness/machine/machine_measure.h"

namespace amq {
namespace {

class MachinePlan : public ExperimentPlan {
 public:
  MachinePlan(const MachineParams& p, const std::string& experiment) {
    options_.max_bytes = p.max_bytes;
    options_.huge_pages = p.huge_pages;
    options_.timing.repeats = p.repeats;
    options_.timing.min_seconds = p.min_seconds;
    options_.timing.min_operations = p.min_operations;
    options_.timing.seed = p.seed;
    options_.experiment = experiment;
    options_.threads = p.threads;
    points_ = PlanMachine(options_);
    for (const MachinePoint& point : points_) {
      CellPlan c;
      c.identity = point.identity;
      c.cell_id = point.cell_id;
      c.seed = p.seed;
      // Cost in the suite's unit, key operations at about 10^7 a second (runner.h): a point
      // runs its repeats of at least min_seconds each, plus about 30% for the untimed pass
      // before each and the sizing of the loop (56 points of 5 x 0.2 s took 91 s here); a
      // random_lines point times two methods (line_handoff: one, on two CPUs, counted as one
      // as the threaded points are); the summary costs nothing. A unit of its own
      // would make the suite's ETA extrapolate one experiment's seconds per unit onto another's.
      const double timings = point.test == "cache_levels"                                     ? 0
                             : point.test.starts_with("random_lines") ? 2
                                                                                                      : 1;
      c.cost = timings * 1e7 * 1.3 * p.repeats * p.min_seconds;
      c.label = point.test;
      if (point.working_set_bytes) c.label.append(" ").append(FormatCacheSize(point.working_set_bytes));
      if (point.test.ends_with("_threads")) c.label.append(" T=").append(std::to_string(point.threads));
      if (point.test == "line_handoff") {
        c.label += " CPUs " + std::to_string(point.cpus.at(0)) + ", " + std::to_string(point.cpus.at(1));
      }
      cells_.push_back(std::move(c));
    }
  }

  const std::vector<CellPlan>& cells() const override { return cells_; }

  std::optional<MemoryEstimate> EstimateMemory(std::size_t /*i*/) override {
    MemoryEstimate e;
    e.buffer_bytes = MachineMemoryNeeded(options_.max_bytes, PlansDefaultPagesLines(options_));
    return e;
  }

  std::vector<Json> Run(std::size_t i) override {
    if (!buffer_) MapBuffer();
    const MachinePoint& point = points_[i];
    if (point.test == "cache_levels") {
      // A resumed run kept latency points measured by an earlier process: the levels are read
      // off the whole curve, so the points this process did not measure are measured again
      // (not recorded; their recorded values stay as they were).
      for (const MachinePoint& p : points_) {
        if (p.test != "latency") continue;
        const bool measured = std::any_of(curve_.begin(), curve_.end(), [&](const LatencyPoint& l) {
          return l.bytes == p.working_set_bytes;
        });
        if (!measured) MeasureMachinePoint(options_, *buffer_, p, curve_);
      }
      std::sort(curve_.begin(), curve_.end(), [](const LatencyPoint& a, const LatencyPoint& b) {
        return a.bytes < b.bytes;
      });
    }
    Json line;
    if (point.test == "random_lines_default_pages") {
      // A buffer of its own, mapped at its first point and released after its last, so the two
      // buffers are held together only while these points run.
      if (!default_pages_buffer_) {
        default_pages_buffer_ = std::make_unique<MachineBuffer>(options_.max_bytes, HugePages::kDefault);
        std::fprintf(stderr, "amqbench machine: %s buffer of the kernel's default pages (no madvise, as a filter's "
                     "table), pre-faulted: %.0f%% huge pages\n", FormatCacheSize(default_pages_buffer_->size()).c_str(),
                     100 * default_pages_buffer_->huge_page_fraction());
      }
      line = MeasureMachinePoint(options_, *default_pages_buffer_, point, curve_);
      if (i + 1 == points_.size() || points_[i + 1].test != point.test) default_pages_buffer_.reset();
    } else {
      line = MeasureMachinePoint(options_, *buffer_, point, curve_);
    }
    if (i + 1 == points_.size()) buffer_.reset();  // a GiB the later experiments can use
    return {line};
  }

  // The runner prints the cell's label first: the value only.
  std::string Describe(const Json& line) const override {
    const std::string text = DescribeMachineRecord(line);
    const std::size_t colon = text.find(": ");
    return colon == std::string::npos ? text : text.substr(colon + 2);
  }

 private:
  // The buffer, pre-faulted, and a line saying whether huge pages back it: the latency of every
  // size past the TLB's reach depends on it.
  void MapBuffer() {
    buffer_ = std::make_unique<MachineBuffer>(options_.max_bytes, options_.huge_pages);
    const std::string thp = TransparentHugePageMode();
    std::fprintf(stderr, "amqbench machine: %s buffer, pre-faulted; huge pages %s (asked: %s; kernel THP: %s): "
                 "%.0f%% of the buffer\n", FormatCacheSize(buffer_->size()).c_str(),
                 buffer_->huge_pages() ? "used" : "not used", HugePagesName(options_.huge_pages),
                 thp.empty() ? "absent" : thp.c_str(), 100 * buffer_->huge_page_fraction());
    if (options_.huge_pages == HugePages::kOn && !buffer_->huge_pages()) {
      std::fprintf(stderr, "amqbench machine: warning: huge pages were asked for, but the kernel backed "
                   "only %.0f%% of the buffer with them; the records say so\n", 100 * buffer_->huge_page_fraction());
    }
  }

  MachineRunOptions options_;
  std::vector<MachinePoint> points_;
  std::vector<CellPlan> cells_;
  std::unique_ptr<MachineBuffer> buffer_;
  std::unique_ptr<MachineBuffer> default_pages_buffer_;  // random_lines_default_pages' only
  std::vector<LatencyPoint> curve_;
};

}  // namespace

std::unique_ptr<ExperimentPlan> MakeMachinePlan(const MachineParams& params, const std::string& experiment) {
  return std::make_unique<MachinePlan>(params, experiment);
}

namespace {

// The host, not a filter: no filters key. max_bytes up to 2^37 (the permutation's 32-bit line
// numbers); at least 4 MiB, so the latency curve has room past L2.
const ParamSpec kMachineParams[] = {
    {"seed", ParamType::kInt, AtLeast(0), "seed of the permutation and the random streams (default: the suite's, machine: 1)"},
    {"max_bytes", ParamType::kBytes, Between(double(kMachineMinBytes), 137438953472.0), "largest working set (default 1G)", "67108864", "max-bytes"},
    {"repeats", ParamType::kInt, Between(1, 1000), "timed repeats per point; the median is reported with min and max (default 5)", "3", "repeats"},
    {"min_seconds", ParamType::kNum, Between(0.0001, 100), "each repeat runs at least this long, CPU time (wall time on threads and for the line handoff) (default 0.2)", "0.002"},
    {"min_operations", ParamType::kInt, Between(1, 1e12), "and at least this many loads (default 2^20)", "16384"},
    {"threads", ParamType::kIntList, Between(2, 4096), "thread counts of the threaded points (random lines and sequential reads on T threads at once; T = 1 is the single-thread points) (default: 2, 4, ... up to the CPUs this process may use, and that count; [] none, and no line handoff either)"},
    {"huge_pages", ParamType::kStr, {}, "auto (transparent huge pages where the kernel offers them), on (insist), off (4 KiB pages: large sizes then include TLB misses), default (no madvise: the pages a filter's table gets); the random lines are measured again on the default pages (random_lines_default_pages) unless this is default", {}, "huge-pages"},
};

std::unique_ptr<ExperimentPlan> MachinePlanFrom(const PlanInput& in) {
  MachineParams m;
  m.seed = in.Get<std::uint64_t>("seed", 1);
  m.max_bytes = in.Get("max_bytes", m.max_bytes);
  m.repeats = in.Get("repeats", m.repeats);
  m.min_seconds = in.Get("min_seconds", m.min_seconds);
  m.min_operations = in.Get("min_operations", m.min_operations);
  m.huge_pages = ParseHugePages(in.Get<std::string>("huge_pages", "auto"));
  m.threads = in.Has("threads") ? in.params["threads"].get<std::vector<int>>() : DefaultMachineThreads();
  std::sort(m.threads.begin(), m.threads.end());
  m.threads.erase(std::unique(m.threads.begin(), m.threads.end()), m.threads.end());
  return MakeMachinePlan(m, in.experiment);
}

}  // namespace

const KindSpec kMachineKind{
    "machine", "this host's memory: load latency per working set, the random-line ceiling, sequential bandwidth, a cache line's handoff between two CPUs",
    {std::begin(kMachineParams), std::end(kMachineParams)}, false, false, &MachinePlanFrom,
    // The fields of "machine" lines (harness/run/schema.h): the host measured, no filter.
    {
    {"test", "string", "", "what the point measured: latency (dependent loads), random_lines (independent random cache-line reads), random_lines_default_pages (the same on a second buffer of the kernel's default pages, no madvise, as a filter's table gets them: the ceiling of a filter's lookups), sequential (reads in order), random_lines_threads and sequential_threads (the same on `threads` threads at once), line_handoff (one cache line written in turn by two pinned threads), or cache_levels (the plateaus of the latency curve beside the caches the system reports)", "machine", kIdentity},
    {"working_set_bytes", "integer", "bytes", "bytes the point's loads range over (the first of one pre-faulted buffer)", "machine, but line_handoff and cache_levels", kIdentity},
    {"ns_per_load", "number", "ns/load", "latency: ns per load of a pointer chase through a random cyclic permutation of cache lines (Sattolo), median of R", "machine latency", kTiming},
    {"ns_per_load_min", "number", "ns/load", "fastest of the R repeats", "machine latency", kTiming},
    {"ns_per_load_max", "number", "ns/load", "slowest of the R repeats", "machine latency", kTiming},
    {"lines_per_second", "number", "lines/s", "random_lines: 64-byte lines read per second at random, 16 independent streams (many loads in flight), median of R, the faster of plain loads and loads prefetched 64 lines ahead (lines_method); the ceiling of a lookup that touches one random line; random_lines_threads: T threads' lines together, each thread with 16 streams over the whole working set, over the wall time", "machine random_lines, random_lines_default_pages, random_lines_threads", kMachine},
    {"lines_method", "string", "", "random_lines: which way of keeping lines in flight gave lines_per_second: loads (the core's window) or prefetch (each line prefetched 64 lines before it is loaded)", "machine random_lines, random_lines_default_pages, random_lines_threads", kMachine},
    {"loads_lines_per_second", "number", "lines/s", "random_lines: the rate with plain loads only, median of R", "machine random_lines, random_lines_default_pages, random_lines_threads", kMachine},
    {"prefetch_lines_per_second", "number", "lines/s", "random_lines: the rate with each line prefetched 64 lines ahead, median of R", "machine random_lines, random_lines_default_pages, random_lines_threads", kMachine},
    {"lines_per_second_min", "number", "lines/s", "slowest of the R repeats", "machine random_lines, random_lines_default_pages, random_lines_threads", kMachine},
    {"lines_per_second_max", "number", "lines/s", "fastest of the R repeats", "machine random_lines, random_lines_default_pages, random_lines_threads", kMachine},
    {"bytes_per_second", "number", "bytes/s", "sequential: bytes read per second summing 64-bit words in order, median of R; sequential_threads: T threads' bytes together, thread t summing its own 1/T of the working set, over the wall time", "machine sequential, sequential_threads", kMachine},
    {"bytes_per_second_min", "number", "bytes/s", "slowest of the R repeats", "machine sequential, sequential_threads", kMachine},
    {"bytes_per_second_max", "number", "bytes/s", "fastest of the R repeats", "machine sequential, sequential_threads", kMachine},
    {"ns_per_handoff", "number|null", "ns/handoff", "line_handoff: ns for one 64-byte line to pass from one CPU to the other (round trip / 2): two threads pinned to handoff_cpus take turns writing a counter alone on its line, each spinning (acquire) until the other's write (release) arrives; over the wall time, median of R; null where pinning was refused (pinned false)", "machine line_handoff", kTiming},
    {"ns_per_handoff_min", "number|null", "ns/handoff", "fastest of the R repeats", "machine line_handoff", kTiming},
    {"ns_per_handoff_max", "number|null", "ns/handoff", "slowest of the R repeats", "machine line_handoff", kTiming},
    {"handoff_cpus", "array", "", "line_handoff: the two CPUs the line went between, the first two of the thread placement (one CPU per physical core first)", "machine line_handoff", kMachine},
    {"huge_pages", "boolean", "", "at least 90% of the point's buffer (random_lines_default_pages: its own) was backed by transparent huge pages (read from /proc/self/smaps); false: 4 KiB pages, and large working sets include TLB misses", "machine", kMachine},
    {"huge_page_fraction", "number", "fraction", "share of the buffer backed by huge pages", "machine, but line_handoff and cache_levels", kMachine},
    {"levels", "array", "", "cache_levels: the plateaus of the latency curve, smallest first: {level, ns_per_load (median of the plateau), capacity_bytes (largest size still on it; null for the last), reported (the reported cache within 2x of that capacity, or null)}; the last has memory: true when the sizes went past twice every cache reported", "machine cache_levels", kMachine},
    {"steps", "integer", "count", "cache_levels: steps found in the latency curve (latency x1.5 over a doubling of the working set; neighbouring rises are one step)", "machine cache_levels", kMachine},
    {"reported_caches", "array", "", "cache_levels: the data and unified caches of CPU 0 as sysfs reports them (else glibc's CPUID view): {level, type, bytes, source}", "machine cache_levels", kMachine},
    }};

}  // namespace amq
