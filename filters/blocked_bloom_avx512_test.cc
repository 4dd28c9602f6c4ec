// filters/blocked_bloom_avx512_test.cc - built with -mavx512f -mavx512vl (CMakeLists.txt), so BlockedBloom
// takes its AVX-512 path (one 512-bit mask per key) here: the bytes it writes must be the ones the portable formula gives.
#include <gtest/gtest.h>

#include "filters/blocked_bloom_simd_test_support.h"

namespace amq {
namespace {

TEST(BlockedBloomAvx512, WritesWhatThePortablePathWrites) {
#if !defined(__AVX512F__) || !defined(__AVX512VL__)
  GTEST_SKIP() << "compiled without AVX-512";
#else
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512vl")) {
    GTEST_SKIP() << "this CPU has no AVX-512 F and VL";
  }
  ExpectPortableBlockedBloomBytes();
#endif
}

}  // namespace
}  // namespace amq
