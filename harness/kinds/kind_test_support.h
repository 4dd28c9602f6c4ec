// harness/kinds/kind_test_support.h - for the kinds' tests: a kind's PlanInput as the suite
// reader hands it over (checked parameters, filters by name). One helper for every kind's test:
// the tests compile four to a unit (CMakeLists.txt's unity builds), where a helper of the same
// name in two files would collide.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "harness/run/kind.h"

namespace amq {

inline PlanInput KindInput(const KindSpec& kind, Json params, const std::vector<std::string>& names) {
  PlanInput in;
  in.params = std::move(params);
  in.experiment = std::string(kind.name);
  in.specs = kind.params;
  for (const std::string& name : names) {
    const FilterEntry* f = FindFilter(name);
    if (!f) throw std::logic_error("no filter " + name);
    in.filters.push_back(f);
  }
  return in;
}

// The labels of a plan's cells, in run order: what a test of a kind's cell list compares.
inline std::vector<std::string> CellLabels(const ExperimentPlan& plan) {
  std::vector<std::string> labels;
  for (const CellPlan& c : plan.cells()) labels.push_back(c.label);
  return labels;
}

}  // namespace amq
