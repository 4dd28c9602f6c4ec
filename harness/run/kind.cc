// harness/run/kind.cc - checking and parsing declared parameters (see the header).
#include "harness/run/kind.h"

#include <cmath>
#include <sstream>

#include "core/errors.h"

namespace amq {
namespace {

bool IsIntegral(ParamType t) { return t == ParamType::kInt || t == ParamType::kIntList || t == ParamType::kBytes; }

std::string Number(double v) {
  std::ostringstream out;
  if (v == std::floor(v) && std::abs(v) < 1e15) {
    out << static_cast<long long>(v);
  } else {
    out << v;
  }
  return out.str();
}

std::string TypeText(ParamType t) {
  switch (t) {
    case ParamType::kInt: return "an integer";
    case ParamType::kNum: return "a number";
    case ParamType::kStr: return "a string";
    case ParamType::kBool: return "true or false";
    case ParamType::kIntList: return "a list of integers";
    case ParamType::kNumList: return "a list of numbers";
    case ParamType::kStrList: return "a list of strings";
    case ParamType::kBytes: return "a size in bytes (an integer)";
    case ParamType::kTrace:
      return "a table { path = \"FILE\", optional = BOOL, key = \"5tuple\" } or { synth = { packets, flows, seed, alpha } }";
    case ParamType::kFilters: return "a table (or list of tables) of filter selectors";
  }
  return "?";
}

bool InRange(const ParamRange& r, double v) {
  const bool above = r.low_open ? v > r.low : v >= r.low;
  const bool below = r.high_open ? v < r.high : v <= r.high;
  return above && below;
}

void CheckElement(const ParamSpec& spec, const Json& v, const std::string& label) {
  const bool integral = IsIntegral(spec.type);
  const bool ok = spec.type == ParamType::kStrList ? v.is_string()
                  : integral                      ? v.is_number_integer()
                                                  : v.is_number();
  if (!ok) throw InputError(label + ": must be " + TypeText(spec.type));
  if (spec.type == ParamType::kStrList) return;
  const double x = v.get<double>();
  if (!InRange(spec.range, x)) {
    throw InputError(label + " must be " + RangeText(spec) + ", got " + v.dump());
  }
}

}  // namespace

// 4194304 as "4M", 137438953472 as "128G": sizes as the command line takes them.
static std::string Bytes(double v) {
  const auto n = static_cast<unsigned long long>(v);
  for (const auto& [shift, unit] : {std::pair{30, "G"}, std::pair{20, "M"}, std::pair{10, "K"}}) {
    if (n >= (1ULL << shift) && n % (1ULL << shift) == 0) return std::to_string(n >> shift) + unit;
  }
  return std::to_string(n);
}

std::string RangeText(const ParamSpec& spec) {
  const ParamRange& r = spec.range;
  const bool integral = IsIntegral(spec.type);
  if (spec.type == ParamType::kBytes && !std::isinf(r.low) && !std::isinf(r.high)) {
    return "in " + Bytes(r.low) + " .. " + Bytes(r.high);
  }
  if (std::isinf(r.high) && std::isinf(r.low)) return "any value";
  if (std::isinf(r.high)) return (r.low_open ? "greater than " : "at least ") + Number(r.low);
  if (std::isinf(r.low)) return (r.high_open ? "less than " : "at most ") + Number(r.high);
  if (integral && !r.low_open && !r.high_open) return "in " + Number(r.low) + " .. " + Number(r.high);
  return std::string("in ") + (r.low_open ? "(" : "[") + Number(r.low) + ", " + Number(r.high) +
         (r.high_open ? ")" : "]");
}

void CheckParam(const ParamSpec& spec, const Json& value, const std::string& label) {
  const auto fail_type = [&] { throw InputError(label + ": must be " + TypeText(spec.type)); };
  switch (spec.type) {
    case ParamType::kInt:
    case ParamType::kNum:
    case ParamType::kBytes:
      CheckElement(spec, value, label);
      break;
    case ParamType::kStr:
      if (!value.is_string()) fail_type();
      break;
    case ParamType::kBool:
      if (!value.is_boolean()) fail_type();
      break;
    case ParamType::kIntList:
    case ParamType::kNumList:
    case ParamType::kStrList:
      if (!value.is_array()) fail_type();
      for (const Json& v : value) CheckElement(spec, v, label);
      if (value.empty() && spec.name != "charts" && spec.name != "benchmarks") {
        throw InputError(label + ": needs at least one value");
      }
      break;
    case ParamType::kTrace:
    case ParamType::kFilters:
      // Their structure is checked where they are read (trace_source.h, the suite's selectors).
      if (!value.is_object() && !(spec.type == ParamType::kFilters && value.is_array())) fail_type();
      break;
  }
}

Json ParseOptionValue(const ParamSpec& spec, const std::string& text) {
  const std::string option = "--" + std::string(spec.option);
  const auto parse_number = [&](const std::string& part) -> Json {
    std::istringstream in(part);
    if (IsIntegral(spec.type)) {
      long long v = 0;
      if (!(in >> v) || !in.eof()) throw InputError(option + ": '" + part + "' is not a number (an integer)");
      return v;
    }
    double v = 0;
    if (!(in >> v) || !in.eof()) throw InputError(option + ": '" + part + "' is not a number");
    return v;
  };
  switch (spec.type) {
    case ParamType::kInt:
    case ParamType::kNum:
      return parse_number(text);
    case ParamType::kStr:
      return text;
    case ParamType::kBool:
      if (text == "true" || text == "false") return text == "true";
      throw InputError(option + ": '" + text + "' is not true or false");
    case ParamType::kIntList:
    case ParamType::kNumList:
    case ParamType::kStrList: {
      Json list = Json::array();
      std::stringstream in(text);
      for (std::string part; std::getline(in, part, ',');) {
        if (part.empty()) continue;
        list.push_back(spec.type == ParamType::kStrList ? Json(part) : parse_number(part));
      }
      if (list.empty()) throw InputError(option + " needs at least one value");
      return list;
    }
    case ParamType::kBytes: {
      // "1073741824", "1G", "1GiB", "512M", "64MiB", "4096K": the suffixes binary.
      const auto bad = [&] {
        return InputError(option + ": '" + text + "' is not a size (bytes, or a number with K, M or G)");
      };
      std::size_t used = 0;
      unsigned long long value = 0;
      if (text.empty() || text[0] < '0' || text[0] > '9') throw bad();
      try {
        value = std::stoull(text, &used);
      } catch (const std::exception&) {
        throw bad();
      }
      std::string unit = text.substr(used);
      if (unit.size() == 3 && unit.substr(1) == "iB") unit.resize(1);
      const int shift = unit == "K" ? 10 : unit == "M" ? 20 : unit == "G" ? 30 : 0;
      if (shift == 0 && !unit.empty()) throw bad();
      if (value > (std::numeric_limits<unsigned long long>::max() >> 31)) throw bad();
      return static_cast<long long>(value << shift);
    }
    case ParamType::kTrace:
      return Json{{"path", text}};
    case ParamType::kFilters:
      break;
  }
  throw InputError(option + ": cannot be given on the command line");
}

std::string PlanInput::Name(std::string_view name) const {
  if (command_line) {
    for (const ParamSpec& s : specs) {
      if (s.name == name && !s.option.empty()) return "--" + std::string(s.option);
    }
  }
  return std::string(name);
}

const ParamSpec* KindSpec::Find(std::string_view key) const {
  for (const ParamSpec& s : params) {
    if (s.name == key) return &s;
  }
  return nullptr;
}

std::vector<ParamSpec> Concat(std::initializer_list<std::span<const ParamSpec>> parts) {
  std::vector<ParamSpec> all;
  for (std::span<const ParamSpec> part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

}  // namespace amq
