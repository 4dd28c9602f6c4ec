// harness/adapt_plan.cc - the three adaptive kinds as plans for the one runner: a cell is one
// filter at one geometry and one workload setting; its lines are its trials (or its trace's
// windows), then its cell line (the summary over trials, or the whole replay).
#include <sstream>

#include "core/errors.h"
#include "core/file_util.h"
#include "harness/adapt_experiment.h"
#include "harness/cell_id.h"
#include "traces/trace_io.h"

namespace amq {
namespace {

const char* AttackName(AttackKind a) {
  return a == AttackKind::kKnownFalsePositives ? "known_fps" : "random_set";
}

// Every packet's key in trace order, through the trace readers of traces/.
std::vector<std::uint64_t> ReadPacketKeys(const TraceSource& source) {
  source.Materialise();
  std::vector<std::uint64_t> keys;
  ReadTrace(source.path, [&](const TraceRecord& r) { keys.push_back(FlowHash(r.flow, source.key)); });
  if (keys.empty()) throw InputError("trace " + source.path + " has no IP packets");
  return keys;
}

struct AdaptCell {
  const AdaptEntry* filter = nullptr;
  int bits = 8;
  double as_ratio = 0, queries_per_flow = 0;  // synthetic
  AttackKind attack = AttackKind::kKnownFalsePositives;
  std::size_t set_size = 0;                   // adversarial
  std::size_t queries_per_set = 0;
};

class AdaptPlan : public ExperimentPlan {
 public:
  explicit AdaptPlan(const AdaptParams& p) : p_(p) {
    // The same nesting `amqbench adapt` always had: bits, then the workload lists, then filters.
    for (int bits : p_.bits_per_slot) {
      if (p_.kind == AdaptKind::kSynthetic) {
        for (double ratio : p_.as_ratios) {
          for (double qpf : p_.queries_per_flow) {
            for (const AdaptEntry* f : p_.filters) Add({f, bits, ratio, qpf});
          }
        }
      } else if (p_.kind == AdaptKind::kTrace) {
        for (const AdaptEntry* f : p_.filters) Add({f, bits});
      } else {
        for (AttackKind attack : p_.attacks) {
          for (std::size_t set : p_.set_sizes) {
            for (std::size_t n : p_.queries_per_set) {
              for (const AdaptEntry* f : p_.filters) Add({f, bits, 0, 0, attack, set, n});
            }
          }
        }
      }
    }
  }

  const std::vector<CellPlan>& cells() const override { return plans_; }

  std::string SkipReason() const override {
    if (p_.trace && !p_.trace->Available()) return "trace " + p_.trace->Describe() + " is not here";
    return "";
  }

  void Prepare() override {
    if (p_.kind == AdaptKind::kTrace && packets_.empty()) packets_ = ReadPacketKeys(*p_.trace);
  }

  std::vector<Json> Run(std::size_t i) override {
    const AdaptCell& c = cells_[i];
    AdaptGeometry g = p_.geometry;
    g.bits_per_slot = c.bits;
    std::vector<Json> lines;
    if (p_.kind == AdaptKind::kTrace) {
      if (packets_.empty()) packets_ = ReadPacketKeys(*p_.trace);
      TraceSpec spec;
      spec.geometry = g;
      spec.packets = &packets_;
      spec.trace = p_.trace->synth ? p_.trace->Describe() : BaseName(p_.trace->path);
      spec.windows = p_.windows;
      spec.seed = p_.seed;
      const Json result = c.filter->trace(spec);
      for (const Json& w : result["windows"]) lines.push_back(w);
      lines.push_back(result["whole"]);
      return lines;
    }
    for (int t = 0; t < p_.trials; ++t) {
      if (p_.kind == AdaptKind::kSynthetic) {
        SyntheticSpec spec;
        spec.geometry = g;
        spec.as_ratio = c.as_ratio;
        spec.queries_per_flow = c.queries_per_flow;
        spec.popularity = p_.popularity;
        spec.trial = t;
        spec.seed = p_.seed + t;
        lines.push_back(c.filter->synthetic(spec));
      } else {
        AdversarialSpec spec;
        spec.geometry = g;
        spec.attack = c.attack;
        spec.set_size = c.set_size;
        spec.repeats = c.queries_per_set;
        spec.trial = t;
        spec.seed = p_.seed + t;
        lines.push_back(c.filter->adversarial(spec));
      }
    }
    Json summary = SummarizeTrials(lines);
    if (!p_.trial_lines) lines.clear();
    lines.push_back(std::move(summary));
    return lines;
  }

