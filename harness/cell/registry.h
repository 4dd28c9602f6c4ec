// harness/cell/registry.h - the run-time view of filters/all.h: per filter type, its description
// and a pointer to RunCell<F> instantiated for it. The driver dispatches once per cell
// through this pointer; everything below it is direct, inlined calls.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "harness/cell/adapt_trial.h"
#include "harness/cell/build_once.h"
#include "harness/cell/instruction_count.h"
#include "harness/cell/run_cell.h"

namespace amq {

struct FilterEntry {
  std::string_view name = {};
  std::string_view family = {};
  std::string_view parameters = {};
  bool dynamic = false;
  bool erasable = false;
  bool fixed_width = false;             // the fingerprint width is part of the type (cuckoo12, xor8)
  bool concurrent_inserts = false;      // has a concurrent insert mode (core/concurrent_insert.h)
  std::string_view library = {};       // the production library it wraps, or ""
  std::span<const StatSpec> stats = {};  // the statistics add_stats reports
  Json (*run_cell)(const CellSpec&) = nullptr;
  // The adapt_* kinds' trials, for an AdaptiveFilter (filters/acf.h); nullptr for the others.
  const AdaptiveTrials* adaptive = nullptr;
  // One untimed build over a key set and what it reports (harness/cell/build_once.h).
  Json (*build_once)(std::span<const std::uint64_t> keys, const FilterParams& params) = nullptr;
  // Peak bytes one build at these params and this many keys adds, measured in a forked child
  // (harness/cell/memory_estimate.h); nullopt when it could not be measured.
  std::optional<std::uint64_t> (*measure_build_bytes)(const FilterParams&, std::size_t keys) = nullptr;
  // How the micro-benchmarks size it (harness/cell/micro_size.h).
  MicroSizing micro = {};
  // The micro-benchmarks' kernels once each, counted under callgrind (harness/cell/instruction_count.h).
  InstructionOutcome (*count_instructions)(const InstructionRun&) = nullptr;
};

const std::vector<FilterEntry>& Registry();

// nullptr when no filter has that name.
const FilterEntry* FindFilter(std::string_view name);

}  // namespace amq
