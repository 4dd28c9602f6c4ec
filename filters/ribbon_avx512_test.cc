// filters/ribbon_avx512_test.cc - built with -mavx512f -mavx512vl and, for this file,
// -mavx512vpopcntdq (CMakeLists.txt), so the Ribbons' lookups take ParitiesAvx512 here: its
// parities must be ParitiesPortable's for every column count the filters allow (r = 1 .. 32:
// one partial round of eight, whole rounds, several), every start offset in the block, and
// coefficient rows of every density; the three w = 64 Ribbons built here must find every
// key and answer every other as the portable parities do; and the back-substitution in AVX-512
// must give the portable loop's solution words.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "core/hashing.h"
#include "filters/bumped_ribbon.h"
#include "filters/homog_ribbon.h"
#include "filters/ribbon.h"
#include "filters/ribbon_test_support.h"
#include "workloads/uniform.h"

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
  // 64 words whatever r: the masked loads read no lane past the r columns.
  ExpectW64ParitiesArePortable(
      17, 20, [](int) { return std::size_t{64}; },
      [](const std::uint64_t* words, int columns, std::size_t o, std::uint64_t c) {
        return ribbon_detail::ParitiesAvx512(words, columns, o, c);
      });
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

// A layout whose blocks keep different column counts (as ribbon_frac's): the lower blocks
// `lower` columns, from upper_start on one more.
struct SplitLayout {
  int lower;
  std::size_t upper_start;
  int columns(std::size_t block) const { return lower + (block >= upper_start ? 1 : 0); }
  std::size_t offset(std::size_t block) const {
    return block * lower + (block > upper_start ? block - upper_start : 0);
  }
};

// BackSubstituteBlockAvx512 against BackSubstituteBlock on one banding: every column count
// r = 1 .. 32 (one vector partly or wholly used, two, three, four), free variables 0 (standard)
// and drawn from a seed (homogeneous), and a layout whose column count changes between blocks
// at each multiple of eight (where the vector count changes with it).
TEST(RibbonAvx512, BackSubstitutionIsThePortableOne) {
#ifndef AMQ_RIBBON_HAVE_AVX512
  GTEST_SKIP() << "compiled without AVX-512 F and VPOPCNTDQ";
#else
  if (!CpuHasIt()) GTEST_SKIP() << "this CPU has no AVX-512 F and VPOPCNTDQ";
  const std::size_t slots = kBackSubstitutionSlots;
  const auto banding = BandedForBackSubstitution(UniformKeys(31, KeyStream::kMembers, 3000), 5, 32);
  using ribbon_detail::SolvePath;
  for (const std::optional<std::uint64_t> free_seed :
       {std::optional<std::uint64_t>(), std::optional<std::uint64_t>(11)}) {
    const char* kind = free_seed ? "homogeneous" : "standard";
    for (int r = 1; r <= 32; ++r) {
      const ribbon_detail::AllColumns layout{r};
      EXPECT_EQ(ribbon_detail::BackSubstitute<SolvePath::kBest>(banding, slots, r, layout, free_seed),
                ribbon_detail::BackSubstitute<SolvePath::kPortable>(banding, slots, r, layout, free_seed))
          << "r = " << r << ", " << kind;
    }
    for (int lower : {7, 8, 15, 16, 31}) {
      const SplitLayout layout{lower, 20};
      EXPECT_EQ(ribbon_detail::BackSubstitute<SolvePath::kBest>(banding, slots, lower + 1, layout, free_seed),
                ribbon_detail::BackSubstitute<SolvePath::kPortable>(banding, slots, lower + 1, layout, free_seed))
          << "columns " << lower << " then " << lower + 1 << ", " << kind;
    }
  }
#endif
}

}  // namespace
}  // namespace amq
