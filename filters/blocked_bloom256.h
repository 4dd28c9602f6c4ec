// filters/blocked_bloom256.h - the split-block Bloom filter of Apache Parquet (also Impala's and
// Kudu's), bit for bit.
//
// Blocked Bloom: F. Putze, P. Sanders, J. Singler, "Cache-, hash- and space-efficient Bloom
// filters", WEA 2007 (JEA 2009). Layout and hashing from the Parquet format's specification
// ("Split Block Bloom Filter", parquet-format BloomFilter.md), taken as facts, written here:
//   - a block is 256 bits: eight 32-bit words, stored little-endian;
//   - a 64-bit hash h picks block ((h >> 32) * z) >> 32 of z blocks (multiply-shift on the
//     upper 32 bits, no modulo);
//   - its lower 32 bits x set, in word i, bit (x * salt[i] mod 2^32) >> 27, with the eight odd
//     salts below: one bit per word, k = 8;
//   - a lookup checks those eight bits.
// Parquet hashes a value with XXH64 (seed 0) of its plain encoding; here the hash is HashKey
// under the filter's seed, and insert_hash / contains_hash take a hash as Parquet's reader and
// writer do, so a filter built from the same hashes holds the bytes a Parquet writer stores.
//
// Theory, n keys in z blocks (lambda = n/z keys per block, Poisson distributed): a block that
// holds j keys has the probed bit of each word set with probability 1 - (1 - 1/32)^j (each of
// the j keys sets one of the word's 32 bits, uniformly, independently), and a non-key tests
// eight such bits in one block chosen independently of the keys, so
//   FPR      = sum_j Pois(j; lambda) * (1 - (1 - 1/32)^j)^8
//   bits/key = 256 z / n.
// Against the 512-bit blocked_bloom at the same bits/key, a block here holds half the keys in
// half the bits, so its load varies more between blocks (relative spread 1/sqrt(lambda)) and the
// fuller blocks cost more: a little more space at the same FPR, in exchange for 32-byte blocks.
// Sizing as blocked_bloom's: from --bits-per-key B, z = ceil(n B / 256); from --fpr eps, the
// smallest B (to 0.01) whose FPR above is <= eps; theory() reports that B, before the round-up
// to whole blocks (the measured bits/key shows it). z must stay below 2^32 (Parquet's index is
// 32-bit): 128 GiB of filter.
//
// With AVX2 a block is one 256-bit register: the eight salted multiplies, shifts and bit masks
// in three instructions, one OR (insert) or one testc (lookup). Without it, the portable loop;
// blocked_bloom256_avx2_test.cc checks that both write the same bytes.
// Concurrent inserts (core/concurrent_insert.h): eight atomic ORs on the 32-bit words, no lock.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "core/batched.h"
#include "core/concurrent_insert.h"
#include "core/filter.h"
#include "core/hashing.h"
#include "core/stat_catalog.h"
#include "filters/blocked_bloom.h"
#include "filters/theory_formulas.h"

namespace amq {

class BlockedBloom256 {
 public:
  static constexpr std::string_view kName = "blocked_bloom256";
  static constexpr std::string_view kFamily = "blocked_bloom";
  static constexpr std::string_view kParameters =
      "--bits-per-key B: 256-bit blocks = ceil(n B / 256); --fpr eps: smallest B whose theory "
      "FPR <= eps; k = 8 (one bit per 32-bit word, Parquet's salts)";

  // The Parquet specification's eight salts, word 0 to word 7.
  static constexpr std::uint32_t kSalt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU,
                                             0xa2b7289dU, 0x705495c7U, 0x2df1424bU,
                                             0x9efc4947U, 0x5c6bfb31U};

  explicit BlockedBloom256(const FilterParams& p)
      : seed_(SpreadSeed(p.seed)),
        bits_per_key_target_(p.bits_per_key > 0
                                 ? p.bits_per_key
                                 : SplitBlockBitsPerKeyFor(p.fpr_or_default(), kParquetBloomShape)) {
    const double bits = std::ceil(bits_per_key_target_ * static_cast<double>(p.capacity));
    blocks_.assign(std::max<std::size_t>(1, static_cast<std::size_t>((bits + 255) / 256)), Block{});
    block_count_ = blocks_.size();
  }

  bool insert(std::uint64_t key) {
    insert_hash(HashKey(key, seed_));
    return true;
  }
  bool contains(std::uint64_t key) const { return contains_hash(HashKey(key, seed_)); }

  std::size_t insert_lock_count() const { return 0; }
  bool insert_concurrent(std::uint64_t key, InsertLocks&) {
    const std::uint64_t h = HashKey(key, seed_);
    Block& block = blocks_[BlockIndex(h)];
    for (int i = 0; i < 8; ++i) AtomicSetBits(block.words[i], BitInWord(static_cast<std::uint32_t>(h), i));
    AtomicAdd<std::size_t>(keys_, 1);
    return true;
  }

  // Parquet's operations on a hash the caller computed.
  void insert_hash(std::uint64_t h) {
    SetBits(blocks_[BlockIndex(h)], static_cast<std::uint32_t>(h));
    ++keys_;
  }
  bool contains_hash(std::uint64_t h) const {
    return Probe(blocks_[BlockIndex(h)], static_cast<std::uint32_t>(h));
  }

