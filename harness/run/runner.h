// harness/run/runner.h - the one grid runner. Every experiment kind (filters, adapt_synthetic, machine,
// adapt_trace, adapt_adversarial, counting, micro) is a plan: a list of cells with their identities, and
// a way to run one. The runner owns everything else, the same for every kind:
//   - per-cell identity (cell_id) and seed, recorded on every line;
//   - the header naming every planned cell, and atomic, append-per-cell writing;
//   - --resume (skip cells already recorded, by cell_id and seed) and --shard K/N (a
//     deterministic share of the cells, balanced by their expected cost);
//   - progress on stderr (experiment i of n, cell j of m, elapsed, ETA from the cells done);
//   - a memory check before the first cell: a cell whose estimated peak (the plan's
//     MemoryEstimate) exceeds the memory available is refused with one line, unless the run
//     allows oversubscription; each cell line records the estimate and the peak RSS measured;
//   - SIGINT, SIGTERM, SIGHUP: nothing new starts, and the command exits 128 + the signal
//     (130, 143, 129). A cell still running half a second after the signal is abandoned - not
//     recorded, the process exits from a watchdog thread with a line saying what was kept -
//     so a stop takes about a second whatever the cell's size; a second signal exits at once.
// Dispatch to the kind happens once per cell; everything inside a cell is the kind's own
// statically dispatched code (harness/cell/kernels.h).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/run/result_file.h"

