// commands/testdata/ab_probe.cc - a stand-in for amqbench_micro in `amqbench ab`'s "caught on
// purpose" test (commands/ab_command_test.cc, issue 27): one Google Benchmark benchmark, the
// Bloom filter's absent-key lookups at n = 20,000 (in cache, so the lookup's own work is most
// of the time). CMakeLists.txt builds it twice: as is, and with AMQ_PROBE_SLOWED_LOOKUP, which
// adds a chain of dependent multiplies to every lookup - the same answers, about 25 times the
// time (5.8 ms against 0.23 ms for the 20,000 lookups on the 2-core VM), so the test's verdict
// does not hang on a loaded machine's noise. Not part of amqbench.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <span>
#include <vector>

#include "filters/bloom.h"
#include "harness/cell/kernels.h"
#include "harness/kinds/testdata/slowed_lookup.h"
#include "workloads/uniform.h"

namespace {

constexpr std::size_t kKeys = 20000;

#ifdef AMQ_PROBE_SLOWED_LOOKUP
using Probed = amq::testing::SlowedLookup<amq::Bloom, 256>;  // 256 dependent multiplies a lookup
#else
using Probed = amq::Bloom;
#endif

void BM_QueryAbsent(benchmark::State& state) {
  const std::vector<std::uint64_t> members = amq::UniformKeys(1, amq::KeyStream::kMembers, kKeys);
  const std::vector<std::uint64_t> absent = amq::UniformKeys(1, amq::KeyStream::kNonMembers, kKeys);
  amq::FilterParams params;
  params.capacity = kKeys;
  Probed filter(params);
  for (std::uint64_t key : members) filter.insert(key);
  if (amq::CountContained(filter, std::span<const std::uint64_t>(members)) != kKeys) {
    state.SkipWithError("false negatives");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(amq::CountContained(filter, std::span<const std::uint64_t>(absent)));
}
BENCHMARK(BM_QueryAbsent)->Name("bloom/query_absent")->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
