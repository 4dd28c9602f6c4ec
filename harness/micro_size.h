// harness/micro_size.h - the key count the Google Benchmark micro-benchmarks size themselves
// from: 10^6 (FastFilter's bulk-insert-and-query size) unless amqbench_micro is given
// --keys=N before Google Benchmark's own flags. ctest runs every benchmark at a small N, so a
// benchmark that aborts fails the tests without the minutes the full size takes.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>

namespace amq {

inline std::size_t& MicroKeysSetting() {
  static std::size_t keys = 1000000;
  return keys;
}

inline std::size_t MicroKeys() { return MicroKeysSetting(); }

// Takes --keys=N out of argv (Google Benchmark refuses flags it does not know). Returns false
// for a value that is not a whole number in [1000, 10^9].
inline bool TakeMicroKeysFlag(int& argc, char** argv) {
  int kept = 1;
  bool ok = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--keys=", 7) == 0) {
      char* end = nullptr;
      const unsigned long long n = std::strtoull(argv[i] + 7, &end, 10);
      ok = ok && end && *end == '\0' && n >= 1000 && n <= 1000000000ULL;
      if (ok) MicroKeysSetting() = static_cast<std::size_t>(n);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  return ok;
}

}  // namespace amq
