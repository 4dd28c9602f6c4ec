// commands/kind_options.h - a command's options for an experiment kind, read off the kind's
// declaration (harness/run/kind.h): one option per declared parameter that names one, its help
// text from the declaration (meaning, range, what --quick sets), its value parsed and checked by
// the same functions the suite reader uses. A command adds only the options that are its own
// (--out, --force, ...) and those that do not map to one parameter (--filter, --trace-key).
#pragma once

#include <boost/program_options.hpp>
#include <map>
#include <string>
#include <vector>

#include "core/errors.h"
#include "harness/run/kind.h"

namespace amq {

class KindOptions {
 public:
  // The options of every kind given (a command that runs one of several kinds, as `adapt`
  // does, offers the union; a parameter two kinds share is one option).
  KindOptions(const std::vector<const KindSpec*>& kinds, boost::program_options::options_description& options) {
    for (const KindSpec* kind : kinds) {
      for (const ParamSpec& spec : kind->params) {
        if (spec.option.empty() || texts_.count(std::string(spec.option))) continue;
        std::string& text = texts_[std::string(spec.option)];
        specs_[std::string(spec.option)] = &spec;
        std::string help = std::string(spec.meaning);
        if (spec.type != ParamType::kStr && spec.type != ParamType::kStrList && spec.type != ParamType::kTrace &&
            spec.type != ParamType::kBool) {
          help += "; " + RangeText(spec);
        }
        if (!spec.quick.empty()) help += "; --quick " + std::string(spec.quick);
        options.add_options()(std::string(spec.option).c_str(), boost::program_options::value(&text), help.c_str());
      }
    }
  }

  // The parameters of `kind` given on the command line, each checked against its declaration
  // (every option given is checked, whichever kind it belongs to); with `quick`, the kind's
  // declared quick values where the user gave none.
  Json Params(const boost::program_options::variables_map& vm, const KindSpec& kind, bool quick) const {
    Json params = Json::object();
    for (const auto& [option, spec] : specs_) {
      if (!vm.count(option)) continue;
      const Json value = ParseOptionValue(*spec, texts_.at(option));
      CheckParam(*spec, value, "--" + option);
      if (kind.Find(spec->name)) params[std::string(spec->name)] = value;
    }
    if (quick) {
      for (const ParamSpec& spec : kind.params) {
        if (!spec.quick.empty() && !params.contains(std::string(spec.name))) {
          params[std::string(spec.name)] = Json::parse(spec.quick);
        }
      }
    }
    return params;
  }

 private:
  std::map<std::string, std::string> texts_;  // option -> its text (stable addresses)
  std::map<std::string, const ParamSpec*> specs_;
};

// A command line's input for a kind's plan: messages name options (--fpr), not keys.
inline PlanInput CommandLineInput(const KindSpec& kind, Json params, std::string experiment) {
  PlanInput in;
  in.params = std::move(params);
  in.experiment = std::move(experiment);
  in.command_line = true;
  in.specs = kind.params;
  return in;
}

}  // namespace amq
