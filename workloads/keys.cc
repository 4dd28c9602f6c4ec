#include "workloads/keys.h"

#include <sys/stat.h>
#include <xxhash.h>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "core/errors.h"
#include "core/hashing.h"
#include "core/file_util.h"
#include "workloads/uniform.h"

namespace amq {
namespace {

// Seed-derived offsets for the structured kinds: below 2^62 so a run of keys starting there
// never wraps past 2^64 in practice (distinctness would survive a wrap anyway).
std::uint64_t StartFor(std::uint64_t seed) { return SpreadSeed(seed ^ 0x73657175656e6365ULL) >> 2; }

bool ParseDecimal(const std::string& text, std::uint64_t& out) {
  if (text.empty() || text.size() > 20) return false;
  std::uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return false;
    v = v * 10 + digit;
  }
  out = v;
  return true;
}

std::uint64_t HashString(const std::string& s) { return XXH3_64bits(s.data(), s.size()); }

// Fisher-Yates with the harness's own generator: std::shuffle's algorithm differs between
// standard libraries, and the same seed must pick the same members everywhere.
template <class T>
void SeededShuffle(std::vector<T>& items, std::uint64_t seed) {
  XorShift64Star rng(seed);
  for (std::size_t i = items.size(); i > 1; --i) {
    const std::size_t j = ReduceRange(rng.Next(), i);
    std::swap(items[i - 1], items[j]);
  }
}

nlohmann::ordered_json BaseParameters(const std::string& kind, std::size_t n, std::size_t negatives,
                                      std::uint64_t seed) {
  nlohmann::ordered_json p;
  p["kind"] = kind;
  p["n"] = n;
  p["negatives"] = negatives;
  p["seed"] = seed;
  return p;
}

// Strings to distinct keys: exact duplicates collapse to one key; distinct strings sharing a
// hash are all dropped. Keys keep the order of their strings' first appearance.
struct HashedStrings {
  std::vector<std::uint64_t> keys;
  std::size_t duplicates = 0;
  std::size_t collisions_dropped = 0;
};

HashedStrings HashDistinct(const std::vector<std::string>& strings) {
  HashedStrings out;
  std::unordered_map<std::uint64_t, const std::string*> first;
  std::unordered_set<std::uint64_t> collided;
  first.reserve(strings.size());
  std::vector<std::uint64_t> order;
  for (const std::string& s : strings) {
    const std::uint64_t key = HashString(s);
    auto [it, inserted] = first.emplace(key, &s);
    if (inserted) {
      order.push_back(key);
    } else if (*it->second == s) {
      ++out.duplicates;
    } else {
      collided.insert(key);
      ++out.collisions_dropped;  // this string; the first holder is counted below
    }
  }
  out.collisions_dropped += collided.size();
  for (std::uint64_t key : order) {
    if (!collided.count(key)) out.keys.push_back(key);
  }
  return out;
}

// Members: a seeded random n of `pool`; negatives: the next ones of the same permutation.
void DrawSubset(std::vector<std::uint64_t> pool, std::size_t n, std::size_t negatives,
                std::uint64_t seed, const std::string& what, Workload& w) {
  if (n > pool.size()) {
    throw InputError(what + " has " + std::to_string(pool.size()) + " distinct keys; cannot draw " +
                     std::to_string(n) + " members");
  }
  SeededShuffle(pool, SpreadSeed(seed ^ 0x737562736574ULL));
  const std::size_t available = pool.size() - n;
  const std::size_t taken = std::min(negatives, available);
  w.keys.assign(pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(n));
  w.negatives.assign(pool.begin() + static_cast<std::ptrdiff_t>(n),
                     pool.begin() + static_cast<std::ptrdiff_t>(n + taken));
  w.parameters["distinct_keys"] = pool.size();
  w.parameters["negatives"] = taken;
  w.parameters["negatives_requested"] = negatives;
  w.parameters["negatives_available"] = available;
}

bool ValidPackageName(const std::string& name) {
  if (name.size() < 2) return false;
  for (char c : name) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return std::isalnum(static_cast<unsigned char>(name[0])) != 0;
}

}  // namespace

KeySource KeySource::Parse(const std::string& text) {
  KeySource s;
  const auto colon = text.find(':');
  const std::string head = text.substr(0, colon);
  const std::string arg = colon == std::string::npos ? "" : text.substr(colon + 1);
  const bool has_arg = colon != std::string::npos;
  if (head == "uniform" && !has_arg) {
    s.kind = Kind::kUniform;
  } else if (head == "sequential" && !has_arg) {
    s.kind = Kind::kSequential;
  } else if (head == "strided") {
    s.kind = Kind::kStrided;
    if (!ParseDecimal(arg, s.stride) || s.stride == 0) {
      throw InputError("bad stride in '" + text +
                       "': expected strided:S with S a positive integer");
    }
  } else if (head == "words") {
    s.kind = Kind::kWords;
    s.argument = arg;
    if (!ValidPackageName(arg)) {
      throw InputError("bad word-list package in '" + text + "': expected e.g. words:wamerican");
    }
  } else if (head == "file") {
    s.kind = Kind::kFile;
    s.argument = arg;
    if (arg.empty()) throw InputError("missing path in '" + text + "': expected file:PATH");
  } else {
    throw InputError("unknown key distribution '" + text + "' (expected " + kKeyKindsHelp + ")");
  }
  return s;
}

std::string KeySource::Name() const {
  switch (kind) {
    case Kind::kUniform:
      return "uniform";
    case Kind::kSequential:
      return "sequential";
    case Kind::kStrided:
      return "strided:" + std::to_string(stride);
    case Kind::kWords:
      return "words:" + argument;
    case Kind::kFile:
      return "file:" + argument;
  }
  return "?";
}

