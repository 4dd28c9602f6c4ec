// workloads/uniform.h - uniform random 64-bit keys, distinct by construction.
//
// The i-th key of stream s is a fixed bijection of the 64-bit word (s << 62 | i), keyed by the
// seed: distinct (s, i) give distinct keys, so members (stream 0) and non-members (stream 1)
// never overlap and no deduplication pass is needed, at any n below 2^62.
#pragma once

#include <cstdint>
#include <vector>

#include "core/hashing.h"

namespace amq {

enum class KeyStream : std::uint64_t { kMembers = 0, kNonMembers = 1 };

inline std::uint64_t UniformKey(std::uint64_t seed, KeyStream stream, std::uint64_t i) {
  const std::uint64_t x = (static_cast<std::uint64_t>(stream) << 62) | i;
  // SpreadSeed is splitmix64's finalizer of (v + golden ratio): a bijection of v.
  return SpreadSeed(x ^ MurmurMix64(seed ^ 0x6b657973ULL));
}

inline std::vector<std::uint64_t> UniformKeys(std::uint64_t seed, KeyStream stream,
                                              std::size_t count) {
  std::vector<std::uint64_t> keys(count);
  for (std::size_t i = 0; i < count; ++i) keys[i] = UniformKey(seed, stream, i);
  return keys;
}

}  // namespace amq
