// workloads/adversarial.cc - the adversarial key sets of adversarial.h.
#include "workloads/adversarial.h"

#include <bit>
#include <stdexcept>
#include <string>
#include <unordered_set>

namespace amq {
namespace {

// A bijection of [0, 2^bits) keyed by seed (odd multiply, xorshift, odd multiply, xor, all
// mod 2^bits), so that distinct counters give distinct, random-looking free-bit patterns.
std::uint64_t ScrambleBits(std::uint64_t x, int bits, std::uint64_t seed) {
  const std::uint64_t mask = LowBitsMask(bits);
  x = (x * (SpreadSeed(seed) | 1)) & mask;
  x ^= x >> ((bits + 1) / 2);
  x = (x * (SpreadSeed(seed + 1) | 1)) & mask;
  return x ^ (SpreadSeed(seed + 2) & mask);
}

// The low bits of x placed, in order, at the set bits of `positions` (what BMI2's PDEP does).
std::uint64_t DepositBits(std::uint64_t x, std::uint64_t positions) {
  const int low = std::countr_zero(positions);
  if (positions != 0 && ((positions >> low) & ((positions >> low) + 1)) == 0) {
    return (x << low) & positions;  // one run of bits (the common case): a shift does it
  }
  std::uint64_t out = 0;
  for (; positions != 0; positions &= positions - 1, x >>= 1) {
    if (x & 1) out |= positions & -positions;
  }
  return out;
}

void RequireRoom(std::size_t n, int free_bits, const char* what) {
  if (free_bits < 64 && n > (std::uint64_t{1} << free_bits)) {
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(n) +
                                " distinct keys need more than " + std::to_string(free_bits) +
                                " free bits");
  }
}

// LevelDB's Hash (util/hash.cc): m and the Bloom policy's seed.
constexpr std::uint32_t kLevelDbMultiplier = 0xc6a4a793U;
constexpr std::uint32_t kLevelDbBloomSeed = 0xbc9f1d34U;
// The state after LevelDB's hash has absorbed the 32-bit word w into h.
constexpr std::uint32_t LevelDbRound(std::uint32_t h, std::uint32_t w) {
  h += w;
  h *= kLevelDbMultiplier;
  return h ^ (h >> 16);
}
constexpr std::uint32_t LevelDbStart() {
  return kLevelDbBloomSeed ^ static_cast<std::uint32_t>(8 * kLevelDbMultiplier);
}

}  // namespace

std::uint64_t WordWithFixedBits(std::uint64_t i, std::uint64_t fixed_mask, std::uint64_t value,
                                std::uint64_t seed) {
  const std::uint64_t free = ~fixed_mask;
  return (value & fixed_mask) | DepositBits(ScrambleBits(i, std::popcount(free), seed), free);
}

std::vector<std::uint64_t> KeysWithFixedBits(std::size_t n, const Preimage& preimage,
                                             std::uint64_t fixed_mask, std::uint64_t value,
                                             std::uint64_t seed) {
  RequireRoom(n, std::popcount(~fixed_mask), "KeysWithFixedBits");
  std::vector<std::uint64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = preimage(WordWithFixedBits(i, fixed_mask, value, seed));
  }
  return keys;
}

std::vector<std::uint64_t> SameHighHashBits(std::size_t n, std::uint64_t spread_seed, int bits,
                                            std::uint64_t value) {
  return KeysWithFixedBits(
      n, [spread_seed](std::uint64_t h) { return KeyWithHash(h, spread_seed); },
      TopBitsMask(bits), value, spread_seed);
}

std::vector<std::uint64_t> SameLowHashBits(std::size_t n, std::uint64_t spread_seed, int bits,
                                           std::uint64_t value) {
  return KeysWithFixedBits(
      n, [spread_seed](std::uint64_t h) { return KeyWithHash(h, spread_seed); },
      LowBitsMask(bits), value, spread_seed);
}

std::vector<std::uint64_t> SameHashExcept(std::size_t n, std::uint64_t spread_seed,
                                          std::uint64_t free_mask, std::uint64_t value) {
  return KeysWithFixedBits(
      n, [spread_seed](std::uint64_t h) { return KeyWithHash(h, spread_seed); }, ~free_mask,
      value, spread_seed);
}

std::vector<std::uint64_t> SearchKeys(std::size_t n, std::uint64_t max_tries,
                                      const std::function<std::uint64_t(std::uint64_t)>& candidate,
                                      const std::function<bool(std::uint64_t)>& accept) {
  std::vector<std::uint64_t> keys;
  keys.reserve(n);
  std::unordered_set<std::uint64_t> seen;
  for (std::uint64_t i = 0; i < max_tries && keys.size() < n; ++i) {
    const std::uint64_t key = candidate(i);
    if (accept(key) && seen.insert(key).second) keys.push_back(key);
  }
  if (keys.size() < n) {
    throw std::invalid_argument("SearchKeys: found " + std::to_string(keys.size()) + " of " +
                                std::to_string(n) + " keys in " + std::to_string(max_tries) +
                                " tries");
  }
  return keys;
}

