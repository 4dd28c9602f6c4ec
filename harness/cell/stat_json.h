// harness/cell/stat_json.h - a filter's statistics (core/filter.h: plain name/value data) into a
// result record. A statistic whose name the record already has is a bug, not a value to drop:
// it throws, and the schema test names the pair.
#pragma once

#include <stdexcept>
#include <string>

#include "core/filter.h"
#include "core/json.h"

namespace amq {

inline Json StatToJson(const StatValue& stat) {
  return std::visit(
      [](const auto& v) -> Json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<T, StatValue::Counts>) {
          Json counts = Json::object();
          for (const auto& [label, count] : v) counts[label] = count;
          return counts;
        } else {
          return v;
        }
      },
      stat.value);
}

inline void PutStats(Json& record, const Stats& stats) {
  for (const auto& [name, value] : stats.items()) {
    const std::string key(name);
    if (record.contains(key)) {
      throw std::logic_error("statistic '" + key + "' collides with a field the record already has");
    }
    record[key] = StatToJson(value);
  }
}

// A filter's declared statistics (F::kStats) into its record; nothing for a filter without.
template <class F>
void PutFilterStats(const F& filter, Json& record) {
  if constexpr (HasStats<F>) {
    Stats stats;
    filter.add_stats(stats);
    PutStats(record, stats);
  }
}

// A filter's statistics as a record would carry them (tests read them back by name).
template <class F>
  requires HasStats<F>
Json StatsOf(const F& filter) {
  Stats stats;
  filter.add_stats(stats);
  Json record = Json::object();
  PutStats(record, stats);
  return record;
}

}  // namespace amq
