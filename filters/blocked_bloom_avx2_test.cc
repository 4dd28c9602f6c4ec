// filters/blocked_bloom_avx2_test.cc - built with -mavx2 (CMakeLists.txt), so BlockedBloom
// takes its AVX2 path here: the bytes it writes must be the ones the portable formula gives.
#include <gtest/gtest.h>

#include "filters/blocked_bloom_simd_test_support.h"

namespace amq {
namespace {

TEST(BlockedBloomAvx2, WritesWhatThePortablePathWrites) {
#ifndef __AVX2__
  GTEST_SKIP() << "compiled without AVX2";
#else
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "this CPU has no AVX2";
  ExpectPortableBlockedBloomBytes();
#endif
}

}  // namespace
}  // namespace amq
