// filters/blocked_bloom256_avx2_test.cc - built with -mavx2 (CMakeLists.txt), so BlockedBloom256
// takes its AVX2 path here: it must write the bytes, and give the answers, of the portable one.
#include <gtest/gtest.h>

#include "filters/blocked_bloom256_test_support.h"

namespace amq {
namespace {

TEST(BlockedBloom256Avx2, AnswersAsThePortablePathDoes) {
#ifndef __AVX2__
  GTEST_SKIP() << "compiled without AVX2";
#else
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "this CPU has no AVX2";
  ExpectPortableBlockedBloom256Answers();
#endif
}

}  // namespace
}  // namespace amq
