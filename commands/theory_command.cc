// commands/theory_command.cc - `amqbench theory`: the filters' theory formulas
// (filters/theory_formulas.h, the functions their theory() calls) evaluated on lists of
// arguments and printed as JSON. plots/theory.py draws its theory curves and checks from these
// answers, so each formula is written once, in C++, beside the filters.
//
//   amqbench theory --list                         every formula, its arguments and outputs
//   amqbench theory --formula NAME --args JSON     one request, one answer line
//   amqbench theory --stdin                        a request per line, an answer per line
//
// A request names a formula and gives each of its arguments as a number or a list of numbers:
//   {"formula": "cuckoo_fpr",
//    "args": {"fingerprint_bits": [8, 12], "load": 0.95, "slots_per_bucket": 4}}
// The lists must have one length n and a number stands for each of the n elements (numpy's
// broadcasting, which plots/theory.py's callers rely on: a column of records against one
// parameter); the formula is evaluated element by element, n times. A grid is a list written
// out by the caller. The answer (one line):
//   {"formula": "cuckoo_fpr", "count": 2, "values": {"fpr": [0.03083..., 0.00195...]}}
// Numbers are written so that they read back as the same double (nlohmann::json's shortest
// round-trip form), so Python sees the C++ value to the last bit.
//
// With --stdin each answer is flushed as it is written: plots/theory.py keeps one process open
// for a whole report and asks it again and again, rather than starting one per point. Bad input
// (an unknown formula, a missing or unknown argument, a value that is not a number, not whole
// where the formula counts, or outside the formula's range, a line that is not JSON) ends the
// command with one line on stderr and exit status 2, after the answers to the lines before it.
#include <array>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "commands/commands.h"
#include "commands/option_lists.h"
#include "core/errors.h"
#include "filters/theory_formulas.h"

