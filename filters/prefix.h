// filters/prefix.h - the prefix filter (T. Even, G. Even, A. Morrison, "Prefix Filter:
// Practically and Theoretically Better Than Bloom", PVLDB 15(7), 2022).
//
// An incremental filter: insert and lookup, no erase (the paper's filter is insert-only: a bin
// keeps the smallest fingerprints of the keys hashed to it, and once it has forwarded one to
// the spare it cannot tell which spare entries were its own, so nothing can be taken back).
//
// Layout. A key's hash h gives a bin, ReduceRange(h, m) (h's high bits), and a fingerprint
// fp in [0, Q 2^r) from h's low 32 bits: quotient q = fp / 2^r, remainder r bits. The bin
// table is m bins, each a pocket dictionary PD(Q = 25, k = 25, r = 8) in one 32-byte
// (256-bit) word, half a cache line:
//   bytes 0..6   header: for q = 0 .. 24, one 1 per stored fingerprint of quotient q, then a 0
//                (unary counts; at most 25 + 25 = 50 bits), and bit 55 = "this bin overflowed"
//   bytes 7..31  the 25 remainders, in quotient order and ascending within a quotient
// so element j of quotient q sits at header position j + q, a quotient's elements are the
// ones between the (q-1)-th and q-th zeros (one select), and the bin's largest fingerprint is
// its last element: quotient = (highest header one) - (count - 1), remainder = byte count - 1.
//
// The prefix invariant (the paper's section 4): a bin holds the k smallest fingerprints of the
// keys hashed to it. Inserting into a full bin forwards the largest of its k + 1 fingerprints
// - the new one, or the bin's maximum, which the new one then replaces - to the spare, keyed by
// (bin, fingerprint) (bin * Q 2^r + fp: the key itself is gone once only its fingerprint is
// stored), and marks the bin overflowed. A lookup therefore answers from the bin unless the bin
// has overflowed and fp is above the bin's maximum; only then does it read the spare. A
// fingerprint equal to a full bin's maximum is already answered by the bin and stores nothing.
//
// The spare, three ways (the paper's and FastFilter's PF[TC], PF[CF-12-Flex], PF[BBF-Flex]):
//   prefix_tc             a two-choice table of PD(Q = 80, k = 48, r = 8) bins of 64 bytes,
//                         the key stored in the less full of two bins (TwoChoiceSpare below)
//   prefix_cuckoo12       our cuckoo12 (filters/cuckoo.h)
//   prefix_blocked_bloom  our blocked_bloom (filters/blocked_bloom.h)
// If the spare refuses a key, the insert is refused and the bin is left exactly as before.
//
// Theory. With n keys in m bins, a bin's load X is Binomial(n, 1/m) ~ Poisson(lambda = n/m).
//   Keys forwarded to the spare: m E[(X - k)^+]. The paper bounds it by n / sqrt(2 pi k) at
//     lambda = k (about 8% of the keys at k = 25); at FastFilter's bin load 0.95 (lambda =
//     23.75) the Poisson sum gives 5.86% of the keys, FastFilter's constant 0.0586.
//   Space (bits/key): 256 m / n + spare bits / n, with m = n / (0.95 k): 256 / 23.75 = 10.78
//     for the bins, plus the spare sized for T = max(E / 0.95, E + 4 sd) keys: the two-choice
//     table at its load 0.935 (512 / (48 * 0.935) bits per key; E / 0.95 keys is what
//     FastFilter's PF[TC] allocates, 1,376 bins at n = 10^6) and cuckoo12 at max load 0.96
//     (12 / 0.96 bits per key before its power-of-two rounding: 2^14 buckets at n = 10^6,
//     expected load 0.89); the 4 sd term only matters at small n, where E / 0.95 leaves too
//     little room. The blocked Bloom filter gets 2 E / 0.95 keys at 256/24 bits per key
//     (FastFilter's PF[BBF-Flex] rule). E = m E[(X - k)^+], sd^2 = m Var[(X - k)^+].
//   FPR: a non-member whose fingerprint equals one of its bin's X keys' passes, whether that
//     fingerprint stayed in the bin or was forwarded (the spare holds forwarded fingerprints
//     exactly, as keys): w.p. lambda / (Q 2^r). Besides, it reaches the spare when the bin
//     overflowed and its fingerprint is above the bin's maximum, the k-th smallest of X uniform
//     ones (expected k / (X + 1)): w.p. E[(X - k + 1) / (X + 1); X > k], and the spare's own
//     false positives pass it. So
//       FPR = lambda / (Q 2^r) + E[(X - k + 1) / (X + 1); X > k] * FPR_spare,
//     with FPR_spare the spare's own theory at its load. At k = Q = 25, r = 8 and lambda =
//     23.75: 0.371% and 5.6% of non-members reach the spare. (Counting only the fingerprints
//     left in the bins, E[min(X, k)] / (Q 2^r) = 0.349%, fell ~6% below the measured FPR at
//     n = 10^6: 0.396% measured for prefix_tc against 0.372%; the formula above gives 0.394%.)
//
// SIMD: the 25 remainders are compared with the query's in one instruction (AVX-512 BW+VL:
// a byte compare into a mask register; AVX2: compare and movemask), and a quotient's run is
// one PDEP over the header's zeros (BMI2). An insert into a 32-byte bin is done in registers:
// its place is the run's start plus the count of the run's remainders <= r (one unsigned byte
// compare), the bytes above it move up one, and the bin is stored once. The portable path
// compares eight bytes at a time with exact zero-byte detection, selects with rsqf_core.h's
// byte table, and inserts by scanning the run and moving bytes with memmove. The path is a template
// argument chosen once per build from the compiler's target (kBuildPath); the SIMD kernels
// carry their own target attributes, so prefix_test.cc runs every path this CPU has and
// requires the same answers and bytes.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/batched.h"
#include "core/filter.h"
#include "core/hashing.h"
#include "filters/blocked_bloom.h"
#include "filters/cuckoo.h"
#include "filters/rsqf_core.h"

