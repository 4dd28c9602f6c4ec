// workloads/adversarial.h - key sets built to hurt a filter (issue 12): keys whose hashes pile
// into one bucket, share one fingerprint, or both; and keys with the bit patterns a weak hash
// or a careless implementation gets wrong (one-bit neighbours, sequences, 0 and ~0, multiples
// of a large power of two).
//
// Why hash collisions can be built at all. Every filter of core/hashing.h hashes a key as
// MurmurMix64(key ^ spread_seed), and MurmurMix64 is a bijection: undoing its three xorshifts
// and two odd multiplies (InverseMurmurMix64) turns any 64-bit hash we want into the one key
// that has it. So a set "all keys share the top 20 hash bits" is n chosen hashes mapped back to
// keys - no search. The attacker must know the seed: these sets model a seed that leaked (or a
// fixed, published one), not random input, which no filter here can be hurt by this way.
//
// Which hash bits are whose. The generators only fix bits of a word; which bits a filter reads
// its bucket and its fingerprint from differs by family (read from each header, and checked by
// filters/adversarial_test.cc against the filters themselves):
//
//   bloom            HashKey(h, SpreadSeed(seed)). Probe i reads the top bits (ReduceRange)
//                    of h + i b with step b = rotl(h, 32) | 1, so of h's top bits (probe 0)
//                    and h's bits 31 down (the step's top). No fingerprint.
//   blocked_bloom    HashKey, SpreadSeed. Block: top bits. In-block bits: the low 32 bits.
//   blocked_bloom256 The same fields: block ((h >> 32) z) >> 32, from h's top bits.
//   counting_bloom   HashKey, SpreadSeed. Probe i is a + i b mod 2^32 with a = h >> 32 and
//                    step b = h's low 32 bits | 1: probe 0's word from h's top bits, its
//                    counter in the word from bits 32-35; the step from the low 32 bits.
//   cuckoo, cuckooN, HashKey, SpreadSeed. Bucket i1: the LOW p bits (h & mask). Fingerprint:
//   cuckoo_semisort13 the TOP f bits (ReduceRange(h, 2^f - 1) + 1). i2 = i1 ^ g(fingerprint).
//   quotient, rsqf,  HashKey, SpreadSeed. Quotient (home slot): the top q bits. Remainder:
//   cqf              the r bits just below them.
//   xor8/16, xor     HashKey, AttemptSeed(seed, attempt): a new hash every attempt. p0: top
//                    bits; p1, p2: top bits of rotl(h, 21), rotl(h, 42) = h's bits 42 down and
//                    21 down. Fingerprint (k bits): h's low k bits XOR its bits 32 up.
//   binary_fuse*     HashKey, AttemptSeed. h0: top bits; p1: bits 18 up; p2: the low bits;
//                    4-wise p3: bits 32 up. Fingerprint: as XOR's.
//   ribbon, ribbon64 HashKey, AttemptSeed. Start: top bits. Coefficients and result bits:
//   ribbon_frac      multiples and mixes of all of h.
//   gcs              HashKey, AttemptSeed. Bucket: the top bits of h B; offset in the bucket:
//                    the top bits of (h B mod 2^64), h's next bits when B is a power of two.
//   prefix_*         HashKey, SpreadSeed. Bin: top bits (ReduceRange). Fingerprint: the top
//                    bits of the low 32 (ReduceRange of them to 25 * 2^8).
//   cuckoo_4x1/2x4,  h = HashKey, SpreadSeed, mixed again per use: table t's bucket is the top
//   acf_*            bits of MurmurMix64(h + C (t + 1)), fingerprint variant v the top bits of
//                    MurmurMix64(h ^ C' (v + 1)) - each word inverted in turn.
//   morton           HashKey, SpreadSeed. Bucket: the top bits (ReduceRange). Fingerprint: the
//                    LOW 8 bits; the alternate bucket is the bucket +- an odd offset of the fingerprint.
//   leveldb_bloom    LevelDB's 32-bit Hash of the 8 bytes of key ^ SpreadSeed(seed). Probe j:
//                    (h + j delta) mod m, delta = h rotated right by 17. No fingerprint.
//   rocksdb_bloom    RocksDB's XXH3 preview ("XXPH3") of 0x01 || big-endian(key ^ SpreadSeed).
//                    Block: FastRange32 of the low 32 bits. In-block probes: the high 32 bits.
//   rocksdb_ribbon   XXPH3 as above, mixed again with a seed RocksDB's builder picks (and picks
//                    anew when banding fails).
//
// So "same high hash bits" is the same bucket for the table families indexed by ReduceRange but
// the same FINGERPRINT for the cuckoo filter, whose bucket is the low bits; the test picks the
// field per family. Static filters (XOR, binary fuse, Ribbon) re-hash with a fresh seed after a
// failed attempt, so a set aimed at attempt 0 can cost them an attempt, never the build.
// The LevelDB and RocksDB hashes are not MurmurMix64: LevelDB's is inverted word by word below;
// XXPH3 mixes a 128-bit product, so its sets come from a bounded search (SearchKeys).
//
// Every generator returns distinct keys, deterministically (no clock, no global state), and
// throws std::invalid_argument when it cannot give n of them (too few free bits, or a search
// that ran out of tries) rather than returning fewer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/hashing.h"

