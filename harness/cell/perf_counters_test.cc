// harness/cell/perf_counters_test.cc - counters where the machine has them, a reason where not; a
// filters cell carries the counter fields exactly when they can be read, and a batched
// filter's cell its batched timings with no disagreement.
#include "harness/cell/perf_counters.h"

#include <gtest/gtest.h>

#include "harness/cell/run_cell.h"
#include "filters/all.h"
#include "workloads/keys.h"

namespace amq {
namespace {

TEST(HardwareCounters, CountALoopOrSayWhyNot) {
  HardwareCounters& counters = HardwareCounters::Shared();
  if (!counters.Available()) {
    EXPECT_NE(counters.Reason().find("perf_event_open("), std::string::npos) << counters.Reason();
    counters.Start();
    EXPECT_FALSE(counters.Stop().has_value());
    GTEST_SKIP() << "no hardware counters here: " << counters.Reason();
  }
  counters.Start();
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < 1000000; ++i) KeepAlive(sum += i * i);
  const std::optional<CounterReading> reading = counters.Stop();
  if (!reading) GTEST_SKIP() << "the counters were multiplexed with another user's events";
  EXPECT_GE(reading->instructions, 1000000u);  // at least one instruction per iteration
  EXPECT_GT(reading->cycles, 0u);
}

TEST(HardwareCounters, ACellCarriesCounterFieldsExactlyWhenTheyCanBeRead) {
  const Workload workload = MakeWorkload("uniform", 5000, 5000, 3);
  CellSpec spec;
  spec.workload = &workload;
  spec.keys = 5000;
  spec.queries = 5000;
  spec.repeats = 2;
  spec.params.capacity = 5000;
  spec.params.seed = 3;
  const Json record = RunCell<Cuckoo<12>>(spec);
  const bool available = HardwareCounters::Shared().Available();
  for (const char* field : {"query_cycles_negative", "query_instructions_positive", "query_cache_misses_negative"}) {
    EXPECT_EQ(record.contains(field), available) << field;
  }
  // cuckoo12 batches: its cell times contains_many too, and the two paths agree key by key.
  EXPECT_TRUE(record.contains("query_ns_negative_batched"));
  EXPECT_TRUE(record.contains("query_ns_positive_batched_samples"));
  EXPECT_EQ(record.at("batched_disagreements").get<std::size_t>(), 0u);
  EXPECT_EQ(record.at("false_negatives").get<std::size_t>(), 0u);
  // The classic QF has no batched path: no batched fields at all.
  static_assert(!BatchedFilter<QuotientFilter>);
  const Json quotient = RunCell<QuotientFilter>(spec);
  EXPECT_FALSE(quotient.contains("query_ns_negative_batched"));
  EXPECT_FALSE(quotient.contains("batched_disagreements"));
}

}  // namespace
}  // namespace amq
