// core/concurrent_insert.h - the concurrent insert mode: many threads inserting into one filter
// at once (issue 24, item 2), and the spin locks it uses.
//
// A filter with a concurrent mode declares two members beside its ordinary insert():
//
//   std::size_t insert_lock_count() const;
//       how many locks its concurrent inserts take turns on (0: none, e.g. the Bloom family,
//       whose inserts are atomic bit-sets). The caller makes one InsertLocks of that size per
//       filter and passes the same one to every thread.
//   bool insert_concurrent(std::uint64_t key, InsertLocks& locks);
//       insert(key), safe to run on any number of threads at once against the same filter and
//       the same locks. It may not overlap any other member call (a lookup, erase, insert(),
//       stats): the mode is for loading a filter from several threads, as the CQF and VQF papers
//       measure it. false: the key did not fit, and no key inserted before is lost.
//
// After every inserting thread has been joined, the filter holds each key whose
// insert_concurrent returned true (contains() answers yes: no false negatives) and reports its
// statistics as if the same keys had been inserted one by one in some order. Where a filter's
// layout depends on the order (cuckoo placement, the VQF's choice of block), its bytes may
// differ from a sequential build's; where it does not (Bloom bits), they are equal.
//
// Locks are ordered by index: a thread holding several takes them in ascending order
// (LockAscending), so two inserts never wait for each other in a circle.
#pragma once

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "core/filter.h"

namespace amq {

// Test-and-test-and-set spin locks, one byte each: a filter of 2^20 regions pays 1 MiB, and a
// waiting thread spins on a load (its own cache line copy) rather than on the exchange. Locks
// are held for one bucket's or region's update, far shorter than a time slice, so spinning
// beats sleeping; the pause hint keeps a spinning hyperthread from starving its sibling.
class InsertLocks {
 public:
  explicit InsertLocks(std::size_t count)
      : count_(count), locks_(count ? std::make_unique<std::atomic<std::uint8_t>[]>(count) : nullptr) {
    for (std::size_t i = 0; i < count_; ++i) locks_[i].store(0, std::memory_order_relaxed);
  }

  std::size_t size() const { return count_; }
  std::size_t size_in_bytes() const { return count_; }

  void lock(std::size_t i) {
    std::atomic<std::uint8_t>& l = locks_[i];
    while (l.exchange(1, std::memory_order_acquire) != 0) {
      while (l.load(std::memory_order_relaxed) != 0) Pause();
    }
  }
  void unlock(std::size_t i) { locks_[i].store(0, std::memory_order_release); }

  // Locks every index in `indices` (at most 8, any order, repeats allowed) in ascending order,
  // each once; Unlock releases the same set. The caller keeps the span's contents unchanged
  // between the two.
  void LockAscending(std::span<std::size_t> indices) {
    std::sort(indices.begin(), indices.end());
    for (std::size_t k = 0; k < indices.size(); ++k) {
      if (k == 0 || indices[k] != indices[k - 1]) lock(indices[k]);
    }
  }
  void Unlock(std::span<const std::size_t> sorted_indices) {
    for (std::size_t k = 0; k < sorted_indices.size(); ++k) {
      if (k == 0 || sorted_indices[k] != sorted_indices[k - 1]) unlock(sorted_indices[k]);
    }
  }

 private:
  static void Pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }

  std::size_t count_;
  std::unique_ptr<std::atomic<std::uint8_t>[]> locks_;
};

template <class F>
concept ConcurrentInsertFilter =
    DynamicFilter<F> && requires(F& f, const F& cf, std::uint64_t key, InsertLocks& locks) {
      { cf.insert_lock_count() } -> std::convertible_to<std::size_t>;
      { f.insert_concurrent(key, locks) } -> std::same_as<bool>;
    };

// A counter several inserting threads bump: a relaxed atomic add on a plain member, so the
// filter stays copyable and its sequential insert() keeps its plain ++.
template <class T>
inline void AtomicAdd(T& counter, T delta) {
  std::atomic_ref<T>(counter).fetch_add(delta, std::memory_order_relaxed);
}

// Sets `mask`'s bits in `word` for concurrent inserts. A Bloom insert mostly finds its bits
// already set at high load: the plain load first skips the locked read-modify-write then.
template <class Word>
inline void AtomicSetBits(Word& word, Word mask) {
  std::atomic_ref<Word> ref(word);
  if ((ref.load(std::memory_order_relaxed) & mask) != mask) ref.fetch_or(mask, std::memory_order_relaxed);
}

}  // namespace amq