namespace amq {

// ---- Inverting the mixer ----

// x * InverseOdd(a) == x / a (mod 2^64) for odd a: Newton's iteration doubles the correct low
// bits each step (a is its own inverse mod 8, so 3 bits -> 6 -> 12 -> 24 -> 48 -> 96).
constexpr std::uint64_t InverseOdd(std::uint64_t a) {
  std::uint64_t inverse = a;
  for (int i = 0; i < 5; ++i) inverse *= 2 - a * inverse;
  return inverse;
}

// Undoes h ^= h >> s. For s >= 32 one step does it (the top s bits are unchanged, and they are
// all the bits that were xored in); smaller shifts need repeated steps.
constexpr std::uint64_t InverseXorShiftRight(std::uint64_t h, int s) {
  std::uint64_t x = h;
  for (int known = s; known < 64; known += s) x = h ^ (x >> s);
  return x;
}

// MurmurMix64^-1: the same steps undone in reverse order.
constexpr std::uint64_t InverseMurmurMix64(std::uint64_t h) {
  h = InverseXorShiftRight(h, 33);
  h *= InverseOdd(0xc4ceb9fe1a85ec53ULL);
  h = InverseXorShiftRight(h, 33);
  h *= InverseOdd(0xff51afd7ed558ccdULL);
  h = InverseXorShiftRight(h, 33);
  return h;
}

// The key whose HashKey(key, spread_seed) is `hash`.
constexpr std::uint64_t KeyWithHash(std::uint64_t hash, std::uint64_t spread_seed) {
  return InverseMurmurMix64(hash) ^ spread_seed;
}

// The top `bits` bits of a word (0 .. 64) and the low `bits` bits.
constexpr std::uint64_t TopBitsMask(int bits) {
  return bits <= 0 ? 0 : bits >= 64 ? ~0ULL : ~0ULL << (64 - bits);
}
constexpr std::uint64_t LowBitsMask(int bits) {
  return bits <= 0 ? 0 : bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
}

// ---- Sets aimed at a hash word ----

// Maps the word a filter reads its fields from back to the key that produces it. For the
// HashKey families that is KeyWithHash; for a filter that mixes the hash again (the adaptive
// cuckoo filters) the caller composes the further inverse.
using Preimage = std::function<std::uint64_t(std::uint64_t word)>;

// n distinct keys whose words agree with `value` on every bit of `fixed_mask`. The other bits
// take n distinct values, scrambled (a bijection of 0 .. n-1 on the free bits, keyed by
// `seed`) so that the fields left free look random rather than counting up. Throws when the
// free bits cannot hold n distinct values.
std::vector<std::uint64_t> KeysWithFixedBits(std::size_t n, const Preimage& preimage,
                                             std::uint64_t fixed_mask, std::uint64_t value,
                                             std::uint64_t seed);

// The i-th word of KeysWithFixedBits (before the preimage), for searches that draw
// candidates from a fixed-bits set one at a time.
std::uint64_t WordWithFixedBits(std::uint64_t i, std::uint64_t fixed_mask, std::uint64_t value,
                                std::uint64_t seed);

// Keys whose HashKey(key, spread_seed) has the top `bits` bits of `value`: one bucket, block,
// quotient or first slot for every filter indexed by ReduceRange (one fingerprint for cuckoo).
std::vector<std::uint64_t> SameHighHashBits(std::size_t n, std::uint64_t spread_seed, int bits,
                                            std::uint64_t value);

// Keys whose hash has the low `bits` bits of `value`: one bucket for the cuckoo filter, one
// in-block pattern for the blocked Bloom filter, one p2 slot field for binary fuse.
std::vector<std::uint64_t> SameLowHashBits(std::size_t n, std::uint64_t spread_seed, int bits,
                                           std::uint64_t value);

// Keys whose hash equals `value` except on the bits of `free_mask`: for a free mask outside
// every field a filter reads, keys it cannot tell apart at all (same bucket AND fingerprint).
std::vector<std::uint64_t> SameHashExcept(std::size_t n, std::uint64_t spread_seed,
                                          std::uint64_t free_mask, std::uint64_t value);

// A bounded brute-force search, for hashes that cannot be inverted: the first n distinct
// candidate(0), candidate(1), ... that satisfy `accept`, trying at most max_tries candidates.
// candidate must be injective for the result to be duplicate-free (it is checked anyway).
std::vector<std::uint64_t> SearchKeys(std::size_t n, std::uint64_t max_tries,
                                      const std::function<std::uint64_t(std::uint64_t)>& candidate,
                                      const std::function<bool(std::uint64_t)>& accept);

// ---- The production libraries' own hashes ----

// LevelDB's Hash(data, n, seed) (util/hash.cc, a Murmur-like 32-bit hash) at the seed its Bloom
// policy uses (0xbc9f1d34), over the 8 little-endian bytes of `encoded`: leveldb_bloom.h
// passes key ^ SpreadSeed(seed) as those bytes.
std::uint32_t LevelDbBloomHash(std::uint64_t encoded);

// The key (given the wrapper's mask, SpreadSeed(seed)) whose low 32-bit word is `low_word`
// and whose LevelDB Bloom hash is `hash`: the second word is solved for by undoing the last
// round (xorshift by 16, the odd multiply, the add). Distinct low words give distinct keys.
std::uint64_t LevelDbKeyWithHash(std::uint32_t hash, std::uint32_t low_word, std::uint64_t mask);

// n distinct keys, the i-th with LevelDB Bloom hash target(i).
std::vector<std::uint64_t> LevelDbKeysWithHashes(
    std::size_t n, std::uint64_t mask, const std::function<std::uint32_t(std::size_t)>& target,
    std::uint64_t seed);

// RocksDB's 64-bit key hash for the filters (GetSliceHash64 = XXH3 preview, "XXPH3", seed 0)
// of the 9-byte user key rocksdb_filters.h makes: 0x01 then big-endian(key ^ mask).
std::uint64_t RocksDbKeyHash(std::uint64_t key, std::uint64_t mask);

// ---- Sets for every filter, whatever its hash ----

// `bases` random keys and, for each, the 64 keys differing from it in exactly one bit
// (65 keys per base): what a hash with poor avalanche puts in neighbouring buckets.
std::vector<std::uint64_t> OneBitNeighbours(std::size_t bases, std::uint64_t seed);

// Every key differing from one of `bases` in exactly two bits (2016 per base), duplicates
// and the bases' one-bit neighbours left out: the non-members closest to a OneBitNeighbours set,
// which a hash with poor avalanche confuses with its members.
std::vector<std::uint64_t> TwoBitNeighbours(const std::vector<std::uint64_t>& bases);

// start, start + 1, ..., start + n - 1 (wrapping past 2^64 - 1).
std::vector<std::uint64_t> SequentialKeys(std::size_t n, std::uint64_t start);

// The all-zero and all-ones words and their one-bit neighbours (130 keys): the values an
// implementation that uses 0 as "empty" or ~0 as a sentinel could mishandle.
std::vector<std::uint64_t> ZeroOnesNeighbours();

// 0, 2^shift, 2 * 2^shift, ...: n keys whose low `shift` bits are all zero, so a hash that
// reads the low bits without mixing puts them all in one place.
std::vector<std::uint64_t> PowerOfTwoMultiples(std::size_t n, int shift);

}  // namespace amq
