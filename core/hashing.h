// core/hashing.h - the hash and range-reduction primitives every filter shares.
//
// Keys are 64-bit. A filter derives all of its hashes from one seeded mix of the key, so the
// same key set and seed always give the same filter bytes. The mixer is MurmurHash3's 64-bit
// finalizer applied to key ^ seed: a bijection on 64-bit words, so distinct keys never collide
// in the full 64-bit hash (filters only ever lose information by truncating it), and it passes
// the avalanche tests that sequential and strided keys need.
#pragma once

#include <bit>
#include <cstdint>

namespace amq {

constexpr std::uint64_t MurmurMix64(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

// Seeds are spread by a second, different bijection so that seeds 0, 1, 2 ... give
// unrelated hash functions rather than xor-shifted copies of one.
constexpr std::uint64_t SpreadSeed(std::uint64_t seed) {
  seed += 0x9e3779b97f4a7c15ULL;
  seed = (seed ^ (seed >> 30)) * 0xbf58476d1ce4e5b9ULL;
  seed = (seed ^ (seed >> 27)) * 0x94d049bb133111ebULL;
  return seed ^ (seed >> 31);
}

constexpr std::uint64_t HashKey(std::uint64_t key, std::uint64_t spread_seed) {
  return MurmurMix64(key ^ spread_seed);
}

// Lemire's multiply-shift reduction: maps a uniform 64-bit word to [0, range) without a
// division. It uses the high bits of x, so callers take other fields from the low bits.
inline std::uint64_t ReduceRange(std::uint64_t x, std::uint64_t range) {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(x) * range) >> 64);
}

// A small deterministic generator for the random choices filters make while inserting
// (which cuckoo slot to evict). xorshift64*: fast, and seeded from the filter seed.
class XorShift64Star {
 public:
  explicit XorShift64Star(std::uint64_t seed) : state_(SpreadSeed(seed) | 1) {}
  std::uint64_t Next() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545f4914f6cdd1dULL;
  }

 private:
  std::uint64_t state_;
};

}  // namespace amq
