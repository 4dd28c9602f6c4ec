// filters/static_common.h - what the static filters (XOR, binary fuse, Ribbon) share: the
// per-attempt seed schedule, lazy duplicate removal, fingerprint extraction and storage, a
// counting sort of hashes by their leading bits, the peeling solver of the XOR family, and
// the part of the XOR and binary fuse filters around it (PeeledFilterBase, at the end).
//
// Peeling (hypergraph 2-core removal, used by XOR and binary fuse filters): every key is an
// equation F[p_0] ^ ... ^ F[p_{a-1}] = fp(key) over the slot array F. A slot that only one
// remaining key touches can be solved last for that key, so it is removed together with the
// key, which may leave other slots with a single key. If every key gets removed, assigning
// the slots in reverse removal order satisfies every equation.
// The per-slot state is the "xor of keys" trick of Graf and Lemire: instead of lists of keys,
// each slot keeps how many keys touch it and the XOR of their hashes; when the count is 1, the
// XOR is the one remaining key's hash. The low 2 bits of the count byte hold the XOR of the
// position index (0 .. a-1) by which each key reaches the slot, so a slot with count 1 also
// says which of its key's positions it is, without re-deriving and comparing all of them.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "filters/bit_packed.h"
#include "core/batched.h"
#include "core/filter.h"
#include "core/hashing.h"

namespace amq::static_detail {

// Construction attempts before BuildFailed: at the sizes used here one attempt fails with
// probability well under 1%, so 100 failures in a row mean the input or settings are wrong.
inline constexpr int kMaxBuildAttempts = 100;

// The hash seed of attempt a: a fresh, unrelated hash function per attempt, and the same
// sequence of them for the same FilterParams.seed.
inline std::uint64_t AttemptSeed(std::uint64_t seed, int attempt) {
  return SpreadSeed(SpreadSeed(seed) + static_cast<std::uint64_t>(attempt));
}

// A sorted copy without duplicates. Only called after a failed attempt: a repeated key is a
// repeated equation, which no seed can peel (or, in Ribbon, a redundant row), and a sort of
// every input up front would cost more than the whole binary fuse construction.
inline std::vector<std::uint64_t> DistinctKeys(std::span<const std::uint64_t> keys) {
  std::vector<std::uint64_t> copy(keys.begin(), keys.end());
  std::sort(copy.begin(), copy.end());
  copy.erase(std::unique(copy.begin(), copy.end()), copy.end());
  return copy;
}

// The Ribbons' k-bit fingerprint of a hash: the top bits of an odd multiple. A Ribbon lookup is
// linear over GF(2) in the hash bits its coefficient row copies, so its fingerprint must not be
// a linear function of them (a solution would then answer yes to keys it never saw); the
// product's top bits depend on every bit of the hash, and nonlinearly.
inline constexpr std::uint64_t kFingerprintMultiplier = 0xd6e8feb86659fd93ULL;
inline std::uint64_t FingerprintOf(std::uint64_t hash, int bits) {
  return (hash * kFingerprintMultiplier) >> (64 - bits);
}

// The peeled filters' k-bit fingerprint (k <= 32): the hash's low k bits XOR bits 32.., a fold
// as FastFilter's XOR filters take theirs. A peeled lookup XORs the slots at its positions, a
// table lookup rather than a linear map of the hash bits, so the fold is enough: measured FPR
// over 2^-k 0.96-1.01 for k = 1..12 (n = 10^5, 4*10^6 absent keys; xor, binary fuse 3- and
// 4-wise), 0.99-1.01 at k = 8 and 1.005-1.015 at k = 16 (n = 10^6). It replaced the multiply
// of FingerprintOf on 2026-12-04: a shift and an XOR where the multiply took an imul and a
// 64-bit constant on each lookup, and out-of-line lookups at n = 10^6 took 3-10% less time
// against FastFilter's (median ratios, scripts/fastfilter_warm_builds.cc's lookups, three
// runs of each build, alternating).
inline std::uint64_t FoldedFingerprintOf(std::uint64_t hash, int bits) {
  return (hash ^ (hash >> 32)) & ((std::uint64_t{1} << bits) - 1);
}

// Slot storage of k-bit fingerprints: plain bytes or 16-bit words for k = 8 and 16 (a load
// per slot, nothing to unpack), bit-packed for any other width, so space is exactly k bits
// per slot either way.
template <int kBits>
class FingerprintArray {
 public:
  using Word = std::conditional_t<kBits == 8, std::uint8_t, std::uint16_t>;
  FingerprintArray() = default;
  FingerprintArray(std::size_t count, int bits) {
    if constexpr (kBits == 0) {
      packed_ = BitPackedArray<0>(count, bits);
    } else {
      words_.assign(count, 0);
    }
  }
  std::uint64_t get(std::size_t i) const {
    if constexpr (kBits == 0) {
      return packed_.get(i);
    } else {
      return words_[i];
    }
  }
  // Starts loading the cache lines of slot i: a bit-packed slot is read by an 8-byte load from
  // its first byte, which may run into the next line, so the line of that load's last byte is
  // asked for too (as cuckoo.h's PrefetchBucket does: a load that waits for a line nobody
  // prefetched stalls the batched pipeline behind it).
  void prefetch(std::size_t i) const {
    if constexpr (kBits == 0) {
      const std::uint8_t* first = packed_.data() + i * packed_.width() / 8;
      __builtin_prefetch(first);
      __builtin_prefetch(first + 7);
    } else {
      __builtin_prefetch(words_.data() + i);
    }
  }
  void set(std::size_t i, std::uint64_t v) {
    if constexpr (kBits == 0) {
      packed_.set(i, v);
    } else {
      words_[i] = static_cast<Word>(v);
    }
  }
  std::size_t size_in_bytes() const {
    if constexpr (kBits == 0) {
      return packed_.size_in_bytes();
    } else {
      return words_.size() * sizeof(Word);
    }
  }
  const std::uint8_t* data() const {
    if constexpr (kBits == 0) {
      return packed_.data();
    } else {
      return reinterpret_cast<const std::uint8_t*>(words_.data());
    }
  }

