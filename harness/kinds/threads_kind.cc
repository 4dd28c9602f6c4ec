// harness/kinds/threads_kind.cc - the threads kind (see the header).
#include "harness/kinds/threads_kind.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <span>
#include <string>

#include "core/errors.h"
#include "core/hashing.h"
#include "core/stats.h"
#include "filters/all.h"
#include "harness/cell/kernels.h"
#include "harness/machine/thread_team.h"
#include "harness/run/cell_id.h"
#include "workloads/uniform.h"

namespace amq {
namespace {

// The three query streams, in the order a cell runs them.
enum Mix : std::size_t { kMember, kAbsent, kMixed, kMixes };
constexpr const char* kMixNames[kMixes] = {"member", "absent", "mixed"};

struct ThreadsInputs {
  std::span<const std::uint64_t> keys;  // the n members, shard t = [t n / T, (t+1) n / T)
  FilterParams params;                  // capacity: set per filter
  bool shared = true;
  int threads = 1;
  std::size_t queries = 0;
  double member_share = 0.5;
  int repeats = 1;
  std::uint64_t seed = 0;  // of the query streams
};

struct MixOutcome {
  std::vector<double> ops_per_second;  // each timed run's
  std::vector<double> cpu_shares;
  std::size_t member_lookups = 0;      // over every run, warm-up included
  std::size_t members_found = 0;
  std::size_t absent_queries = 0;
  std::size_t absent_found = 0;
};

struct ThreadsOutcome {
  std::array<MixOutcome, kMixes> mixes;
  TeamRun placement;  // the last timed run's
  std::size_t size_bytes = 0;  // every filter of the cell
  std::size_t held = 0;
  std::size_t insert_failures = 0;
  double fpr_theory = 0;
};

// The keys a filter holds: its shard less the keys it refused (rare: a full cuckoo table).
std::vector<std::uint64_t> HeldKeys(std::span<const std::uint64_t> shard, const std::vector<std::size_t>& failed) {
  std::vector<std::uint64_t> held;
  held.reserve(shard.size());
  for (std::size_t i = 0, next = 0; i < shard.size(); ++i) {
    if (next < failed.size() && failed[next] == i) {
      ++next;
    } else {
      held.push_back(shard[i]);
    }
  }
  return held;
}

// One stream of Q keys and their member flags. Key i belongs to thread t's slice; a member is
// drawn from the keys thread t's filter holds (`held[t]`, or `held[0]` for every thread when the
// filter is shared). Each key is a function of (seed, mix, i) and the filter it is drawn from,
// so the shared layout's stream is the same at every T.
void MakeStream(Mix mix, const ThreadsInputs& in, const std::vector<std::vector<std::uint64_t>>& held,
                std::vector<std::uint64_t>& keys, std::vector<std::uint8_t>& member) {
  keys.resize(in.queries);
  member.resize(in.queries);
  const double share = mix == kMember ? 1.0 : mix == kAbsent ? 0.0 : in.member_share;
  for (int t = 0; t < in.threads; ++t) {
    const auto& pool = held[in.shared ? 0 : static_cast<std::size_t>(t)];
    for (std::size_t i = TeamSliceBegin(in.queries, t, in.threads); i < TeamSliceBegin(in.queries, t + 1, in.threads); ++i) {
      const std::uint64_t x = SpreadSeed(in.seed ^ (std::uint64_t{mix} << 56) ^ i);
      const bool is_member = !pool.empty() && double(x >> 11) * 0x1.0p-53 < share;
      member[i] = is_member ? 1 : 0;
      keys[i] = is_member ? pool[ReduceRange(SpreadSeed(x), pool.size())]
                          : UniformKey(in.seed, KeyStream::kNonMembers, i + std::uint64_t{mix} * in.queries);
    }
  }
}

// Every run of one cell for filter type F. `cache` holds the shared layout's filter between
// the cells of one (filter, n).
template <class F>
ThreadsOutcome RunThreadsCell(const ThreadsInputs& in, std::shared_ptr<void>& cache) {
  ThreadsOutcome out;
  std::vector<const F*> filters;  // thread t reads filters[t]
  std::vector<std::vector<std::uint64_t>> held;
  std::vector<std::unique_ptr<Built<F>>> own;  // per_thread: thread t's, built by thread t
  if (in.shared) {
    if (!cache) {
      FilterParams params = in.params;
      params.capacity = in.keys.size();
      cache = std::make_shared<Built<F>>(Build<F>(in.keys, params));
    }
    const auto& built = *std::static_pointer_cast<Built<F>>(cache);
    filters.assign(static_cast<std::size_t>(in.threads), &built.filter);
    held.push_back(HeldKeys(in.keys, built.failed));
    out.size_bytes = built.filter.size_in_bytes();
    out.insert_failures = built.failed.size();
    out.fpr_theory = built.filter.theory().fpr;
  } else {
    own.resize(static_cast<std::size_t>(in.threads));
    const auto shard = [&](int t) {
      const std::size_t begin = TeamSliceBegin(in.keys.size(), t, in.threads);
      return in.keys.subspan(begin, TeamSliceBegin(in.keys.size(), t + 1, in.threads) - begin);
    };
    RunTeam(in.threads, [&](int t) {
      FilterParams params = in.params;
      params.capacity = shard(t).size();
      own[static_cast<std::size_t>(t)] = std::make_unique<Built<F>>(Build<F>(shard(t), params));
    }, [](int) {});
    for (int t = 0; t < in.threads; ++t) {
      const Built<F>& built = *own[static_cast<std::size_t>(t)];
      filters.push_back(&built.filter);
      held.push_back(HeldKeys(shard(t), built.failed));
      out.size_bytes += built.filter.size_in_bytes();
      out.insert_failures += built.failed.size();
      out.fpr_theory = built.filter.theory().fpr;
    }
  }
  for (const auto& h : held) out.held += h.size();

  struct alignas(64) Slot {
    FlaggedCounts counts;
  };
  std::vector<Slot> slots(static_cast<std::size_t>(in.threads));
  std::vector<std::uint64_t> keys;
  std::vector<std::uint8_t> member;
  for (std::size_t m = 0; m < kMixes; ++m) {
    MakeStream(static_cast<Mix>(m), in, held, keys, member);
    const std::size_t members = static_cast<std::size_t>(std::count(member.begin(), member.end(), 1));
    MixOutcome& mix = out.mixes[m];
    for (int run = 0; run <= in.repeats; ++run) {  // run 0: the untimed warm-up
      const TeamRun team = RunTeam(in.threads, [](int) {}, [&](int t) {
        const std::size_t begin = TeamSliceBegin(in.queries, t, in.threads);
        const std::size_t count = TeamSliceBegin(in.queries, t + 1, in.threads) - begin;
        slots[static_cast<std::size_t>(t)].counts = CountContainedFlagged(
            *filters[static_cast<std::size_t>(t)], std::span(keys).subspan(begin, count),
            std::span<const std::uint8_t>(member).subspan(begin, count));
      });
      for (const Slot& slot : slots) {
        mix.members_found += slot.counts.members_found;
        mix.absent_found += slot.counts.absent_found;
      }
      mix.member_lookups += members;
      mix.absent_queries += in.queries - members;
      if (run > 0) {
        mix.ops_per_second.push_back(double(in.queries) * 1e9 / std::max(team.wall_ns, 1.0));
        mix.cpu_shares.push_back(team.cpu_share);
        out.placement = team;
      }
    }
  }
  return out;
}

using RunThreadsFn = ThreadsOutcome (*)(const ThreadsInputs&, std::shared_ptr<void>&);

template <class... Fs>
RunThreadsFn RunThreadsFor(std::string_view name, TypeList<Fs...>) {
  RunThreadsFn found = nullptr;
  ((Fs::kName == name ? (found = &RunThreadsCell<Fs>, 0) : 0), ...);
  return found;
}

class ThreadsPlan : public ExperimentPlan {
 public:
  explicit ThreadsPlan(const ThreadsParams& p) : p_(p) {
    for (std::size_t n : p_.keys) {
      for (const FilterEntry* f : p_.filters) {
        for (const std::string& layout : p_.layouts) {
          for (int t : p_.threads) {
            if (layout == "per_thread" && t == 1) continue;  // the shared layout's T = 1
            CellPlan c;
            c.identity = {{"kind", "threads"},  {"filter", std::string(f->name)}, {"keys", n},
                          {"layout", layout},   {"threads", t},                  {"queries", p_.queries},
                          {"member_share", p_.member_share}, {"target_fpr", p_.fpr}};
            c.cell_id = CellId(c.identity);
            c.seed = p_.seed;
            // In the suite's unit (key operations at ~10^7 a second, runner.h): the build (the
            // shared filter's once, by its T = 1 cell; per_thread's T filters at once, n / T
            // each on T threads) and three streams of Q lookups, warm-up and repeats, on T threads.
            const bool builds = layout == "per_thread" || t == p_.threads.front();
            const double lookups = 3.0 * double(p_.repeats + 1) * double(p_.queries) / double(std::min(t, Cpus()));
            c.cost = (builds ? 2.0 * double(n) / double(layout == "per_thread" ? std::min(t, Cpus()) : 1) : 0.0) + lookups;
            c.label = std::string(f->name) + " n=" + std::to_string(n) + " " + layout + " T=" + std::to_string(t);
            cells_.push_back({f, n, layout == "shared", t, RunThreadsFor(f->name, AllFilters{})});
            plans_.push_back(std::move(c));
          }
        }
      }
    }
  }

