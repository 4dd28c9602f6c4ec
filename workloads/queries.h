// workloads/queries.h - query streams over a workload's members and non-members, and churn
// schedules for dynamic filters. Everything here is data made before any timing starts.
//
// A query mix has Q queries of which exactly round(P*Q) ask about members, at positions chosen
// uniformly at random (sequential selection sampling), so the branch predictor cannot learn the
// answer pattern - the reason to measure ~95% mixes as well as 0/25/50/75/100%. Which member or
// non-member a query asks about follows the popularity: uniform, or Zipf(alpha) over the pool,
// with the ranks given to the pool's keys by a seeded permutation (so a structured key order,
// e.g. sequential keys, does not make rank 1 the smallest key).
//
// Repeated negatives (adversarial): the negative queries draw from only D distinct non-members,
// so the same keys come back again and again - the stream that separates adaptive filters, which
// fix a false positive once, from the rest, which pay for it every time the key comes back.
//
// Churn: a dynamic filter held at a steady load. First `resident` members are inserted; then
// each round erases a random resident key, inserts a random non-resident member (possibly one
// erased earlier) and asks `queries_per_round` queries, each about a resident key with
// probability P, otherwise about a non-member. Each step says whether its key is a member at
// that moment, so the false-negative check is exact throughout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/workload.h"
#include "core/zipf.h"

namespace amq {


struct QueryMix {
  std::size_t count = 0;
  double positive_fraction = 0.5;  // in [0, 1]
  Popularity dist;
  std::uint64_t seed = 0;
  std::size_t repeated_negatives = 0;  // > 0: draw negatives from only this many distinct keys
};

// Fills w.queries and w.query_is_member (replacing any stream) and records the mix in
// w.parameters["queries"]. Throws InputError for a fraction outside [0, 1] or an empty pool
// that the mix needs.
void AddQueries(Workload& w, const QueryMix& mix);

// Parses a positive fraction such as "0.95"; throws InputError outside [0, 1].
double ParsePositiveFraction(const std::string& text);

struct ChurnStep {
  enum class Op : std::uint8_t { kInsert, kErase, kQuery };
  Op op;
  std::uint8_t member;  // queries: 1 if the key is in the set at this step
  std::uint64_t key;
};

struct ChurnOptions {
  std::size_t resident = 0;  // keys held at steady state (<= w.keys.size())
  std::size_t rounds = 0;
  std::size_t queries_per_round = 1;
  double positive_fraction = 0.5;
  std::uint64_t seed = 0;
};

std::vector<ChurnStep> MakeChurnSchedule(const Workload& w, const ChurnOptions& options);

}  // namespace amq
