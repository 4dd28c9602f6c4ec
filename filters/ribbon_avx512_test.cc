// filters/ribbon_avx512_test.cc - built with -mavx512f -mavx512vl and, for this file,
// -mavx512vpopcntdq (CMakeLists.txt), so the Ribbons' lookups take ParitiesAvx512 here: its
// parities must be ParitiesPortable's for every column count the filters allow (r = 1 .. 32:
// one partial round of eight, whole rounds, several), every start offset in the block, and
// coefficient rows of every density; and the three w = 64 Ribbons built here must find every
// key and answer every other as the portable parities do.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/hashing.h"
#include "filters/bumped_ribbon.h"
#include "filters/homog_ribbon.h"
#include "filters/ribbon.h"

namespace amq {
namespace {

bool CpuHasIt() {
#ifdef AMQ_RIBBON_HAVE_AVX512
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq");
#else
  return false;
#endif
}

TEST(RibbonAvx512, ParitiesAreThePortableOnes) {
#ifndef AMQ_RIBBON_HAVE_AVX512
  GTEST_SKIP() << "compiled without AVX-512 F and VPOPCNTDQ";
#else
  if (!CpuHasIt()) GTEST_SKIP() << "this CPU has no AVX-512 F and VPOPCNTDQ";
  XorShift64Star random(17);
  std::vector<std::uint64_t> words(64);
  constexpr std::size_t kCases = 32 * 64 * 20;
  std::size_t nonzero = 0;
  for (int columns = 1; columns <= 32; ++columns) {
    for (std::size_t o = 0; o < 64; ++o) {
      for (int trial = 0; trial < 20; ++trial) {
        for (std::uint64_t& w : words) w = random.Next();
        // Dense and sparse rows, and the extremes, each with bit 0 set as every key's row.
        std::uint64_t c = random.Next();
        if (trial % 4 == 1) c &= random.Next() & random.Next();
        if (trial == 2) c = 1;
        if (trial == 3) c = ~std::uint64_t{0};
        c |= 1;
        const std::uint64_t simd = ribbon_detail::ParitiesAvx512(words.data(), columns, o, c);
        const std::uint64_t portable =
            ribbon_detail::ParitiesPortable<std::uint64_t, 64>(words.data(), columns, o, c);
        ASSERT_EQ(simd, portable) << "columns " << columns << ", offset " << o << ", row " << c;
        nonzero += simd != 0 ? 1 : 0;
      }
    }
  }
  EXPECT_GT(nonzero, kCases / 2);  // the parities are not trivially zero
#endif
}

// The filters' answers through the SIMD path, against the exact key set and a model that counts
// how many non-members pass: every member found, and false positives near 2^-r.
template <class F>
void ExpectMembersFoundAndFprNear(double fpr) {
  XorShift64Star random(23);
  std::vector<std::uint64_t> keys(50000), others(400000);
  for (std::uint64_t& k : keys) k = random.Next();
  for (std::uint64_t& k : others) k = random.Next();
  FilterParams p;
  p.capacity = keys.size();
  p.target_fpr = fpr;
  p.seed = 9;
  const F filter = F::build(keys, p);
  std::size_t found = 0, passed = 0;
  for (std::uint64_t k : keys) found += filter.contains(k) ? 1 : 0;
  for (std::uint64_t k : others) passed += filter.contains(k) ? 1 : 0;
  EXPECT_EQ(found, keys.size()) << F::kName << ": false negatives";
  const double expected = fpr * others.size();
  EXPECT_GT(static_cast<double>(passed), 0.7 * expected) << F::kName;
  EXPECT_LT(static_cast<double>(passed), 1.4 * expected) << F::kName;
}

TEST(RibbonAvx512, TheRibbonsFindEveryKeyAtTheirFpr) {
#ifndef AMQ_RIBBON_HAVE_AVX512
  GTEST_SKIP() << "compiled without AVX-512 F and VPOPCNTDQ";
#else
  if (!CpuHasIt()) GTEST_SKIP() << "this CPU has no AVX-512 F and VPOPCNTDQ";
  ExpectMembersFoundAndFprNear<Ribbon64>(1.0 / 128);           // r = 7: one partial round
  ExpectMembersFoundAndFprNear<HomogRibbon64>(1.0 / 256);      // r = 8: one whole round
  ExpectMembersFoundAndFprNear<BumpedRibbon>(1.0 / 256);
  ExpectMembersFoundAndFprNear<Ribbon64>(1.0 / 2048);          // r = 11: a round and a part
#endif
}

}  // namespace
}  // namespace amq
