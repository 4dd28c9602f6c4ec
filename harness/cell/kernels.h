// harness/cell/kernels.h - every timed loop of the harness, and nothing else.
//
// Each kernel is a function template instantiated per filter type, so the loop body calls
// the filter's own insert/contains directly (inlined, no virtual call, no option checks).
// Kernels return what they observed (hits, failures) so the compiler cannot drop the work,
// and so the caller checks correctness - no false negatives - on the very runs it times.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "core/concurrent_insert.h"
#include "core/filter.h"
#include "workloads/queries.h"

namespace amq {

// Wall-clock nanoseconds of one call. steady_clock: monotonic, ~20 ns resolution, which is
// far below the >= 10^4-key loops it brackets.
template <class Fn>
double TimeNs(Fn&& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(stop - start).count();
}

// Tells the compiler `value` is used, so a loop computing it cannot be removed or hoisted.
template <class T>
inline void KeepAlive(const T& value) {
  asm volatile("" : : "r,m"(value) : "memory");
}

// Inserts keys in order (through insert_many where the filter has it: the same bytes, its
// cache lines prefetched ahead). Failed inserts are rare (a full cuckoo table) and the failing
// keys' indices are kept so the false-negative check knows which keys the filter holds.
template <DynamicFilter F>
std::size_t InsertAll(F& filter, std::span<const std::uint64_t> keys,
                      std::vector<std::size_t>& failed) {
  if constexpr (BulkInsertFilter<F>) {
    return filter.insert_many(keys);  // never fails: nothing to record in `failed`
  }
  std::size_t inserted = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (filter.insert(keys[i])) [[likely]] {
      ++inserted;
    } else {
      failed.push_back(i);
    }
  }
  return inserted;
}

// The query loop: counts how many of `keys` the filter reports present. Summing the answers
// keeps every lookup live; the branch-free accumulate mirrors what a caller who acts on the
// answer would pay, without the branch predictor learning an all-positive or all-negative run.
template <Filter F>
std::size_t CountContained(const F& filter, std::span<const std::uint64_t> keys) {
  std::size_t found = 0;
  for (std::uint64_t key : keys) found += filter.contains(key) ? 1 : 0;
  return found;
}

// What one thread's lookups found: of its member queries, and of its non-member queries.
struct FlaggedCounts {
  std::size_t members_found = 0;
  std::size_t absent_found = 0;  // false positives
};

// One thread's loop in the threads kind (harness/kinds/threads_kind.h): its slice of the
// queries against a filter other threads read at the same time (or its own filter). A byte per
// key says whether the key is a member, so a mixed batch counts its members found (the
// false-negative check: they must all be) apart from its false positives, on the run it times.
// The flag is read in order beside the key (one more sequential stream, never a random line) and
// enters the counts by masking, not by a branch: a branch on membership in a 50/50 mix would
// cost a mispredict every other key, and one on the answer is what CountContained avoids too.
template <Filter F>
FlaggedCounts CountContainedFlagged(const F& filter, std::span<const std::uint64_t> keys,
                                    std::span<const std::uint8_t> member) {
  std::size_t members_found = 0, absent_found = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::size_t hit = filter.contains(keys[i]) ? 1 : 0;
    const std::size_t is_member = member[i];
    members_found += hit & is_member;
    absent_found += hit & (is_member ^ 1);
  }
  return {members_found, absent_found};
}

// One thread's loop in the concurrent_inserts kind (harness/kinds/concurrent_inserts_kind.h): its
// slice of the keys into a filter other threads load at the same time, through the filter's
// concurrent mode. accepted[i] records whether key i went in, for the false-negative check
// after the threads are joined; a byte per key, not a bit, so two threads never write one word.
// Returns the inserts refused.
template <ConcurrentInsertFilter F>
std::size_t InsertConcurrentSlice(F& filter, InsertLocks& locks, std::span<const std::uint64_t> keys,
                                  std::span<std::uint8_t> accepted) {
  std::size_t refused = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const bool in = filter.insert_concurrent(keys[i], locks);
    accepted[i] = in ? 1 : 0;
    refused += in ? 0 : 1;
  }
  return refused;
}

