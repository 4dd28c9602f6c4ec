// fuzz/filter_ops_fuzz.cc - every filter of filters/all.h (but the production libraries', which
// are not ours) driven by the input: which filter, its capacity, seed and FPR, how keys are
// spelled, then a sequence of operations checked against an exact multiset of what is held.
//   dynamic filters  inserts (duplicates too: a filter is a multiset of fingerprints), erases of
//                    held keys where the filter erases, single and batched lookups
//   static filters   a build from the distinct keys the input spells (BuildFailed allowed)
// Keys are 16-bit values spelled four ways, the orders that break careless code: as they are
// (small sequential keys), shifted to the top bits, bit-reversed, or spread by a multiply.
// Finding: a crash, a sanitizer report, an exception other than BuildFailed, a hang, or a
// broken promise of core/filter.h: a held key not found (after any insert, refused or not, and
// any erase), erase() not finding a held key, contains_many() answering other than contains().
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "filters/all.h"
#include "filters/test_params.h"
#include "fuzz/fuzz_support.h"

namespace amq::fuzz {
namespace {

template <class F>
struct IsOurs : std::bool_constant<LibraryOf<F>().empty()> {};
using FuzzedFilters = KeepIf<IsOurs, AllFilters>::type;

std::uint64_t Spell(std::uint16_t value, int spelling) {
  switch (spelling) {
    case 0: return value;
    case 1: return static_cast<std::uint64_t>(value) << 48;
    case 2: return filter_tests::ReverseBits(value);
    default: return value * 0x9E3779B97F4A7C15ULL;
  }
}

// A batch of keys, some held and some not, answered as one by one.
template <class F>
void CheckBatch(const F& filter, std::span<const std::uint64_t> keys) {
  if constexpr (BatchedFilter<F>) {
    std::vector<std::uint8_t> out(keys.size(), 2);
    const std::size_t batch_ones = filter.contains_many(keys, out);
    std::size_t ones = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const bool single = filter.contains(keys[i]);
      ones += single ? 1 : 0;
      Require(out[i] == (single ? 1 : 0), "contains_many answers other than contains");
    }
    Require(batch_ones == ones, "contains_many counts other ones than contains");
  }
}

template <class F>
void RunDynamic(FuzzedDataProvider& input, const FilterParams& params, int spelling) {
  F filter(params);
  std::vector<std::uint64_t> held;  // with multiplicity, in no order
  std::unordered_map<std::uint64_t, int> copies;
  const auto holds_all = [&] {
    for (std::uint64_t k : held) Require(filter.contains(k), "a held key is not found");
  };
  while (input.remaining_bytes() > 0) {
    switch (input.ConsumeIntegralInRange<int>(0, 3)) {
      case 0: {
        const std::uint64_t key = Spell(input.ConsumeIntegral<std::uint16_t>(), spelling);
        if (filter.insert(key)) {
          held.push_back(key);
          ++copies[key];
        } else {
          holds_all();  // a full filter refuses cleanly: what it held, it still holds
        }
        break;
      }
      case 1: {
        if constexpr (ErasableFilter<F>) {
          if (held.empty()) break;
          const std::size_t i = input.ConsumeIntegralInRange<std::size_t>(0, held.size() - 1);
          const std::uint64_t key = held[i];
          held[i] = held.back();
          held.pop_back();
          if (--copies[key] == 0) copies.erase(key);
          Require(filter.erase(key), "erase() did not find a held key");
          holds_all();
        }
        break;
      }
      case 2: {
        const std::uint64_t key = Spell(input.ConsumeIntegral<std::uint16_t>(), spelling);
        if (copies.count(key)) Require(filter.contains(key), "a held key is not found");
        break;
      }
      default: {
        std::vector<std::uint64_t> batch(input.ConsumeIntegralInRange<std::size_t>(0, 40));
        for (std::uint64_t& k : batch) {
          // Every other key a held one where there are any, so members are asked too.
          k = !held.empty() && input.ConsumeBool()
                  ? held[input.ConsumeIntegralInRange<std::size_t>(0, held.size() - 1)]
                  : Spell(input.ConsumeIntegral<std::uint16_t>(), spelling);
        }
        CheckBatch(filter, batch);
        break;
      }
    }
  }
  holds_all();
  CheckBatch(filter, held);
}

template <class F>
void RunStatic(FuzzedDataProvider& input, FilterParams params, int spelling) {
  std::vector<std::uint64_t> keys;
  std::unordered_set<std::uint64_t> seen;
  while (input.remaining_bytes() >= 2) {
    const std::uint64_t key = Spell(input.ConsumeIntegral<std::uint16_t>(), spelling);
    if (seen.insert(key).second) keys.push_back(key);
  }
  params.capacity = keys.size();
  try {
    const F filter = F::build(keys, params);
    for (std::uint64_t k : keys) Require(filter.contains(k), "a key built from is not found");
    std::vector<std::uint64_t> asked = keys;
    for (std::uint16_t v = 0; v < 64; ++v) asked.push_back(Spell(v, (spelling + 1) % 4));
    CheckBatch(filter, asked);
  } catch (const BuildFailed&) {
    // A static build may give up after its bounded retries; the build_failures kind counts how often.
  }
}

template <class... Fs>
void RunOne(std::size_t index, FuzzedDataProvider& input, const FilterParams& params, int spelling,
            TypeList<Fs...>) {
  std::size_t i = 0;
  const auto run = [&]<class F>() {
    if (i++ != index) return;
    if constexpr (DynamicFilter<F>) {
      RunDynamic<F>(input, params, spelling);
    } else {
      RunStatic<F>(input, params, spelling);
    }
  };
  (run.template operator()<Fs>(), ...);
}

}  // namespace
}  // namespace amq::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace amq::fuzz;
  FuzzedDataProvider input(data, size);
  const auto index = input.ConsumeIntegralInRange<std::size_t>(0, FuzzedFilters::size - 1);
  amq::FilterParams params;
  // Small capacities, so inputs of a few hundred operations fill a table and reach its refusals.
  params.capacity = input.ConsumeIntegralInRange<std::size_t>(1, 600);
  constexpr double kFprs[] = {0.01, 0.001, 0.2};
  params.target_fpr = kFprs[input.ConsumeIntegralInRange<int>(0, 2)];
  params.seed = input.ConsumeIntegral<std::uint8_t>();
  const int spelling = input.ConsumeIntegralInRange<int>(0, 3);
  RunOne(index, input, params, spelling, FuzzedFilters{});
  return 0;
}
