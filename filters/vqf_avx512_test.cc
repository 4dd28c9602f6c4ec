// filters/vqf_avx512_test.cc - built with AVX-512 BW and VBMI and BMI2 (CMakeLists.txt), so the
// VQF's AVX-512 path (one compare per block, permute-and-blend shifts, pdep select) is compiled
// here beside the portable one: the same operations must leave the same bytes and answers.
#include <gtest/gtest.h>

#include "filters/vqf_test_support.h"

namespace amq {
namespace {

bool CpuHasVqfAvx512() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("bmi2");
}

TEST(VqfAvx512, AnswersAsThePortablePathDoes) {
#ifndef AMQ_VQF_HAVE_AVX512
  GTEST_SKIP() << "compiled without AVX-512 BW, VBMI and BMI2";
#else
  if (!CpuHasVqfAvx512()) GTEST_SKIP() << "this CPU lacks AVX-512 BW, VBMI or BMI2";
  static_assert(kVqfBuildPath == VqfPath::kAvx512);
  // Many blocks (room to spare), then few (full blocks, refusals, shifts at the last lane).
  vqf_tests::ExpectSamePaths<Vqf<8, VqfPath::kAvx512>, Vqf<8, VqfPath::kPortable>>(20000, 600, 3);
  vqf_tests::ExpectSamePaths<Vqf<8, VqfPath::kAvx512>, Vqf<8, VqfPath::kPortable>>(5000, 90, 4);
  vqf_tests::ExpectSamePaths<Vqf<16, VqfPath::kAvx512>, Vqf<16, VqfPath::kPortable>>(20000, 1000, 5);
  vqf_tests::ExpectSamePaths<Vqf<16, VqfPath::kAvx512>, Vqf<16, VqfPath::kPortable>>(5000, 150, 6);
#endif
}

}  // namespace
}  // namespace amq