namespace amq {
// The helpers are named apart: the driver is compiled four files at a time (CMakeLists.txt's
// unity builds), where another file's anonymous helpers of the same name would collide.
namespace theory_command {

namespace po = boost::program_options;
using nlohmann::json;

constexpr double kNoLimit = std::numeric_limits<double>::infinity();
constexpr double kMaxCount = 9007199254740992.0;  // 2^53: counts stay exact as doubles

// One argument: its range (each end open or closed) and whether it must be a whole number.
struct ArgSpec {
  std::string_view name;
  double min;
  double max;
  bool min_open;
  bool max_open;
  bool whole;
};

// The arguments the formulas share, with the ranges inside which every formula using them is
// defined and finite.
constexpr ArgSpec kFpr{"fpr", 0, 1, true, false, false};
constexpr ArgSpec kLoadAny{"load", 0, 1, false, false, false};      // an FPR at load 0 is 0
constexpr ArgSpec kLoadDivides{"load", 0, 1, true, false, false};   // bits/key divide by it
constexpr ArgSpec kLoadBelowOne{"load", 0, 1, false, true, false};  // Knuth's: infinite at 1
constexpr ArgSpec kMaxLoad{"max_load", 0, 1, true, false, false};
constexpr ArgSpec kFingerprintBits{"fingerprint_bits", 1, 64, false, false, true};
constexpr ArgSpec kSlotsPerBucket{"slots_per_bucket", 1, 64, false, false, true};
constexpr ArgSpec kKeysStored{"keys", 0, kMaxCount, false, false, true};  // no keys: FPR 0
constexpr ArgSpec kKeysPerKey{"keys", 1, kMaxCount, false, false, true};  // bits/key divide by n
constexpr ArgSpec kTableSlots{"table_slots", 1, kMaxCount, false, false, true};
constexpr ArgSpec kQuotientBits{"quotient_bits", 0, 64, false, false, true};
constexpr ArgSpec kRemainderBits{"remainder_bits", 1, 64, false, false, true};
constexpr ArgSpec kMetadataBits{"metadata_bits", 0, 64, false, false, false};
constexpr ArgSpec kOverhead{"overhead", 0, kNoLimit, false, false, false};
constexpr ArgSpec kArity{"arity", 3, 4, false, false, true};
constexpr ArgSpec kZeroSlots{"zero_slots", 0, kMaxCount, false, false, true};
// Blocked Bloom's Poisson sum runs over about 512/B terms: below 1 bit/key it grows without use.
constexpr ArgSpec kBlockedBitsPerKey{"bits_per_key", 1, kNoLimit, false, false, false};
constexpr ArgSpec kHashProbes{"hash_probes", 1, 64, false, false, true};
constexpr ArgSpec kBloomBits{"bits", 1, kMaxCount, false, false, true};
constexpr ArgSpec kCounters{"counters", 1, kMaxCount, false, false, true};
constexpr ArgSpec kCounterLevel{"level", 1, 64, false, false, true};
constexpr ArgSpec kRibbonLower{"lower", 1, 32, false, false, true};
constexpr ArgSpec kUpperShare{"upper_share", 0, 1, false, false, false};

// One output; a whole one (a count) is written as an integer.
struct OutputSpec {
  constexpr OutputSpec(const char* output, bool count = false) : name(output), whole(count) {}
  std::string_view name;
  bool whole;
};

using Values = std::array<double, 4>;   // a formula's outputs at one point, in its outputs' order
using Point = std::span<const double>;  // its arguments at one point, in its args' order

struct Formula {
  std::string_view name;
  std::string_view meaning;
  std::vector<ArgSpec> args;
  std::vector<OutputSpec> outputs;
  Values (*evaluate)(Point);
};

int Whole(double x) { return static_cast<int>(x); }  // checked whole and in range before

// Every formula `amqbench theory` answers: each a function of filters/theory_formulas.h, whose
// comment there gives the derivation and the filter header it belongs to.
const std::vector<Formula>& Formulas() {
  static const std::vector<Formula> formulas = {
      {"lower_bound",
       "log2(1/eps): no filter takes fewer bits per key",
       {kFpr},
       {"bits_per_key"},
       [](Point a) { return Values{LowerBoundBitsPerKey(a[0])}; }},
      {"bloom",
       "Bloom at its optimal k: log2(1/eps) / ln 2",
       {kFpr},
       {"bits_per_key"},
       [](Point a) { return Values{BloomBitsPerKey(a[0])}; }},
      {"bloom_fpr",
       "Bloom: (1 - e^(-k n / m))^k",
       {kHashProbes, kKeysStored, kBloomBits},
       {"fpr"},
       [](Point a) { return Values{BloomFpr(Whole(a[0]), a[1], a[2])}; }},
      {"blocked_bloom",
       "split-block Bloom: the bits/key whose Poisson-mixture FPR is eps",
       {kFpr},
       {"bits_per_key"},
       [](Point a) { return Values{BlockedBloomBitsPerKey(a[0])}; }},
      {"blocked_bloom_fpr",
       "split-block Bloom (k = 8, 512-bit blocks): FPR at B bits/key",
       {kBlockedBitsPerKey},
       {"fpr"},
       [](Point a) { return Values{BlockedBloomFprAtBitsPerKey(a[0])}; }},
      {"blocked_bloom256",
       "Parquet's split-block Bloom (256-bit blocks): the bits/key whose Poisson-mixture FPR is eps",
       {kFpr},
       {"bits_per_key"},
       [](Point a) { return Values{SplitBlockBitsPerKey(a[0], kParquetBloomShape)}; }},
      {"blocked_bloom256_fpr",
       "Parquet's split-block Bloom (k = 8, 256-bit blocks of 32-bit words): FPR at B bits/key",
       {kBlockedBitsPerKey},
       {"fpr"},
       [](Point a) { return Values{SplitBlockFprAtBitsPerKey(a[0], kParquetBloomShape)}; }},
      {"counting_bloom",
       "counting Bloom, 4-bit counters at Bloom's optimal k: 4 log2(1/eps) / ln 2",
       {kFpr},
       {"bits_per_key"},
       [](Point a) { return Values{CountingBloomBitsPerKey(a[0])}; }},
      {"counting_bloom_overflow_bound",
       "counting Bloom (Fan et al.): Pr(some counter >= j) <= m (e n k / (j m))^j",
       {kCounters, kKeysStored, kHashProbes, kCounterLevel},
       {"probability"},
       [](Point a) {
         return Values{CountingBloomOverflowBound(a[0], a[1], Whole(a[2]), Whole(a[3]))};
       }},
      {"counting_bloom_counters_at_least",
       "counting Bloom: expected counters at j or more, m Pr(Bin(nk, 1/m) >= j)",
       {kCounters, kKeysStored, kHashProbes, kCounterLevel},
       {"counters"},
       [](Point a) {
         return Values{CountingBloomCountersAtLeast(a[0], a[1], Whole(a[2]), Whole(a[3]))};
       }},
      {"cuckoo",
       "cuckoo curve: (log2(1/eps) + log2(2b)) / L",
       {kFpr, kLoadDivides, kSlotsPerBucket},
       {"bits_per_key"},
       [](Point a) { return Values{CuckooBitsPerKey(a[0], a[1], Whole(a[2]))}; }},
      {"cuckoo_fpr",
       "cuckoo: 1 - (1 - 1/(2^f - 1))^(2 b alpha)",
       {kFingerprintBits, kLoadAny, kSlotsPerBucket},
       {"fpr"},
       [](Point a) { return Values{CuckooFpr(Whole(a[0]), a[1], Whole(a[2]))}; }},
      {"cuckoo_lab_geometry",
       "the AMQ survey's cuckoo sizing: f = ceil(log2(1/eps)) + ceil(log2(2b)), the smallest "
       "power-of-two m with b m >= n / max_load, the load n / (b m) and f b m / n bits/key",
       {kKeysPerKey, kFpr, kMaxLoad, kSlotsPerBucket},
       {{"fingerprint_bits", true}, {"buckets", true}, {"load"}, {"bits_per_key"}},
       [](Point a) {
         const CuckooLabGeometry g = CuckooSurveyLabGeometry(a[0], a[1], a[2], Whole(a[3]));
         return Values{static_cast<double>(g.fingerprint_bits), static_cast<double>(g.buckets),
                       g.load, g.bits_per_key};
       }},
      {"quotient",
       "quotient family curve: (log2(1/eps) + metadata bits) / L",
       {kFpr, kLoadDivides, kMetadataBits},
       {"bits_per_key"},
       [](Point a) { return Values{QuotientBitsPerKeyForFpr(a[0], a[1], a[2])}; }},
      {"quotient_fpr",
       "quotient family at load alpha: 1 - e^(-alpha / 2^r)",
       {kRemainderBits, kLoadAny},
       {"fpr"},
       [](Point a) { return Values{QuotientFprAtLoad(Whole(a[0]), a[1])}; }},
      {"quotient_table_fpr",
       "classic QF and RSQF: 1 - (1 - 2^-(q+r))^n",
       {kKeysStored, kQuotientBits, kRemainderBits},
       {"fpr"},
       [](Point a) { return Values{QuotientFpr(a[0], Whole(a[1]), Whole(a[2]))}; }},
      {"cqf_fpr",
       "CQF: n / 2^(q+r) for n distinct fingerprints",
       {kKeysStored, kQuotientBits, kRemainderBits},
       {"fpr"},
       [](Point a) { return Values{CqfFpr(a[0], Whole(a[1]), Whole(a[2]))}; }},
      {"quotient_article_bits",
       "the Quotient Filter article and theory(): (r + metadata bits) / alpha",
       {kRemainderBits, kMetadataBits, kLoadDivides},
       {"bits_per_key"},
       [](Point a) { return Values{QuotientBitsPerKey(a[0], a[1], a[2])}; }},
      {"survey_quotient_bits",
       "the AMQ survey: (log2(n / alpha) + r + 3) / alpha",
       {kKeysPerKey, kRemainderBits, kLoadDivides},
       {"bits_per_key"},
       [](Point a) { return Values{QuotientSurveyBitsPerKey(a[0], a[1], a[2])}; }},
      {"knuth_displacement",
       "linear probing: mean displacement alpha / (2 (1 - alpha))",
       {kLoadBelowOne},
       {"slots"},
       [](Point a) { return Values{KnuthDisplacementMean(a[0])}; }},
      {"knuth_displacement_finite",
       "linear probing in m slots holding n keys: Knuth's exact mean displacement (Q(m, n - 1) - 1) / 2",
       {kTableSlots, kKeysStored},
       {"slots"},
       [](Point a) { return Values{KnuthDisplacementMeanFinite(a[0], a[1])}; }},
      {"knuth_probes_to_empty",
       "linear probing: mean probes to an empty slot (1 + 1/(1 - alpha)^2) / 2",
       {kLoadBelowOne},
       {"slots"},
       [](Point a) { return Values{KnuthProbesToEmptyMean(a[0])}; }},
      {"fingerprint_fpr",
       "XOR, binary fuse, Ribbon: 2^-k",
       {kFingerprintBits},
       {"fpr"},
       [](Point a) { return Values{FingerprintFpr(Whole(a[0]))}; }},
      {"xor",
       "XOR curve: 1.23 log2(1/eps)",
       {kFpr},
       {"bits_per_key"},
       [](Point a) { return Values{XorBitsPerKeyForFpr(a[0])}; }},
      {"xor_bits",
       "XOR: (1.23 n + 32) k / n",
       {kKeysPerKey, kFingerprintBits},
       {"bits_per_key"},
       [](Point a) { return Values{XorBitsPerKey(a[0], Whole(a[1]))}; }},
      {"xor_plus_bits",
       "Xor+: (k (1.23 n + 32 - z) + 1.25 (1.23 n + 32) / 3) / n, z the first block's zero slots "
       "(a statistic of the peel: the paper has no closed form for it)",
       {kKeysPerKey, kFingerprintBits, kZeroSlots},
       {"bits_per_key"},
       [](Point a) {
         // z counts slots of the first block, a third of XOR's 1.23 n + 32.
         const double first_block = (kXorSlotsPerKey * a[0] + kXorExtraSlots) / 3;
         if (a[2] > first_block) {
           throw InputError("xor_plus_bits: zero_slots must be at most the first block's " +
                            std::to_string(static_cast<long long>(first_block)) + " slots, got " +
                            std::to_string(static_cast<long long>(a[2])));
         }
         return Values{XorPlusBitsPerKey(a[0], Whole(a[1]), a[2])};
       }},
      {"binary_fuse",
       "binary fuse curve: size factor(n) log2(1/eps)",
       {kFpr, kKeysStored, kArity},
       {"bits_per_key"},
       [](Point a) {
         return Values{
             BinaryFuseBitsPerKey(BinaryFuseSizeFactor(static_cast<std::size_t>(a[1]), Whole(a[2])),
                                  LowerBoundBitsPerKey(a[0]))};
       }},
      {"binary_fuse_size_factor",
       "binary fuse: the paper's slots per key at n keys",
       {kKeysStored, kArity},
       {"size_factor"},
       [](Point a) {
         return Values{BinaryFuseSizeFactor(static_cast<std::size_t>(a[0]), Whole(a[1]))};
       }},
      {"ribbon",
       "Ribbon curve: (1 + overhead) log2(1/eps)",
       {kFpr, kOverhead},
       {"bits_per_key"},
       [](Point a) { return Values{RibbonBitsPerKey(LowerBoundBitsPerKey(a[0]), a[1])}; }},
      {"ribbon_frac",
       "fractional Ribbon curve: (1 + overhead)(lo + q), q = 2 - 2^(lo+1) eps",
       {kFpr, kOverhead},
       {"bits_per_key"},
       [](Point a) { return Values{RibbonFracBitsPerKeyForFpr(a[0], a[1])}; }},
      {"ribbon_frac_fpr",
       "fractional Ribbon: 2^-lo (1 - q/2)",
       {kRibbonLower, kUpperShare},
       {"fpr"},
       [](Point a) { return Values{RibbonFracFpr(Whole(a[0]), a[1])}; }},
      {"gcs",
       "Golomb-compressed set: best Rice k's expected bits in buckets of 32/eps values, plus the index"
       " w/32 + 1/16",
       {kFpr},
       {"bits_per_key"},
       [](Point a) { return Values{GcsBitsPerKey(a[0])}; }},
  };
  return formulas;
}

const Formula& FindFormula(const std::string& name) {
  for (const Formula& f : Formulas()) {
    if (f.name == name) return f;
  }
  throw InputError("unknown formula '" + name + "' (amqbench theory --list lists them)");
}

// Whole numbers without a ".0" (ranges read "[1, 64]"), others in the shortest round-trip form.
std::string FormatNumber(double x) {
  return x == std::floor(x) && std::abs(x) <= kMaxCount
             ? std::to_string(static_cast<std::int64_t>(x))
             : json(x).dump();
}

std::string RangeText(const ArgSpec& a) {
  const std::string max = a.max == kNoLimit    ? "inf)"
                          : a.max == kMaxCount ? "2^53]"
                                               : FormatNumber(a.max) + (a.max_open ? ")" : "]");
  const std::string text = std::string(a.min_open ? "(" : "[") + FormatNumber(a.min) + ", " + max;
  return a.whole ? "a whole number in " + text : text;
}

// The argument's value at element i of n (a number stands for every element).
struct Column {
  std::vector<double> values;
  bool scalar = true;
  double at(std::size_t i) const { return scalar ? values[0] : values[i]; }
};

Column ReadArgument(const Formula& f, const ArgSpec& spec, const json& value) {
  const std::string where = std::string(f.name) + ": " + std::string(spec.name);
  Column column;
  const auto check = [&](const json& element, std::size_t index) {
    const std::string at = column.scalar ? "" : " (element " + std::to_string(index) + ")";
    if (!element.is_number()) {
      throw InputError(where + " must be a number or a list of numbers, got " + element.dump() +
                       at);
    }
    const double x = element.get<double>();
    const bool below = spec.min_open ? !(x > spec.min) : !(x >= spec.min);
    const bool above = spec.max_open ? !(x < spec.max) : !(x <= spec.max);
    if (below || above)
      throw InputError(where + " must be in " + RangeText(spec) + ", got " + element.dump() + at);
    if (spec.whole && x != std::floor(x)) {
      throw InputError(where + " must be a whole number, got " + element.dump() + at);
    }
    column.values.push_back(x);
  };
  if (value.is_array()) {
    column.scalar = false;
    for (std::size_t i = 0; i < value.size(); ++i) check(value[i], i);
  } else {
    check(value, 0);
  }
  return column;
}

// Evaluates one request, {"formula": NAME, "args": {...}}, into its answer line.
json Answer(const json& request) {
  if (!request.is_object() || !request.contains("formula") || !request["formula"].is_string()) {
    throw InputError("a request is {\"formula\": NAME, \"args\": {...}}, got " + request.dump());
  }
  const Formula& f = FindFormula(request["formula"].get<std::string>());
  const json args = request.value("args", json::object());
  if (!args.is_object()) throw InputError(std::string(f.name) + ": args must be an object");
  for (const auto& [name, value] : args.items()) {
    bool known = false;
    for (const ArgSpec& spec : f.args) known = known || spec.name == name;
    if (!known) throw InputError(std::string(f.name) + ": unknown argument '" + name + "'");
  }
  std::vector<Column> columns;
  std::size_t count = 1;
  std::string list_name;
  for (const ArgSpec& spec : f.args) {
    if (!args.contains(spec.name)) {
      throw InputError(std::string(f.name) + ": missing argument '" + std::string(spec.name) + "'");
    }
    columns.push_back(ReadArgument(f, spec, args[std::string(spec.name)]));
    if (columns.back().scalar) continue;
    const std::size_t n = columns.back().values.size();
    if (!list_name.empty() && n != count) {
      throw InputError(std::string(f.name) + ": '" + list_name + "' has " + std::to_string(count) +
                       " values and '" + std::string(spec.name) + "' " + std::to_string(n) +
                       "; lists must have one length (a number stands for every element)");
    }
    list_name = spec.name;
    count = n;
  }
  std::vector<json> outputs(f.outputs.size(), json::array());
  std::vector<double> point(f.args.size());
  for (std::size_t i = 0; i < count; ++i) {
    for (std::size_t a = 0; a < columns.size(); ++a) point[a] = columns[a].at(i);
    const Values v = f.evaluate(point);
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      if (f.outputs[o].whole) {
        outputs[o].push_back(static_cast<std::uint64_t>(v[o]));
      } else {
        outputs[o].push_back(v[o]);
      }
    }
  }
  json values = json::object();
  for (std::size_t o = 0; o < outputs.size(); ++o)
    values[std::string(f.outputs[o].name)] = std::move(outputs[o]);
  return {{"formula", std::string(f.name)}, {"count", count}, {"values", std::move(values)}};
}

json ParseJson(const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(std::string("not JSON (") + e.what() + ")");
  }
}