namespace amq {

namespace prefix_detail {

// Which compare and select a pocket dictionary uses.
enum class Path { kPortable, kAvx2, kAvx512 };

inline constexpr Path kBuildPath =
#if defined(AMQ_RSQF_HAVE_BMI2_SELECT) && defined(__BMI2__) && defined(__AVX512BW__) && \
    defined(__AVX512VL__)
    Path::kAvx512;
#elif defined(AMQ_RSQF_HAVE_BMI2_SELECT) && defined(__BMI2__) && defined(__AVX2__)
    Path::kAvx2;
#else
    Path::kPortable;
#endif

// Whether the SIMD kernels below are compiled (x86 with GCC or clang).
inline constexpr bool kHaveSimdKernels =
#if defined(AMQ_RSQF_HAVE_BMI2_SELECT)
    true;
#else
    false;
#endif

// Whether this CPU can run a path (the tests skip the ones it cannot).
inline bool CpuRuns(Path path) {
#if defined(AMQ_RSQF_HAVE_BMI2_SELECT)
  switch (path) {
    case Path::kPortable: return true;
    case Path::kAvx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
    case Path::kAvx512:
      return __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("bmi2");
  }
  return false;
#else
  return path == Path::kPortable;
#endif
}

// Bit i set when byte i of the kBytes at p equals r. Eight bytes per word: a byte of x = w ^ r..r
// is zero iff adding 0x7f to its low seven bits does not carry into bit 7 and bit 7 is clear
// (exact per byte, unlike the borrow trick); the eight flags are gathered by one multiply.
template <int kBytes>
inline std::uint64_t MatchBytesPortable(const std::uint8_t* p, std::uint8_t r) {
  constexpr std::uint64_t kLow7 = 0x7f7f7f7f7f7f7f7fULL, kHigh = 0x8080808080808080ULL;
  const std::uint64_t pattern = 0x0101010101010101ULL * r;
  std::uint64_t mask = 0;
  for (int w = 0; w < kBytes / 8; ++w) {
    std::uint64_t word;
    std::memcpy(&word, p + 8 * w, 8);
    const std::uint64_t x = word ^ pattern;
    const std::uint64_t zero = ~(((x & kLow7) + kLow7) | x) & kHigh;
    mask |= ((zero >> 7) * 0x0102040810204080ULL >> 56) << (8 * w);
  }
  return mask;
}

#if defined(AMQ_RSQF_HAVE_BMI2_SELECT)
template <int kBytes>
__attribute__((target("avx2"))) inline std::uint64_t MatchBytesAvx2(const std::uint8_t* p,
                                                                     std::uint8_t r) {
  const __m256i needle = _mm256_set1_epi8(static_cast<char>(r));
  std::uint64_t mask = 0;
  for (int half = 0; half < kBytes / 32; ++half) {
    const __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(p + 32 * half));
    mask |= std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, needle)))}
            << (32 * half);
  }
  return mask;
}

template <int kBytes>
__attribute__((target("avx512f,avx512bw,avx512vl"))) inline std::uint64_t MatchBytesAvx512(
    const std::uint8_t* p, std::uint8_t r) {
  if constexpr (kBytes == 32) {
    return _mm256_cmpeq_epi8_mask(_mm256_load_si256(reinterpret_cast<const __m256i*>(p)),
                                  _mm256_set1_epi8(static_cast<char>(r)));
  } else {
    static_assert(kBytes == 64);
    return _mm512_cmpeq_epi8_mask(_mm512_load_si512(p), _mm512_set1_epi8(static_cast<char>(r)));
  }
}
#endif

template <Path kPath, int kBytes>
inline std::uint64_t MatchBytes(const std::uint8_t* p, std::uint8_t r) {
#if defined(AMQ_RSQF_HAVE_BMI2_SELECT)
  if constexpr (kPath == Path::kAvx512) return MatchBytesAvx512<kBytes>(p, r);
  if constexpr (kPath == Path::kAvx2) return MatchBytesAvx2<kBytes>(p, r);
#endif
  return MatchBytesPortable<kBytes>(p, r);
}

// Position of the k-th (0-based) set bit of x.
template <Path kPath>
inline int SelectBit(std::uint64_t x, int k) {
#if defined(AMQ_RSQF_HAVE_BMI2_SELECT)
  if constexpr (kPath != Path::kPortable) return rsqf_detail::SelectBmi2(x, k);
#endif
  return rsqf_detail::SelectPortable(x, k);
}