  const std::vector<CellPlan>& cells() const override { return plans_; }

  std::vector<Json> Run(std::size_t i) override {
    const Cell& cell = cells_[i];
    const std::string key = std::string(cell.filter->name) + " " + std::to_string(cell.n);
    if (key != cache_key_) {  // another filter or n: the shared filter kept so far is done with
      cache_.reset();
      cache_key_ = key;
    }
    const std::uint64_t seed = SpreadSeed(p_.seed);
    if (keys_.size() != cell.n || keys_seed_ != seed) {
      keys_.resize(cell.n);
      for (std::size_t k = 0; k < cell.n; ++k) keys_[k] = UniformKey(seed, KeyStream::kMembers, k);
      keys_seed_ = seed;
    }
    ThreadsInputs in;
    in.keys = keys_;
    in.params.target_fpr = p_.fpr;
    in.params.seed = seed;
    in.shared = cell.shared;
    in.threads = cell.threads;
    in.queries = p_.queries;
    in.member_share = p_.member_share;
    in.repeats = p_.repeats;
    in.seed = seed ^ 0x7468726561647300ULL;
    std::shared_ptr<void> none;
    const ThreadsOutcome o = cell.run(in, cell.shared ? cache_ : none);

    Json r;
    r["filter"] = std::string(cell.filter->name);
    r["family"] = std::string(cell.filter->family);
    r["dynamic"] = cell.filter->dynamic;
    r["erasable"] = cell.filter->erasable;
    r["keys"] = cell.n;
    r["layout"] = cell.shared ? "shared" : "per_thread";
    r["threads"] = cell.threads;
    r["filters_built"] = cell.shared ? 1 : cell.threads;
    r["queries"] = p_.queries;
    r["member_share"] = p_.member_share;
    r["target_fpr"] = p_.fpr;
    r["repeats"] = p_.repeats;
    r["keys_inserted"] = o.held;
    r["insert_failures"] = o.insert_failures;
    r["size_bytes"] = o.size_bytes;
    r["bits_per_key"] = o.held ? 8.0 * double(o.size_bytes) / double(o.held) : 0.0;
    std::size_t member_lookups = 0, members_found = 0, absent_queries = 0, absent_found = 0;
    std::vector<double> cpu_shares;
    const std::string baseline_key = key;
    std::array<Summary, kMixes> rates{};
    for (std::size_t m = 0; m < kMixes; ++m) {
      rates[m] = Summarize(o.mixes[m].ops_per_second);
      if (cell.shared && cell.threads == 1) one_thread_[baseline_key][m] = rates[m].median;
    }
    for (std::size_t m = 0; m < kMixes; ++m) {
      const MixOutcome& mix = o.mixes[m];
      const std::string name = kMixNames[m];
      const Summary& rate = rates[m];
      r[name + "_ops_per_second"] = rate.median;
      r[name + "_ops_per_second_min"] = rate.min;
      r[name + "_ops_per_second_max"] = rate.max;
      r[name + "_ops_per_second_samples"] = mix.ops_per_second;
      const auto base = one_thread_.find(baseline_key);
      r[name + "_speedup"] = base != one_thread_.end() && base->second[m] > 0 ? Json(rate.median / base->second[m])
                                                                                : Json(nullptr);
      member_lookups += mix.member_lookups;
      members_found += mix.members_found;
      absent_queries += mix.absent_queries;
      absent_found += mix.absent_found;
      cpu_shares.insert(cpu_shares.end(), mix.cpu_shares.begin(), mix.cpu_shares.end());
    }
    r["member_lookups"] = member_lookups;
    r["members_found"] = members_found;
    r["false_negatives"] = member_lookups - members_found;
    r["negative_queries"] = absent_queries;
    r["false_positives"] = absent_found;
    r["fpr"] = absent_queries ? double(absent_found) / double(absent_queries) : 0.0;
    r["fpr_theory"] = o.fpr_theory;
    PutTeamPlacement(r, o.placement, Summarize(cpu_shares).median);
    return {r};
  }

