// Every filter with a concurrent insert mode (filters/all.h's ConcurrentInsertFilters), loaded by
// 1, 2 and 4 threads at once: no false negatives against the exact key set, and every insert
// accepted at the load its sizing allows. Built into threaded_tests, which scripts/tsan.sh runs
// under ThreadSanitizer (a race in any filter's mode fails there). A filter's own threaded test
// (filters/<name>_threaded_test.cc) checks what is particular to it: full tables, region edges.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#include "core/concurrent_insert.h"
#include "core/hashing.h"
#include "filters/all.h"
#include "filters/test_params.h"
#include "filters/threaded_test_support.h"

namespace amq {
namespace {

using threaded_test::DistinctKeys;

// Thread t inserts keys t, t + T, t + 2T, ...: slices interleaved, so threads meet in the same
// regions from the start. Returns how many inserts were refused; `accepted` gets each key's answer.
template <ConcurrentInsertFilter F>
std::size_t InsertOnThreads(F& filter, const std::vector<std::uint64_t>& keys, int threads,
                            std::vector<std::uint8_t>& accepted) {
  InsertLocks locks(filter.insert_lock_count());
  accepted = threaded_test::InsertOnThreads(keys.size(), threads, threaded_test::Slices::kInterleaved,
                                            [&](std::size_t i) { return filter.insert_concurrent(keys[i], locks); });
  return static_cast<std::size_t>(std::count(accepted.begin(), accepted.end(), 0));
}

template <class F>
class ConcurrentInserts : public ::testing::Test {};
using ConcurrentTypes = Rebind<ConcurrentInsertFilters, ::testing::Types>::type;
TYPED_TEST_SUITE(ConcurrentInserts, ConcurrentTypes, filter_tests::FilterNames);

// At 90% of the capacity the filter was sized for, no filter here refuses a key inserted one by
// one (the sequential twin below checks that for the same keys), so none may refuse one on
// several threads either; and every accepted key must be found.
TYPED_TEST(ConcurrentInserts, EveryKeyFoundAfterThreadsInsertAtOnce) {
  constexpr std::size_t kCapacity = 50000;
  const auto keys = DistinctKeys(kCapacity * 9 / 10, 7);
  const FilterParams p = filter_tests::Params(kCapacity, 0.01, 0.0, 3);
  TypeParam sequential(p);
  for (std::uint64_t k : keys) ASSERT_TRUE(sequential.insert(k));
  for (int threads : {1, 2, 4}) {
    TypeParam filter(p);
    std::vector<std::uint8_t> accepted;
    EXPECT_EQ(InsertOnThreads(filter, keys, threads, accepted), 0u) << threads << " threads";
    std::size_t false_negatives = 0;
    for (std::uint64_t k : keys) false_negatives += filter.contains(k) ? 0 : 1;
    EXPECT_EQ(false_negatives, 0u) << threads << " threads";
    EXPECT_EQ(filter.size_in_bytes(), sequential.size_in_bytes());
  }
}

// The Bloom family's bits are ORs, which commute: whatever the threads' interleaving, the bytes
// are those of the sequential build.
template <class F>
class OrderFreeConcurrentInserts : public ::testing::Test {};
using OrderFreeTypes = ::testing::Types<Bloom, BlockedBloom, BlockedBloom256>;
TYPED_TEST_SUITE(OrderFreeConcurrentInserts, OrderFreeTypes, filter_tests::FilterNames);

TYPED_TEST(OrderFreeConcurrentInserts, BytesEqualTheSequentialBuilds) {
  const auto keys = DistinctKeys(40000, 11);
  const FilterParams p = filter_tests::Params(keys.size(), 0.01, 0.0, 5);
  TypeParam sequential(p);
  for (std::uint64_t k : keys) sequential.insert(k);
  TypeParam filter(p);
  std::vector<std::uint8_t> accepted;
  ASSERT_EQ(InsertOnThreads(filter, keys, 4, accepted), 0u);
  const auto a = sequential.bytes(), b = filter.bytes();
  ASSERT_EQ(a.size(), b.size());
  EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin()));
  EXPECT_EQ(filter.theory().fpr, sequential.theory().fpr);  // the key count reached the theory
}

}  // namespace
}  // namespace amq
