// harness/cell/build_once.h - one untimed build of a filter over a key set, and what it says
// about itself: for the kinds that study construction itself (how often a static build fails,
// how many attempts it takes), not its speed. A dynamic filter inserts every key; a static one
// builds from all of them, and may give up (BuildFailed). Every build is checked against the
// exact key set it was given: a key it does not find is a false negative, reported, never
// assumed away.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/filter.h"
#include "core/json.h"
#include "harness/cell/kernels.h"
#include "harness/cell/stat_json.h"

namespace amq {

// {build_failed, error?} and, for a filter it built: size_bytes, insert_failures,
// false_negatives and its declared statistics (F::kStats, e.g. build_attempts).
template <Filter F>
Json BuildOnce(std::span<const std::uint64_t> keys, const FilterParams& params) {
  Json r;
  std::optional<F> filter;
  std::vector<std::uint64_t> held;  // a dynamic filter's keys but those it refused
  try {
    if constexpr (StaticFilter<F>) {
      filter.emplace(F::build(keys, params));
    } else {
      filter.emplace(params);
      held.reserve(keys.size());
      for (std::uint64_t key : keys) {
        if (filter->insert(key)) held.push_back(key);
      }
    }
  } catch (const BuildFailed& e) {
    r["build_failed"] = true;
    r["error"] = e.what();
    return r;
  }
  r["build_failed"] = false;
  r["size_bytes"] = filter->size_in_bytes();
  const std::span<const std::uint64_t> exact = StaticFilter<F> ? keys : std::span<const std::uint64_t>(held);
  r["insert_failures"] = keys.size() - exact.size();
  r["false_negatives"] = exact.size() - CountContained(*filter, exact);
  PutFilterStats(*filter, r);
  return r;
}

}  // namespace amq
