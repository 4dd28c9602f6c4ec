// filters/bit_packed.h - an array of w-bit unsigned fields, 1 <= w <= 56, packed end to end.
//
// Filters whose fingerprint width is not 8 or 16 bits store slots here so that space matches
// the formula (w bits per slot, not a rounded-up byte count). Each access is one unaligned
// 64-bit load: field i starts at bit i*w, and a field of at most 56 bits plus an in-byte
// offset of at most 7 always fits in the 8 bytes starting at byte (i*w)/8. The buffer keeps
// 8 bytes of zero padding at the end so the last field's load stays in bounds.
// kWidth > 0 fixes the width at compile time (cuckoo12 gets constant shifts and masks);
// kWidth = 0 takes it at run time.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace amq {

template <int kWidth = 0>
class BitPackedArray {
 public:
  BitPackedArray() = default;
  BitPackedArray(std::size_t count, int width)
      : width_(kWidth ? kWidth : width), count_(count), bytes_((count * width_ + 7) / 8 + 8, 0) {
    assert(width_ >= 1 && width_ <= 56 && (kWidth == 0 || width == kWidth));
  }

  std::uint64_t get(std::size_t i) const {
    const std::size_t bit = i * width();
    return (Load(bit >> 3) >> (bit & 7)) & mask();
  }

  void set(std::size_t i, std::uint64_t value) {
    const std::size_t bit = i * width();
    const std::uint64_t field_mask = mask() << (bit & 7);
    std::uint64_t word = Load(bit >> 3);
    word = (word & ~field_mask) | ((value << (bit & 7)) & field_mask);
    std::memcpy(&bytes_[bit >> 3], &word, sizeof word);
  }

  // Loads the `bits` bits starting at bit `start`, which must satisfy bits + start % 8 <= 64:
  // a whole cuckoo bucket in one read when it fits.
  std::uint64_t get_bits(std::size_t start, int bits) const {
    const std::uint64_t m = bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
    return (Load(start >> 3) >> (start & 7)) & m;
  }

  int width() const { return kWidth ? kWidth : width_; }
  std::size_t size() const { return count_; }
  std::size_t size_in_bytes() const { return (count_ * width() + 7) / 8; }  // without padding
  const std::uint8_t* data() const { return bytes_.data(); }

 private:
  std::uint64_t mask() const { return (1ULL << width()) - 1; }
  std::uint64_t Load(std::size_t byte) const {
    std::uint64_t word;
    std::memcpy(&word, &bytes_[byte], sizeof word);
    return word;
  }

  int width_ = 1;
  std::size_t count_ = 0;
  std::vector<std::uint8_t> bytes_;
};

}  // namespace amq