  // One line read and written per key: the pipeline (core/batched.h) prefetches the blocks of
  // the next 16 keys for writing while it sets this one's bits. ORs commute, so the bytes are
  // those of insert() key by key.
  std::size_t insert_many(std::span<const std::uint64_t> keys) {
    PipelinedForEach<16>(
        keys,
        [this](std::uint64_t key) {
          const std::uint64_t h = HashKey(key, seed_);
          Block* block = &blocks_[BlockIndex(h)];
          __builtin_prefetch(block, 1);
          return Target{block, static_cast<std::uint32_t>(h)};
        },
        [](std::size_t, const Target& t) { SetBits(*t.block, t.x); });
    keys_ += keys.size();
    return keys.size();
  }

  // One cache line per key: the pipeline keeps kLookupAhead keys' blocks in flight, the 512-bit
  // filter's depth for its reason (blocked_bloom.h: 32 in the portable build, 16 with SIMD; here
  // at n = 2^26, portable: 12.2-12.6 ns a key against 13.5-13.8 with 16; with AVX-512 32 ahead
  // was up to 4% slower).
  static constexpr std::size_t kLookupAhead = BlockedBloom::kLookupAhead;
  std::size_t contains_many(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
    return PipelinedContains<kLookupAhead>(
        keys, out,
        [this](std::uint64_t key) {
          const Located l = Locate(key);
          __builtin_prefetch(l.block);
          return l;
        },
        [](const Located& l) { return Probe(*l.block, l.x); });
  }

  std::size_t size_in_bytes() const { return blocks_.size() * sizeof(Block); }
  std::span<const std::uint8_t> bytes() const {
    return {reinterpret_cast<const std::uint8_t*>(blocks_.data()), size_in_bytes()};
  }

  Theory theory() const {
    return {SplitBlockFpr(static_cast<double>(keys_) / block_count_, kParquetBloomShape.word_bits),
            bits_per_key_target_};
  }

  // The statistics add_stats reports (core/filter.h).
  static constexpr StatSpec kStats[] = {
      {"blocks_256bit", "integer", "blocks", "split-block Bloom (Parquet): 32-byte blocks"},
      stat::kHashProbes};

  void add_stats(Stats& s) const {
    s.put("blocks_256bit", blocks_.size());
    s.put("hash_probes", 8);
  }

  // Word i's bit for the hash's lower 32 bits x, its position and as a mask (the spec's mask(x)).
  static int BitPosition(std::uint32_t x, int i) { return static_cast<int>((x * kSalt[i]) >> 27); }
  static std::uint32_t BitInWord(std::uint32_t x, int i) { return 1U << BitPosition(x, i); }

 private:
  struct alignas(32) Block {
    std::uint32_t words[8] = {};
  };

  // A key's block and the 32 hash bits that choose its bit in each word, to write or to read.
  struct Target {
    Block* block = nullptr;
    std::uint32_t x = 0;
  };
  struct Located {
    const Block* block = nullptr;
    std::uint32_t x = 0;
  };

  // Multiply-shift on the upper 32 bits, as the spec has it (not ReduceRange's 64-bit product,
  // which would pick other blocks and other bytes).
  std::size_t BlockIndex(std::uint64_t h) const { return ((h >> 32) * block_count_) >> 32; }

  Located Locate(std::uint64_t key) const {
    const std::uint64_t h = HashKey(key, seed_);
    return {&blocks_[BlockIndex(h)], static_cast<std::uint32_t>(h)};
  }

  // The words are stored in the machine's order: little-endian on every target this builds
  // for (x86-64, AArch64), which is Parquet's.
  static void SetBits(Block& block, std::uint32_t x) {
#ifdef __AVX2__
    auto* words = reinterpret_cast<__m256i*>(block.words);
    _mm256_store_si256(words, _mm256_or_si256(_mm256_load_si256(words), MaskAvx2(x)));
#else
    for (int i = 0; i < 8; ++i) block.words[i] |= BitInWord(x, i);
#endif
  }

  static bool Probe(const Block& block, std::uint32_t x) {
#ifdef __AVX2__
    // testc: every bit of the mask is set in the block.
    return _mm256_testc_si256(_mm256_load_si256(reinterpret_cast<const __m256i*>(block.words)),
                              MaskAvx2(x));
#else
    // No early exit: the eight tests are independent, so the compiler can do them at once.
    // As blocked_bloom.h's: each word shifted right by its bit's position, bit 0 the answer.
    std::uint32_t all = ~std::uint32_t{0};
    for (int i = 0; i < 8; ++i) all &= block.words[i] >> BitPosition(x, i);
    return (all & 1) != 0;
#endif
  }

#ifdef __AVX2__
  // The same eight masks as BitInWord, word i in 32-bit lane i.
  static __m256i MaskAvx2(std::uint32_t x) {
    const __m256i salts = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kSalt));
    const __m256i shifts =
        _mm256_srli_epi32(_mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(x)), salts), 27);
    return _mm256_sllv_epi32(_mm256_set1_epi32(1), shifts);
  }
#endif

  std::uint64_t seed_;
  double bits_per_key_target_;
  std::vector<Block> blocks_;
  std::uint64_t block_count_ = 1;  // blocks_.size() as an unsigned word (see blocked_bloom.h)
  std::size_t keys_ = 0;
};

}  // namespace amq
