// harness/kinds/build_failures_kind.h - the build_failures kind: how often a static filter's
// first build fails, and how many attempts it needs, as n changes.
//
// XOR and binary fuse filters are built by peeling a random hypergraph, Ribbon filters by
// solving a banded linear system; each can fail for a key set and is retried with a new seed
// (filters/static_common.h), and gives up after its last attempt (BuildFailed: no filter at
// all). For each selected filter and each n, `key_sets` independent key sets (key set i: keys
// and hash seed from seed + i) are built once, untimed (harness/cell/build_once.h), and the
// cell records the share whose first build failed, with its 95% Wilson interval (key sets are
// independent draws), the mean and largest attempt counts and the builds that gave up. The
// grid of n is `keys`, or `n_from`..`n_to` with `steps_per_doubling` geometric steps, dense
// enough between powers of two to find an n where the share jumps. Deterministic: the same
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

struct BuildFailuresParams {
  std::vector<const FilterEntry*> filters;  // each reports build_attempts (F::kStats)
  std::vector<std::size_t> keys;            // the n of every cell, ascending, distinct
  std::size_t key_sets = 100;
  double fpr = 0;                           // 0: each filter's default (widths from the FPR)
  std::uint64_t seed = 1;
};

// n from `from` to `to` (both included) at `steps` geometric steps per doubling, rounded to
// whole keys, without repeats. Exposed for its test.
std::vector<std::size_t> GeometricSizes(std::size_t from, std::size_t to, int steps);

std::unique_ptr<ExperimentPlan> MakeBuildFailuresPlan(const BuildFailuresParams& params);

extern const KindSpec kBuildFailuresKind;

}  // namespace amq