 private:
  static_assert(kBits == 0 || kBits == 8 || kBits == 16);
  std::vector<Word> words_;
  BitPackedArray<0> packed_;
};

// The hashes of keys under seed, counting-sorted by bucket = ReduceRange(hash, buckets), which
// is monotone in the hash: bucket b holds exactly the keys whose first slot lies in the b-th
// slice of the array, so processing them in bucket order walks the slot array front to back
// (cache-friendly). Each key is hashed twice (count, then place) rather than hashed once into
// a buffer: the ~11 instructions of a second hash cost less than writing and twice reading an
// 8-byte-per-key buffer that does not fit in cache.
inline void HashAndSortByBucket(std::span<const std::uint64_t> keys, std::uint64_t seed,
                                std::uint64_t buckets, std::vector<std::uint32_t>& offsets,
                                std::vector<std::uint64_t>& out) {
  offsets.assign(buckets + 1, 0);
  for (std::uint64_t key : keys) ++offsets[ReduceRange(HashKey(key, seed), buckets) + 1];
  for (std::uint64_t b = 0; b < buckets; ++b) offsets[b + 1] += offsets[b];
  out.resize(keys.size());
  for (std::uint64_t key : keys) {
    const std::uint64_t h = HashKey(key, seed);
    out[offsets[ReduceRange(h, buckets)]++] = h;
  }
}

// The peeling solver. Scratch vectors are members so retries reuse their memory.
template <int kArity>
class Peeler {
  static_assert(kArity == 3 || kArity == 4);

