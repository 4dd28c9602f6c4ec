// harness/cell/run_cell.cc - the parts of a cell that do not depend on the filter type.
#include "harness/cell/run_cell.h"

namespace amq {

QuerySet MakeQuerySet(std::span<const std::uint64_t> inserted,
                      const std::vector<std::uint64_t>& refused, const CellSpec& spec) {
  XorShift64Star rng(spec.params.seed ^ 0x71756572ULL);
  QuerySet set;
  const std::size_t q = spec.queries;
  if (!inserted.empty()) {
    set.positives.resize(q);
    for (auto& key : set.positives) key = inserted[ReduceRange(rng.Next(), inserted.size())];
  }
  const auto& negatives = spec.workload->negatives;
  set.negatives.assign(negatives.begin(), negatives.begin() + std::min(q, negatives.size()));

  const Workload& w = *spec.workload;
  if (!w.queries.empty()) {
    set.mixed = w.queries;
    set.mixed_is_member.assign(w.query_is_member.begin(), w.query_is_member.end());
    if (!refused.empty()) {
      for (std::size_t i = 0; i < set.mixed.size(); ++i) {
        if (set.mixed_is_member[i] &&
            std::binary_search(refused.begin(), refused.end(), set.mixed[i])) {
          set.mixed_is_member[i] = 0;
        }
      }
    }
    return set;
  }

  // Without a stream: each query is a member with probability `positive_fraction`, so the
  // branch predictor cannot learn the answer pattern (RocksDB's filter_bench does the same).
  set.mixed.reserve(q);
  std::size_t next_negative = 0;
  for (std::size_t i = 0; i < q; ++i) {
    const bool member = !set.positives.empty() &&
                        static_cast<double>(rng.Next() >> 11) * 0x1.0p-53 < spec.positive_fraction;
    if (member || set.negatives.empty()) {
      set.mixed.push_back(set.positives.empty() ? 0 : set.positives[i]);
      set.mixed_is_member.push_back(!set.positives.empty());
    } else {
      set.mixed.push_back(set.negatives[next_negative++ % set.negatives.size()]);
      set.mixed_is_member.push_back(0);
    }
  }
  return set;
}

Json CellHeader(const CellSpec& spec) {
  Json record;
  record["filter"] = nullptr;
  record["family"] = nullptr;
  record["workload"] = spec.workload->parameters;
  record["keys"] = spec.keys;
  const FilterParams& p = spec.params;
  record["capacity"] = p.capacity;
  record["target_fpr"] = p.target_fpr > 0 ? Json(p.target_fpr) : Json(nullptr);
  record["target_bits_per_key"] = p.bits_per_key > 0 ? Json(p.bits_per_key) : Json(nullptr);
  record["max_load"] = p.max_load > 0 ? Json(p.max_load) : Json(nullptr);
  record["max_kicks"] = p.max_kicks;
  record["seed"] = p.seed;
  record["queries"] = spec.queries;
  record["positive_fraction"] = spec.positive_fraction;
  record["repeats"] = spec.repeats;
  return record;
}

void PutTiming(Json& record, const std::string& name, const std::vector<double>& total_ns,
               std::size_t keys_per_pass) {
  if (keys_per_pass == 0 || total_ns.empty()) {
    record[name] = nullptr;
    return;
  }
  std::vector<double> per_key;
  for (double ns : total_ns) per_key.push_back(ns / keys_per_pass);
  const Summary s = Summarize(per_key);
  record[name] = s.median;
  record[name + "_min"] = s.min;
  record[name + "_max"] = s.max;
  record[name + "_samples"] = per_key;
}

}  // namespace amq