  std::string Describe(const Json& r) const override {
    char text[200];
    const auto field = [&](const char* name) { return r.value(name, Json(nullptr)).dump(); };
    if (p_.kind == AdaptKind::kAdversarial) {
      std::snprintf(text, sizeof text, "%s false positives in %s queries (replayed with adaptation off: %s)",
                    field("false_positives").c_str(), field("negative_queries").c_str(),
                    field("false_positives_static").c_str());
    } else {
      const Json fpr = r.value("fpr", Json(nullptr));
      std::snprintf(text, sizeof text, "load %.3f, fpr %.6f (static theory %.6f), %s adaptations",
                    r.value("load_factor", 0.0), fpr.is_number() ? fpr.get<double>() : 0.0,
                    r.value("fpr_theory_static", 0.0), field("adaptations").c_str());
    }
    return text;
  }

 private:
  void Add(const AdaptCell& c) {
    const AdaptGeometry& g = p_.geometry;
    CellPlan plan;
    plan.identity = {{"kind", AdaptKindName(p_.kind)},
                     {"filter", std::string(c.filter->name)},
                     {"slots", g.slots},
                     {"bits_per_slot", c.bits},
                     {"selector_bits", c.filter->cyclic ? g.selector_bits : 0},
                     {"tables", c.filter->tables ? g.tables : 0},
                     {"max_load", g.max_load},
                     {"max_kicks", g.max_kicks},
                     {"max_moves", c.filter->cuckooing ? g.max_moves : 0}};
    std::ostringstream label;
    label << c.filter->name << " bits=" << c.bits;
    double queries = 0;
    if (p_.kind == AdaptKind::kSynthetic) {
      plan.identity["as_ratio"] = c.as_ratio;
      plan.identity["queries_per_flow"] = c.queries_per_flow;
      plan.identity["popularity"] = p_.popularity.Name();
      plan.identity["trials"] = p_.trials;
      label << " A/S=" << c.as_ratio << " q/flow=" << c.queries_per_flow;
      queries = p_.trials * c.as_ratio * c.queries_per_flow * double(g.slots) * g.max_load;
    } else if (p_.kind == AdaptKind::kTrace) {
      plan.identity["trace"] = p_.trace->Identity();
      plan.identity["windows"] = p_.windows;
      queries = 1e6;
    } else {
      plan.identity["attack"] = AttackName(c.attack);
      plan.identity["set_size"] = c.set_size;
      plan.identity["queries_per_set"] = c.queries_per_set;
      plan.identity["trials"] = p_.trials;
      label << " " << AttackName(c.attack) << " set=" << c.set_size << " n=" << c.queries_per_set;
      // Twice: the adaptive run and its replay with adaptation off; two fills per trial too.
      queries = 2.0 * double(p_.trials) * double(c.queries_per_set);
    }
    plan.cell_id = CellId(plan.identity);
    plan.seed = p_.seed;
    // In the suite's unit (key operations at ~10^7 a second, runner.h), so the suite's ETA can
    // extrapolate from one kind to the next: filling is per slot, and a query through
    // query_and_adapt about 0.3 units, which fits adapt_grid (planned 45.7 s, took 42.6 s);
    // adapt_support, mostly fills, comes out 2x high (planned 50 s, took 27.6 s).
    const double fills = p_.kind == AdaptKind::kAdversarial ? 2 : 1;  // the replay builds a twin
    plan.cost = fills * double(p_.trials) * double(g.slots) + queries * 0.3;
    plan.label = label.str();
    cells_.push_back(c);
    plans_.push_back(std::move(plan));
  }

  AdaptParams p_;
  std::vector<AdaptCell> cells_;
  std::vector<CellPlan> plans_;
  std::vector<std::uint64_t> packets_;
};

}  // namespace

const char* AdaptKindName(AdaptKind kind) {
  switch (kind) {
    case AdaptKind::kSynthetic:
      return "adapt_synthetic";
    case AdaptKind::kTrace:
      return "adapt_trace";
    case AdaptKind::kAdversarial:
      return "adapt_adversarial";
  }
  return "?";
}

void ValidateAdaptParams(const AdaptParams& p) {
  if (p.filters.empty()) throw InputError("adapt: no filter selected");
  for (const AdaptEntry* f : p.filters) {
    for (int bits : p.bits_per_slot) {
      AdaptGeometry g = p.geometry;
      g.bits_per_slot = bits;
      if (const std::string why = f->invalid(g); !why.empty()) {
        throw InputError(std::string(f->name) + ": " + why +
                         (f->cyclic ? " (--selector-bits, --bits-per-slot)" : ""));
      }
    }
  }
  if (p.kind == AdaptKind::kTrace) {
    if (!p.trace) throw InputError("the adapt_trace experiment needs a trace");
    if (!p.trace->optional && !p.trace->synth) CheckReadableFile(p.trace->path, "trace");
  }
}

std::unique_ptr<ExperimentPlan> MakeAdaptPlan(const AdaptParams& params) {
  return std::make_unique<AdaptPlan>(params);
}

}  // namespace amq
