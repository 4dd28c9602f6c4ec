// harness/run/runner.cc - the one grid runner (see the header).
#include "harness/run/runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <mutex>
#include <set>
#include <thread>

#include "core/errors.h"
#include "harness/cell/process_memory.h"
#include "harness/run/result_writer.h"
#include "harness/run/scheduler.h"
#include "harness/run/schema.h"

namespace amq {
namespace {

std::atomic<int> g_signal{0};
// The first signal lets the running cell finish; a second one means now.
extern "C" void OnInterrupt(int signal) {
  if (g_signal.exchange(signal) != 0) _exit(128 + signal);
}

// Whether the main thread is doing work that may be dropped (a cell, or reading inputs before
// anything is written), so the watchdog knows whether stopping now loses only that work. The
// main thread moves kAbandonable -> kSettled when the work returns; the watchdog moves
// kAbandonable -> kAbandoned. Whoever wins the exchange decides: work the watchdog abandoned
// is never written, and a result being written is never abandoned.
enum WorkState : int { kSettled, kAbandonable, kAbandoned };
std::atomic<int> g_work_state{kSettled};
// The line the watchdog prints when it abandons the work: written by the main thread only
// while nothing is abandonable, read by the watchdog only after it won the exchange.
char g_abandon_line[2048];
constexpr auto kAbandonAfter = std::chrono::milliseconds(500);

void Watchdog() {
  std::optional<std::chrono::steady_clock::time_point> waiting_since;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (g_signal == 0 || g_work_state.load() != kAbandonable) {
      waiting_since.reset();
      continue;
    }
    const auto now = std::chrono::steady_clock::now();
    if (!waiting_since) waiting_since = now;
    if (now - *waiting_since < kAbandonAfter) continue;
    int abandonable = kAbandonable;
    if (g_work_state.compare_exchange_strong(abandonable, kAbandoned)) {
      const ssize_t ignored = write(STDERR_FILENO, g_abandon_line, std::strlen(g_abandon_line));
      (void)ignored;
      _exit(128 + g_signal);
    }
  }
}

}  // namespace

AbandonableWork::AbandonableWork(const std::string& abandon_line) {
  std::snprintf(g_abandon_line, sizeof g_abandon_line, "%s\n", abandon_line.c_str());
  g_work_state.store(kAbandonable);
}

AbandonableWork::~AbandonableWork() {
  int abandonable = kAbandonable;
  if (!g_work_state.compare_exchange_strong(abandonable, kSettled)) {
    for (;;) pause();  // the watchdog is exiting the process; write nothing meanwhile
  }
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool ExperimentPlan::Broken(const Json& cell_line) const {
  return cell_line.value("false_negatives", 0) != 0 || !cell_line.value("consistent", true);
}

void InstallInterruptHandlers() {
  static std::once_flag watchdog;
  std::call_once(watchdog, [] { std::thread(Watchdog).detach(); });
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) std::signal(signal, OnInterrupt);
}

bool Interrupted() { return g_signal != 0; }

int InterruptExitStatus() { return g_signal ? 128 + g_signal : 0; }

std::string FormatSeconds(double seconds) {
  char text[32];
  if (seconds < 60) {
    std::snprintf(text, sizeof text, "%.1fs", seconds);
  } else {
    const long s = static_cast<long>(seconds + 0.5);
    std::snprintf(text, sizeof text, "%ldm%02lds", s / 60, s % 60);
  }
  return text;
}

Shard ParseShard(const std::string& text) {
  int k = 0, n = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%d/%d%c", &k, &n, &tail) != 2 || n < 1 || k < 1 || k > n ||
      n > 10000) {
    throw InputError("--shard must be K/N with 1 <= K <= N (e.g. 2/4), got '" + text + "'");
  }
  return {k - 1, n};
}

std::vector<bool> CellsOfShard(const std::vector<CellPlan>& cells, const Shard& shard) {
  std::vector<bool> mine(cells.size(), !shard.active());
  if (!shard.active()) return mine;
  std::vector<std::size_t> order(cells.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (cells[a].cost != cells[b].cost) return cells[a].cost > cells[b].cost;
    if (cells[a].cell_id != cells[b].cell_id) return cells[a].cell_id < cells[b].cell_id;
    return a < b;
  });
  std::vector<double> load(shard.count, 0.0);
  for (std::size_t i : order) {
    const int target =
        static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    load[target] += cells[i].cost;
    mine[i] = target == shard.index;
  }
  return mine;
}

