// filters/blocked_bloom.h - cache-blocked ("split block") Bloom filter.
//
// Blocked Bloom: F. Putze, P. Sanders, J. Singler, "Cache-, hash- and space-efficient Bloom
// filters", WEA 2007. Split-block layout as in Impala and Apache Parquet's SBBF: every key
// touches one 64-byte block (one cache line) of eight 64-bit words and sets exactly one bit
// in each word, so k = 8 and a lookup is one cache miss and branch-free.
//
// Theory, n keys in B blocks (lambda = n/B keys per block, Poisson distributed):
//   FPR      = sum_j Pois(j; lambda) * (1 - (1 - 1/64)^j)^8
//              (a block holding j keys has each word's probed bit set w.p. 1-(1-1/64)^j)
//   bits/key = 512 B / n.
// With AVX2 the eight masks are made and tested in two 256-bit registers; with AVX-512 F+VL
// (-march=native on this machine) in one 512-bit register, one load and one store per insert.
// Sizing: from --bits-per-key b, B = ceil(n b / 512); from --fpr eps, the smallest bits/key
// (to 0.01) whose FPR above is <= eps; theory() reports that bits/key, before the round-up to
// whole blocks (the measured bits/key shows it). Blocking costs space against classic Bloom: the
// load varies between blocks, and the FPR is dominated by the fuller ones.
// Concurrent inserts (core/concurrent_insert.h): eight atomic ORs, one per word, no lock (a
// vector store of the line would lose another thread's bits set between its load and store).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "filters/theory_formulas.h"
#include "core/batched.h"
#include "core/concurrent_insert.h"
#include "core/filter.h"
#include "core/stat_catalog.h"
#include "core/hashing.h"

namespace amq {

class BlockedBloom {
 public:
  static constexpr std::string_view kName = "blocked_bloom";
  static constexpr std::string_view kFamily = "blocked_bloom";
  static constexpr std::string_view kParameters =
      "--bits-per-key B: 512-bit blocks = ceil(n B / 512); --fpr eps: smallest B whose theory "
      "FPR <= eps; k = 8 (one bit per 64-bit word of the block)";

  explicit BlockedBloom(const FilterParams& p)
      : seed_(SpreadSeed(p.seed)),
        bits_per_key_target_(p.bits_per_key > 0 ? p.bits_per_key
                                                 : BlockedBloomBitsPerKeyFor(p.fpr_or_default())) {
    const double bits = std::ceil(bits_per_key_target_ * static_cast<double>(p.capacity));
    blocks_.assign(std::max<std::size_t>(1, static_cast<std::size_t>((bits + 511) / 512)),
                   Block{});
    block_count_ = blocks_.size();
  }

  bool insert(std::uint64_t key) {
    const std::uint64_t h = HashKey(key, seed_);
    SetBits(blocks_[ReduceRange(h, block_count_)], static_cast<std::uint32_t>(h));
    ++keys_;
    return true;
  }

  std::size_t insert_lock_count() const { return 0; }
  bool insert_concurrent(std::uint64_t key, InsertLocks&) {
    const std::uint64_t h = HashKey(key, seed_);
    Block& block = blocks_[ReduceRange(h, block_count_)];
    for (int i = 0; i < 8; ++i) AtomicSetBits(block.words[i], BitInWord(static_cast<std::uint32_t>(h), i));
    AtomicAdd<std::size_t>(keys_, 1);
    return true;
  }

  // One line read and written per key: the pipeline (core/batched.h) prefetches the blocks of
  // the next 16 keys for writing while it sets the bits of this one. ORs commute, so the bytes
  // are those of insert() key by key.
  std::size_t insert_many(std::span<const std::uint64_t> keys) {
    PipelinedForEach<16>(
        keys,
        [this](std::uint64_t key) {
          const std::uint64_t h = HashKey(key, seed_);
          Block* block = &blocks_[ReduceRange(h, block_count_)];
          __builtin_prefetch(block, 1);
          return Target{block, static_cast<std::uint32_t>(h)};
        },
        [](std::size_t, const Target& t) { SetBits(*t.block, t.x); });
    keys_ += keys.size();
    return keys.size();
  }

  bool contains(std::uint64_t key) const { return Probe(Locate(key)); }

  // One cache line per key: the pipeline (core/batched.h) keeps kLookupAhead keys' blocks in
  // flight. 16 with the SIMD masks (AVX2 or AVX-512; measured with AVX-512); 32 in the portable
  // build, whose eight multiplies and tests take long enough a key that 16 keys ahead did not
  // cover a line's wait: at n = 2^26 (80 MiB) 32 ahead took 11.2-11.8 ns a key against
  // 13.0-13.5 with 16, at 2^24 9.6-10.0 against 11.2-11.6, at 2^22 3% less, and the same in
  // cache (2^10, 2^18); with AVX-512 32 ahead was no faster at 2^26 (9.6-10.7 ns against
  // 9.5-10.4). Ad hoc, both depths in one process, members and non-members three rounds each,
  // 2026-12-05. blocked_bloom256.h (eight salted bits in a 32-byte block) takes this constant.
#ifdef __AVX2__
  static constexpr std::size_t kLookupAhead = 16;
#else
  static constexpr std::size_t kLookupAhead = 32;
#endif
  std::size_t contains_many(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
    return PipelinedContains<kLookupAhead>(
        keys, out,
        [this](std::uint64_t key) {
          const Located l = Locate(key);
          __builtin_prefetch(l.block);
          return l;
        },
        [](const Located& l) { return Probe(l); });
  }

  std::size_t size_in_bytes() const { return blocks_.size() * sizeof(Block); }
  std::span<const std::uint8_t> bytes() const {
    return {reinterpret_cast<const std::uint8_t*>(blocks_.data()), size_in_bytes()};
  }

