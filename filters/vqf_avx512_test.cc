// filters/vqf_avx512_test.cc - built with AVX-512 BW and VBMI and BMI2 (CMakeLists.txt), so the
// VQF's AVX-512 path (one compare per block, permute-and-blend shifts, pdep select) is compiled
// here beside the portable one: the same operations must leave the same bytes and answers, and
// the concurrent insert mode's whole-line stores must stay inside the locked blocks.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "core/concurrent_insert.h"
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

#ifdef AMQ_VQF_HAVE_AVX512
// The AVX-512 filter loaded by `threads` threads (disjoint slices) against the portable filter
// loaded by insert(): one thread gives the same bytes; any number keeps every accepted key, and
// a key is refused only when both its blocks are full. (filters/vqf_threaded_test.cc covers the
// portable path's concurrent mode in depth, under ThreadSanitizer.)
template <int kTagBits>
void ExpectConcurrentMatchesPortable(std::size_t keys, std::size_t blocks, int threads) {
  using Avx = Vqf<kTagBits, VqfPath::kAvx512>;
  FilterParams p;
  p.capacity = keys;
  p.seed = 9;
  Avx f(p, blocks);
  Vqf<kTagBits, VqfPath::kPortable> sequential(p, blocks);
  std::vector<std::uint64_t> input(keys);
  XorShift64Star random(keys + blocks);
  for (auto& key : input) key = random.Next();
  for (std::uint64_t key : input) sequential.insert(key);

  InsertLocks locks(f.insert_lock_count());
  std::vector<std::uint8_t> accepted(keys);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (std::size_t i = keys * t / threads; i < keys * (t + 1) / threads; ++i) {
        accepted[i] = f.insert_concurrent(input[i], locks) ? 1 : 0;
      }
    });
  }
  for (std::thread& thread : pool) thread.join();

  const auto* block = reinterpret_cast<const typename Avx::Block*>(f.bytes().data());
  std::size_t missing = 0, refused = 0, refused_with_room = 0;
  for (std::size_t i = 0; i < keys; ++i) {
    const auto l = f.Locate(input[i]);
    if (accepted[i]) {
      missing += f.contains(input[i]) ? 0 : 1;
    } else {
      ++refused;
      refused_with_room += std::min(Avx::Occupancy(block[l.first]), Avx::Occupancy(block[l.second])) < Avx::kSlots;
    }
  }
  EXPECT_EQ(missing, 0u) << threads << " threads";
  EXPECT_EQ(refused_with_room, 0u) << threads << " threads";
  EXPECT_EQ(f.insert_failures(), refused) << threads << " threads";
  EXPECT_EQ(f.Validate(), "") << threads << " threads";
  if (threads == 1) vqf_tests::ExpectSameBytes(f, sequential, "one-thread concurrent inserts");
}
#endif

TEST(VqfAvx512, ConcurrentInsertsKeepEveryAcceptedKey) {
#ifndef AMQ_VQF_HAVE_AVX512
  GTEST_SKIP() << "compiled without AVX-512 BW, VBMI and BMI2";
#else
  if (!CpuHasVqfAvx512()) GTEST_SKIP() << "this CPU lacks AVX-512 BW, VBMI or BMI2";
  // Room to spare at load 0.9, then a few blocks that fill up and refuse.
  for (int threads : {1, 4}) {
    ExpectConcurrentMatchesPortable<8>(20000, 463, threads);
    ExpectConcurrentMatchesPortable<8>(5000, 4, threads);
    ExpectConcurrentMatchesPortable<16>(20000, 794, threads);
    ExpectConcurrentMatchesPortable<16>(5000, 4, threads);
  }
#endif
}

}  // namespace
}  // namespace amq