  std::string Describe(const Json& r) const override {
    char text[240];
    const auto speedup = [&](const char* mix) {
      const Json& s = r[std::string(mix) + "_speedup"];
      return s.is_number() ? s.get<double>() : 0.0;
    };
    std::snprintf(text, sizeof text, "lookups/s member %.3g (%.2fx), absent %.3g (%.2fx), mixed %.3g (%.2fx); CPUs %s",
                  r["member_ops_per_second"].get<double>(), speedup("member"), r["absent_ops_per_second"].get<double>(),
                  speedup("absent"), r["mixed_ops_per_second"].get<double>(), speedup("mixed"),
                  r["thread_cpus"].dump().c_str());
    return text;
  }

  bool Broken(const Json& r) const override { return r.value("false_negatives", 0) != 0; }

 private:
  struct Cell {
    const FilterEntry* filter;
    std::size_t n;
    bool shared;
    int threads;
    RunThreadsFn run;
  };

  static int Cpus() { return static_cast<int>(PlacementCpus().size()); }

  ThreadsParams p_;
  std::vector<Cell> cells_;
  std::vector<CellPlan> plans_;
  std::vector<std::uint64_t> keys_;
  std::uint64_t keys_seed_ = 0;
  std::shared_ptr<void> cache_;  // the shared filter of (filter, n) = cache_key_
  std::string cache_key_;
  std::map<std::string, std::array<double, kMixes>> one_thread_;  // (filter, n) -> T = 1 medians
};

const ParamSpec kThreadsParams[] = {
    {"filters", ParamType::kFilters, {}, "filters whose lookups run on T threads"},
    {"seed", ParamType::kInt, AtLeast(0), "members, non-members, query streams and hash seed (default: the suite's)"},
    {"keys", ParamType::kIntList, Between(1, 1e9), "keys (n) the shared filter holds, and the per_thread filters together (n / T each); one set of cells per n"},
    {"threads", ParamType::kIntList, Between(1, 4096), "thread counts T, 1 among them (the speedups' base); more than the CPUs is allowed (threads then share CPUs; cpu_share says so) (default: 1, 2, 4, ... up to the CPUs this process may use, and that count)"},
    {"layouts", ParamType::kStrList, {}, "shared (one filter, T readers) and/or per_thread (T filters of n / T keys, each read by its own thread) (default both)"},
    {"queries", ParamType::kInt, Between(1, 1e10), "lookups per stream and run (Q), split into T slices (default 10^6)"},
    {"member_share", ParamType::kNum, Open(0, 1), "the mixed stream's share of member lookups (default 0.5)"},
    {"fpr", ParamType::kNum, Open(0, 1), "target FPR of the filters sized from it (default 0.01)"},
    {"repeats", ParamType::kInt, Between(1, 1000), "timed runs per stream after the untimed warm-up; the median is reported with min and max (default 5)"},
};

std::unique_ptr<ExperimentPlan> ThreadsPlanFrom(const PlanInput& in) {
  ThreadsParams p;
  for (const FilterEntry* filter : in.filters) {
    if (!RunThreadsFor(filter->name, AllFilters{})) {
      throw InputError("filter '" + std::string(filter->name) + "' has no typed lookups here");
    }
    p.filters.push_back(filter);
  }
  if (!in.Has("keys")) throw InputError("give " + in.Name("keys"));
  p.keys = in.params["keys"].get<std::vector<std::size_t>>();
  p.threads = ThreadCountsFrom(in);
  if (in.Has("layouts")) {
    p.layouts = in.params["layouts"].get<std::vector<std::string>>();
    for (const std::string& layout : p.layouts) {
      if (layout != "shared" && layout != "per_thread") {
        throw InputError(in.Name("layouts") + " must be shared or per_thread, got '" + layout + "'");
      }
    }
    if (std::find(p.layouts.begin(), p.layouts.end(), "shared") == p.layouts.end()) {
      throw InputError(in.Name("layouts") + " must include shared: per_thread's speedup divides by its T = 1");
    }
  }
  p.queries = in.Get<std::size_t>("queries", p.queries);
  for (int t : p.threads) {
    if (std::size_t(t) > p.queries) {
      throw InputError(in.Name("queries") + " " + std::to_string(p.queries) + " gives no lookup to some of " +
                       std::to_string(t) + " threads");
    }
    for (std::size_t n : p.keys) {
      if (std::size_t(t) > n) {
        throw InputError(in.Name("keys") + " " + std::to_string(n) + " gives no key to some of " +
                         std::to_string(t) + " per_thread filters");
      }
    }
  }
  p.member_share = in.Get("member_share", p.member_share);
  p.fpr = in.Get("fpr", p.fpr);
  p.repeats = in.Get("repeats", p.repeats);
  p.seed = in.Get<std::uint64_t>("seed", 1);
  return MakeThreadsPlan(p);
}

std::vector<FieldSpec> ThreadsFields() {
  std::vector<FieldSpec> fields = {
      {"layout", "string", "", "threads: shared (one filter of n keys read by every thread) or per_thread (T filters of n / T keys, each built and read by its own thread)", "threads", kIdentity},
      {"filters_built", "integer", "count", "threads: filters the cell reads: 1 (shared) or T (per_thread)", "threads"},
      {"member_share", "number", "fraction", "threads: the mixed stream's share of member lookups", "threads", kIdentity},
      {"member_lookups", "integer", "queries", "threads: member lookups over the three streams and every run, warm-up included", "threads"},
      {"members_found", "integer", "queries", "threads: of member_lookups, those found, summed over the threads; false_negatives is the difference (must be 0)", "threads"},
  };
  for (const char* mix : kMixNames) {
    const std::string m = mix;
    const std::string what = m == "member" ? "member keys (sampled from those the filter holds)"
                             : m == "absent" ? "fresh non-members" : "a mix of members (member_share) and non-members";
    fields.push_back({m + "_ops_per_second", "number", "lookups/s", "threads: lookups of " + what + " per second over all T threads (Q / the wall time from the barrier to the last thread's end), median of the timed runs", "threads", kMachine});
    fields.push_back({m + "_ops_per_second_min", "number", "lookups/s", "slowest timed run", "threads", kMachine});
    fields.push_back({m + "_ops_per_second_max", "number", "lookups/s", "fastest timed run", "threads", kMachine});
    fields.push_back({m + "_ops_per_second_samples", "array", "lookups/s", "each timed run, in the order they ran", "threads", kMachine});
    fields.push_back({m + "_speedup", "number|null", "x", "threads: " + m + "_ops_per_second / the shared layout's T = 1 median of the same filter and n; null when that cell did not run in this process", "threads", kMachine});
  }
  for (FieldSpec& f : ThreadTeamFields()) fields.push_back(std::move(f));
  return fields;
}

}  // namespace

std::vector<int> ThreadCountsFrom(const PlanInput& in) {
  std::vector<int> threads = in.Has("threads") ? in.params["threads"].get<std::vector<int>>()
                                               : DefaultThreadCounts(static_cast<int>(PlacementCpus().size()));
  std::sort(threads.begin(), threads.end());
  threads.erase(std::unique(threads.begin(), threads.end()), threads.end());
  if (threads.empty() || threads.front() != 1) {
    throw InputError(in.Name("threads") + " must include 1: the speedups divide by one thread's rate");
  }
  return threads;
}

std::unique_ptr<ExperimentPlan> MakeThreadsPlan(const ThreadsParams& params) {
  return std::make_unique<ThreadsPlan>(params);
}

const KindSpec kThreadsKind{
    "threads", "lookups on T pinned threads at once, one shared filter or one per thread: throughput and speedup",
    {std::begin(kThreadsParams), std::end(kThreadsParams)}, true, false, &ThreadsPlanFrom, ThreadsFields()};

}  // namespace amq
