// filters/rsqf_test.cc - the rank-and-select quotient filter: both select paths, random
// insert/erase against a multiset, saturated offsets. Merge, resize, erase by fingerprint and
// a full table: the typed suites of quotient_family_test.cc.
#include "filters/rsqf.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "core/stats.h"
#include "workloads/uniform.h"
#include "harness/cell/stat_json.h"
#include "filters/quotient_test_support.h"
#include "filters/test_params.h"

namespace amq {
namespace {

using filter_tests::ExpectFprMatchesTheory;
using filter_tests::Fp;
using filter_tests::StoredFingerprints;
using filter_tests::TwinsAgree;

int NaiveSelect(std::uint64_t x, int k) {
  for (int i = 0; i < 64; ++i) {
    if (x >> i & 1) {
      if (k == 0) return i;
      --k;
    }
  }
  return 64;
}

// bmi2_tests (CMakeLists.txt) compiles this file with -mbmi2 so the PDEP path runs beside its
// forced-portable twin: a build that lost the flag would test the portable path twice.
TEST(RsqfSelect, TheBmi2BuildCompilesThePdepPath) {
#if defined(AMQ_EXPECT_BMI2) && !defined(__BMI2__)
  FAIL() << "bmi2_tests was built without BMI2: its twins compare the portable path with itself";
#else
  SUCCEED();
#endif
}

TEST(RsqfSelect, PortableAndPdepAgreeWithNaive) {
  XorShift64Star rng(1);
  int bmi2_checked = 0;
  for (int round = 0; round < 4000; ++round) {
    std::uint64_t x = rng.Next();
    if (round % 4 == 1) x &= rng.Next();  // sparse words
    if (round % 4 == 2) x |= rng.Next();  // dense words
    if (round == 3) x = 0;
    if (round == 7) x = ~0ULL;
    if (round == 11) x = 1ULL << 63;
    const int ones = rsqf_detail::Popcount(x);
    ASSERT_EQ(ones, std::popcount(x));
    for (int k = 0; k < 64; ++k) {
      const int want = NaiveSelect(x, k);
      ASSERT_EQ(rsqf_detail::SelectPortable(x, k), want) << std::hex << x << " k " << k;
      if (k < ones) {
        ASSERT_EQ(rsqf_detail::Select(x, k), want);
      }
#ifdef AMQ_RSQF_HAVE_BMI2_SELECT
      if (rsqf_detail::CpuHasBmi2()) {
        ASSERT_EQ(rsqf_detail::SelectBmi2(x, k), want) << std::hex << x << " k " << k;
        ++bmi2_checked;
      }
#endif
    }
  }
#ifdef AMQ_RSQF_HAVE_BMI2_SELECT
  if (rsqf_detail::CpuHasBmi2()) {
    EXPECT_GT(bmi2_checked, 0);
  } else {
    GTEST_LOG_(INFO) << "CPU without BMI2: only the portable select was checked";
  }
#endif
}

// The word moves against a bit-by-bit model, on random strings, ranges and shifts, including
// ranges that start or end inside a word and ones that reach the string's last bit.
TEST(RsqfBits, WordShiftsMoveExactlyTheirRange) {
  XorShift64Star rng(12);
  constexpr std::size_t kPad = 16, kBytes = 64;
  for (int round = 0; round < 20000; ++round) {
    std::vector<std::uint8_t> buf(kPad + kBytes + kPad);
    for (auto& b : buf) b = static_cast<std::uint8_t>(rng.Next());
    const unsigned s = 1 + rng.Next() % 63;
    const std::uint64_t hi = round % 5 == 0 ? 8 * kBytes : 1 + rng.Next() % (8 * kBytes);
    const std::uint64_t lo = rng.Next() % hi;
    const bool up = round % 2 == 0;
    auto bit = [](const std::vector<std::uint8_t>& v, std::uint64_t i) {
      return v[kPad + i / 8] >> (i % 8) & 1;
    };
    std::vector<std::uint8_t> want = buf;
    for (std::uint64_t i = lo; i < hi; ++i) {
      const bool moves = up ? i >= lo + s : i + s < hi;
      if (!moves) continue;
      const int b = bit(buf, up ? i - s : i + s);
      want[kPad + i / 8] = static_cast<std::uint8_t>((want[kPad + i / 8] & ~(1u << (i % 8))) | b << (i % 8));
    }
    if (up) {
      rsqf_detail::ShiftBitsUp(buf.data() + kPad, lo, hi, s);
    } else {
      rsqf_detail::ShiftBitsDown(buf.data() + kPad, lo, hi, s);
    }
    ASSERT_EQ(buf, want) << (up ? "up" : "down") << " lo " << lo << " hi " << hi << " s " << s;
  }
}

using filter_tests::Params;

TEST(Rsqf, SizingFollowsTheParameters) {
  Rsqf a(Params(1000, 0.01, 0, 1));
  EXPECT_EQ(a.remainder_bits(), 7);
  EXPECT_EQ(a.quotient_bits(), 11);  // 2^10 * 0.95 = 972.8 < 1000
  FilterParams p = Params(1000, 0, 0.95, 1);
  p.bits_per_key = 10;  // floor(9.5 - 2.125) = 7
  EXPECT_EQ(Rsqf(p).remainder_bits(), 7);
  EXPECT_EQ(Rsqf(Params(0, 0.01, 0, 1)).quotient_bits(), 6);
  // 2^11 canonical slots + 64 + 1.5 * sqrt(2048) = 132 -> 192 overflow slots; 17 + 8r bytes
  // per 64-slot block
  EXPECT_EQ(a.core().total_slots(), 2048u + 192u);
  EXPECT_EQ(a.size_in_bytes(), (2048u + 192u) / 64 * (17 + 8 * 7));
}

// Random inserts (a third add earlier keys again) and erases, checked against a multiset of
// fingerprints after every few steps, with the debug validator.
// A twin with the portable paths forced (kPortable) takes the same operations and must hold
// the same bytes and give the same answers: the word moves, the word run-start scan and the
// build's select against the slot-by-slot and byte-table paths.
template <int kLimit>
void RandomOps(int q, int r, double fill, std::uint64_t seed, int steps) {
  BasicRsqf<kLimit> f(q, r, SpreadSeed(seed), 0.95);
  BasicRsqf<kLimit, true> portable(q, r, SpreadSeed(seed), 0.95);
  std::multiset<Fp> expected;
  filter_tests::RandomInsertErase ops(seed, static_cast<std::uint64_t>(fill * (1ULL << q)));
  using Kind = filter_tests::RandomInsertErase::Kind;
  for (int step = 0; step < steps; ++step) {
    const auto [kind, key] = ops.Next();
    if (kind == Kind::kInsert) {
      ASSERT_TRUE(f.insert(key)) << "step " << step;
      ASSERT_TRUE(portable.insert(key)) << "step " << step;
      expected.insert(f.Fingerprint(key));
    } else if (kind == Kind::kErase) {
      ASSERT_TRUE(f.erase(key));
      ASSERT_TRUE(portable.erase(key));
      expected.erase(expected.find(f.Fingerprint(key)));
    }
    if (step % 101 == 0 || step + 30 > steps) {
      ASSERT_EQ(f.Validate(), "") << "step " << step;
      ASSERT_EQ(StoredFingerprints(f), std::vector<Fp>(expected.begin(), expected.end()))
          << "step " << step;
      for (std::uint64_t k : ops.live()) ASSERT_TRUE(f.contains(k)) << "false negative";
      for (std::uint64_t k : ops.live()) ASSERT_TRUE(portable.contains(k)) << "false negative";
      // probes apart from rng: the operations stay as they were
      ASSERT_TRUE(TwinsAgree(f, portable, seed + step)) << "step " << step;
    }
  }
}

TEST(Rsqf, RandomInsertEraseMatchesMultiset) {
  RandomOps<255>(6, 3, 1.2, 1, 5000);  // past the canonical slots, into the overflow
  RandomOps<255>(8, 8, 0.95, 2, 6000);
  RandomOps<255>(9, 13, 0.9, 3, 6000);  // not byte-wide: word shifts against slot-by-slot
  RandomOps<255>(9, 7, 0.97, 8, 6000);
  RandomOps<255>(8, 31, 0.95, 9, 4000);
  RandomOps<255>(10, 16, 0.97, 4, 6000);
}

TEST(Rsqf, SaturatedOffsetsFallBackToScanning) {
  // kOffsetLimit = 2: almost every offset saturates, so every rank/select goes through the
  // recomputation path.
  RandomOps<2>(6, 4, 1.2, 5, 5000);
  RandomOps<2>(8, 8, 0.95, 6, 6000);
  RandomOps<2>(10, 5, 0.9, 7, 6000);
}

TEST(Rsqf, RealEightBitOffsetsSaturateNearFull) {
  // 2^16 canonical slots filled to 99.9%: runs spill hundreds of slots past block starts.
  Rsqf f(16, 8, SpreadSeed(3), 0.95);
  const auto keys = UniformKeys(3, KeyStream::kMembers, 65470);
  for (auto k : keys) ASSERT_TRUE(f.insert(k));
  const Json s = StatsOf(f);
  EXPECT_GT(s["offset_max"].get<std::uint64_t>(), 255u);
  EXPECT_GT(s["saturated_offsets"].get<std::uint64_t>(), 0u);
  ASSERT_EQ(f.Validate(), "");
  for (auto k : keys) ASSERT_TRUE(f.contains(k));
  for (std::size_t i = 0; i < keys.size(); i += 2) ASSERT_TRUE(f.erase(keys[i]));
  ASSERT_EQ(f.Validate(), "");
  for (std::size_t i = 1; i < keys.size(); i += 2) ASSERT_TRUE(f.contains(keys[i]));
}

TEST(Rsqf, FprMatchesTheoryAcrossRemainderWidths) {
  for (int r : {2, 6, 9}) {
    Rsqf f(14, r, SpreadSeed(r), 0.95);
    for (auto k : UniformKeys(r, KeyStream::kMembers, 15500)) ASSERT_TRUE(f.insert(k));
    ExpectFprMatchesTheory(f, UniformKeys(r, KeyStream::kNonMembers, 400000));
  }
}

TEST(Rsqf, StatsDescribeTheRuns) {
  Rsqf f(Params(100000, 0.01, 0.95, 12));
  for (auto k : UniformKeys(12, KeyStream::kMembers, 100000)) ASSERT_TRUE(f.insert(k));
  const Json s = StatsOf(f);
  EXPECT_EQ(s["metadata_bits_per_slot"], 2.125);
  EXPECT_EQ(f.insert_failures(), 0u);
  EXPECT_GE(s["stretch_length_mean"].get<double>(), s["cluster_length_mean"].get<double>());
  EXPECT_GE(s["cluster_length_mean"].get<double>(), s["run_length_mean"].get<double>());
  const double knuth = s["displacement_mean_knuth"].get<double>();
  EXPECT_NEAR(s["displacement_mean"].get<double>(), knuth, 0.25 * knuth);
}

}  // namespace
}  // namespace amq
