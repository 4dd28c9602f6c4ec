// workloads/keys.h - the key distributions a workload's members and non-members come from.
//
//   uniform        random 64-bit keys (workloads/uniform.h)
//   sequential     start + 0, 1, 2, ... for members and start + n, n + 1, ... for non-members,
//                  start drawn from the seed: the dense, structured keys that expose a weak hash
//   strided:S      start + i*S, members i < n and non-members i >= n: keys that differ only in
//                  high bits (S a power of two) or share residues (S odd), another hash test
//   words:PACKAGE  the words of a Debian word-list package (wamerican, wbritish, wngerman, ...),
//                  read from the /usr/share/dict file the package installs, each hashed with
//                  XXH3-64 to a key: real strings, as a filter keyed by names would see them
//   file:PATH      one key per line: decimal integers when every line is one, otherwise each
//                  line (trimmed) is a string hashed with XXH3-64; `key_format` records which
//
// For words and files the members are a seeded random subset of the distinct keys and the
// non-members are drawn from the rest (capped at what is left; `negatives_available` records
// it). Distinct strings whose hashes collide would make one key stand for two strings, so all of
// them are dropped and counted (`hash_collisions_dropped`): with 10^5 words the chance of any
// collision is ~10^-9, so in practice the count is 0 - and when it is not, it says so.
//
// Every workload has distinct members and non-members disjoint from them; bad input (an unknown
// kind, a bad stride, a missing package, an unreadable file, too few keys) throws InputError
// with a one-line message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/workload.h"

namespace amq {

struct KeySource {
  enum class Kind { kUniform, kSequential, kStrided, kWords, kFile };
  Kind kind = Kind::kUniform;
  std::uint64_t stride = 0;  // strided
  std::string argument;      // the package (words) or the path (file)

  static KeySource Parse(const std::string& text);  // throws InputError
  std::string Name() const;                         // the text it parses from
};

// One line per kind, for --help and error messages.
inline constexpr const char* kKeyKindsHelp =
    "uniform | sequential | strided:S | words:PACKAGE (e.g. words:wamerican) | file:PATH";

Workload MakeWorkload(const KeySource& source, std::size_t n, std::size_t negatives,
                      std::uint64_t seed);
Workload MakeWorkload(const std::string& kind, std::size_t n, std::size_t negatives,
                      std::uint64_t seed);

// The word list a Debian package installs under /usr/share/dict (found with `dpkg -L`).
// Throws InputError naming the apt-get command when the package is not installed.
std::string WordListPath(const std::string& package);

// Trimmed lines of a text file, empty lines left out. Throws InputError if unreadable.
std::vector<std::string> ReadLines(const std::string& path, const std::string& what);

}  // namespace amq