std::uint32_t LevelDbBloomHash(std::uint64_t encoded) {
  const std::uint32_t h = LevelDbRound(LevelDbStart(), static_cast<std::uint32_t>(encoded));
  return LevelDbRound(h, static_cast<std::uint32_t>(encoded >> 32));
}

std::uint64_t LevelDbKeyWithHash(std::uint32_t hash, std::uint32_t low_word, std::uint64_t mask) {
  const std::uint32_t after_first = LevelDbRound(LevelDbStart(), low_word);
  // Undo the last round: h ^= h >> 16 (one step: the shift is half the width), h *= m, h += w.
  std::uint32_t x = hash ^ (hash >> 16);
  x *= static_cast<std::uint32_t>(InverseOdd(kLevelDbMultiplier));
  const std::uint32_t high_word = x - after_first;
  const std::uint64_t encoded = (std::uint64_t{high_word} << 32) | low_word;
  return encoded ^ mask;
}

std::vector<std::uint64_t> LevelDbKeysWithHashes(
    std::size_t n, std::uint64_t mask, const std::function<std::uint32_t(std::size_t)>& target,
    std::uint64_t seed) {
  RequireRoom(n, 32, "LevelDbKeysWithHashes");
  std::vector<std::uint64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto low_word = static_cast<std::uint32_t>(ScrambleBits(i, 32, seed));
    keys[i] = LevelDbKeyWithHash(target(i), low_word, mask);
  }
  return keys;
}

std::uint64_t RocksDbKeyHash(std::uint64_t key, std::uint64_t mask) {
  // XXPH3_64bits for 9 <= len <= 16 bytes at seed 0 (RocksDB util/xxph3.h): two overlapping
  // little-endian reads, each xored with 8 bytes of the default secret, then a folded 128-bit
  // product and the preview's avalanche. The 9 bytes are 0x01 then big-endian(key ^ mask), so
  // the read at offset 1 is the byte-swapped masked key and the read at 0 is that shifted up
  // by one byte under the 0x01.
  constexpr std::uint64_t kSecret0 = 0xbe4ba423396cfeb8ULL;  // XXH3 kSecret bytes 0..7, LE
  constexpr std::uint64_t kSecret8 = 0x1cad21f72c81017cULL;  // bytes 8..15
  constexpr std::uint64_t kPrime64_3 = 0x165667B19E3779F9ULL;
  const std::uint64_t swapped = __builtin_bswap64(key ^ mask);
  const std::uint64_t input_lo = ((swapped << 8) | 0x01) ^ kSecret0;
  const std::uint64_t input_hi = swapped ^ kSecret8;
  const unsigned __int128 product = static_cast<unsigned __int128>(input_lo) * input_hi;
  const std::uint64_t folded =
      static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
  std::uint64_t acc = 9 + input_lo + input_hi + folded;
  acc ^= acc >> 37;
  acc *= kPrime64_3;
  return acc ^ (acc >> 32);
}

std::vector<std::uint64_t> OneBitNeighbours(std::size_t bases, std::uint64_t seed) {
  std::vector<std::uint64_t> keys;
  keys.reserve(bases * 65);
  std::unordered_set<std::uint64_t> seen;
  const auto add = [&](std::uint64_t key) {
    if (seen.insert(key).second) keys.push_back(key);
  };
  for (std::size_t b = 0; b < bases; ++b) {
    const std::uint64_t base = SpreadSeed(seed ^ MurmurMix64(b + 1));
    add(base);
    for (int bit = 0; bit < 64; ++bit) add(base ^ (1ULL << bit));
  }
  return keys;
}

std::vector<std::uint64_t> TwoBitNeighbours(const std::vector<std::uint64_t>& bases) {
  std::unordered_set<std::uint64_t> near;  // the bases and their one-bit neighbours
  for (std::uint64_t base : bases) {
    near.insert(base);
    for (int bit = 0; bit < 64; ++bit) near.insert(base ^ (1ULL << bit));
  }
  std::vector<std::uint64_t> keys;
  std::unordered_set<std::uint64_t> seen;
  for (std::uint64_t base : bases) {
    for (int i = 0; i < 64; ++i) {
      for (int j = i + 1; j < 64; ++j) {
        const std::uint64_t key = base ^ (1ULL << i) ^ (1ULL << j);
        if (!near.count(key) && seen.insert(key).second) keys.push_back(key);
      }
    }
  }
  return keys;
}

std::vector<std::uint64_t> SequentialKeys(std::size_t n, std::uint64_t start) {
  std::vector<std::uint64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = start + i;
  return keys;
}

std::vector<std::uint64_t> ZeroOnesNeighbours() {
  std::vector<std::uint64_t> keys{0, ~0ULL};
  for (int bit = 0; bit < 64; ++bit) {
    keys.push_back(1ULL << bit);
    keys.push_back(~(1ULL << bit));
  }
  return keys;
}

std::vector<std::uint64_t> PowerOfTwoMultiples(std::size_t n, int shift) {
  if (shift < 1 || shift > 63) throw std::invalid_argument("PowerOfTwoMultiples: shift in 1..63");
  RequireRoom(n, 64 - shift, "PowerOfTwoMultiples");
  std::vector<std::uint64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = static_cast<std::uint64_t>(i) << shift;
  return keys;
}

}  // namespace amq