std::string WordListPath(const std::string& package) {
  if (!ValidPackageName(package)) throw InputError("bad package name '" + package + "'");
  const std::string command = "dpkg -L " + package + " 2>/dev/null";
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> pipe(popen(command.c_str(), "r"), &pclose);
  std::string found;
  if (pipe) {
    char line[4096];
    while (std::fgets(line, sizeof line, pipe.get())) {
      std::string path(line);
      while (!path.empty() && (path.back() == '\n' || path.back() == '\r')) path.pop_back();
      // The list itself, not the /usr/share/dict/words alternative (a symlink or diversion).
      const std::string dir = "/usr/share/dict/";
      if (path.rfind(dir, 0) != 0 || path.find('/', dir.size()) != std::string::npos) continue;
      struct stat info {};
      if (found.empty() && lstat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode)) {
        found = path;
      }
    }
  }
  if (found.empty()) {
    throw InputError("word list package '" + package + "' is not installed: apt-get install " +
                     package);
  }
  return found;
}

std::vector<std::string> ReadLines(const std::string& path, const std::string& what) {
  CheckReadableFile(path, what);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read " + what + " '" + path + "'");
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find_first_not_of(" \t\r\v\f");
    if (first == std::string::npos) continue;
    const auto last = line.find_last_not_of(" \t\r\v\f");
    lines.push_back(line.substr(first, last - first + 1));
  }
  if (in.bad()) throw InputError("error reading " + what + " '" + path + "'");
  return lines;
}

Workload MakeWorkload(const KeySource& source, std::size_t n, std::size_t negatives,
                      std::uint64_t seed) {
  Workload w;
  w.name = source.Name();
  w.seed = seed;
  w.parameters = BaseParameters(w.name, n, negatives, seed);
  switch (source.kind) {
    case KeySource::Kind::kUniform:
      if (n + negatives > (std::size_t{1} << 62)) throw InputError("too many uniform keys");
      w.keys = UniformKeys(seed, KeyStream::kMembers, n);
      w.negatives = UniformKeys(seed, KeyStream::kNonMembers, negatives);
      break;
    case KeySource::Kind::kSequential:
    case KeySource::Kind::kStrided: {
      const std::uint64_t stride =
          source.kind == KeySource::Kind::kStrided ? source.stride : std::uint64_t{1};
      const std::uint64_t start = StartFor(seed);
      // i*S for i < n + negatives must not overflow: then the keys are distinct integers, and
      // adding `start` modulo 2^64 is a bijection that keeps them distinct.
      std::uint64_t last = 0;
      const std::uint64_t count = n + negatives;
      if (count > 0 && __builtin_mul_overflow(count - 1, stride, &last)) {
        throw InputError("stride " + std::to_string(stride) + " is too large for " +
                         std::to_string(count) + " distinct 64-bit keys");
      }
      w.keys.resize(n);
      w.negatives.resize(negatives);
      for (std::size_t i = 0; i < n; ++i) w.keys[i] = start + i * stride;
      for (std::size_t j = 0; j < negatives; ++j) w.negatives[j] = start + (n + j) * stride;
      w.parameters["start"] = start;
      w.parameters["stride"] = stride;
      break;
    }
    case KeySource::Kind::kWords: {
      const std::string path = WordListPath(source.argument);
      const HashedStrings hashed = HashDistinct(ReadLines(path, "word list"));
      w.parameters["package"] = source.argument;
      w.parameters["file"] = path;
      w.parameters["content_hash"] = FileContentHash(path);
      w.parameters["key_format"] = "xxh3";
      w.parameters["duplicate_words"] = hashed.duplicates;
      w.parameters["hash_collisions_dropped"] = hashed.collisions_dropped;
      DrawSubset(hashed.keys, n, negatives, seed, w.name, w);
      break;
    }
    case KeySource::Kind::kFile: {
      const std::vector<std::string> lines = ReadLines(source.argument, "key file");
      if (lines.empty()) throw InputError("key file '" + source.argument + "' holds no keys");
      std::vector<std::uint64_t> numbers;
      numbers.reserve(lines.size());
      bool decimal = true;
      for (const std::string& line : lines) {
        std::uint64_t v;
        if (!ParseDecimal(line, v)) {
          decimal = false;
          break;
        }
        numbers.push_back(v);
      }
      std::vector<std::uint64_t> pool;
      std::size_t duplicates = 0, collisions = 0;
      if (decimal) {
        std::unordered_set<std::uint64_t> seen;
        seen.reserve(numbers.size());
        for (std::uint64_t v : numbers) {
          if (seen.insert(v).second) {
            pool.push_back(v);
          } else {
            ++duplicates;
          }
        }
      } else {
        HashedStrings hashed = HashDistinct(lines);
        pool = std::move(hashed.keys);
        duplicates = hashed.duplicates;
        collisions = hashed.collisions_dropped;
      }
      w.parameters["file"] = source.argument;
      w.parameters["content_hash"] = FileContentHash(source.argument);
      w.parameters["key_format"] = decimal ? "decimal" : "xxh3";
      w.parameters["lines"] = lines.size();
      w.parameters["duplicate_lines"] = duplicates;
      w.parameters["hash_collisions_dropped"] = collisions;
      DrawSubset(std::move(pool), n, negatives, seed, "key file '" + source.argument + "'", w);
      break;
    }
  }
  return w;
}

Workload MakeWorkload(const std::string& kind, std::size_t n, std::size_t negatives,
                      std::uint64_t seed) {
  return MakeWorkload(KeySource::Parse(kind), n, negatives, seed);
}

}  // namespace amq