namespace amq {

// What one cell is expected to need at its peak (harness/cell/memory_estimate.h).
struct MemoryEstimate {
  std::uint64_t filter_bytes = 0;  // the filter and its build's scratch, measured scaled down
  std::uint64_t buffer_bytes = 0;  // keys and query arrays
  std::uint64_t scale = 1;         // the filter part was extrapolated from 1/scale of the cell
  std::uint64_t total() const { return filter_bytes + buffer_bytes; }
};

struct CellPlan {
  Json identity;             // what defines the cell; hashed to cell_id
  std::string cell_id;
  std::uint64_t seed = 0;
  double cost = 1;           // expected cost, in arbitrary units comparable within a suite
  std::string label;         // for progress lines
};

class ExperimentPlan {
 public:
  virtual ~ExperimentPlan() = default;
  virtual const std::vector<CellPlan>& cells() const = 0;
  // Runs cell i; returns its lines, the cell line last (each with record, cell_id, seed, kind,
  // experiment filled in by the runner if the kind left them out).
  virtual std::vector<Json> Run(std::size_t i) = 0;
  // One line of progress about a finished cell (bits/key, FPR, ...).
  virtual std::string Describe(const Json& cell_line) const = 0;
  // Whether a finished cell broke an invariant (false negatives, an inconsistent remote store).
  virtual bool Broken(const Json& cell_line) const;
  // Kinds that write a file of their own (micro: Google Benchmark's JSON) are one cell that
  // RunPlan hands the output path to, instead of calling Run(); RunWhole returns 130 when it
  // was interrupted.
  virtual bool RunsItself() const { return false; }
  virtual int RunWhole(const std::string& /*out_path*/, bool /*resume*/) { return 0; }
  // Reads what every cell needs and can be refused (a damaged trace, a key file too short),
  // before the result file is created: bad input then leaves no file behind. Idempotent: the
  // suite prepares every experiment before running the first.
  virtual void Prepare() {}
  // The reason this experiment cannot run here (a missing optional trace or binary), or "".
  virtual std::string SkipReason() const { return ""; }
  // Cell i's expected peak memory, or nullopt where the kind makes no estimate. Called after
  // Prepare, before the first cell runs; may be slow the first time (it measures), so plans
  // cache it.
  virtual std::optional<MemoryEstimate> EstimateMemory(std::size_t /*i*/) { return std::nullopt; }
};

struct Shard {
  int index = 0;  // 0-based
  int count = 1;
  bool active() const { return count > 1; }
};
Shard ParseShard(const std::string& text);  // "K/N", 1 <= K <= N; throws InputError

// Which cells a shard runs: cells sorted by cost (largest first, ties by cell_id) and dealt to
// the least-loaded shard, so every shard gets about 1/N of the work and the split depends on
// nothing but the plan.
std::vector<bool> CellsOfShard(const std::vector<CellPlan>& cells, const Shard& shard);

struct RunOptions {
  std::string out_path;  // "": no file (amqbench machine without --out prints its table only)
  Json header;          // experiment, suite and context; the runner adds record, schema_version, cells
  bool resume = false;  // keep the cells already in out_path, run only the others
  Shard shard;
  std::string progress_prefix;  // "[experiment 3/20 space] "
  // Suite-wide ETA: cost of the suite's experiments before and after this one.
  double suite_cost_before = 0;
  double suite_cost_after = 0;
  double suite_seconds_before = 0;
  bool allow_oversubscribe = false;  // run cells whose estimate exceeds the memory available
  bool memory_checked = false;       // the caller ran CheckFitsInMemory already (a suite does,
                                     // for every experiment before the first runs)
  std::string resume_hint;           // appended to the line an interrupted run ends with
  std::vector<Json>* collected = nullptr;  // also gets every line written, in order
};

struct RunOutcome {
  std::size_t cells_planned = 0;  // in the whole plan
  std::size_t cells_run = 0;      // by this run
  std::size_t cells_kept = 0;     // already recorded, skipped on resume
  std::size_t cells_other_shards = 0;
  std::size_t broken = 0;
  bool interrupted = false;
  bool complete = false;          // every cell of this shard is recorded
  double seconds = 0;
  double cost_run = 0;
};

// Throws InputError (one line: the cell, its estimate, the memory available) when a cell of
// this shard is estimated to need more memory than the machine has, unless `allow`; then it
// warns once on stderr instead.
void CheckFitsInMemory(ExperimentPlan& plan, const Shard& shard, bool allow);

// Asks for these cells' memory estimates `threads` at a time, so that the checks above, which
// ask one cell after another, find them cached. An estimate measures the filter's build in a
// forked child (tens of milliseconds each; the default suite's checks measured about 1,000, 39 s
// one at a time). An estimate that throws is left for the check to ask again and report.
void WarmMemoryEstimates(const std::vector<std::pair<ExperimentPlan*, std::size_t>>& cells,
                         unsigned threads);

// Runs a plan into options.out_path. Throws InputError for bad output paths or a file that
// belongs to another experiment; a cell's own exceptions propagate.
RunOutcome RunPlan(ExperimentPlan& plan, const RunOptions& options);

// Installs the SIGINT, SIGTERM and SIGHUP handlers and starts the watchdog thread (once);
// Interrupted() says whether a signal arrived, InterruptExitStatus() the conventional status
// for it (128 + the signal number). Commands install them first thing, so a signal while the
// inputs are read is handled like one during a cell.
void InstallInterruptHandlers();
bool Interrupted();
int InterruptExitStatus();

// Marks work that a signal may cut short - a cell, or reading inputs before anything is
// written - for the object's lifetime. If a signal arrived and the work is still running half
// a second later, the watchdog (InstallInterruptHandlers) prints `abandon_line` and exits the
// process with 128 + the signal; the work is then never recorded. Outside such sections the
// process stops only at the next point that checks Interrupted().
class AbandonableWork {
 public:
  explicit AbandonableWork(const std::string& abandon_line);
  ~AbandonableWork();
  AbandonableWork(const AbandonableWork&) = delete;
  AbandonableWork& operator=(const AbandonableWork&) = delete;
};

// Seconds since `start`, and "12.3s", "4m05s": elapsed and ETA on progress lines.
double SecondsSince(std::chrono::steady_clock::time_point start);
std::string FormatSeconds(double seconds);

}  // namespace amq
