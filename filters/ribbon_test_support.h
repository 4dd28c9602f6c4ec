// filters/ribbon_test_support.h - the w = 64 parity cases on which ribbon_avx512_test.cc and
// ribbon_sse2_test.cc hold each SIMD twin to ParitiesPortable, and that check itself; and the
// banding the back-substitution tests (ribbon_test.cc, ribbon_avx512_test.cc) solve.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "core/hashing.h"
#include "filters/ribbon.h"

namespace amq {

// check(words, columns, o, c) for r = 1 .. 32 columns (a partial round of eight, whole rounds,
// several), every start offset o in the block, and `trials` cases each of fresh random column
// words and a row: dense, sparse (trial % 4 == 1), 1 (trial 2) and all ones (trial 3), each with
// bit 0 set as every key's row. words_for(columns) sizes the words; check returns false to stop.
// Returns the number of cases checked.
template <class WordsFor, class Check>
std::size_t ForEachW64ParityCase(std::uint64_t seed, int trials, WordsFor words_for, Check check) {
  XorShift64Star random(seed);
  std::size_t cases = 0;
  for (int columns = 1; columns <= 32; ++columns) {
    std::vector<std::uint64_t> words(words_for(columns));
    for (std::size_t o = 0; o < 64; ++o) {
      for (int trial = 0; trial < trials; ++trial) {
        for (std::uint64_t& w : words) w = random.Next();
        std::uint64_t c = random.Next();
        if (trial % 4 == 1) c &= random.Next() & random.Next();
        if (trial == 2) c = 1;
        if (trial == 3) c = ~std::uint64_t{0};
        c |= 1;
        ++cases;
        if (!check(words, columns, o, c)) return cases;
      }
    }
  }
  return cases;
}

// simd(words, columns, o, c) against ParitiesPortable on every case above: the same parities
// each time, every case checked (32 column counts x 64 offsets x trials), and more than half of
// them nonzero (the parities are not trivially zero).
template <class WordsFor, class Simd>
void ExpectW64ParitiesArePortable(std::uint64_t seed, int trials, WordsFor words_for, Simd simd) {
  std::size_t nonzero = 0;
  const std::size_t cases = ForEachW64ParityCase(
      seed, trials, words_for,
      [&](const std::vector<std::uint64_t>& words, int columns, std::size_t o, std::uint64_t c) {
        const std::uint64_t got = simd(words.data(), columns, o, c);
        const std::uint64_t portable =
            ribbon_detail::ParitiesPortable<std::uint64_t, 64>(words.data(), columns, o, c);
        EXPECT_EQ(got, portable) << "columns " << columns << ", offset " << o << ", row " << c;
        nonzero += got != 0 ? 1 : 0;
        return got == portable;
      });
  EXPECT_EQ(cases, 32U * 64 * static_cast<std::size_t>(trials));
  EXPECT_GT(nonzero, cases / 2);
}

// The w = 64 back-substitution tests' matrix: the keys (3,000 in the tests) banded with
// result_bits-wide results in 3,328 slots (52 blocks, 11% overhead) under `seed`.
inline constexpr std::size_t kBackSubstitutionSlots = 3328;
inline ribbon_detail::Banding<std::uint64_t, 64> BandedForBackSubstitution(
    std::span<const std::uint64_t> keys, std::uint64_t seed, int result_bits) {
  ribbon_detail::Banding<std::uint64_t, 64> banding;
  EXPECT_TRUE(banding.Run(keys, kBackSubstitutionSlots, kBackSubstitutionSlots - 64 + 1, seed, result_bits))
      << "the test matrix did not band";
  return banding;
}

}  // namespace amq
