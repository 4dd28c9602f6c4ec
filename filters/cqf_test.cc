// filters/cqf_test.cc - the counting quotient filter: counts against an exact map under
// skewed (many-duplicate) insert/erase sequences, the in-slot counter encoding at every
// remainder width and value, counter overflow, merges adding counts. Merge, resize, erase by
// fingerprint and a full table as the other quotient filters: quotient_family_test.cc.
#include "filters/cqf.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "core/stats.h"
#include "workloads/uniform.h"
#include "harness/cell/stat_json.h"
#include "filters/quotient_test_support.h"
#include "filters/test_params.h"

namespace amq {
namespace {

using FpCount = std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>;

using filter_tests::ExpectFprMatchesTheory;
using filter_tests::Fp;
using filter_tests::Params;
using filter_tests::TwinsAgree;

template <class F>
std::vector<FpCount> Entries(const F& f) {
  std::vector<FpCount> out;
  f.for_each_fingerprint(
      [&](std::uint64_t q, std::uint64_t r, std::uint64_t c) { out.emplace_back(q, r, c); });
  return out;
}

// Skewed workload: keys drawn from a small pool with a heavy head, so most inserts add a key
// again. Exact fingerprint counts are kept in a map; count(key) must equal the fingerprint's
// count (never below the key's own count), after every check point.
// A twin with the portable paths forced (kPortable) takes the same operations: same bytes, same
// answers.
template <int kLimit>
void SkewedOps(int q, int r, std::size_t pool_size, std::uint64_t seed, int steps) {
  BasicCqf<kLimit> f(q, r, SpreadSeed(seed), 0.95);
  BasicCqf<kLimit, true> portable(q, r, SpreadSeed(seed), 0.95);
  std::map<Fp, std::uint64_t> fp_count;
  std::map<std::uint64_t, std::uint64_t> key_count;
  XorShift64Star rng(seed);
  std::vector<std::uint64_t> pool(pool_size);
  for (auto& k : pool) k = rng.Next();
  for (int step = 0; step < steps; ++step) {
    // index ~ pool_size * u^3: the first keys are drawn far more often
    const double u = (rng.Next() >> 11) * 0x1.0p-53;
    const std::uint64_t key = pool[static_cast<std::size_t>(pool_size * u * u * u)];
    if (rng.Next() % 100 < 70 || key_count[key] == 0) {
      ASSERT_TRUE(f.insert(key)) << "step " << step;
      ASSERT_TRUE(portable.insert(key)) << "step " << step;
      ++fp_count[f.Fingerprint(key)];
      ++key_count[key];
    } else {
      ASSERT_TRUE(f.erase(key));
      ASSERT_TRUE(portable.erase(key));
      if (--fp_count[f.Fingerprint(key)] == 0) fp_count.erase(f.Fingerprint(key));
      --key_count[key];
    }
    if (step % 211 == 0 || step + 20 > steps) {
      ASSERT_EQ(f.Validate(), "") << "step " << step;
      std::vector<FpCount> want;
      for (const auto& [fp, c] : fp_count) want.emplace_back(fp.first, fp.second, c);
      ASSERT_EQ(Entries(f), want) << "step " << step;
      for (const auto& [k, c] : key_count) {
        ASSERT_EQ(f.count(k), fp_count.count(f.Fingerprint(k)) ? fp_count[f.Fingerprint(k)] : 0);
        ASSERT_GE(f.count(k), c);
        ASSERT_EQ(f.contains(k), c > 0 || fp_count.count(f.Fingerprint(k)) > 0);
        ASSERT_EQ(portable.contains(k), f.contains(k));
      }
      // probes apart from rng: the operations stay as they were
      ASSERT_TRUE(TwinsAgree(f, portable, seed + step)) << "step " << step;
    }
  }
}

TEST(Cqf, SkewedCountsMatchAnExactMap) {
  // pools small enough that the distinct keys and their counters fit the table
  SkewedOps<255>(8, 2, 40, 1, 8000);  // r = 2: remainders 0..3, every special case
  SkewedOps<255>(8, 3, 50, 2, 8000);
  SkewedOps<255>(10, 4, 120, 3, 8000);
  SkewedOps<255>(10, 8, 120, 4, 8000);
  SkewedOps<255>(10, 11, 200, 5, 8000);
}

TEST(Cqf, SkewedCountsWithSaturatedOffsets) {
  SkewedOps<2>(8, 3, 50, 6, 6000);
  SkewedOps<2>(10, 8, 120, 7, 6000);
}

// Counts of 1 and 2 only: no entry has digit slots, so lookups answer from the slots without
// decoding (Holds' has_digits_ shortcut). Narrow remainders put many entries in each run; the
// answers must still be exactly "the fingerprint was inserted", for members and for probes, and
// stay so once a count of 3 adds digit slots to the table.
TEST(Cqf, LookupsAreExactWithAndWithoutDigitSlots) {
  for (int r : {2, 3, 8}) {
    BasicCqf<> f(10, r, SpreadSeed(40 + r), 0.95);
    std::map<Fp, std::uint64_t> fp_count;
    XorShift64Star rng(r);
    std::vector<std::uint64_t> keys(600);
    for (auto& k : keys) k = rng.Next();
    for (std::size_t i = 0; i < keys.size(); ++i) {
      for (int copy = 0; copy < (i % 3 == 0 ? 2 : 1); ++copy) {
        ASSERT_TRUE(f.insert(keys[i]));
        ++fp_count[f.Fingerprint(keys[i])];
      }
    }
    const auto check = [&](const char* when) {
      for (std::uint64_t k : keys) ASSERT_TRUE(f.contains(k)) << when << ", r " << r;
      XorShift64Star probes(100 + r);
      for (int i = 0; i < 20000; ++i) {
        const std::uint64_t probe = probes.Next();
        ASSERT_EQ(f.contains(probe), fp_count.count(f.Fingerprint(probe)) > 0)
            << when << ", r " << r << ", probe " << i;
      }
    };
    bool only_small_counts = true;
    for (const auto& entry : fp_count) only_small_counts &= entry.second <= 2;
    if (only_small_counts) check("counts 1 and 2");
    // A count of 3 for some key of every run length: digit slots appear.
    for (std::size_t i = 0; i < keys.size(); i += 7) {
      while (fp_count[f.Fingerprint(keys[i])] < 3) {
        ASSERT_TRUE(f.insert(keys[i]));
        ++fp_count[f.Fingerprint(keys[i])];
      }
    }
    ASSERT_EQ(f.Validate(), "");
    check("with counters");
  }
}

// Every remainder value of a small width, counts across the digit boundaries of the encoding:
// one key per remainder value in one run, counted up and back down.
TEST(Cqf, CounterEncodingRoundTripsAtEveryRemainder) {
  for (int r : {2, 3, 4}) {
    BasicCqf<> f(6, r, SpreadSeed(r), 0.95);
    // find keys covering every remainder of quotient 5
    std::vector<std::uint64_t> keys(1u << r, 0);
    std::vector<bool> have(1u << r, false);
    std::size_t found = 0;
    for (std::uint64_t k = 0; found < keys.size(); ++k) {
      const Fp fp = f.Fingerprint(k);
      if (fp.first == 5 && !have[fp.second]) {
        have[fp.second] = true;
        keys[fp.second] = k;
        ++found;
      }
    }
    const std::uint64_t top = r == 2 ? 80 : 300;  // base 2^r - 2: several digit lengths
    for (std::uint64_t c = 1; c <= top; ++c) {
      for (std::uint64_t k : keys) ASSERT_TRUE(f.insert(k));
      if (c % 7 == 0 || c < 12) {
        ASSERT_EQ(f.Validate(), "") << "r " << r << " c " << c;
        for (std::uint64_t k : keys) ASSERT_EQ(f.count(k), c) << "r " << r;
      }
    }
    for (std::uint64_t c = top; c >= 1; --c) {
      for (std::uint64_t k : keys) ASSERT_TRUE(f.erase(k));
      if (c % 5 == 0 || c < 12) {
        ASSERT_EQ(f.Validate(), "") << "r " << r << " c " << c;
        for (std::uint64_t k : keys) ASSERT_EQ(f.count(k), c - 1) << "r " << r;
      }
    }
    EXPECT_EQ(f.used_slots(), 0u);
    for (std::uint64_t k : keys) EXPECT_FALSE(f.erase(k));
  }
}

TEST(Cqf, ManyCopiesCostFewSlots) {
  Cqf f(Params(1000, 1.0 / 256, 0.95, 8));  // r = 8
  ASSERT_EQ(f.remainder_bits(), 8);
  for (int i = 0; i < 100000; ++i) ASSERT_TRUE(f.insert(42));
  EXPECT_EQ(f.count(42), 100000u);
  // 99997 in base 254 is 2 digits: x [0] d d x, at most 5 slots
  EXPECT_LE(f.used_slots(), 5u);
  EXPECT_EQ(f.distinct(), 1u);
  ASSERT_EQ(f.Validate(), "");
}

TEST(Cqf, CountersNeverWrap) {
  // Self-merging doubles every count: 2^63 after 63 merges, and the 64th would pass 2^64 - 1.
  Cqf f(8, 16, SpreadSeed(1), 0.95);
  const auto keys = UniformKeys(1, KeyStream::kMembers, 50);
  for (auto k : keys) ASSERT_TRUE(f.insert(k));
  for (int i = 0; i < 63; ++i) f = Cqf::merge(f, f);
  ASSERT_EQ(f.Validate(), "");
  for (auto k : keys) ASSERT_GE(f.count(k), 1ULL << 63);
  EXPECT_THROW(Cqf::merge(f, f), std::overflow_error);
  // at 2^64 - 1 an insert is refused instead of wrapping
  Cqf h(8, 4, SpreadSeed(3), 0.95);
  ASSERT_TRUE(h.insert(keys[0]));
  for (int i = 0; i < 63; ++i) h = Cqf::merge(h, h);  // 2^63
  Cqf rest(8, 4, SpreadSeed(3), 0.95);
  ASSERT_TRUE(rest.insert(keys[0]));
  for (int i = 0; i < 63; ++i) {
    Cqf add(8, 4, SpreadSeed(3), 0.95);
    ASSERT_TRUE(add.insert(keys[0]));
    for (int j = 0; j < i; ++j) add = Cqf::merge(add, add);
    rest = Cqf::merge(rest, add);  // 1 + 1 + 2 + ... + 2^(i)
  }
  // rest = 2^63; h + rest - 1 = 2^64 - 1: build it as h + (rest with one copy erased)
  ASSERT_TRUE(rest.erase(keys[0]));
  Cqf full = Cqf::merge(h, rest);
  ASSERT_EQ(full.count(keys[0]), ~0ULL);
  EXPECT_FALSE(full.insert(keys[0]));
  EXPECT_EQ(full.count(keys[0]), ~0ULL);
  ASSERT_TRUE(full.erase(keys[0]));
  EXPECT_EQ(full.count(keys[0]), ~0ULL - 1);
  ASSERT_EQ(full.Validate(), "");
}

TEST(Cqf, FprMatchesTheory) {
  for (int r : {3, 8}) {
    Cqf f(14, r, SpreadSeed(r), 0.95);
    for (auto k : UniformKeys(r, KeyStream::kMembers, 15500)) ASSERT_TRUE(f.insert(k));
    ExpectFprMatchesTheory(f, UniformKeys(r, KeyStream::kNonMembers, 400000));
  }
}

TEST(Cqf, MergeAddsCountsAndResizeKeepsThem) {
  Cqf a(Params(40000, 0.01, 0.95, 9)), b(Params(40000, 0.01, 0.95, 9));
  const auto a_keys = UniformKeys(9, KeyStream::kMembers, 15000);
  const auto b_keys = UniformKeys(10, KeyStream::kMembers, 15000);
  for (std::size_t i = 0; i < a_keys.size(); ++i) {
    for (std::size_t c = 0; c <= i % 4; ++c) ASSERT_TRUE(a.insert(a_keys[i]));
  }
  for (auto k : b_keys) ASSERT_TRUE(b.insert(k));
  for (std::size_t i = 0; i < 3000; ++i) ASSERT_TRUE(b.insert(a_keys[i]));  // shared keys
  const Cqf m = Cqf::merge(a, b);
  ASSERT_EQ(m.Validate(), "");
  EXPECT_EQ(m.total(), a.total() + b.total());
  for (std::size_t i = 0; i < a_keys.size(); ++i) {
    ASSERT_GE(m.count(a_keys[i]), i % 4 + 1 + (i < 3000 ? 1 : 0));
    ASSERT_EQ(m.count(a_keys[i]), a.count(a_keys[i]) + b.count(a_keys[i]));
  }
  for (auto k : b_keys) ASSERT_GE(m.count(k), 1u);
  const Cqf g = m.resized_double();
  ASSERT_EQ(g.Validate(), "");
  EXPECT_EQ(g.quotient_bits(), m.quotient_bits() + 1);
  EXPECT_EQ(g.total(), m.total());
  EXPECT_EQ(g.distinct(), m.distinct());
  for (auto k : a_keys) ASSERT_EQ(g.count(k), m.count(k));
  for (auto k : b_keys) ASSERT_EQ(g.count(k), m.count(k));
  EXPECT_DOUBLE_EQ(g.theory().fpr, m.theory().fpr);
  ExpectFprMatchesTheory(g, UniformKeys(11, KeyStream::kNonMembers, 1000000));
}

}  // namespace
}  // namespace amq
