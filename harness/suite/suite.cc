// harness/suite/suite.cc - suite files (see the header).
#include "harness/suite/suite.h"

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
#include "harness/cell/registry.h"
#include "harness/kinds/all.h"
#include "harness/run/trace_source.h"

namespace amq {
namespace {

// Keys every experiment has beside its kind's parameters (quick and full may not change them).
const ParamSpec kCommonKeys[] = {
    {"id", ParamType::kStr, {}, "the experiment's name: its output file, and what --only picks"},
    {"kind", ParamType::kStr, {}, "the experiment kind (harness/kinds/all.h)"},
    {"title", ParamType::kStr, {}, "a title for the report"},
    {"section", ParamType::kStr, {}, "the report section that shows it"},
    {"charts", ParamType::kStrList, {}, "the charts it feeds"},
    {"timed", ParamType::kBool, {},
     "false when the report reads no timing from it: suite --jobs N may then run it beside others"},
};

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
    suite.full = options_.full;
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

  static const ParamSpec* Spec(std::span<const ParamSpec> specs, const std::string& key) {
    for (const ParamSpec& s : specs) {
      if (key == s.name) return &s;
    }
    return nullptr;
  }

  // Type and range of one value, by its declaration (harness/run/kind.h): the check the command
  // line makes too. The context names the experiment (and its quick table); a bad element of a
  // list is located at the element.
  void CheckValue(const toml::node& node, const ParamSpec& s, const std::string& context) const {
    const std::string label = context + "key '" + std::string(s.name) + "'";
    const auto check = [&](const toml::node& at, const Json& value) {
      try {
        CheckParam(s, value, label);
      } catch (const InputError& e) {
        Fail(&at, e.what());
      }
    };
    if (const toml::array* a = node.as_array(); a && s.type != ParamType::kFilters) {
      for (auto&& v : *a) check(v, Json::array({ToJson(v)}));
    }
    check(node, ToJson(node));
    if (s.type == ParamType::kTrace) {
      try {
        (void)TraceSource::FromJson(ToJson(node), options_.cache, label);
      } catch (const InputError& e) {
        Fail(&node, e.what());
      }
    }
    if (s.type == ParamType::kFilters) {
      if (node.is_table()) {
        CheckSelector(*node.as_table(), context);
      } else if (const toml::array* a = node.as_array(); a && !a->empty()) {
        for (auto&& v : *a) {
          if (!v.is_table()) Fail(&v, label + ": must be a table of filter selectors");
          CheckSelector(*v.as_table(), context);
        }
      } else {
        Fail(&node, label + ": must be a table (or list of tables) of filter selectors");
      }
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
      if (selector.contains("adaptive")) ok = ok && (f.adaptive != nullptr) == selector["adaptive"].get<bool>();
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
    e.spec = FindKind(e.kind);
    if (!e.spec) Fail(kind, context + "unknown kind '" + e.kind + "' (" + KindNames() + ")");
    const std::span<const ParamSpec> specs = e.spec->params;
    const toml::table* quick = nullptr;
    const toml::table* full = nullptr;  // optional: what --full extends (larger sweeps)
    for (auto&& [key, node] : t) {
      const std::string k(key.str());
      if (k == "quick" || k == "full") {
        (k == "quick" ? quick : full) = node.as_table();
        if (!node.as_table()) Fail(&node, context + "key '" + k + "': must be a table of what --" + k + " changes");
        continue;
      }
      const ParamSpec* s = Spec(kCommonKeys, k);
      if (!s) s = Spec(specs, k);
      if (!s) Fail(&node, context + "unknown key '" + k + "' for kind " + e.kind);
      CheckValue(node, *s, context);
    }
    if (!quick) {
      Fail(&t, context + "has no quick table: say what --quick shrinks (quick = { ... })");
    }
    for (const toml::table* changes : {quick, full}) {
      if (!changes) continue;
      const std::string which = changes == quick ? "quick" : "full";
      for (auto&& [key, node] : *changes) {
        const std::string k(key.str());
        const ParamSpec* s = Spec(specs, k);
        if (!s) Fail(&node, context + which + ": key '" + k + "' is not a parameter of kind " + e.kind);
        CheckValue(node, *s, context + which + ": ");
      }
    }
    if (!t.contains("filters") && e.spec->takes_filters) Fail(&t, context + "needs filters = { ... }");
    e.title = t.get("title") ? *t.get("title")->value<std::string>() : e.id;
    e.section = t.get("section") ? *t.get("section")->value<std::string>() : e.id;
    if (const toml::node* timed = t.get("timed")) e.timed = *timed->value<bool>();
    if (const toml::node* charts = t.get("charts")) {
      for (auto&& c : *charts->as_array()) e.charts.push_back(*c.value<std::string>());
    }

    // The parameters in effect: the experiment's, with --quick's or --full's changes over them.
    e.params = Json::object();
    for (auto&& [key, node] : t) {
      const std::string k(key.str());
      if (k != "quick" && k != "full" && !Spec(kCommonKeys, k)) e.params[k] = ToJson(node);
    }
    if (options_.quick) {
      for (auto&& [key, node] : *quick) e.params[std::string(key.str())] = ToJson(node);
    }
    if (options_.full && full) {
      for (auto&& [key, node] : *full) e.params[std::string(key.str())] = ToJson(node);
    }
    if (!e.params.contains("seed")) e.params["seed"] = suite.seed;
    try {
      e.plan = MakePlan(e);
    } catch (const InputError& error) {
      Fail(&t, context + error.what());
    }
    return e;
  }

  // The kind's plan, from the parameters in effect; the kind checks what spans parameters.
  std::unique_ptr<ExperimentPlan> MakePlan(const SuiteExperiment& e) const {
    PlanInput in;
    in.params = e.params;
    in.params.erase("filters");
    in.experiment = e.id;
    in.micro_native = options_.micro_native;
    in.micro_portable = options_.micro_portable;
    in.cache = options_.cache;
    in.specs = e.spec->params;
    if (e.spec->takes_filters) {
      in.filters = SelectAll(e.params["filters"]);
      if (in.filters.empty()) throw InputError("filters select no filter of this build");
    }
    return e.spec->plan(in);
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