// Bit i set when byte i of the 32 bytes at p is at most r: where a sorted run's new remainder
// goes. Only the SIMD paths insert this way; the portable path scans the run.
#if defined(AMQ_RSQF_HAVE_BMI2_SELECT)
__attribute__((target("avx2"))) inline std::uint64_t AtMostBytesAvx2(const std::uint8_t* p,
                                                                      std::uint8_t r) {
  const __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(p));
  // min(v, r) == v exactly where v <= r (AVX2 has no unsigned byte compare).
  return static_cast<std::uint32_t>(
      _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(static_cast<char>(r))), v)));
}

__attribute__((target("avx512f,avx512bw,avx512vl"))) inline std::uint64_t AtMostBytesAvx512(
    const std::uint8_t* p, std::uint8_t r) {
  return _mm256_cmple_epu8_mask(_mm256_load_si256(reinterpret_cast<const __m256i*>(p)),
                                _mm256_set1_epi8(static_cast<char>(r)));
}

// The 32-byte bin at p rewritten in registers and stored once: bytes at and above `at` move
// up one (byte 31 falls off: unused in a bin with room, the evicted maximum in a full one), r
// goes to `at`, and bytes below kHead take `head`'s. One store, so the next read of the bin
// never waits on a partial-store forward.
template <int kHead>
__attribute__((target("avx2"))) inline void InsertByteAvx2(std::uint8_t* p, int at, std::uint8_t r,
                                                           std::uint64_t head) {
  const __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(p));
  // alignr shifts within 128-bit lanes; the low lane, moved under the high one, feeds byte 16.
  const __m256i up = _mm256_alignr_epi8(v, _mm256_permute2x128_si256(v, v, 0x08), 15);
  const __m256i index = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
                                         18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
  const __m256i at_v = _mm256_set1_epi8(static_cast<char>(at));
  __m256i out = _mm256_blendv_epi8(v, up, _mm256_cmpgt_epi8(index, at_v));
  out = _mm256_blendv_epi8(out, _mm256_set1_epi8(static_cast<char>(r)), _mm256_cmpeq_epi8(index, at_v));
  out = _mm256_blendv_epi8(out, _mm256_set_epi64x(0, 0, 0, static_cast<long long>(head)),
                           _mm256_cmpgt_epi8(_mm256_set1_epi8(kHead), index));
  _mm256_store_si256(reinterpret_cast<__m256i*>(p), out);
}

template <int kHead>
__attribute__((target("avx512f,avx512bw,avx512vl"))) inline void InsertByteAvx512(
    std::uint8_t* p, int at, std::uint8_t r, std::uint64_t head) {
  const __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i up = _mm256_alignr_epi8(v, _mm256_permute2x128_si256(v, v, 0x08), 15);
  const __mmask32 above = (0xffffffffu << at) << 1;  // at <= 31: two shifts, never one by 32
  __m256i out = _mm256_mask_blend_epi8(above, v, up);
  out = _mm256_mask_set1_epi8(out, __mmask32{1} << at, static_cast<char>(r));
  out = _mm256_mask_blend_epi8((__mmask32{1} << kHead) - 1, out,
                               _mm256_set_epi64x(0, 0, 0, static_cast<long long>(head)));
  _mm256_store_si256(reinterpret_cast<__m256i*>(p), out);
}

// Bits (prev + 1) and (pos + 1), where pos is the q-th zero of h and prev the (q-1)-th (-1 for
// q = 0: the zero shifted in below the header stands for it). One PDEP finds both.
__attribute__((target("bmi,bmi2"))) inline std::uint64_t TwoZerosBmi2(std::uint64_t h, int q) {
  return _pdep_u64(std::uint64_t{3} << q, ~h << 1 | 1);
}
#endif

// A pocket dictionary PD(Q, k, 8) in kBytes bytes: header (Q + k unary-coded bits, then an
// overflow flag in the header's top bit where there is room) and k one-byte remainders.
template <int kQ, int kK, int kBytes, Path kPath>
struct PocketDictionary {
  static constexpr int kQuotients = kQ;
  static constexpr int kCapacity = kK;
  static constexpr int kHeaderBytes = kBytes - kK;
  static constexpr int kHeaderBits = kQ + kK;
  static constexpr int kFingerprints = kQ * 256;  // fp = q 2^8 + r
  using Header = std::conditional_t<(kHeaderBytes <= 8), std::uint64_t, unsigned __int128>;
  static_assert(kHeaderBits <= 8 * kHeaderBytes && kHeaderBytes <= 16 && kK < 64);
  static constexpr bool kHasFlag = kHeaderBits < 8 * kHeaderBytes;
  // The 32-byte bins insert in registers (InsertByteAvx2/Avx512); the portable path, and the
  // spare's 64-byte bins on every path, scan the run and move bytes with memmove.
  static constexpr bool kVectorInsert = kHaveSimdKernels && kPath != Path::kPortable && kBytes == 32;

  struct alignas(kBytes) Bin {
    std::uint8_t bytes[kBytes] = {};
  };