// One lookup behind a call the compiler may not inline: FastFilter's benchmark calls every
// Contain this way (CONTAIN_ATTRIBUTES is noinline in its filterapi.h), so timing ours through it
// is the like-for-like pair for its figures; CountContained's inlined lookups save that call,
// which is a visible share of a lookup of a few ns.
template <Filter F>
[[gnu::noinline]] bool ContainsOutOfLine(const F& filter, std::uint64_t key) {
  return filter.contains(key);
}

// CountContained through ContainsOutOfLine: the same loop with one real call per key.
template <Filter F>
std::size_t CountContainedOutOfLine(const F& filter, std::span<const std::uint64_t> keys) {
  std::size_t found = 0;
  for (std::uint64_t key : keys) found += ContainsOutOfLine(filter, key) ? 1 : 0;
  return found;
}

// The batched query loop: the same count through the filter's contains_many. `answers` is the
// caller's buffer (one byte per key), allocated and touched outside the timed region.
template <BatchedFilter F>
std::size_t CountContainedBatched(const F& filter, std::span<const std::uint64_t> keys,
                                  std::span<std::uint8_t> answers) {
  return filter.contains_many(keys, answers.first(keys.size()));
}

// What a churn run observed; the caller checks false_negatives == 0.
struct ChurnOutcome {
  std::size_t false_negatives = 0;
  std::size_t false_positives = 0;
  std::size_t negative_queries = 0;
  std::size_t insert_failures = 0;
};

// Interleaved insert, erase and query at a steady load (workloads/queries.h's schedule),
// checked step by step against the schedule's exact membership. A key whose insert was
// refused is not erased later: erasing a key a cuckoo filter does not hold can remove another
// key's identical fingerprint, the one way erase makes a false negative.
template <class F>
  requires DynamicFilter<F> && ErasableFilter<F>
ChurnOutcome RunChurn(F& filter, std::span<const ChurnStep> steps, std::vector<std::uint64_t>& refused) {
  ChurnOutcome out;
  for (const ChurnStep& step : steps) {
    switch (step.op) {
      case ChurnStep::Op::kInsert:
        if (!filter.insert(step.key)) [[unlikely]] {
          ++out.insert_failures;
          refused.push_back(step.key);
        }
        break;
      case ChurnStep::Op::kErase:
        if (!refused.empty()) [[unlikely]] {
          const auto it = std::find(refused.begin(), refused.end(), step.key);
          if (it != refused.end()) {
            refused.erase(it);
            break;
          }
        }
        filter.erase(step.key);
        break;
      case ChurnStep::Op::kQuery: {
        const bool present = filter.contains(step.key);
        if (step.member) {
          const bool was_refused = !refused.empty() &&
                                   std::find(refused.begin(), refused.end(), step.key) != refused.end();
          out.false_negatives += (!present && !was_refused) ? 1 : 0;
        } else {
          ++out.negative_queries;
          out.false_positives += present ? 1 : 0;
        }
        break;
      }
    }
  }
  return out;
}

// A filter together with what building it did: the keys it refused, by index.
template <Filter F>
struct Built {
  F filter;
  std::vector<std::size_t> failed;
};

// One way to build any filter from a finished key set: key by key for a dynamic filter,
// all at once for a static one. Used by the tests; the driver times the two halves of a
// dynamic build separately (allocation is not insertion).
template <Filter F>
Built<F> Build(std::span<const std::uint64_t> keys, const FilterParams& params) {
  if constexpr (StaticFilter<F>) {
    return Built<F>{F::build(keys, params), {}};
  } else {
    Built<F> built{F(params), {}};
    InsertAll(built.filter, keys, built.failed);
    return built;
  }
}

// The erase loop: erases each of `keys` once, in order, and counts the erases the filter
// accepted. The keys must be distinct members the filter holds: erasing a key twice, or one it
// never took, removes another key's matching fingerprint (the AMQ survey's gotcha), so the
// caller samples without replacement from its exact key set. A held key whose erase is refused
// is a lost key, which the caller counts against the filter.
template <class F>
  requires DynamicFilter<F> && ErasableFilter<F>
std::size_t EraseAll(F& filter, std::span<const std::uint64_t> keys) {
  std::size_t erased = 0;
  for (std::uint64_t key : keys) erased += filter.erase(key) ? 1 : 0;
  return erased;
}

}  // namespace amq
