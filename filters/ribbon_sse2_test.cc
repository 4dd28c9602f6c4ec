// filters/ribbon_sse2_test.cc - the Ribbons' lookups take ParitiesSse2 in every x86-64 build
// (SSE2 is part of the architecture) but the w = 64 ones of a build with AVX-512 VPOPCNTDQ, so
// ParitiesPortable, their twin on other machines, runs only here: the two must give the same
// parities at w = 128 and w = 64 for every column count the filters allow (r = 1 .. 32: a
// partial group of eight, whole groups, several; odd counts, whose last w = 64 column takes an
// 8-byte load; compile-time copies up to 16 and the run-time loop above), every start offset in
// the block, and coefficient rows of every density, including (w = 128) rows whose high half
// alone is set, which only the 128-bit fold sees.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/hashing.h"
#include "filters/homog_ribbon.h"
#include "filters/ribbon.h"
#include "filters/ribbon_frac.h"
#include "filters/ribbon_test_support.h"
#include "filters/test_params.h"

namespace amq {
namespace {

using ribbon_detail::U128;

TEST(RibbonSse2, ParitiesAreThePortableOnes) {
#ifndef AMQ_RIBBON_HAVE_SSE2
  GTEST_SKIP() << "compiled without SSE2 (not x86-64)";
#else
  XorShift64Star random(29);
  std::vector<U128> words(64);
  constexpr int kTrials = 12;
  std::size_t cases = 0, nonzero = 0;
  for (int columns = 1; columns <= 32; ++columns) {
    for (std::size_t o = 0; o < 128; ++o) {
      for (int trial = 0; trial < kTrials; ++trial) {
        for (U128& w : words) w = (static_cast<U128>(random.Next()) << 64) | random.Next();
        const U128 dense = (static_cast<U128>(random.Next()) << 64) | random.Next();
        const U128 sparse = dense & ((static_cast<U128>(random.Next()) << 64) | random.Next()) &
                            ((static_cast<U128>(random.Next()) << 64) | random.Next());
        U128 c = trial % 4 == 1 ? sparse : dense;
        if (trial == 2) c = 1;
        if (trial == 3) c = ~U128{0};
        if (trial == 4) c = static_cast<U128>(random.Next()) << 64;  // the high half alone
        c |= 1;  // bit 0 set, as in every key's row
        const std::uint64_t simd = ribbon_detail::ParitiesSse2(words.data(), columns, o, c);
        const std::uint64_t portable = ribbon_detail::ParitiesPortable<U128, 128>(words.data(), columns, o, c);
        ASSERT_EQ(simd, portable) << "columns " << columns << ", offset " << o << ", trial " << trial;
        ++cases;
        nonzero += simd != 0 ? 1 : 0;
      }
    }
  }
  EXPECT_GT(nonzero, cases / 2);  // the parities are not trivially zero
#endif
}

TEST(RibbonSse2, ParitiesAreThePortableOnesAtW64) {
#ifndef AMQ_RIBBON_HAVE_SSE2
  GTEST_SKIP() << "compiled without SSE2 (not x86-64)";
#else
  // Exactly the two blocks' 2 r words, so that a load past them would read outside the vector
  // (AddressSanitizer's stage sees it).
  ExpectW64ParitiesArePortable(
      37, 12, [](int columns) { return 2 * static_cast<std::size_t>(columns); },
      [](const std::uint64_t* words, int columns, std::size_t o, std::uint64_t c) {
        return ribbon_detail::ParitiesSse2(words, columns, o, c);
      });
#endif
}

// Through the filters: every key found, and each non-key answered as the portable parities
// answer it (the fingerprints compared the filters' own way).
template <class F>
void ExpectPortableAnswers(double fpr) {
  XorShift64Star random(31);
  std::vector<std::uint64_t> keys(30000), others(200000);
  for (std::uint64_t& k : keys) k = random.Next();
  for (std::uint64_t& k : others) k = random.Next();
  const F filter = F::build(keys, filter_tests::StaticParams(keys.size(), 5, fpr));
  for (std::uint64_t k : keys) ASSERT_TRUE(filter.contains(k)) << F::kName << ": a false negative";
  std::size_t passed = 0, passed_portable = 0;
  for (std::uint64_t k : others) {
    passed += filter.contains(k) ? 1 : 0;
    passed_portable += filter.contains_portable(k) ? 1 : 0;
    ASSERT_EQ(filter.contains(k), filter.contains_portable(k)) << F::kName << ": key " << k;
  }
  EXPECT_EQ(passed, passed_portable);
  EXPECT_GT(passed, 0U) << F::kName << ": no false positive at all is not a Ribbon's answer";
}

TEST(RibbonSse2, TheRibbonsAnswerAsThePortablePath) {
  ExpectPortableAnswers<Ribbon128>(0.01);       // r = 7: one partial group
  ExpectPortableAnswers<Ribbon128>(1.0 / 4096);  // r = 12: a group and a part
  ExpectPortableAnswers<RibbonFrac>(0.01);      // 6 and 7 columns, block by block
  ExpectPortableAnswers<Ribbon64>(0.01);        // w = 64 (SSE2 unless the build has AVX-512)
  ExpectPortableAnswers<HomogRibbon64>(1.0 / 256);  // r = 8: one whole group
}

}  // namespace
}  // namespace amq