  // The header as one aligned word (8 or 16 bytes, always inside the bin): a copy of exactly
  // kHeaderBytes would be assembled on the stack and read back through a stalled forward.
  static Header Word(const Bin& b) {
    Header w;
    std::memcpy(&w, b.bytes, sizeof(Header));
    return w;
  }
  static Header Bits(const Bin& b) { return Word(b) & LowMask(kHeaderBits); }
  // Replaces the header bits, keeping what shares their word (the flag, the first remainders).
  static void StoreBits(Bin& b, Header h) {
    const Header w = (Word(b) & ~LowMask(kHeaderBits)) | h;
    std::memcpy(b.bytes, &w, sizeof(Header));
  }
  static bool Overflowed(const Bin& b) {
    if constexpr (kHasFlag) return b.bytes[kHeaderBytes - 1] >> 7;
    return false;
  }
  // The flag as 0 or 1, read from the header's word rather than as a byte of its own.
  static std::uint32_t OverflowBit(const Bin& b) {
    if constexpr (kHasFlag) return static_cast<std::uint32_t>(Word(b) >> (8 * kHeaderBytes - 1)) & 1;
    return 0;
  }
  static void MarkOverflowed(Bin& b) {
    if constexpr (kHasFlag) b.bytes[kHeaderBytes - 1] |= 0x80;
  }
  static const std::uint8_t* Remainders(const Bin& b) { return b.bytes + kHeaderBytes; }
  static std::uint8_t* Remainders(Bin& b) { return b.bytes + kHeaderBytes; }

  static int Count(Header h) { return Popcount(h); }

  // Quotient q's elements sit at header positions j + q (j its element indices), so the match
  // mask shifted up by q meets the header's run of q exactly where a stored remainder equals r;
  // the bytes past the stored ones (zeros, which match r = 0) land outside every run.
  static bool Contains(const Bin& b, int q, std::uint8_t r) {
    // The compare does not wait for the header: both start from the loaded bin.
    const std::uint64_t matches = MatchBytes<kPath, kBytes>(b.bytes, r) >> kHeaderBytes;
    if constexpr (sizeof(Header) > 8) {
      // The spare's bins: their 128-bit select is long, and most lookups there match no byte.
      if (matches == 0) return false;
    }
    return ((Header{matches} << q) & RunOf(Bits(b), q).mask) != 0;
  }

  // The largest stored fingerprint (the bin is not empty).
  static int MaxFingerprint(const Bin& b) {
    const Header h = Bits(b);
    const int count = Count(h);
    const int q = BitWidth(h) - 1 - (count - 1);
    return q * 256 + Remainders(b)[count - 1];
  }
  // The same for a full bin (every overflowed bin is full: nothing leaves a bin but its
  // maximum, and only for a smaller fingerprint): the last byte, no count needed.
  static int MaxOfFull(const Bin& b) {
    return (BitWidth(Bits(b)) - kK) * 256 + b.bytes[kBytes - 1];
  }

  // Adds fingerprint (q, r) to a bin with room, keeping remainders ascending within a quotient.
  static void Insert(Bin& b, int q, std::uint8_t r) { InsertUnder(b, Bits(b), q, r); }

  // Drops the largest fingerprint of a non-empty bin: its one is the header's highest, and only
  // zeros lie above it, so clearing it shifts nothing.
  static void RemoveMax(Bin& b) {
    const Header h = Bits(b);
    const int count = Count(h);
    Remainders(b)[count - 1] = 0;
    StoreBits(b, h & ~(Header{1} << (BitWidth(h) - 1)));
  }

  // RemoveMax then Insert of a smaller fingerprint, in one pass: the maximum is the last
  // remainder, which the insert's move overwrites (memmove) or pushes off the bin (registers).
  static void ReplaceMax(Bin& b, int q, std::uint8_t r) {
    const Header h = Bits(b);
    InsertUnder(b, h & ~(Header{1} << (BitWidth(h) - 1)), q, r);
  }

  // Quotient q's run: the header positions of its ones, [start, stop) with stop its zero.
  struct Run {
    Header mask;
    int start, stop;
  };
  static Run RunOf(Header h, int q) {
#if defined(AMQ_RSQF_HAVE_BMI2_SELECT)
    if constexpr (sizeof(Header) == 8 && kPath != Path::kPortable) {
      // two has bits start and stop + 1; the ones in between, shifted back down, are the run.
      const std::uint64_t two = TwoZerosBmi2(h, q);
      const std::uint64_t first = two & (0 - two);
      return {(two - 3 * first) >> 1, std::countr_zero(first), static_cast<int>(std::bit_width(two)) - 2};
    }
#endif
    const int pos = SelectZero(h, q);
    const int start = BitWidth(~h & LowMask(pos));  // one past the (q-1)-th zero; 0 for q = 0
    return {LowMask(pos) & ~LowMask(start), start, pos};
  }

  static constexpr Header LowMask(int bits) {
    return bits >= 8 * static_cast<int>(sizeof(Header)) ? ~Header{0} : (Header{1} << bits) - 1;
  }
  static int Popcount(Header h) {
    if constexpr (sizeof(Header) == 8) {
      return rsqf_detail::Popcount(h);
    } else {
      return rsqf_detail::Popcount(static_cast<std::uint64_t>(h)) +
             rsqf_detail::Popcount(static_cast<std::uint64_t>(h >> 64));
    }
  }
  static int BitWidth(Header h) {
    if constexpr (sizeof(Header) == 8) {
      return std::bit_width(h);
    } else {
      const auto high = static_cast<std::uint64_t>(h >> 64);
      return high ? 64 + std::bit_width(high) : std::bit_width(static_cast<std::uint64_t>(h));
    }
  }
  static int SelectZero(Header h, int k) {
    if constexpr (sizeof(Header) == 8) {
      return SelectBit<kPath>(~h, k);
    } else {
      const std::uint64_t low = ~static_cast<std::uint64_t>(h);
      const int low_zeros = rsqf_detail::Popcount(low);
      return k < low_zeros ? SelectBit<kPath>(low, k)
                           : 64 + SelectBit<kPath>(~static_cast<std::uint64_t>(h >> 64), k - low_zeros);
    }
  }

