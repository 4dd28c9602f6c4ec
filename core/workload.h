// core/workload.h - a workload is data: the keys a filter holds, the non-members it is
// asked about, and optionally a query stream (Zipf popularity, a replayed trace) whose
// membership is known exactly. Generators (workloads/) and trace readers (traces/) both
// produce one; the driver never generates keys inside a timed region.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace amq {

struct Workload {
  std::string name;                     // "uniform", "sequential", "words:wamerican", ...
  std::uint64_t seed = 0;               // what generated it (0 for a file read as is)
  nlohmann::ordered_json parameters;    // recorded in every result record as `workload`
  std::vector<std::uint64_t> keys;      // distinct members, in insertion order
  std::vector<std::uint64_t> negatives; // distinct non-members (never in keys)
  std::vector<std::uint64_t> queries;   // optional stream; a key may occur more than once
  std::vector<std::uint8_t> query_is_member;  // same length as queries: 1 if in keys
};

}  // namespace amq
