// harness/run/cell_id.h - a cell's stable identity: XXH3-64 of what defines it.
//
// The identity is a JSON object the experiment kind builds from the cell's kind, filter, every
// parameter and the workload (a trace by its content hash, never its path), and nothing about
// the host, the build, the seed or the number of timed repeats. Keys are sorted before hashing,
// so the order a kind writes them in does not matter. Two runs of one suite, on any machines, at
// any seeds, match cell for cell on cell_id; a resumed run matches on (cell_id, seed).
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <xxhash.h>

namespace amq {

inline std::string CellId(const nlohmann::ordered_json& identity) {
  // nlohmann::json (not ordered_json) keeps object keys sorted: the canonical form.
  const std::string canonical = nlohmann::json::parse(identity.dump()).dump();
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(XXH3_64bits(canonical.data(), canonical.size())));
  return hex;
}

}  // namespace amq
