// commands/option_lists.h - how every command reads its options: one parse that turns any
// Boost.Program_options error into bad input naming the command, and comma-list options
// ("--fpr 0.01,0.001") parsed the same way everywhere, a bad element naming its option.
#pragma once

#include <boost/program_options.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.h"

namespace amq {

// Parses args into a variables map. `positional` names what bare arguments mean; by default
// there are none, so a stray value ("--fpr 0.01 0.001") is an error, not silently ignored.
inline boost::program_options::variables_map ParseOptions(
    const std::string& command, const std::vector<std::string>& args,
    const boost::program_options::options_description& options,
    const boost::program_options::positional_options_description& positional = {}) {
  namespace po = boost::program_options;
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError(command + ": " + e.what());
  }
  return vm;
}

// The non-empty elements of a comma list ("a,,b" is a and b).
inline std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

template <class T>
std::vector<T> ParseList(const std::string& option, const std::string& text) {
  std::vector<T> values;
  for (const std::string& part : SplitCommas(text)) {
    std::istringstream in(part);
    T value{};
    if (!(in >> value) || !in.eof()) {
      throw InputError("--" + option + ": '" + part + "' is not a number");
    }
    values.push_back(value);
  }
  if (values.empty()) throw InputError("--" + option + " needs at least one value");
  return values;
}

}  // namespace amq