 public:
  // Peels the equations of `hashes` over `slots` slots; positions(h, out) writes the kArity
  // distinct slots of hash h with out[j] being position j. Returns false when a non-empty
  // 2-core remains (or a slot gathers 32 keys, on the way to its 6-bit count's overflow),
  // true when every key was removed. Either way `hashes` is overwritten: the counting pass
  // reads every hash before the first removal, so the removal order is written over them and
  // the build touches one 8-byte-per-key buffer, not two (as FastFilter's builds do); Assign
  // then takes the same span.
  //
  // kLowSlotsLast (Xor+, filters/xor_plus.h): the slots below low_slots are peeled only while no
  // other slot holds a single key. A key is assigned the slot it was peeled through, so the low
  // slots take keys only when nothing else can, and most of the array's spare slots end up
  // there. Any order peels the same hypergraph, so success does not depend on it.
  template <bool kLowSlotsLast = false, class Positions>
  bool Peel(std::span<std::uint64_t> hashes, std::size_t slots, Positions positions,
            std::size_t low_slots = 0) {
    counts_.assign(slots, 0);
    xors_.assign(slots, 0);
    std::array<std::uint32_t, kArity> p;
    // Every count ORed in as it grows: a slot reaching 32 keys (0x80) fails the attempt well
    // before its 6-bit count could wrap at 64, for one OR per update instead of a compare.
    std::uint8_t grown = 0;
    for (std::uint64_t h : hashes) {
      positions(h, p);
      for (int j = 0; j < kArity; ++j) {
        std::uint8_t& c = counts_[p[j]];
        c = static_cast<std::uint8_t>((c + 4) ^ j);
        grown |= c;
        xors_[p[j]] ^= h;
      }
    }
    if (grown >= 0x80) return false;

    // Depth-first: a slot freed by the key just removed is peeled next, while it is in cache.
    // A slot is pushed once at most (when its count first reaches 1), so the stack never holds
    // more than `slots`; pushes are branch-free (write, then advance when the count is 1),
    // since whether a random slot's count just reached 1 cannot be predicted.
    // With kLowSlotsLast the low slots wait on a stack of their own, popped when the first empties.
    stack_.resize(slots + 1);
    if constexpr (kLowSlotsLast) low_stack_.resize(low_slots + 1);
    std::size_t top = 0;
    std::size_t low_top = 0;
    const auto push = [&](std::uint32_t slot, bool single) {
      stack_[top] = slot;
      if constexpr (kLowSlotsLast) {
        const bool low = slot < low_slots;
        low_stack_[low_top] = slot;
        top += single & !low;
        low_top += single & low;
      } else {
        top += single;
      }
    };
    for (std::uint32_t i = 0; i < slots; ++i) push(i, (counts_[i] >> 2) == 1);
    order_found_.resize(hashes.size());
    std::size_t removed = 0;
    for (;;) {
      std::uint32_t i;
      if (top > 0) {
        i = stack_[--top];
      } else if (kLowSlotsLast && low_top > 0) {
        i = low_stack_[--low_top];
      } else {
        break;
      }
      const std::uint8_t count = counts_[i];
      if ((count >> 2) != 1) continue;  // emptied since it was pushed
      const std::uint64_t h = xors_[i];
      const int found = count & 3;
      hashes[removed] = h;
      order_found_[removed] = static_cast<std::uint8_t>(found);
      ++removed;
      positions(h, p);
      // The key leaves its other slots, in ascending position order (the removal order, hence
      // the filter's bytes, are those of a loop over every j skipping `found`); its own slot is
      // never popped again, so it is left as it is.
      // Position t < found is p[t], else p[t + 1]: selects on registers, where an index by
      // `found` would send p through memory on the chain to the next pop. (An x86-64-v3 build
      // turns one of them into a branch, 0.48 mispredicts per key under cachegrind at 10^6
      // keys, 4-wise; a mask forcing the select measured 6% slower in the -march=native build.)
#pragma GCC unroll 4
      for (int t = 0; t < kArity - 1; ++t) {
        const bool skip = t >= found;
        const int j = t + skip;
        const std::uint32_t slot = skip ? p[t + 1] : p[t];
        const std::uint8_t before = counts_[slot];
        counts_[slot] = static_cast<std::uint8_t>((before - 4) ^ j);
        xors_[slot] ^= h;
        // Tested on the count before the decrement (2 keys, now 1), which keeps the subtraction
        // off the chain that the next pop waits for.
        push(slot, (before >> 2) == 2);
      }
    }
    return removed == hashes.size();
  }