void WarmMemoryEstimates(const std::vector<std::pair<ExperimentPlan*, std::size_t>>& cells,
                         unsigned threads) {
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t k; (k = next.fetch_add(1)) < cells.size();) {
      try {
        (void)cells[k].first->EstimateMemory(cells[k].second);
      } catch (...) {
        // Asked again, on this thread's caller, by the check that reports it.
      }
    }
  };
  std::vector<std::thread> team;
  for (unsigned t = 1; t < std::max(1u, threads); ++t) team.emplace_back(worker);
  worker();
  for (std::thread& t : team) t.join();
}

void CheckFitsInMemory(ExperimentPlan& plan, const Shard& shard, bool allow) {
  const std::vector<CellPlan>& cells = plan.cells();
  const std::vector<bool> mine = CellsOfShard(cells, shard);
  std::optional<std::size_t> largest;
  MemoryEstimate most;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (!mine[i]) continue;
    const std::optional<MemoryEstimate> e = plan.EstimateMemory(i);
    if (e && (!largest || e->total() > most.total())) {
      largest = i;
      most = *e;
    }
  }
  if (!largest) return;
  const std::optional<AvailableMemory> available = AvailableMemoryForRun();
  if (!available || most.total() <= available->bytes) return;
  const std::string what =
      "cell '" + cells[*largest].label + "' needs about " + FormatBytes(double(most.total())) +
      " by estimate (filter and build " + FormatBytes(double(most.filter_bytes)) +
      (most.scale > 1 ? ", extrapolated from 1/" + std::to_string(most.scale) + " size" : "") +
      "; keys and queries " + FormatBytes(double(most.buffer_bytes)) + "), and " +
      FormatBytes(double(available->bytes)) + " is available (" + available->source + ")";
  if (!allow) throw InputError(what + "; use fewer keys or --allow-oversubscribe");
  std::fprintf(stderr, "amqbench: warning: %s; running anyway (--allow-oversubscribe)\n", what.c_str());
}

