// harness/kinds/absent_deletes_kind.h - the absent_deletes kind: false negatives caused by
// deleting keys that were never inserted.
//
// The AMQ survey ("Approximate Membership Filters: Cuckoo, Quotient, XOR, Binary Fuse", its
// gotchas): "Deleting a key that was never inserted can evict a different key's identical
// fingerprint and later cause a false negative. Cuckoo deletion is only sound for known
// members (same discipline as counting-Bloom decrements)." An erase finds a key by its
// fingerprint, so an absent key that is a false positive matches a member's fingerprint, and
// erasing it removes that member's copy.
//
// For each erasable filter and each n, `key_sets` independent tables (table i: members, absent
// keys and hash seed from seed + i) are built by inserting n members, untimed. Every member is
// looked up first: false_negatives is the usual invariant, which must be 0 (a cell with one is
// broken). Then `absent_deletes` keys disjoint from the members are erased (the filter accepts
// an erase exactly when the absent key was a false positive: absent_deletes_accepted), and
// every member is looked up again: false_negatives_after_absent_deletes, the survey's effect,
// recorded under its own name so it never reads as a broken filter. Deterministic: the same
// records on every host at the same seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "harness/cell/registry.h"
#include "harness/run/kind.h"
#include "harness/run/runner.h"

namespace amq {

struct AbsentDeletesParams {
  std::vector<const FilterEntry*> filters;  // erasable filters only
  std::vector<std::size_t> keys;            // members per table, one cell per n
  std::size_t key_sets = 10;  // independent tables, as the filters and build_failures kinds call them
  std::size_t absent_deletes = 0;           // absent keys erased per table; 0: as many as n
  double fpr = 0.01;
  double max_load = 0;                      // 0: the family's default
  std::uint64_t seed = 1;
};

std::unique_ptr<ExperimentPlan> MakeAbsentDeletesPlan(const AbsentDeletesParams& params);

extern const KindSpec kAbsentDeletesKind;

}  // namespace amq