  // Solves the slots in reverse removal order: a key's own slot is still zero when its turn
  // comes (every key touching it was removed earlier, so is assigned later), hence the slot
  // value is the fingerprint XOR all of the key's positions.
  template <class Positions, class Store, class Fingerprint>
  void Assign(std::span<const std::uint64_t> order, Positions positions, Store& store,
              Fingerprint fingerprint) const {
    std::array<std::uint32_t, kArity> p;
    for (std::size_t s = order.size(); s-- > 0;) {
      const std::uint64_t h = order[s];
      positions(h, p);
      std::uint64_t v = fingerprint(h);
      for (int j = 0; j < kArity; ++j) v ^= store.get(p[j]);
      store.set(p[order_found_[s]], v);
    }
  }

 private:
  std::vector<std::uint8_t> counts_;
  std::vector<std::uint64_t> xors_;
  std::vector<std::uint32_t> stack_;
  std::vector<std::uint32_t> low_stack_;
  std::vector<std::uint8_t> order_found_;
};

}  // namespace amq::static_detail

namespace amq {

// Construction settings the tests may override to force the failure path.
struct StaticBuildOptions {
  int max_attempts = static_detail::kMaxBuildAttempts;
  std::size_t slots_override = 0;  // 0: the family's own sizing
};

}  // namespace amq

namespace amq {

// What the peeled filters (XOR, binary fuse) share: the construction by peeling with its
// retries, the k-bit slot array, and the lookups, which XOR a key's kArity slots. They differ in
// how slots are laid out and placed, so Derived supplies build()'s lay_out step (below),
// Positions(hash, out) and Probe(located). CRTP, not virtual calls: contains() and
// contains_many() inline Derived's Positions and Probe as they did when each filter spelled
// them out, so the lookups compile to the same code.
template <class Derived, int kFixedBits, int kArity>
class PeeledFilterBase {
  static_assert(kFixedBits == 0 || kFixedBits == 8 || kFixedBits == 16);

 public:
  bool contains(std::uint64_t key) const { return derived().Probe(Locate(key)); }

  // kArity cache lines per key: the pipeline (core/batched.h) keeps 16 keys' lines in flight,
  // 64 keys' in a table of kFarBytes or more. There each line also waits for a page walk (4 KiB
  // pages, as every table gets them), and 48 lines in flight leave the memory system idle: at
  // n = 2^24 (18-20 MiB) on this machine 64 keys ahead took 0.65-0.85 of 16's time per key, xor8
  // and binary_fuse8 in 6 of 6 alternating rounds (an earlier trial: 8 of 10 under 0.9, two at
  // 1.05 and 1.08; after the change 0.75-0.95 in 12 of 12), while at 2^20, 2^22 and 2^23 (1.1-9.4 MiB)
  // it was no faster, or up to 5% slower (3 rounds each). Chosen once per call, outside the loop.
  static constexpr std::size_t kFarBytes = std::size_t{16} << 20;
  std::size_t contains_many(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
    return fingerprints_.size_in_bytes() >= kFarBytes ? contains_many_ahead<64>(keys, out)
                                                      : contains_many_ahead<16>(keys, out);
  }
  // The batched lookup with kAhead keys' lines in flight, whatever the table's size: the tests
  // hold both depths to contains() on tables far smaller than kFarBytes.
  template <std::size_t kAhead>
  std::size_t contains_many_ahead(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
    return PipelinedContains<kAhead>(
        keys, out,
        [this](std::uint64_t key) {
          const Located l = Locate(key);
          for (std::uint32_t p : l.positions) fingerprints_.prefetch(p);
          return l;
        },
        [this](const Located& l) { return derived().Probe(l); });
  }