void PrintList() {
  for (const Formula& f : Formulas()) {
    std::cout << f.name << "(";
    for (std::size_t a = 0; a < f.args.size(); ++a) {
      std::cout << (a ? ", " : "") << f.args[a].name << " " << RangeText(f.args[a]);
    }
    std::cout << ") -> ";
    for (std::size_t o = 0; o < f.outputs.size(); ++o)
      std::cout << (o ? ", " : "") << f.outputs[o].name;
    std::cout << "\n    " << f.meaning << "\n";
  }
}

}  // namespace theory_command

int TheoryCommand(const Args& args) {
  using namespace theory_command;
  std::string formula, args_text;
  bool list = false, from_stdin = false;
  po::options_description options(
      "amqbench theory: the filters' theory formulas (filters/theory_formulas.h) evaluated as "
      "JSON.\n"
      "Each argument is a number or a list of numbers; lists share one length and a number stands\n"
      "for every element. The answer: {\"formula\", \"count\", \"values\": {output: [...]}}.\n"
      "  amqbench theory --formula cuckoo_fpr --args '{\"fingerprint_bits\": [8, 12], \"load\": "
      "0.95, "
      "\"slots_per_bucket\": 4}'\nOptions");
  options.add_options()("help,h", "this text")(
      "list", po::bool_switch(&list),
      "every formula: its arguments with their ranges, its outputs, what it is")(
      "formula", po::value(&formula), "the formula to evaluate (with --args)")(
      "args", po::value(&args_text), "its arguments, a JSON object")(
      "stdin", po::bool_switch(&from_stdin),
      "read requests from stdin, one JSON object {\"formula\": NAME, \"args\": {...}} a line, and "
      "answer "
      "each on its own line as soon as it is read (one process serves many requests)");
  const po::variables_map vm = ParseOptions("theory", args, options);
  if (vm.count("help")) {
    std::cout << options;
    return 0;
  }
  if (vm.count("args") && !vm.count("formula"))
    throw InputError("theory: --args goes with --formula");
  const int modes = int(list) + int(from_stdin) + int(vm.count("formula") > 0);
  if (modes != 1)
    throw InputError("theory: give one of --list, --formula NAME --args JSON, --stdin");
  if (list) {
    PrintList();
    return 0;
  }
  if (!from_stdin) {
    if (!vm.count("args"))
      throw InputError("theory: --formula needs --args, a JSON object of its arguments");
    json request = {{"formula", formula}};
    try {
      request["args"] = ParseJson(args_text);
    } catch (const InputError& e) {
      throw InputError(std::string("theory: --args: ") + e.what());
    }
    try {
      std::cout << Answer(request).dump() << std::endl;
    } catch (const InputError& e) {
      throw InputError(std::string("theory: ") + e.what());
    }
    return 0;
  }
  std::string line;
  for (std::size_t number = 1; std::getline(std::cin, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = "line " + std::to_string(number) + " of stdin";
    json answer;
    try {
      answer = Answer(ParseJson(line));
    } catch (const InputError& e) {
      throw InputError("theory: " + where + ": " + e.what());
    }
    std::cout << answer.dump() << std::endl;  // flushed: the asker waits for this line
  }
  return 0;
}

}  // namespace amq
