#include "workloads/queries.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <optional>

#include "core/errors.h"
#include "core/hashing.h"
#include "core/zipf.h"

namespace amq {
namespace {

// Picks keys from a pool by the popularity distribution. Zipf ranks map to pool positions
// through a seeded permutation.
class PoolPicker {
 public:
  PoolPicker(const std::vector<std::uint64_t>& pool, std::size_t limit, const Popularity& dist,
             std::uint64_t seed)
      : pool_(pool), size_(std::min(limit, pool.size())), rng_(seed) {
    if (dist.zipf && size_ > 0) {
      zipf_.emplace(size_, dist.alpha);
      rank_to_index_.resize(size_);
      std::iota(rank_to_index_.begin(), rank_to_index_.end(), std::size_t{0});
      XorShift64Star shuffle(SpreadSeed(seed ^ 0x72616e6bULL));
      for (std::size_t i = size_; i > 1; --i) {
        std::swap(rank_to_index_[i - 1], rank_to_index_[ReduceRange(shuffle.Next(), i)]);
      }
    }
  }

  std::uint64_t Next() {
    if (zipf_) return pool_[rank_to_index_[(*zipf_)(rng_)-1]];
    return pool_[ReduceRange(rng_.Next(), size_)];
  }

 private:
  const std::vector<std::uint64_t>& pool_;
  std::size_t size_;
  XorShift64Star rng_;
  std::optional<ZipfSampler> zipf_;
  std::vector<std::size_t> rank_to_index_;
};

bool ParseDouble(const std::string& text, double& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(out);
}

}  // namespace

double ParsePositiveFraction(const std::string& text) {
  double p = 0;
  if (!ParseDouble(text, p) || p < 0 || p > 1) {
    throw InputError("bad positive fraction '" + text + "' (expected a number in [0, 1])");
  }
  return p;
}

void AddQueries(Workload& w, const QueryMix& mix) {
  if (!(mix.positive_fraction >= 0 && mix.positive_fraction <= 1)) {
    throw InputError("positive fraction " + std::to_string(mix.positive_fraction) +
                     " is outside [0, 1]");
  }
  const auto positives = static_cast<std::size_t>(
      std::llround(mix.positive_fraction * static_cast<double>(mix.count)));
  const std::size_t negatives = mix.count - positives;
  if (positives > 0 && w.keys.empty()) {
    throw InputError("workload '" + w.name + "' has no members to query");
  }
  if (negatives > 0 && w.negatives.empty()) {
    throw InputError("workload '" + w.name + "' has no non-members to query");
  }
  const std::size_t negative_pool = mix.repeated_negatives > 0
                                        ? std::min(mix.repeated_negatives, w.negatives.size())
                                        : w.negatives.size();
  // Independent streams for positions, members and non-members: changing the mix's fraction
  // does not reshuffle which keys the queries pick.
  PoolPicker members(w.keys, w.keys.size(), mix.dist, SpreadSeed(mix.seed ^ 1));
  PoolPicker others(w.negatives, negative_pool, mix.dist, SpreadSeed(mix.seed ^ 2));
  XorShift64Star positions(SpreadSeed(mix.seed ^ 3));

  w.queries.resize(mix.count);
  w.query_is_member.resize(mix.count);
  std::size_t positives_left = positives;
  for (std::size_t i = 0; i < mix.count; ++i) {
    // Selection sampling: query i is positive with probability (positives left) / (slots
    // left), which places exactly `positives` positives, every arrangement equally likely.
    const bool positive = ReduceRange(positions.Next(), mix.count - i) < positives_left;
    positives_left -= positive ? 1 : 0;
    w.queries[i] = positive ? members.Next() : others.Next();
    w.query_is_member[i] = positive ? 1 : 0;
  }

  auto& p = w.parameters["queries"];
  p["count"] = mix.count;
  p["positive_fraction"] = mix.positive_fraction;
  p["positives"] = positives;
  p["dist"] = mix.dist.Name();
  p["seed"] = mix.seed;
  if (mix.repeated_negatives > 0) p["repeated_negatives"] = negative_pool;
}

std::vector<ChurnStep> MakeChurnSchedule(const Workload& w, const ChurnOptions& o) {
  if (o.resident > w.keys.size()) {
    throw InputError("churn: " + std::to_string(o.resident) + " resident keys requested but the " +
                     "workload has " + std::to_string(w.keys.size()) + " members");
  }
  if (o.resident == 0 && o.rounds > 0) throw InputError("churn needs at least one resident key");
  if (!(o.positive_fraction >= 0 && o.positive_fraction <= 1)) {
    throw InputError("churn: positive fraction outside [0, 1]");
  }
  if (o.positive_fraction < 1 && o.queries_per_round > 0 && o.rounds > 0 && w.negatives.empty()) {
    throw InputError("churn: the workload has no non-members to query");
  }
  std::vector<ChurnStep> steps;
  steps.reserve(o.resident + o.rounds * (2 + o.queries_per_round));
  // resident = keys[0, live); the rest of `pool` is out of the set. Swapping within one
  // vector makes picking, erasing and re-inserting O(1).
  std::vector<std::uint64_t> pool(w.keys);
  for (std::size_t i = 0; i < o.resident; ++i) {
    steps.push_back({ChurnStep::Op::kInsert, 0, pool[i]});
  }
  const std::size_t live = o.resident;
  XorShift64Star rng(SpreadSeed(o.seed ^ 0x636875726eULL));
  for (std::size_t round = 0; round < o.rounds; ++round) {
    const std::size_t victim = ReduceRange(rng.Next(), live);
    steps.push_back({ChurnStep::Op::kErase, 0, pool[victim]});
    // The erased key joins the outside part; a random outside key (maybe the same one) comes in.
    std::swap(pool[victim], pool[live - 1]);
    const std::size_t outside = pool.size() - (live - 1);
    const std::size_t incoming = live - 1 + ReduceRange(rng.Next(), outside);
    std::swap(pool[live - 1], pool[incoming]);
    steps.push_back({ChurnStep::Op::kInsert, 0, pool[live - 1]});
    for (std::size_t q = 0; q < o.queries_per_round; ++q) {
      const bool positive = UnitDouble(rng) < o.positive_fraction;
      const std::uint64_t key = positive ? pool[ReduceRange(rng.Next(), live)]
                                         : w.negatives[ReduceRange(rng.Next(), w.negatives.size())];
      steps.push_back({ChurnStep::Op::kQuery, static_cast<std::uint8_t>(positive), key});
    }
  }
  return steps;
}

}  // namespace amq
