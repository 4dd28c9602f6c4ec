// harness/machine_experiment.cc - the suite's machine kind (machine_experiment.h).
#include "harness/machine_experiment.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/errors.h"
#include "harness/machine_measure.h"

namespace amq {
namespace {

class MachinePlan : public ExperimentPlan {
 public:
  MachinePlan(const MachineParams& p, const std::string& experiment) {
    options_.max_bytes = p.max_bytes;
    options_.huge_pages = p.huge_pages;
    options_.timing.repeats = p.repeats;
    options_.timing.min_seconds = p.min_seconds;
    options_.timing.seed = p.seed;
    options_.experiment = experiment;
    points_ = PlanMachine(options_);
    for (const MachinePoint& point : points_) {
      CellPlan c;
      c.identity = point.identity;
      c.cell_id = point.cell_id;
      c.seed = p.seed;
      // Cost in the suite's unit, key operations at about 10^7 a second (runner.h): a point
      // runs its repeats of at least min_seconds each, plus about 30% for the untimed pass
      // before each and the sizing of the loop (56 points of 5 x 0.2 s took 91 s here); a
      // random_lines point times two methods; the summary costs nothing. A unit of its own
      // would make the suite's ETA extrapolate one experiment's seconds per unit onto another's.
      const double timings = point.test == "cache_levels" ? 0 : point.test == "random_lines" ? 2 : 1;
      c.cost = timings * 1e7 * 1.3 * p.repeats * p.min_seconds;
      c.label = point.test;
      if (point.working_set_bytes) c.label.append(" ").append(FormatCacheSize(point.working_set_bytes));
      cells_.push_back(std::move(c));
    }
  }

  const std::vector<CellPlan>& cells() const override { return cells_; }

  std::optional<MemoryEstimate> EstimateMemory(std::size_t /*i*/) override {
    MemoryEstimate e;
    e.buffer_bytes = MachineMemoryNeeded(options_.max_bytes);
    return e;
  }

  std::vector<Json> Run(std::size_t i) override {
    if (!buffer_) buffer_ = std::make_unique<MachineBuffer>(options_.max_bytes, options_.huge_pages);
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
    Json line = MeasureMachinePoint(options_, *buffer_, point, curve_);
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
  MachineRunOptions options_;
  std::vector<MachinePoint> points_;
  std::vector<CellPlan> cells_;
  std::unique_ptr<MachineBuffer> buffer_;
  std::vector<LatencyPoint> curve_;
};

}  // namespace

void ValidateMachineParams(const MachineParams& p) {
  if (p.max_bytes < kMachineMinBytes) {
    throw InputError("machine: max_bytes must be at least " + std::to_string(kMachineMinBytes) + " (4 MiB), got " +
                     std::to_string(p.max_bytes));
  }
  if (p.repeats < 1 || p.repeats > 1000) {
    throw InputError("machine: repeats must be in 1 .. 1000, got " + std::to_string(p.repeats));
  }
}

std::unique_ptr<ExperimentPlan> MakeMachinePlan(const MachineParams& params, const std::string& experiment) {
  ValidateMachineParams(params);
  return std::make_unique<MachinePlan>(params, experiment);
}

}  // namespace amq