 private:
  // Inserts (q, r) into a bin whose header is h (h may have dropped the bin's maximum, whose
  // byte is then overwritten). The new one goes after the run's remainders <= r, so equal
  // remainders keep their insertion order and every path writes the same bytes.
  static void InsertUnder(Bin& b, Header h, int q, std::uint8_t r) {
    const Run run = RunOf(h, q);
    int pos;  // the new one's header position; its element index is pos - q
    if constexpr (kVectorInsert) {
      // The run is ascending, so its remainders <= r are a prefix of it: count them.
      const std::uint64_t at_most = AtMost(b.bytes, r) >> kHeaderBytes;
      pos = run.start + Popcount((Header{at_most} << q) & run.mask);
    } else {
      const std::uint8_t* rem = Remainders(b);
      pos = run.start;
      while (pos < run.stop && rem[pos - q] <= r) ++pos;
    }
    const Header below = h & ((Header{1} << pos) - 1);  // pos < kHeaderBits: no LowMask test
    const Header header = below | (Header{1} << pos) | ((h ^ below) << 1);
    const int at = pos - q;
#if defined(AMQ_RSQF_HAVE_BMI2_SELECT)
    if constexpr (kVectorInsert) {
      const Header word = header | (Word(b) & ~LowMask(kHeaderBits));  // keeps the flag
      if constexpr (kPath == Path::kAvx512) {
        InsertByteAvx512<kHeaderBytes>(b.bytes, kHeaderBytes + at, r, word);
      } else {
        InsertByteAvx2<kHeaderBytes>(b.bytes, kHeaderBytes + at, r, word);
      }
      return;
    }
#endif
    std::uint8_t* rem = Remainders(b);
    std::memmove(rem + at + 1, rem + at, Count(h) - at);
    rem[at] = r;
    StoreBits(b, header);
  }

  static std::uint64_t AtMost(const std::uint8_t* p, std::uint8_t r) {
#if defined(AMQ_RSQF_HAVE_BMI2_SELECT)
    if constexpr (kPath == Path::kAvx512) return AtMostBytesAvx512(p, r);
    if constexpr (kPath == Path::kAvx2) return AtMostBytesAvx2(p, r);
#endif
    (void)p;
    (void)r;
    return 0;  // not reached: without the kernels every path scans
  }
};

// Poisson(lambda) moments of a bin of capacity k (the theory in the header comment).
struct BinOccupancy {
  double stored = 0;         // E[min(X, k)]
  double overflow = 0;       // E[(X - k)^+]
  double overflow_var = 0;   // Var[(X - k)^+]
  double query_to_spare = 0; // E[(X - k + 1) / (X + 1); X > k]
};

inline BinOccupancy PoissonBinOccupancy(double lambda, int k) {
  BinOccupancy o;
  if (lambda <= 0) return o;
  double second = 0;
  const int last = static_cast<int>(lambda + 12 * std::sqrt(lambda) + k + 40);
  for (int x = 0; x <= last; ++x) {
    const double p = std::exp(x * std::log(lambda) - lambda - std::lgamma(x + 1.0));
    const double over = std::max(0, x - k);
    o.stored += p * std::min(x, k);
    o.overflow += p * over;
    second += p * over * over;
    if (x > k) o.query_to_spare += p * (x - k + 1) / (x + 1.0);
  }
  o.overflow_var = std::max(0.0, second - o.overflow * o.overflow);
  return o;
}

// The spare of prefix_tc: m bins of PD(80, 48, 8) in 64 bytes; a key goes to the less full of
// two bins (the first on a tie) and a lookup reads both. FPR = (load of both bins) / (80 2^8):
// 2 alpha 48 / 20480 at load alpha.
template <Path kPath>
class TwoChoiceSpare {
 public:
  using Pd = PocketDictionary<80, 48, 64, kPath>;
  static constexpr double kLoad = 0.935;  // FastFilter's TC load

  // Bins for `keys` keys at kLoad; an even count, as FastFilter's, and at least 2.
  static std::size_t BinsFor(double keys) {
    const auto bins = static_cast<std::size_t>(std::ceil(keys / (Pd::kCapacity * kLoad)));
    return std::max<std::size_t>(2, bins + (bins & 1));
  }

  TwoChoiceSpare(double keys, std::uint64_t spread_seed)
      : seed_(spread_seed), bins_(BinsFor(keys)), bin_count_(bins_.size()) {}

  bool insert(std::uint64_t key) {
    const Located l = Locate(key);
    typename Pd::Bin& a = bins_[l.first];
    typename Pd::Bin& b = bins_[l.second];
    const int ca = Pd::Count(Pd::Bits(a)), cb = Pd::Count(Pd::Bits(b));
    typename Pd::Bin& target = ca <= cb ? a : b;
    if (std::min(ca, cb) >= Pd::kCapacity) return false;
    Pd::Insert(target, l.q, l.r);
    ++keys_;
    return true;
  }

  bool contains(std::uint64_t key) const {
    const Located l = Locate(key);
    // Both bins are read and the answers or-ed without a branch; as ints, since clang warns
    // (-Wbitwise-instead-of-logical) on a bitwise | of bools.
    return (int{Pd::Contains(bins_[l.first], l.q, l.r)} | int{Pd::Contains(bins_[l.second], l.q, l.r)}) != 0;
  }