RunOutcome RunPlan(ExperimentPlan& plan, const RunOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  const std::vector<CellPlan>& cells = plan.cells();
  RunOutcome outcome;
  outcome.cells_planned = cells.size();
  if (plan.RunsItself()) {
    // One cell writing its own file: the shard that owns it runs it, the others note it.
    if (!CellsOfShard(cells, options.shard)[0]) {
      outcome.cells_other_shards = 1;
      outcome.complete = true;
      return outcome;
    }
    std::fprintf(stderr, "%s%s\n", options.progress_prefix.c_str(), cells[0].label.c_str());
    outcome.interrupted = plan.RunWhole(options.out_path, options.resume) == 130 || Interrupted();
    outcome.cells_run = outcome.interrupted ? 0 : 1;
    outcome.complete = !outcome.interrupted;
    outcome.seconds = SecondsSince(started);
    return outcome;
  }

  Json header = options.header;
  header["record"] = "header";
  header["schema_version"] = kResultSchemaVersion;
  Json ids = Json::array();
  for (const CellPlan& c : cells) ids.push_back(c.cell_id);
  header["cells"] = ids;
  // Header first, in the order readers expect.
  Json ordered = {{"record", "header"}, {"schema_version", kResultSchemaVersion}};
  for (const char* key : {"experiment", "suite", "context", "cells"}) {
    ordered[key] = header.contains(key) ? header[key] : Json(nullptr);
  }

  {
    const AbandonableWork preparing("amqbench: interrupted while reading the inputs; nothing was run");
    plan.Prepare();
    if (!options.memory_checked) CheckFitsInMemory(plan, options.shard, options.allow_oversubscribe);
  }
  std::set<std::string> done;
  bool was_complete = false;
  const bool resuming = options.resume && std::filesystem::exists(options.out_path);
  std::optional<ResultWriter> writer;
  if (resuming) {
    writer.emplace(ResultWriter::Resume(options.out_path, ordered, done, was_complete));
  } else if (!options.out_path.empty()) {
    writer.emplace(ResultWriter::Create(options.out_path, ordered));
  }

  const std::vector<bool> mine = CellsOfShard(cells, options.shard);
  double cost_todo = 0;
  std::size_t todo = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (!mine[i]) {
      ++outcome.cells_other_shards;
    } else if (done.count(DoneKey(cells[i].cell_id, cells[i].seed))) {
      ++outcome.cells_kept;
    } else {
      cost_todo += cells[i].cost;
      ++todo;
    }
  }
  if (resuming && outcome.cells_kept > 0) {
    std::fprintf(stderr, "%skept %zu cells already in %s; %zu to run\n",
                 options.progress_prefix.c_str(), outcome.cells_kept, options.out_path.c_str(), todo);
  }

  std::size_t ran = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (!mine[i] || done.count(DoneKey(cells[i].cell_id, cells[i].seed))) continue;
    if (Interrupted()) break;
    const std::optional<MemoryEstimate> estimate = plan.EstimateMemory(i);
    const bool peak_reset = ResetPeakRss();
    std::vector<Json> lines;
    {
      const AbandonableWork running("amqbench: interrupted; abandoned the running cell (" +
                                cells[i].label + "), not recorded; " +
                                std::to_string(outcome.cells_kept + ran) + " of " +
                                std::to_string(cells.size() - outcome.cells_other_shards) +
                                " cells are in " + options.out_path + options.resume_hint);
      lines = plan.Run(i);
    }
    if (estimate) lines.back()["memory_estimate_bytes"] = estimate->total();
    if (const auto peak = PeakRssBytes(); peak && peak_reset) lines.back()["peak_rss_bytes"] = *peak;
    const std::string kind = options.header["experiment"].value("kind", "");
    const std::string experiment = options.header["experiment"].value("id", "");
    for (Json& line : lines) {
      // Identity fields first, so every line reads the same way.
      Json front = {{"record", line.value("record", "cell")},
                    {"cell_id", cells[i].cell_id},
                    {"experiment", experiment},
                    {"kind", kind},
                    {"seed", line.contains("seed") ? line["seed"] : Json(cells[i].seed)}};
      for (auto& [key, value] : line.items()) {
        if (!front.contains(key)) front[key] = std::move(value);
      }
      line = std::move(front);
    }
    if (writer) writer->AppendCell(lines);
    if (options.collected) options.collected->insert(options.collected->end(), lines.begin(), lines.end());
    const Json& cell_line = lines.back();
    ++ran;
    outcome.cost_run += cells[i].cost;
    if (plan.Broken(cell_line)) {
      ++outcome.broken;
      std::fprintf(stderr, "amqbench: FALSE NEGATIVES OR A BROKEN INVARIANT in %s\n",
                   cells[i].label.c_str());
    }
    const double elapsed = SecondsSince(started);
    const double rate = outcome.cost_run > 0 ? elapsed / outcome.cost_run : 0;
    const double eta = rate * (cost_todo - outcome.cost_run);
    std::string suite_eta;
    if (options.suite_cost_after > 0 || options.suite_cost_before > 0) {
      const double suite_elapsed = options.suite_seconds_before + elapsed;
      const double suite_done = options.suite_cost_before + outcome.cost_run;
      const double suite_left = (cost_todo - outcome.cost_run) + options.suite_cost_after;
      if (suite_done > 0) {
        suite_eta = ", suite ETA " + FormatSeconds(suite_elapsed / suite_done * suite_left);
      }
    }
    std::fprintf(stderr, "%scell %zu/%zu [%s, ETA %s%s] %s: %s\n", options.progress_prefix.c_str(),
                 outcome.cells_kept + ran, todo + outcome.cells_kept, FormatSeconds(elapsed).c_str(),
                 FormatSeconds(eta).c_str(), suite_eta.c_str(), cells[i].label.c_str(),
                 plan.Describe(cell_line).c_str());
  }
  outcome.cells_run = ran;
  outcome.interrupted = Interrupted() && outcome.cells_kept + ran < cells.size() - outcome.cells_other_shards;
  outcome.complete = outcome.cells_kept + ran == cells.size() - outcome.cells_other_shards;
  if (writer && outcome.complete && !was_complete) writer->Finish(outcome.cells_kept + ran);
  outcome.seconds = SecondsSince(started);
  return outcome;
}

}  // namespace amq
