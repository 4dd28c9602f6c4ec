// harness/run/runner_test.cc - the runner's memory-estimate warm-up.
#include "harness/run/runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <thread>

namespace amq {
namespace {

// A plan whose estimates count how often each cell is asked, and whose cell `throwing` throws.
class CountingPlan : public ExperimentPlan {
 public:
  CountingPlan(std::size_t cells, std::size_t throwing)
      : cells_(cells), asked_(std::make_unique<std::atomic<int>[]>(cells)), throwing_(throwing) {}
  const std::vector<CellPlan>& cells() const override { return cells_; }
  std::vector<Json> Run(std::size_t) override { return {}; }
  std::string Describe(const Json&) const override { return ""; }
  std::optional<MemoryEstimate> EstimateMemory(std::size_t i) override {
    asked_[i].fetch_add(1);
    if (i == throwing_) throw std::runtime_error("no estimate");
    return MemoryEstimate{};
  }
  int asked(std::size_t i) const { return asked_[i].load(); }

 private:
  std::vector<CellPlan> cells_;
  std::unique_ptr<std::atomic<int>[]> asked_;
  std::size_t throwing_;
};

// Every cell listed is asked once, whatever the number of threads, and a cell that throws
// neither stops the others nor escapes: the check that asks it again reports it.
TEST(WarmMemoryEstimates, AsksEveryListedCellOnceOnAnyNumberOfThreads) {
  for (unsigned threads : {0u, 1u, 2u, 7u}) {
    CountingPlan a(40, 3), b(25, 1000);
    std::vector<std::pair<ExperimentPlan*, std::size_t>> cells;
    for (std::size_t i = 0; i < 40; ++i) cells.emplace_back(&a, i);
    for (std::size_t i = 0; i < 25; i += 2) cells.emplace_back(&b, i);
    EXPECT_NO_THROW(WarmMemoryEstimates(cells, threads));
    for (std::size_t i = 0; i < 40; ++i) EXPECT_EQ(a.asked(i), 1) << threads << " threads, cell " << i;
    for (std::size_t i = 0; i < 25; ++i) EXPECT_EQ(b.asked(i), i % 2 == 0 ? 1 : 0) << threads << " threads, cell " << i;
  }
  EXPECT_NO_THROW(WarmMemoryEstimates({}, 4));
}

}  // namespace
}  // namespace amq
