// harness/suite.cc - suite files (see the header).
#include "harness/suite.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "core/file_util.h"
#include "harness/adapt_experiment.h"
#include "harness/counting_experiment.h"
#include "harness/filters_experiment.h"
#include "harness/machine_experiment.h"
#include "harness/micro_experiment.h"
#include "harness/registry.h"

namespace amq {
namespace {

// The value a key must hold.
enum class Type { kInt, kNum, kStr, kBool, kIntList, kNumList, kStrList, kTrace, kFilters };

struct KeySpec {
  const char* name;
  Type type;
  double min = 0;
  double max = 0;  // min == max == 0: no range
};

// Keys every experiment may have (quick may not change them), then each kind's parameters.
const std::vector<KeySpec> kCommonKeys = {{"id", Type::kStr},       {"kind", Type::kStr},
                                          {"title", Type::kStr},    {"section", Type::kStr},
                                          {"charts", Type::kStrList}};

const std::vector<KeySpec> kGeometryKeys = {
    {"filters", Type::kFilters},       {"seed", Type::kInt, 0, 9e15},
    {"slots", Type::kInt, 16, 4294967296.0}, {"bits_per_slot", Type::kIntList, 4, 32},
    {"selector_bits", Type::kInt, 1, 4},  {"tables", Type::kInt, 2, 8},
    {"max_load", Type::kNum, 1e-9, 0.999999}, {"max_kicks", Type::kInt, 1, 1e6},
    {"max_moves", Type::kInt, 1, 1e6}};

std::vector<KeySpec> With(std::vector<KeySpec> base, const std::vector<KeySpec>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

const std::map<std::string, std::vector<KeySpec>> kKindKeys = {
    {"filters",
     {{"filters", Type::kFilters},
      {"seed", Type::kInt, 0, 9e15},
      {"keys", Type::kIntList, 1, 4e9},
      {"capacity", Type::kInt, 1, 4e9},
      {"load_steps", Type::kNumList, 1e-9, 1},
      {"fpr", Type::kNumList, 1e-12, 0.999999},
      {"bits_per_key", Type::kNumList, 1e-9, 64},
      {"max_load", Type::kNumList, 1e-9, 1},
      {"positive_fraction", Type::kNumList, 0, 1},
      {"keys_from", Type::kStrList},
      {"query_dist", Type::kStrList},
      {"repeated_negatives", Type::kInt, 1, 4e9},
      {"churn", Type::kInt, 0, 4e9},
      {"churn_queries", Type::kInt, 0, 1e6},
      {"cache_lines", Type::kInt, 0, 1e6},
      {"trace", Type::kTrace},
      {"trace_members", Type::kNum, 1e-9, 1},
      {"queries", Type::kInt, 1, 4e9},
      {"repeats", Type::kInt, 1, 1000},
      {"max_kicks", Type::kInt, 1, 1e6}}},
    {"adapt_synthetic",
     With(kGeometryKeys, {{"as_ratio", Type::kNumList, 1e-9, 10000},
                          {"queries_per_flow", Type::kNumList, 1e-9, 1e6},
                          {"popularity", Type::kStr},
                          {"trials", Type::kInt, 1, 1000},
                          {"trial_lines", Type::kBool}})},
    {"adapt_trace", With(kGeometryKeys, {{"trace", Type::kTrace}, {"windows", Type::kInt, 1, 10000}})},
    {"adapt_adversarial",
     With(kGeometryKeys, {{"fp_set", Type::kIntList, 1, 1e7},
                          {"attack", Type::kStrList},
                          {"queries_per_set", Type::kIntList, 1, 1e9},
                          {"trials", Type::kInt, 1, 1000},
                          {"trial_lines", Type::kBool}})},
    {"counting",
     {{"filters", Type::kFilters},
      {"seed", Type::kInt, 0, 9e15},
      {"zipf", Type::kNumList, 0, 100},
      {"items", Type::kInt, 1, 4e9},
      {"universe", Type::kInt, 1, 4e9},
      {"trace", Type::kTrace},
      {"fpr", Type::kNum, 1e-12, 0.999999},
      {"max_load", Type::kNum, 1e-9, 1},
      {"depth", Type::kIntList, 1, 32},
      {"absent_queries", Type::kInt, 0, 1e9}}},
    {"micro",
     {{"filters", Type::kFilters},
      {"benchmarks", Type::kStrList},
      {"operations", Type::kStrList},
      {"keys", Type::kIntList, 1000, 1e9},
      {"build", Type::kStr},
      {"repetitions", Type::kInt, 1, 100},
      {"min_time", Type::kNum, 0.001, 100}}},
    // The host, not a filter: no filters key. max_bytes up to 2^37 (the permutation's 32-bit
    // line numbers), as amqbench machine allows.
    {"machine",
     {{"seed", Type::kInt, 0, 9e15},
      {"max_bytes", Type::kInt, 4194304, 137438953472.0},
      {"repeats", Type::kInt, 1, 1000},
      {"min_seconds", Type::kNum, 0.0001, 100},
      {"huge_pages", Type::kStr}}},
};

const char* TypeName(Type t) {
  switch (t) {
    case Type::kInt: return "an integer";
    case Type::kNum: return "a number";
    case Type::kStr: return "a string";
    case Type::kBool: return "true or false";
    case Type::kIntList: return "a list of integers";
    case Type::kNumList: return "a list of numbers";
    case Type::kStrList: return "a list of strings";
    case Type::kTrace: return "a table { path = \"FILE\", optional = BOOL, key = \"5tuple\" } or { synth = { packets, flows, seed, alpha } }";
    case Type::kFilters: return "a table (or list of tables) of filter selectors";
  }
  return "?";
}

// A TOML value as JSON (what the header records, and what the typed parameters are read from).
Json ToJson(const toml::node& node) {
  if (const auto* t = node.as_table()) {
    Json j = Json::object();
    for (auto&& [k, v] : *t) j[std::string(k.str())] = ToJson(v);
    return j;
  }
  if (const auto* a = node.as_array()) {
    Json j = Json::array();
    for (auto&& v : *a) j.push_back(ToJson(v));
    return j;
  }
  if (const auto* v = node.as_integer()) return v->get();
  if (const auto* v = node.as_floating_point()) return v->get();
  if (const auto* v = node.as_string()) return v->get();
  if (const auto* v = node.as_boolean()) return v->get();
  return nullptr;
}

class SuiteReader {
 public:
  SuiteReader(std::string file, const SuiteOptions& options) : file_(std::move(file)), options_(options) {}

  [[noreturn]] void Fail(const toml::node* node, const std::string& message) const {
    std::ostringstream where;
    where << file_;
    if (node) where << ":" << node->source().begin.line << ":" << node->source().begin.column;
    throw InputError(where.str() + ": " + message);
  }

  Suite Read() {
    toml::table root;
    try {
      root = toml::parse_file(file_);
    } catch (const toml::parse_error& e) {
      std::ostringstream where;
      where << file_ << ":" << e.source().begin.line << ":" << e.source().begin.column << ": "
            << e.description();
      throw InputError(where.str());
    }
    Suite suite;
    suite.file = file_;
    suite.file_hash = FileContentHash(file_);
    suite.quick = options_.quick;
    for (auto&& [key, node] : root) {
      if (key.str() != "suite" && key.str() != "experiment") {
        Fail(&node, "unknown key '" + std::string(key.str()) + "' (a suite has [suite] and [[experiment]])");
      }
    }
    const toml::table* head = root["suite"].as_table();
    if (!head) Fail(nullptr, "no [suite] table (it names the suite: name = \"...\")");
    ReadHead(*head, suite);
    const toml::array* experiments = root["experiment"].as_array();
    if (!experiments || experiments->empty()) Fail(head, "no [[experiment]] tables");
    std::set<std::string> ids;
    for (auto&& node : *experiments) {
      const toml::table* t = node.as_table();
      if (!t) Fail(&node, "experiment must be a table ([[experiment]])");
      SuiteExperiment e = ReadExperiment(*t, suite);
      if (!ids.insert(e.id).second) Fail(t->get("id"), "duplicate experiment id '" + e.id + "'");
      suite.experiments.push_back(std::move(e));
    }
    return suite;
  }

 private:
  void ReadHead(const toml::table& head, Suite& suite) {
    for (auto&& [key, node] : head) {
      const std::string k(key.str());
      if (k == "name") {
        if (!node.is_string()) Fail(&node, "[suite] key 'name': must be a string");
        suite.name = *node.value<std::string>();
      } else if (k == "description") {
        if (!node.is_string()) Fail(&node, "[suite] key 'description': must be a string");
        suite.description = *node.value<std::string>();
      } else if (k == "seed") {
        if (!node.is_integer() || *node.value<std::int64_t>() < 0) {
          Fail(&node, "[suite] key 'seed': must be an integer >= 0");
        }
        suite.seed = static_cast<std::uint64_t>(*node.value<std::int64_t>());
      } else if (k == "groups") {
        const toml::table* groups = node.as_table();
        if (!groups) Fail(&node, "[suite] key 'groups': must be a table of filter-name lists");
        for (auto&& [name, list] : *groups) {
          const toml::array* names = list.as_array();
          if (!names) Fail(&list, "group '" + std::string(name.str()) + "': must be a list of filter names");
          std::vector<const FilterEntry*>& members = groups_[std::string(name.str())];
          for (auto&& n : *names) {
            const FilterEntry* f = n.is_string() ? FindFilter(*n.value<std::string>()) : nullptr;
            if (!f) Fail(&n, "group '" + std::string(name.str()) + "': unknown filter " + ToJson(n).dump() + " (amqbench list)");
            members.push_back(f);
          }
        }
      } else {
        Fail(&node, "[suite]: unknown key '" + k + "' (name, description, seed, groups)");
      }
    }
    if (suite.name.empty()) Fail(&head, "[suite] needs name = \"...\"");
  }

  const KeySpec* Spec(const std::vector<KeySpec>& specs, const std::string& key) const {
    for (const KeySpec& s : specs) {
      if (key == s.name) return &s;
    }
    return nullptr;
  }

  void CheckRange(const toml::node& node, const std::string& context, const KeySpec& s, double v) const {
    if ((s.min != 0 || s.max != 0) && !(v >= s.min && v <= s.max)) {
      std::ostringstream msg;
      msg << context << "key '" << s.name << "': " << v << " is outside [" << s.min << ", " << s.max << "]";
      Fail(&node, msg.str());
    }
  }

  // Type and range of one value; the context names the experiment (and its quick table).
  void CheckValue(const toml::node& node, const KeySpec& s, const std::string& context) const {
    const auto fail_type = [&] {
      Fail(&node, context + "key '" + s.name + "': must be " + TypeName(s.type));
    };
    switch (s.type) {
      case Type::kInt:
        if (!node.is_integer()) fail_type();
        CheckRange(node, context, s, double(*node.value<std::int64_t>()));
        break;
      case Type::kNum:
        if (!node.is_number()) fail_type();
        CheckRange(node, context, s, *node.value<double>());
        break;
      case Type::kStr:
        if (!node.is_string()) fail_type();
        break;
      case Type::kBool:
        if (!node.is_boolean()) fail_type();
        break;
      case Type::kIntList:
      case Type::kNumList:
      case Type::kStrList: {
        const toml::array* a = node.as_array();
        if (!a) fail_type();
        for (auto&& v : *a) {
          const bool ok = s.type == Type::kStrList ? v.is_string()
                          : s.type == Type::kIntList ? v.is_integer()
                                                     : v.is_number();
          if (!ok) Fail(&v, context + "key '" + s.name + "': must be " + TypeName(s.type));
          if (s.type != Type::kStrList) CheckRange(v, context, s, *v.value<double>());
        }
        if (a->empty() && std::string(s.name) != "charts" && std::string(s.name) != "benchmarks") {
          Fail(&node, context + "key '" + s.name + "': needs at least one value");
        }
        break;
      }
      case Type::kTrace: {
        const toml::table* t = node.as_table();
        if (!t) fail_type();
        for (auto&& [k, v] : *t) {
          const std::string key(k.str());
          if (key == "path" && v.is_string()) continue;
          if (key == "optional" && v.is_boolean()) continue;
          if (key == "key" && v.is_string()) continue;
          if (key == "synth" && v.is_table()) {
            for (auto&& [sk, sv] : *v.as_table()) {
              const std::string skey(sk.str());
              const bool known = skey == "packets" || skey == "flows" || skey == "seed" || skey == "alpha";
              if (!known || !sv.is_number()) {
                Fail(&sv, context + "key 'trace.synth." + skey + "': synth takes numbers packets, flows, seed, alpha");
              }
            }
            continue;
          }
          Fail(&v, context + "key 'trace." + key + "': must be " + TypeName(Type::kTrace));
        }
        if (!t->contains("path") && !t->contains("synth")) Fail(t, context + "key 'trace': needs path or synth");
        break;
      }
      case Type::kFilters:
        if (node.is_table()) {
          CheckSelector(*node.as_table(), context);
        } else if (const toml::array* a = node.as_array()) {
          if (a->empty()) fail_type();
          for (auto&& v : *a) {
            if (!v.is_table()) fail_type();
            CheckSelector(*v.as_table(), context);
          }
        } else {
          fail_type();
        }
        break;
    }
  }

  void CheckSelector(const toml::table& t, const std::string& context) const {
    for (auto&& [k, v] : t) {
      const std::string key(k.str());
      if (key == "names" || key == "family") {
        const bool list = v.is_array();
        if (!list && !v.is_string()) Fail(&v, context + "filters: '" + key + "' must be a string or a list of strings");
        std::vector<std::string> values;
        if (list) {
          for (auto&& n : *v.as_array()) {
            if (!n.is_string()) Fail(&n, context + "filters: '" + key + "' must hold strings");
            values.push_back(*n.value<std::string>());
          }
        } else {
          values.push_back(*v.value<std::string>());
        }
        for (const std::string& value : values) {
          bool known = false;
          for (const FilterEntry& f : Registry()) known = known || (key == "names" ? f.name == value : f.family == value);
          if (!known) {
            Fail(&v, context + "filters: unknown " + (key == "names" ? "filter '" : "family '") + value + "' (amqbench list)");
          }
        }
      } else if (key == "group") {
        if (!v.is_string() || !groups_.count(*v.value<std::string>())) {
          Fail(&v, context + "filters: unknown group " + ToJson(v).dump() + " (declare it in [suite.groups])");
        }
      } else if (key == "dynamic" || key == "erasable" || key == "adaptive" || key == "fixed_width" || key == "library") {
        if (!v.is_boolean()) Fail(&v, context + "filters: '" + key + "' must be true or false");
      } else {
        Fail(&v, context + "filters: unknown selector key '" + key +
                     "' (names, group, family, dynamic, erasable, adaptive, fixed_width, library)");
      }
    }
  }

  // The filters one selector table picks: every condition holds.
  std::vector<const FilterEntry*> Select(const Json& selector) const {
    std::vector<const FilterEntry*> picked;
    const auto listed = [](const Json& value, std::string_view name) {
      if (value.is_string()) return value.get<std::string>() == name;
      for (const Json& v : value) {
        if (v.get<std::string>() == name) return true;
      }
      return false;
    };
    for (const FilterEntry& f : Registry()) {
      bool ok = true;
      if (selector.contains("names")) ok = ok && listed(selector["names"], f.name);
      if (selector.contains("family")) ok = ok && listed(selector["family"], f.family);
      if (selector.contains("group")) {
        const auto& members = groups_.at(selector["group"].get<std::string>());
        ok = ok && std::find(members.begin(), members.end(), &f) != members.end();
      }
      if (selector.contains("dynamic")) ok = ok && f.dynamic == selector["dynamic"].get<bool>();
      if (selector.contains("erasable")) ok = ok && f.erasable == selector["erasable"].get<bool>();
      if (selector.contains("adaptive")) ok = ok && f.adaptive == selector["adaptive"].get<bool>();
      if (selector.contains("fixed_width")) ok = ok && f.fixed_width == selector["fixed_width"].get<bool>();
      if (selector.contains("library")) ok = ok && f.library.empty() != selector["library"].get<bool>();
      if (ok) picked.push_back(&f);
    }
    // An explicit list keeps its own order (a report's table reads in that order).
    if (selector.contains("names") && selector["names"].is_array()) {
      std::vector<const FilterEntry*> ordered;
      for (const Json& n : selector["names"]) {
        for (const FilterEntry* f : picked) {
          if (f->name == n.get<std::string>()) ordered.push_back(f);
        }
      }
      return ordered;
    }
    if (selector.contains("group")) {
      std::vector<const FilterEntry*> ordered;
      for (const FilterEntry* f : groups_.at(selector["group"].get<std::string>())) {
        if (std::find(picked.begin(), picked.end(), f) != picked.end()) ordered.push_back(f);
      }
      return ordered;
    }
    return picked;
  }

  std::vector<const FilterEntry*> SelectAll(const Json& filters) const {
    std::vector<const FilterEntry*> all;
    const auto add = [&](const Json& selector) {
      for (const FilterEntry* f : Select(selector)) {
        if (std::find(all.begin(), all.end(), f) == all.end()) all.push_back(f);
      }
    };
    if (filters.is_array()) {
      for (const Json& s : filters) add(s);
    } else {
      add(filters);
    }
    return all;
  }

  SuiteExperiment ReadExperiment(const toml::table& t, const Suite& suite) {
    SuiteExperiment e;
    std::ostringstream where;
    where << file_ << ":" << t.source().begin.line;
    e.where = where.str();
    const toml::node* id = t.get("id");
    if (!id || !id->is_string() || id->value<std::string>()->empty()) Fail(&t, "experiment needs id = \"...\"");
    e.id = *id->value<std::string>();
    for (char c : e.id) {
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) {
        Fail(id, "experiment id '" + e.id + "': letters, digits, _ and - only (it names a file)");
      }
    }
    const std::string context = "experiment '" + e.id + "': ";
    const toml::node* kind = t.get("kind");
    if (!kind || !kind->is_string()) Fail(&t, context + "needs kind = \"...\"");
    e.kind = *kind->value<std::string>();
    const auto kind_keys = kKindKeys.find(e.kind);
    if (kind_keys == kKindKeys.end()) {
      Fail(kind, context + "unknown kind '" + e.kind +
                     "' (filters, adapt_synthetic, adapt_trace, adapt_adversarial, counting, micro, machine)");
    }
    const std::vector<KeySpec>& specs = kind_keys->second;
    const toml::table* quick = nullptr;
    for (auto&& [key, node] : t) {
      const std::string k(key.str());
      if (k == "quick") {
        quick = node.as_table();
        if (!quick) Fail(&node, context + "key 'quick': must be a table of what --quick changes");
        continue;
      }
      const KeySpec* s = Spec(kCommonKeys, k);
      if (!s) s = Spec(specs, k);
      if (!s) Fail(&node, context + "unknown key '" + k + "' for kind " + e.kind);
      CheckValue(node, *s, context);
    }
    if (!quick) {
      Fail(&t, context + "has no quick table: say what --quick shrinks (quick = { ... })");
    }
    for (auto&& [key, node] : *quick) {
      const std::string k(key.str());
      const KeySpec* s = Spec(specs, k);
      if (!s) Fail(&node, context + "quick: key '" + k + "' is not a parameter of kind " + e.kind);
      CheckValue(node, *s, context + "quick: ");
    }
    if (!t.contains("filters") && e.kind != "machine") Fail(&t, context + "needs filters = { ... }");
    e.title = t.get("title") ? *t.get("title")->value<std::string>() : e.id;
    e.section = t.get("section") ? *t.get("section")->value<std::string>() : e.id;
    if (const toml::node* charts = t.get("charts")) {
      for (auto&& c : *charts->as_array()) e.charts.push_back(*c.value<std::string>());
    }

    // The parameters in effect: the experiment's, with --quick's changes over them.
    e.params = Json::object();
    for (auto&& [key, node] : t) {
      const std::string k(key.str());
      if (k != "quick" && !Spec(kCommonKeys, k)) e.params[k] = ToJson(node);
    }
    if (options_.quick) {
      for (auto&& [key, node] : *quick) e.params[std::string(key.str())] = ToJson(node);
    }
    if (!e.params.contains("seed")) e.params["seed"] = suite.seed;
    try {
      e.plan = MakePlan(e);
    } catch (const InputError& error) {
      Fail(&t, context + error.what());
    }
    return e;
  }

  TraceSource TraceFrom(const Json& t) const {
    TraceSource trace;
    if (t.contains("synth")) {
      SynthOptions o;
      const Json& s = t["synth"];
      o.packets = s.value("packets", std::uint64_t{o.packets});
      o.flows = s.value("flows", std::uint64_t{o.flows});
      o.seed = s.value("seed", std::uint64_t{o.seed});
      o.alpha = s.value("alpha", o.alpha);
      trace.synth = o;
      std::ostringstream name;
      name << "synth_" << o.packets << "_" << o.flows << "_" << o.alpha << "_" << o.seed << ".pcap";
      trace.path = (std::filesystem::path(options_.cache) / name.str()).string();
    } else {
      trace.path = t["path"].get<std::string>();
      trace.optional = t.value("optional", false);
    }
    trace.key = ParseKeyMode(t.value("key", std::string("5tuple")));
    return trace;
  }

  std::unique_ptr<ExperimentPlan> MakePlan(const SuiteExperiment& e) const {
    const Json& p = e.params;
    if (e.kind == "machine") {
      MachineParams m;
      m.seed = p["seed"].get<std::uint64_t>();
      m.max_bytes = p.value("max_bytes", m.max_bytes);
      m.repeats = p.value("repeats", m.repeats);
      m.min_seconds = p.value("min_seconds", m.min_seconds);
      m.huge_pages = ParseHugePages(p.value("huge_pages", std::string("auto")));
      return MakeMachinePlan(m, e.id);
    }
    const std::vector<const FilterEntry*> filters = SelectAll(p["filters"]);
    if (filters.empty()) throw InputError("filters select no filter of this build");
    if (e.kind == "filters") {
      FiltersParams f;
      f.filters = filters;
      f.seed = p["seed"].get<std::uint64_t>();
      if (p.contains("keys")) f.keys = p["keys"].get<std::vector<std::size_t>>();
      if (p.contains("capacity")) f.capacity = p["capacity"].get<std::size_t>();
      if (p.contains("load_steps")) f.load_steps = p["load_steps"].get<std::vector<double>>();
      if (p.contains("fpr") && p.contains("bits_per_key")) throw InputError("give fpr or bits_per_key, not both");
      if (p.contains("fpr")) {
        f.sizings.clear();
        for (double v : p["fpr"]) f.sizings.push_back({v, 0});
      }
      if (p.contains("bits_per_key")) {
        f.sizings.clear();
        for (double v : p["bits_per_key"]) f.sizings.push_back({0, v});
      }
      if (p.contains("max_load")) f.max_loads = p["max_load"].get<std::vector<double>>();
      if (p.contains("positive_fraction")) f.positive_fractions = p["positive_fraction"].get<std::vector<double>>();
      if (p.contains("keys_from")) {
        f.key_sources.clear();
        for (const Json& k : p["keys_from"]) f.key_sources.push_back(KeySource::Parse(k.get<std::string>()));
      }
      if (p.contains("query_dist")) {
        f.query_dists.clear();
        for (const Json& q : p["query_dist"]) f.query_dists.push_back(Popularity::Parse(q.get<std::string>(), "query_dist"));
      }
      f.repeated_negatives = p.value("repeated_negatives", std::size_t{0});
      f.churn_rounds = p.value("churn", std::size_t{0});
      f.churn_queries = p.value("churn_queries", std::size_t{4});
      f.cache_lines = p.value("cache_lines", std::size_t{0});
      if (p.contains("trace")) {
        if (p.contains("keys") || p.contains("keys_from") || p.contains("query_dist")) {
          throw InputError("a trace sets the keys and the queries: drop keys, keys_from and query_dist");
        }
        f.trace = TraceFrom(p["trace"]);
        f.trace_members = p.value("trace_members", 0.5);
      }
      f.queries = p.value("queries", std::size_t{1000000});
      f.repeats = p.value("repeats", 3);
      f.max_kicks = p.value("max_kicks", 500);
      if (!f.capacity && !f.load_steps.empty()) throw InputError("load_steps needs a capacity");
      ValidateFiltersParams(f);
      return MakeFiltersPlan(f);
    }
    if (e.kind == "counting") {
      // The counting filter is named so the suite says what is compared; the Count-Min sketch
      // it is set against is not a filter and needs no name.
      if (filters.size() != 1 || filters[0]->name != std::string_view("cqf")) {
        throw InputError("counting: filters must select the cqf alone (filters = { names = [\"cqf\"] })");
      }
      CountingParams c;
      c.seed = p["seed"].get<std::uint64_t>();
      c.zipf_alphas = p.contains("zipf") ? p["zipf"].get<std::vector<double>>() : std::vector<double>{};
      c.items = p.value("items", c.items);
      c.universe = p.value("universe", c.universe);
      if (p.contains("trace")) c.trace = TraceFrom(p["trace"]);
      c.fpr = p.value("fpr", c.fpr);
      c.max_load = p.value("max_load", c.max_load);
      if (p.contains("depth")) c.depths = p["depth"].get<std::vector<int>>();
      c.absent_queries = p.value("absent_queries", c.absent_queries);
      ValidateCountingParams(c);
      return MakeCountingPlan(c);
    }
    if (e.kind == "micro") {
      MicroParams m;
      for (const FilterEntry* f : filters) m.filters.emplace_back(f->name);
      if (p.contains("benchmarks")) m.benchmarks = p["benchmarks"].get<std::vector<std::string>>();
      if (p.contains("operations")) {
        m.operations = p["operations"].get<std::vector<std::string>>();
        for (const std::string& op : m.operations) {
          if (std::find(std::begin(kMicroOperations), std::end(kMicroOperations), op) ==
              std::end(kMicroOperations)) {
            throw InputError("operations: unknown operation '" + op + "' (" + MicroOperationsText() + ")");
          }
        }
      }
      const std::string build = p.value("build", std::string("portable"));
      if (build != "portable" && build != "native") throw InputError("build must be portable or native");
      m.build = build;
      m.binary = build == "native" ? options_.micro_native : options_.micro_portable;
      if (p.contains("keys")) {
        m.keys = p["keys"].get<std::vector<std::size_t>>();
        std::vector<std::size_t> sorted = m.keys;
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
          throw InputError("keys: each n once (one benchmark per filter, operation and n)");
        }
      }
      m.repetitions = p.value("repetitions", 5);
      m.min_time = p.value("min_time", 0.0);
      return MakeMicroPlan(m);
    }
    AdaptParams a;
    a.kind = e.kind == "adapt_synthetic" ? AdaptKind::kSynthetic
             : e.kind == "adapt_trace"   ? AdaptKind::kTrace
                                         : AdaptKind::kAdversarial;
    for (const FilterEntry* f : filters) {
      const AdaptEntry* entry = FindAdaptFilter(f->name);
      if (!entry) throw InputError("filter '" + std::string(f->name) + "' cannot take part in adaptive experiments");
      a.filters.push_back(entry);
    }
    a.seed = p["seed"].get<std::uint64_t>();
    a.geometry.slots = p.value("slots", a.geometry.slots);
    if (p.contains("bits_per_slot")) a.bits_per_slot = p["bits_per_slot"].get<std::vector<int>>();
    a.geometry.selector_bits = p.value("selector_bits", a.geometry.selector_bits);
    a.geometry.tables = p.value("tables", a.geometry.tables);
    a.geometry.max_load = p.value("max_load", a.geometry.max_load);
    a.geometry.max_kicks = p.value("max_kicks", a.geometry.max_kicks);
    a.geometry.max_moves = p.value("max_moves", a.geometry.max_moves);
    if (p.contains("as_ratio")) a.as_ratios = p["as_ratio"].get<std::vector<double>>();
    if (p.contains("queries_per_flow")) a.queries_per_flow = p["queries_per_flow"].get<std::vector<double>>();
    if (p.contains("popularity")) a.popularity = Popularity::Parse(p["popularity"].get<std::string>());
    a.trials = p.value("trials", a.trials);
    a.trial_lines = p.value("trial_lines", true);
    if (p.contains("trace")) a.trace = TraceFrom(p["trace"]);
    a.windows = p.value("windows", a.windows);
    if (p.contains("fp_set")) a.set_sizes = p["fp_set"].get<std::vector<std::size_t>>();
    if (p.contains("attack")) {
      a.attacks.clear();
      for (const Json& x : p["attack"]) {
        const std::string name = x.get<std::string>();
        if (name == "known_fps") {
          a.attacks.push_back(AttackKind::kKnownFalsePositives);
        } else if (name == "random_set") {
          a.attacks.push_back(AttackKind::kRandomSet);
        } else {
          throw InputError("attack must be known_fps or random_set, got '" + name + "'");
        }
      }
    }
    if (p.contains("queries_per_set")) a.queries_per_set = p["queries_per_set"].get<std::vector<std::size_t>>();
    ValidateAdaptParams(a);
    return MakeAdaptPlan(a);
  }

  std::string file_;
  SuiteOptions options_;
  std::map<std::string, std::vector<const FilterEntry*>> groups_;
};

}  // namespace

Suite LoadSuite(const std::string& path, const SuiteOptions& options) {
  CheckReadableFile(path, "suite file");
  return SuiteReader(path, options).Read();
}

std::vector<std::size_t> SelectExperiments(const Suite& suite, const std::string& only) {
  std::vector<std::size_t> chosen;
  if (only.empty()) {
    for (std::size_t i = 0; i < suite.experiments.size(); ++i) chosen.push_back(i);
    return chosen;
  }
  std::stringstream in(only);
  for (std::string id; std::getline(in, id, ',');) {
    if (id.empty()) continue;
    std::size_t i = 0;
    while (i < suite.experiments.size() && suite.experiments[i].id != id) ++i;
    if (i == suite.experiments.size()) {
      throw InputError("--only: no experiment '" + id + "' in " + suite.file);
    }
    chosen.push_back(i);
  }
  if (chosen.empty()) throw InputError("--only names no experiment");
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  return chosen;
}

}  // namespace amq
