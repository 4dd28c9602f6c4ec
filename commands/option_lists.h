// commands/option_lists.h - comma-list options ("--fpr 0.01,0.001"): every command parses them
// the same way, and a bad element is bad input naming the option.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "core/errors.h"

namespace amq {

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