  std::size_t size_in_bytes() const { return bins_.size() * sizeof(typename Pd::Bin); }
  std::span<const std::uint8_t> bytes() const {
    return {reinterpret_cast<const std::uint8_t*>(bins_.data()), size_in_bytes()};
  }
  double load_factor() const { return static_cast<double>(keys_) / (bin_count_ * Pd::kCapacity); }
  Theory theory() const {
    return {2.0 * static_cast<double>(keys_) / bin_count_ / Pd::kFingerprints,
            8.0 * sizeof(typename Pd::Bin) / (Pd::kCapacity * kLoad)};
  }

 private:
  struct Located {
    std::uint64_t first, second;
    int q;
    std::uint8_t r;
  };
  Located Locate(std::uint64_t key) const {
    const std::uint64_t h = HashKey(key, seed_);
    const std::uint64_t fp = ((h & 0xffffffffULL) * Pd::kFingerprints) >> 32;
    return {ReduceRange(h, bin_count_), ReduceRange(MurmurMix64(h + 0x9e3779b97f4a7c15ULL), bin_count_),
            static_cast<int>(fp >> 8), static_cast<std::uint8_t>(fp)};
  }

  std::uint64_t seed_;
  std::vector<typename Pd::Bin> bins_;
  std::uint64_t bin_count_;
  std::uint64_t keys_ = 0;
};

}  // namespace prefix_detail

enum class PrefixSpare { kTwoChoice, kCuckoo12, kBlockedBloom };

template <PrefixSpare kSpare, prefix_detail::Path kPath = prefix_detail::kBuildPath>
class PrefixFilter {
 public:
  using Pd = prefix_detail::PocketDictionary<25, 25, 32, kPath>;
  using Spare = std::conditional_t<
      kSpare == PrefixSpare::kTwoChoice, prefix_detail::TwoChoiceSpare<kPath>,
      std::conditional_t<kSpare == PrefixSpare::kCuckoo12, Cuckoo<12>, BlockedBloom>>;

  static constexpr double kBinLoad = 0.95;       // keys per bin / k, FastFilter's and the paper's
  static constexpr double kTableSpareKeysFactor = 1 / 0.95;  // FastFilter's PF[TC]: E / 0.95
  static constexpr double kSpareSigmas = 4;      // E + 4 sd: the margin at small n
  static constexpr double kCuckooSpareLoad = 0.96;
  static constexpr double kBloomSpareKeysFactor = 2 / 0.95;  // FastFilter's PF[BBF-Flex]
  static constexpr double kBloomSpareBitsPerKey = 256.0 / 24;
  static constexpr std::size_t kLookupAhead = 16;

  static constexpr std::string_view kName = kSpare == PrefixSpare::kTwoChoice ? "prefix_tc"
                                            : kSpare == PrefixSpare::kCuckoo12
                                                ? "prefix_cuckoo12"
                                                : "prefix_blocked_bloom";
  static constexpr std::string_view kFamily = "prefix";
  // PD(25, 25, 8) bins fix the fingerprint: --fpr does not change the filter.
  static constexpr bool kFixedWidth = true;
  static constexpr std::string_view kParameters =
      "fixed PD(25, 25, 8) bins of 32 bytes, bins = ceil(n / (25 * 0.95)); spare sized from the "
      "expected overflow E (Poisson) for max(E / 0.95, E + 4 sd) keys: two-choice at load 0.935, "
      "cuckoo12 at max load 0.96; blocked Bloom 2 E / 0.95 keys at 10.67 bits/key; "
      "--fpr, --bits-per-key and --max-load are ignored";

