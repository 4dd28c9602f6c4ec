// harness/kinds/all.h - every experiment kind, one line each. Adding a kind: write
// harness/kinds/<name>_kind.{h,cc} (its plan and its declared parameters, harness/run/kind.h),
// add its line below, a report section (plots/sections/) and its tests. The suite reader and
// the commands find kinds here and nowhere else.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "harness/kinds/absent_deletes_kind.h"
#include "harness/kinds/adapt_kind.h"
#include "harness/kinds/build_failures_kind.h"
#include "harness/kinds/concurrent_inserts_kind.h"
#include "harness/kinds/counting_kind.h"
#include "harness/kinds/filters_kind.h"
#include "harness/kinds/fill_step_kind.h"
#include "harness/kinds/instructions_kind.h"
#include "harness/kinds/machine_kind.h"
#include "harness/kinds/micro_kind.h"
#include "harness/kinds/threads_kind.h"

namespace amq {

inline constexpr const KindSpec* kAllKinds[] = {
    &kFiltersKind,
    &kAdaptSyntheticKind,
    &kAdaptTraceKind,
    &kAdaptAdversarialKind,
    &kCountingKind,
    &kMicroKind,
    &kMachineKind,
    &kBuildFailuresKind,
    &kAbsentDeletesKind,
    &kFillStepKind,
    &kInstructionsKind,
    &kThreadsKind,
    &kConcurrentInsertsKind,
};

// nullptr when no kind has that name.
inline const KindSpec* FindKind(std::string_view name) {
  for (const KindSpec* kind : kAllKinds) {
    if (kind->name == name) return kind;
  }
  return nullptr;
}

// "filters, adapt_synthetic, ...": for messages.
inline std::string KindNames() {
  std::string names;
  for (const KindSpec* kind : kAllKinds) names += (names.empty() ? "" : ", ") + std::string(kind->name);
  return names;
}

}  // namespace amq
