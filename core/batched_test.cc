// core/batched_test.cc - the loops behind contains_many answer every key once, in order, with
// what probe(prepare(key)) gives, at every length around their ring and group sizes (the
// filters' conformance tests check their answers; these check the loops' edges on their own).
#include "core/batched.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace amq {
namespace {

// A state that records how far a key went: prepared, advanced (two-stage only), probed.
struct Traced {
  std::uint64_t key = 0;
  int advanced = 0;
};

// Keys 0..n-1 with key i a member when i % 3 == 0: the expected answers and count.
struct Case {
  std::vector<std::uint64_t> keys;
  std::vector<std::uint8_t> expected;
  std::size_t members = 0;
  explicit Case(std::size_t n) : keys(n), expected(n) {
    std::iota(keys.begin(), keys.end(), std::uint64_t{0});
    for (std::size_t i = 0; i < n; ++i) {
      expected[i] = keys[i] % 3 == 0 ? 1 : 0;
      members += expected[i];
    }
  }
};

constexpr std::size_t kLengths[] = {0, 1, 3, 4, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 100};

TEST(Batched, EveryLoopAnswersEachKeyOnceInOrder) {
  for (std::size_t n : kLengths) {
    const Case c(n);
    // Each loop: the keys probed in order, each prepared once before it is probed.
    const auto check = [&](const char* loop, auto run) {
      std::vector<std::uint64_t> prepared, probed;
      std::vector<std::uint8_t> out(n, 7);
      const std::size_t ones = run(prepared, probed, out);
      EXPECT_EQ(ones, c.members) << loop << " n = " << n;
      EXPECT_EQ(out, c.expected) << loop << " n = " << n;
      EXPECT_EQ(prepared, c.keys) << loop << " n = " << n;
      EXPECT_EQ(probed, c.keys) << loop << " n = " << n;
    };
    const auto prepare = [](std::vector<std::uint64_t>& prepared) {
      return [&prepared](std::uint64_t key) {
        prepared.push_back(key);
        return Traced{key, 0};
      };
    };
    const auto probe = [](std::vector<std::uint64_t>& prepared, std::vector<std::uint64_t>& probed, int advances) {
      return [&prepared, &probed, advances](const Traced& t) {
        // Prepared before it is probed, and (two-stage) advanced exactly once.
        EXPECT_LE(probed.size(), prepared.size());
        EXPECT_EQ(t.advanced, advances) << "key " << t.key;
        probed.push_back(t.key);
        return t.key % 3 == 0;
      };
    };
    check("PipelinedContains<16>", [&](auto& prepared, auto& probed, auto& out) {
      return PipelinedContains<16>(c.keys, out, prepare(prepared), probe(prepared, probed, 0));
    });
    check("GroupPipelinedContains<8>", [&](auto& prepared, auto& probed, auto& out) {
      return GroupPipelinedContains<8>(c.keys, out, prepare(prepared), probe(prepared, probed, 0));
    });
    check("TwoStagePipelinedContains<4, 4>", [&](auto& prepared, auto& probed, auto& out) {
      return TwoStagePipelinedContains<4, 4>(c.keys, out, prepare(prepared), [](Traced& t) { ++t.advanced; },
                                             probe(prepared, probed, 1));
    });
  }
}

// The group loop keeps one group ahead: when a group is probed, the next one (if any) has been
// prepared already, and no key further ahead.
TEST(Batched, TheGroupLoopPreparesExactlyOneGroupAhead) {
  const Case c(29);
  std::vector<std::uint8_t> out(c.keys.size());
  std::size_t prepared = 0;
  GroupPipelinedContains<8>(
      c.keys, out,
      [&](std::uint64_t key) {
        ++prepared;
        return key;
      },
      [&](std::uint64_t key) {
        const std::size_t group_end = (key / 8 + 1) * 8;
        EXPECT_EQ(prepared, std::min<std::size_t>(group_end + 8, c.keys.size())) << "key " << key;
        return key % 3 == 0;
      });
}

}  // namespace
}  // namespace amq