  static std::uint64_t BinsFor(std::size_t n) {
    return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(n / (Pd::kCapacity * kBinLoad))));
  }

  // The keys the spare is sized for, from the expected overflow of `bins` bins holding n keys.
  static double SpareKeysFor(double n, double bins) {
    if (n <= 0) return 0;
    const prefix_detail::BinOccupancy o = prefix_detail::PoissonBinOccupancy(n / bins, Pd::kCapacity);
    const double expected = bins * o.overflow, sd = std::sqrt(bins * o.overflow_var);
    if constexpr (kSpare != PrefixSpare::kBlockedBloom) {
      return std::max(kTableSpareKeysFactor * expected, expected + kSpareSigmas * sd);
    } else {
      return kBloomSpareKeysFactor * expected;
    }
  }

  explicit PrefixFilter(const FilterParams& p)
      : capacity_(p.capacity),
        seed_(SpreadSeed(p.seed)),
        bins_(BinsFor(p.capacity)),
        bin_count_(bins_.size()),
        spare_keys_sized_(SpareKeysFor(static_cast<double>(p.capacity), static_cast<double>(bin_count_))),
        spare_(MakeSpare(spare_keys_sized_, p.seed)) {}

  bool insert(std::uint64_t key) {
    const Located l = Locate(key);
    typename Pd::Bin& bin = bins_[l.bin];
    if (Pd::Count(Pd::Bits(bin)) < Pd::kCapacity) [[likely]] {
      Pd::Insert(bin, l.fp >> 8, static_cast<std::uint8_t>(l.fp));
      return Stored();
    }
    return InsertIntoFull(l);
  }

  bool contains(std::uint64_t key) const { return Probe(Locate(key)); }

  // Each key's bin prefetched kLookupAhead keys ahead (core/batched.h); the rare spare reads
  // are not prefetched.
  std::size_t contains_many(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
    return PipelinedContains<kLookupAhead>(
        keys, out,
        [this](std::uint64_t key) {
          const Located l = Locate(key);
          __builtin_prefetch(&bins_[l.bin]);
          return l;
        },
        [this](const Located& l) { return Probe(l); });
  }

  // The bin table and the spare.
  std::size_t size_in_bytes() const { return bin_bytes() + spare_.size_in_bytes(); }
  // The bin table's bytes (the spare's are spare_bytes()).
  std::span<const std::uint8_t> bytes() const {
    return {reinterpret_cast<const std::uint8_t*>(bins_.data()), bin_bytes()};
  }
  std::span<const std::uint8_t> spare_bytes() const { return spare_.bytes(); }
  std::size_t bin_bytes() const { return bins_.size() * sizeof(typename Pd::Bin); }
  std::uint64_t bins() const { return bin_count_; }
  std::uint64_t insert_failures() const { return insert_failures_; }
  std::uint64_t keys_to_spare() const { return keys_to_spare_; }
  std::uint64_t lookups_to_spare() const { return lookups_to_spare_; }
  const Spare& spare() const { return spare_; }
  // Keys held over the keys the filter was sized for.
  double load_factor() const {
    return capacity_ ? static_cast<double>(keys_) / static_cast<double>(capacity_) : 0.0;
  }

  Theory theory() const {
    const prefix_detail::BinOccupancy o =
        prefix_detail::PoissonBinOccupancy(static_cast<double>(keys_) / bin_count_, Pd::kCapacity);
    const double lambda = static_cast<double>(keys_) / bin_count_;
    const double fpr = lambda / Pd::kFingerprints + o.query_to_spare * spare_.theory().fpr;
    return {fpr, BitsPerKeyFormula(static_cast<double>(capacity_))};
  }

  // The space formula at n keys, without rounding bins or the spare to whole units.
  static double BitsPerKeyFormula(double n) {
    const double bin_bits = 8.0 * sizeof(typename Pd::Bin) / (Pd::kCapacity * kBinLoad);
    if (n <= 0) return bin_bits;
    const double spare_keys = SpareKeysFor(n, n / (Pd::kCapacity * kBinLoad));
    double spare_bits_per_key;
    if constexpr (kSpare == PrefixSpare::kTwoChoice) {
      spare_bits_per_key = 512 / (48 * Spare::kLoad);
    } else if constexpr (kSpare == PrefixSpare::kCuckoo12) {
      spare_bits_per_key = 12 / kCuckooSpareLoad;
    } else {
      spare_bits_per_key = kBloomSpareBitsPerKey;
    }
    return bin_bits + spare_keys * spare_bits_per_key / n;
  }

  static constexpr StatSpec kStats[] = {
      {"prefix_bins", "integer", "bins", "prefix filter: 32-byte PD(25, 25, 8) bins in the bin table"},
      {"prefix_bin_fill", "number", "fraction", "prefix filter: fingerprints in bins / (25 bins)"},
      {"prefix_bins_full", "integer", "bins", "prefix filter: bins holding 25 fingerprints"},
      {"prefix_bins_overflowed", "integer", "bins",
       "prefix filter: bins that forwarded a fingerprint to the spare"},
      {"prefix_keys_to_spare", "integer", "keys",
       "prefix filter: fingerprints forwarded to the spare (the new key's or an evicted bin maximum)"},
      {"prefix_keys_to_spare_fraction", "number", "fraction",
       "prefix filter: prefix_keys_to_spare / keys inserted"},
      {"prefix_spare_keys_expected", "number", "keys",
       "prefix filter: the Poisson expectation m E[(X - 25)^+] of forwarded keys at this fill"},
      {"prefix_spare_keys_sized", "number", "keys", "prefix filter: keys the spare was sized for"},
      {"prefix_spare_load", "number", "fraction",
       "prefix filter: spare keys / spare slots (blocked Bloom spare: / keys it was sized for)"},
      {"prefix_spare_bytes", "integer", "bytes", "prefix filter: bytes of the spare"},
      {"prefix_spare_fpr_theory", "number", "fraction", "prefix filter: the spare's own theory FPR"},
      {"prefix_lookups_to_spare", "integer", "lookups",
       "prefix filter: lookups that read the spare (bin overflowed, fingerprint above its maximum)",
       OverTrials::kSum},
      {"prefix_insert_failures", "integer", "keys", "prefix filter: inserts refused (spare full)",
       OverTrials::kSum}};

  void add_stats(Stats& s) const {
    std::uint64_t stored = 0, full = 0, overflowed = 0;
    for (const auto& bin : bins_) {
      const int count = Pd::Count(Pd::Bits(bin));
      stored += count;
      full += count == Pd::kCapacity ? 1 : 0;
      overflowed += Pd::Overflowed(bin) ? 1 : 0;
    }
    const prefix_detail::BinOccupancy o =
        prefix_detail::PoissonBinOccupancy(static_cast<double>(keys_) / bin_count_, Pd::kCapacity);
    s.put("prefix_bins", bin_count_);
    s.put("prefix_bin_fill", static_cast<double>(stored) / (bin_count_ * Pd::kCapacity));
    s.put("prefix_bins_full", full);
    s.put("prefix_bins_overflowed", overflowed);
    s.put("prefix_keys_to_spare", keys_to_spare_);
    s.put("prefix_keys_to_spare_fraction", keys_ ? static_cast<double>(keys_to_spare_) / keys_ : 0.0);
    s.put("prefix_spare_keys_expected", o.overflow * bin_count_);
    s.put("prefix_spare_keys_sized", spare_keys_sized_);
    double spare_load;
    if constexpr (kSpare == PrefixSpare::kBlockedBloom) {
      spare_load = spare_keys_sized_ > 0 ? keys_to_spare_ / spare_keys_sized_ : 0.0;
    } else {
      spare_load = spare_.load_factor();
    }
    s.put("prefix_spare_load", spare_load);
    s.put("prefix_spare_bytes", spare_.size_in_bytes());
    s.put("prefix_spare_fpr_theory", spare_.theory().fpr);
    s.put("prefix_lookups_to_spare", lookups_to_spare_);
    s.put("prefix_insert_failures", insert_failures_);
  }

 private:
  struct Located {
    std::uint64_t bin;
    int fp;  // q 2^8 + r, in [0, 25 2^8)
  };

  // Bin from h's high bits (ReduceRange), fingerprint from its low 32 bits.
  Located Locate(std::uint64_t key) const {
    const std::uint64_t h = HashKey(key, seed_);
    return {ReduceRange(h, bin_count_),
            static_cast<int>(((h & 0xffffffffULL) * Pd::kFingerprints) >> 32)};
  }

  // The spare first: a fingerprint above an overflowed bin's maximum cannot be in the bin, and
  // one at or below it cannot be in the spare (the prefix invariant), so exactly one is read.
  // One branch on both tests: about a third of the bins overflow at load 0.95, so a branch on
  // the flag alone would miss often, and it waits on the bin's load, so each miss discards the
  // lookups queued behind it; both tests together are true for ~6% of lookups. They are
  // combined as bits (the sign of max - fp and the flag), which the compiler keeps as one test.
  bool Probe(const Located& l) const {
    const typename Pd::Bin& bin = bins_[l.bin];
    const auto above_max = static_cast<std::uint32_t>(Pd::MaxOfFull(bin) - l.fp) >> 31;
    if ((above_max & Pd::OverflowBit(bin)) != 0) [[unlikely]] return SpareContains(l);
    return Pd::Contains(bin, l.fp >> 8, static_cast<std::uint8_t>(l.fp));
  }

  // Out of line, so the common lookup keeps its few registers and saves none.
  [[gnu::noinline, gnu::cold]] bool SpareContains(Located l) const {  // by value: in registers
    ++lookups_to_spare_;
    return spare_.contains(SpareKey(l.bin, l.fp));
  }

  // Out of line, as SpareContains: about one insert in 17 finds its bin full (5.9% of the keys
  // are forwarded at load 0.95).
  [[gnu::noinline]] bool InsertIntoFull(Located l) {
    typename Pd::Bin& bin = bins_[l.bin];
    const int max = Pd::MaxOfFull(bin);
    if (l.fp == max) return Stored();  // the bin answers it already
    // The largest of the k + 1 goes to the spare: the new one, or the bin's maximum.
    const int forwarded = std::max(l.fp, max);
    if (!spare_.insert(SpareKey(l.bin, forwarded))) {
      ++insert_failures_;
      return false;
    }
    if (l.fp < max) Pd::ReplaceMax(bin, l.fp >> 8, static_cast<std::uint8_t>(l.fp));
    Pd::MarkOverflowed(bin);
    ++keys_to_spare_;
    return Stored();
  }

  static std::uint64_t SpareKey(std::uint64_t bin, int fp) {
    return bin * Pd::kFingerprints + static_cast<std::uint64_t>(fp);
  }

  bool Stored() {
    ++keys_;
    return true;
  }

  static Spare MakeSpare(double keys, std::uint64_t seed) {
    const std::uint64_t spare_seed = seed ^ 0x7370617265ULL;  // "spare"
    if constexpr (kSpare == PrefixSpare::kTwoChoice) {
      return Spare(keys, SpreadSeed(spare_seed));
    } else {
      FilterParams sp;
      sp.seed = spare_seed;
      if constexpr (kSpare == PrefixSpare::kCuckoo12) {
        sp.capacity = static_cast<std::size_t>(std::ceil(keys));
        sp.max_load = kCuckooSpareLoad;
      } else {
        sp.capacity = static_cast<std::size_t>(std::ceil(keys));
        sp.bits_per_key = kBloomSpareBitsPerKey;
      }
      return Spare(sp);
    }
  }

  std::size_t capacity_;
  std::uint64_t seed_;
  std::vector<typename Pd::Bin> bins_;
  std::uint64_t bin_count_;
  double spare_keys_sized_;
  Spare spare_;
  std::uint64_t keys_ = 0;
  std::uint64_t keys_to_spare_ = 0;
  std::uint64_t insert_failures_ = 0;
  // Counted in the rare spare branch only, so the common lookup pays nothing for it.
  mutable std::uint64_t lookups_to_spare_ = 0;
};

using PrefixTc = PrefixFilter<PrefixSpare::kTwoChoice>;
using PrefixCuckoo12 = PrefixFilter<PrefixSpare::kCuckoo12>;
using PrefixBlockedBloom = PrefixFilter<PrefixSpare::kBlockedBloom>;

}  // namespace amq
