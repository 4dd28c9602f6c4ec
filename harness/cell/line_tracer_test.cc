// harness/cell/line_tracer_test.cc - the cache-line tracer: exactly the lines a hand-written access
// pattern reads, nothing for code that reads nothing, the region usable afterwards, and a Bloom
// filter's member lookups touching k lines of a large array (k random bits rarely share one).
#include "harness/cell/line_tracer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <vector>

#include "filters/bloom.h"
#include "filters/test_params.h"
#include "workloads/uniform.h"

namespace amq {
namespace {

// Keeps a value the compiler cannot drop.
void KeepWord(std::uint64_t word) { asm volatile("" : : "r"(word)); }

// A page-aligned buffer, so line numbers relative to its start are known.
struct Aligned {
  explicit Aligned(std::size_t bytes) : data(static_cast<std::uint8_t*>(std::aligned_alloc(4096, bytes))), size(bytes) {
    for (std::size_t i = 0; i < size; ++i) data[i] = static_cast<std::uint8_t>(i);
  }
  ~Aligned() { std::free(data); }
  std::uint8_t* data;
  std::size_t size;
};

TEST(LineTracer, SeesExactlyTheLinesReadInOrderOfAnyPattern) {
  if (!LineTracingAvailable()) GTEST_SKIP() << "line tracing needs x86-64 Linux without AddressSanitizer";
  Aligned buffer(4 * 4096);
  const volatile std::uint8_t* p = buffer.data;
  unsigned sum = 0;
  const auto lines = TraceLines({buffer.data, buffer.size}, [&] {
    for (std::size_t offset : {0, 10, 64, 4095, 8192 + 130, 10, 64}) sum += p[offset];
  });
  ASSERT_TRUE(lines.has_value());
  const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(buffer.data) / kTracedLineBytes;
  std::vector<std::uintptr_t> relative;
  for (std::uintptr_t line : *lines) relative.push_back(line - base);
  EXPECT_EQ(relative, (std::vector<std::uintptr_t>{0, 1, 63, 130}));
  EXPECT_EQ(sum, 0u + 10 + 64 + 255 + ((8192 + 130) & 255) + 10 + 64);
  // The region is readable and writable again.
  buffer.data[5] = 99;
  EXPECT_EQ(buffer.data[5], 99);
}

TEST(LineTracer, ASessionTracesEachCallAsIfAlone) {
  if (!LineTracingAvailable()) GTEST_SKIP() << "line tracing needs x86-64 Linux without AddressSanitizer";
  Aligned buffer(4 * 4096);
  const volatile std::uint8_t* p = buffer.data;
  unsigned sum = 0;
  const std::vector<std::vector<std::size_t>> patterns = {{0, 4095, 4096}, {}, {8192 + 130, 64, 64}, {12288}};
  std::vector<std::optional<std::vector<std::uintptr_t>>> alone, in_session;
  for (const auto& pattern : patterns) {
    alone.push_back(TraceLines({buffer.data, buffer.size}, [&] { for (std::size_t o : pattern) sum += p[o]; }));
  }
  {
    LineTraceSession session({buffer.data, buffer.size});
    for (const auto& pattern : patterns) {
      in_session.push_back(session.Trace([&] { for (std::size_t o : pattern) sum += p[o]; }));
    }
  }
  EXPECT_EQ(in_session, alone);
  ASSERT_TRUE(alone[0].has_value());
  EXPECT_EQ(alone[0]->size(), 3u);  // lines 0 and 63 of the first page, line 0 of the second
  // An 8-byte read straddling two pages is one access: it counts its first line only, as a
  // read straddling two lines inside a page does (the header says so).
  std::uint64_t word = 0;
  const auto straddle = TraceLines({buffer.data, buffer.size}, [&] {
    // One instruction, whatever the optimiser would make of a memcpy.
    asm volatile("movq (%1), %0" : "=r"(word) : "r"(buffer.data + 4092) : "memory");
    KeepWord(word);
  });
  ASSERT_TRUE(straddle.has_value());
  EXPECT_EQ(straddle->size(), 1u);
  // The region is readable and writable again after the session.
  buffer.data[4097] = 7;
  EXPECT_EQ(buffer.data[4097], 7);
}

TEST(LineTracer, CodeThatReadsNothingTouchesNoLine) {
  if (!LineTracingAvailable()) GTEST_SKIP() << "line tracing needs x86-64 Linux without AddressSanitizer";
  Aligned buffer(4096);
  int x = 0;
  const auto lines = TraceLines({buffer.data, buffer.size}, [&] { x += 1; });
  ASSERT_TRUE(lines.has_value());
  EXPECT_TRUE(lines->empty());
}

TEST(LineTracer, TooManyAccessesIsNoAnswer) {
  if (!LineTracingAvailable()) GTEST_SKIP() << "line tracing needs x86-64 Linux without AddressSanitizer";
  Aligned buffer(4096);
  const volatile std::uint8_t* p = buffer.data;
  unsigned sum = 0;
  EXPECT_FALSE(TraceLines({buffer.data, buffer.size}, [&] { for (int i = 0; i < 20; ++i) sum += p[i * 64]; }, 10));
}

TEST(LineTracer, BloomMemberLookupsTouchKLines) {
  if (!LineTracingAvailable()) GTEST_SKIP() << "line tracing needs x86-64 Linux without AddressSanitizer";
  // 10^5 keys at 1%: k = 7 bits over ~15,000 lines. Two of a lookup's 7 random bits share a
  // line with probability about C(7,2)/15,000 = 0.0014, so the mean is within 0.01 of k; a
  // lookup never touches more lines than k.
  const std::vector<std::uint64_t> keys = UniformKeys(1, KeyStream::kMembers, 100000);
  Bloom bloom(filter_tests::Params(keys.size(), 0.01, 0));
  for (std::uint64_t k : keys) bloom.insert(k);
  const int k = 7;  // bloom.h: k = round(ln2 * m/n) = round(log2(1/0.01)) = 7
  std::size_t total = 0, most = 0;
  const int lookups = 300;
  for (int i = 0; i < lookups; ++i) {
    const std::uint64_t key = keys[i];
    const auto lines = TraceLines(bloom.bytes(), [&] { EXPECT_TRUE(bloom.contains(key)); });
    ASSERT_TRUE(lines.has_value());
    total += lines->size();
    most = std::max(most, lines->size());
  }
  EXPECT_LE(most, static_cast<std::size_t>(k));
  EXPECT_GE(static_cast<double>(total) / lookups, k - 0.01);
}

}  // namespace
}  // namespace amq