  Theory theory() const {
    return {BlockedBloomFpr(static_cast<double>(keys_) / block_count_), bits_per_key_target_};
  }

  // The statistics add_stats reports (core/filter.h).
  static constexpr StatSpec kStats[] = {
      {"blocks", "integer", "blocks", "blocked Bloom: 64-byte blocks"}, stat::kHashProbes};

  void add_stats(Stats& s) const {
    s.put("blocks", blocks_.size());
    s.put("hash_probes", 8);
  }

 private:
  struct alignas(64) Block {
    std::uint64_t words[8] = {};
  };

  // A key's block and the 32 hash bits that choose the bit it sets in each word.
  struct Target {
    Block* block = nullptr;
    std::uint32_t x = 0;
  };

  static void SetBits(Block& block, std::uint32_t x) {
#if defined(__AVX512F__) && defined(__AVX512VL__)
    // All eight words in one 512-bit OR: one load and one store of the line instead of two.
    auto* words = reinterpret_cast<__m512i*>(block.words);
    _mm512_store_si512(words, _mm512_or_si512(_mm512_load_si512(words), Masks512(x)));
#elif defined(__AVX2__)
    const Masks m = MasksAvx2(x);
    auto* words = reinterpret_cast<__m256i*>(block.words);
    _mm256_store_si256(words, _mm256_or_si256(_mm256_load_si256(words), m.low));
    _mm256_store_si256(words + 1, _mm256_or_si256(_mm256_load_si256(words + 1), m.high));
#else
    for (int i = 0; i < 8; ++i) block.words[i] |= BitInWord(x, i);
#endif
  }

  // A key's block and the 32 hash bits that choose its bit in each word.
  struct Located {
    const Block* block = nullptr;
    std::uint32_t x = 0;
  };

  Located Locate(std::uint64_t key) const {
    const std::uint64_t h = HashKey(key, seed_);
    return {&blocks_[ReduceRange(h, block_count_)], static_cast<std::uint32_t>(h)};
  }

  static bool Probe(const Located& l) {
    const Block& block = *l.block;
    const std::uint32_t x = l.x;
#if defined(__AVX512F__) && defined(__AVX512VL__)
    // Every probed bit set <=> no bit of the mask is clear in the block.
    const __m512i m = Masks512(x);
    return _mm512_test_epi64_mask(_mm512_andnot_si512(_mm512_load_si512(block.words), m), m) == 0;
#elif defined(__AVX2__)
    // The eight salted multiplies, shifts and tests in two 256-bit halves (-march=native).
    const Masks m = MasksAvx2(x);
    return _mm256_testc_si256(_mm256_load_si256(reinterpret_cast<const __m256i*>(block.words)), m.low) &
           _mm256_testc_si256(_mm256_load_si256(reinterpret_cast<const __m256i*>(block.words + 4)), m.high);
#else
    // No early exit: the eight tests are independent, so the compiler can do them at once.
    // Each word is shifted right by its bit's position and the results ANDed, bit 0 the
    // answer: five instructions a word (multiply, shift, load, shift, AND) where making the
    // one-bit mask and testing it took eight (a register set to 1, its shift, a copy, the AND
    // with the word, a setne and an AND of the flags).
    std::uint64_t all = ~std::uint64_t{0};
    for (int i = 0; i < 8; ++i) all &= block.words[i] >> BitPosition(x, i);
    return (all & 1) != 0;
#endif
  }

  // The block index takes the hash's high bits (ReduceRange); bit positions take the low 32
  // bits, each multiplied by its own odd salt (Parquet's SBBF salts) and cut to 6 bits.
  static constexpr std::uint32_t kSalt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU,
                                             0xa2b7289dU, 0x705495c7U, 0x2df1424bU,
                                             0x9efc4947U, 0x5c6bfb31U};
  static int BitPosition(std::uint32_t x, int i) { return static_cast<int>((x * kSalt[i]) >> 26); }
  static std::uint64_t BitInWord(std::uint32_t x, int i) { return 1ULL << BitPosition(x, i); }

#ifdef __AVX2__
  // The same eight masks as BitInWord, as words 0-3 and 4-7; blocked_bloom_avx2_test.cc
  // (built with -mavx2) checks the bytes this path writes against BitInWord's.
  struct Masks {
    __m256i low, high;
  };
  static Masks MasksAvx2(std::uint32_t x) {
    const __m256i salts = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kSalt));
    const __m256i shifts = _mm256_srli_epi32(_mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(x)), salts), 26);
    const __m256i one = _mm256_set1_epi64x(1);
    return {_mm256_sllv_epi64(one, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(shifts))),
            _mm256_sllv_epi64(one, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(shifts, 1)))};
  }
#endif
#if defined(__AVX512F__) && defined(__AVX512VL__)
  // The same eight masks in one 512-bit register (word i in lane i).
  static __m512i Masks512(std::uint32_t x) {
    const __m256i salts = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kSalt));
    const __m256i shifts = _mm256_srli_epi32(_mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(x)), salts), 26);
    return _mm512_sllv_epi64(_mm512_set1_epi64(1), _mm512_cvtepu32_epi64(shifts));
  }
#endif

  std::uint64_t seed_;
  double bits_per_key_target_;
  std::vector<Block> blocks_;
  // blocks_.size() as an unsigned word: the size is a pointer difference / 64, whose sign the
  // compiler cannot rule out, and ReduceRange on it cost an extra multiply and a spill per key.
  std::uint64_t block_count_ = 1;
  std::size_t keys_ = 0;
};

}  // namespace amq