  std::size_t size_in_bytes() const { return fingerprints_.size_in_bytes(); }
  std::span<const std::uint8_t> bytes() const {
    return {fingerprints_.data(), fingerprints_.size_in_bytes()};
  }
  int fingerprint_bits() const { return bits_; }
  std::size_t slots() const { return slots_; }
  int build_attempts() const { return attempts_; }

 protected:
  using Store = static_detail::FingerprintArray<kFixedBits>;

  // What a lookup reads, derived from the key's hash.
  struct Located {
    std::array<std::uint32_t, kArity> positions;
    std::uint64_t fingerprint;
  };

  const Derived& derived() const { return static_cast<const Derived&>(*this); }

  Located Locate(std::uint64_t key) const {
    const std::uint64_t h = HashKey(key, seed_);
    Located l;
    derived().Positions(h, l.positions);
    l.fingerprint = Fingerprint(h);
    return l;
  }

  std::uint64_t Fingerprint(std::uint64_t h) const {
    return static_detail::FoldedFingerprintOf(h, kFixedBits ? kFixedBits : bits_);
  }

  // The construction into f (bits_ already set): attempt after attempt, under the seed
  // schedule's next seed, lay_out(keys) sets f's geometry for those keys and returns their
  // hashes under seed_ (in its own order: binary fuse sorts them); peel, and once every key
  // peels, assign the slots. A repeated key never peels, so after the first failure the repeats
  // are removed (a sort only a failed input pays for) and later attempts size for the distinct
  // keys. BuildFailed after options.max_attempts.
  // kLowSlotsLast: the peel takes the slots below f.LowSlots() last (Peeler::Peel).
  template <bool kLowSlotsLast = false, class LayOut>
  static void BuildByPeeling(Derived& f, std::span<const std::uint64_t> keys, std::uint64_t seed,
                             const StaticBuildOptions& options, LayOut lay_out) {
    std::vector<std::uint64_t> distinct;
    static_detail::Peeler<kArity> peeler;
    const auto positions = [&f](std::uint64_t h, std::array<std::uint32_t, kArity>& out) {
      f.Positions(h, out);
    };
    for (int attempt = 0; attempt < options.max_attempts; ++attempt) {
      f.seed_ = static_detail::AttemptSeed(seed, attempt);
      f.attempts_ = attempt + 1;
      const std::span<std::uint64_t> hashes = lay_out(keys);
      bool peeled;
      if constexpr (kLowSlotsLast) {
        peeled = peeler.template Peel<true>(hashes, f.slots_, positions, f.LowSlots());
      } else {
        peeled = peeler.Peel(hashes, f.slots_, positions);
      }
      if (peeled) {
        f.fingerprints_ = Store(f.slots_, f.bits_);
        peeler.Assign(hashes, positions, f.fingerprints_,
                      [&f](std::uint64_t h) { return f.Fingerprint(h); });
        f.keys_ = keys.size();
        return;
      }
      if (attempt == 0 && distinct.empty()) {
        distinct = static_detail::DistinctKeys(keys);
        f.duplicates_ = keys.size() - distinct.size();
        if (f.duplicates_ > 0) keys = distinct;
      }
    }
    throw BuildFailed(std::string(Derived::kName) + ": peeling failed " +
                      std::to_string(options.max_attempts) + " times for " +
                      std::to_string(keys.size()) + " keys");
  }

  int bits_ = 8;
  std::uint64_t seed_ = 0;
  std::size_t slots_ = 0;
  std::size_t keys_ = 0;
  std::size_t duplicates_ = 0;
  int attempts_ = 0;
  Store fingerprints_;
};

}  // namespace amq
