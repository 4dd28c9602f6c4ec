// filters/remote_store.h - the full-key table behind an adaptive cuckoo filter.
//
// An adaptive filter can only fix a false positive if it can learn which stored key caused it
// (Bender et al. show that some access to the exact set is necessary for adaptivity). Following
// Mitzenmacher, Pontarelli and Reviriego's ACF, the remote store mirrors the filter slot for
// slot: the key whose fingerprint sits in filter slot i is keys[i], so a positive answer is
// checked, and the colliding key found, with one lookup per matching slot. It lives "off chip":
// its memory is reported apart from the filter's and never counted in bits per key, and the
// filter's FPR is always measured at the filter, before the remote check.
//
// Layout: a 64-bit key and an occupancy bit per slot. The occupancy bit is what lets the
// validator cross-check the filter (a slot is empty in the filter iff it is empty here).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace amq {

class RemoteStore {
 public:
  RemoteStore() = default;
  explicit RemoteStore(std::size_t slots) : keys_(slots, 0), used_(slots, 0) {}

  bool used(std::size_t slot) const { return used_[slot] != 0; }
  std::uint64_t key(std::size_t slot) const { return keys_[slot]; }

  void put(std::size_t slot, std::uint64_t key) {
    keys_[slot] = key;
    used_[slot] = 1;
  }
  void clear(std::size_t slot) {
    keys_[slot] = 0;
    used_[slot] = 0;
  }
  void clear_all() {
    std::fill(keys_.begin(), keys_.end(), 0);
    std::fill(used_.begin(), used_.end(), 0);
  }

  std::size_t slots() const { return keys_.size(); }
  // 8 bytes of key and one occupancy bit per slot, as a real off-chip table would need.
  std::size_t size_in_bytes() const { return keys_.size() * 8 + (keys_.size() + 7) / 8; }

 private:
  std::vector<std::uint64_t> keys_;
  std::vector<std::uint8_t> used_;  // a byte per slot in memory; size_in_bytes counts a bit
};

}  // namespace amq
